"""Parser for the annotated-translation page format (source 002).

The page holds numbered notes ``（22）lemma：gloss`` — several may share a line — then a
``【译文】`` heading and the translation paragraphs, one a line. A note whose text opens with
``此节述…之仪`` opens a section (a section summary: the ``summary-open`` and ``summary-close``
rows of the genre table). Text before the first numbered note is the
tail of a note that began on the previous page. Page titles, page headers ``(第2/3页)`` and
navigation text (``请点击下一页``) are reported as noise.
"""

from __future__ import annotations

import re

from ..genre import Genre
from ..model import ParsedSource, SourceUnit
from .common import NAVIGATION_RE, PAGE_HEADER_RE, genre_option
from .reader import LineText, strip_span

NOTE_START_RE = re.compile(r"（(\d{1,4})）")
TRANS_HEADING = "【译文】"


def note_meta(body: str, genre: Genre) -> dict[str, object]:
    """Lemma (text before the first ：) and section-opener information of a note body."""
    meta: dict[str, object] = {}
    m = genre.summary_re.match(body)
    if m:
        meta["opener"] = True
        meta["summary"] = m.group(0)
        rest = body[m.end():].lstrip("。．.")
        body_for_lemma = rest
    else:
        body_for_lemma = body
    k = body_for_lemma.find("：")
    if 0 < k <= 60:
        lemma = body_for_lemma[:k]
        # text before the lemma proper ("至此，第一阶段射事结束。楅") ends with 。
        lemma = lemma.rsplit("。", 1)[-1].strip()
        if lemma:
            meta["lemma"] = lemma
    return meta


def parse(source_id: str, text: str, path: str, **options: object) -> ParsedSource:
    """Parse notes, section summaries and translation paragraphs."""
    lt = LineText(source_id, text, path)
    genre = genre_option(options)
    units: list[SourceUnit] = []
    noise = []
    expected: int | None = None
    pending: list[SourceUnit] = []
    in_trans = False
    trans_para = 0
    for lineno, _off, ln in lt:
        if not ln.strip():
            continue
        c0, c1 = strip_span(ln, 0, len(ln))
        s = ln[c0:c1]
        if NAVIGATION_RE.search(s):
            noise.append(lt.noise(lineno, c0, c1, "navigation text of the web page"))
            continue
        if PAGE_HEADER_RE.search(s):
            noise.append(lt.noise(lineno, c0, c1, "page header (title and page number)"))
            continue
        if s == TRANS_HEADING:
            noise.append(lt.noise(lineno, c0, c1, "heading 【译文】 that opens the translation"))
            in_trans = True
            continue
        if in_trans:
            trans_para += 1
            units.append(lt.unit("trans", lineno, c0, c1, para=trans_para))
            continue
        starts = []
        for m in NOTE_START_RE.finditer(ln):
            n = int(m.group(1))
            at_break = m.start() == c0 or ln[m.start() - 1] in "。；！？” \u3000）"
            if expected is None or (n == expected and at_break):
                starts.append((m.start(), m.end(), n))
                expected = n + 1
            elif m.start() == c0 or (at_break and n > expected):
                # a number that skips ahead where a note would start: a lost or misnumbered note
                raise lt.error(f"note numbering: expected （{expected}）, found （{n}） at column {m.start()}", lineno)
        if expected is None:
            # before the first note: a page title, or the tail of a note begun on the page before
            if not re.search(r"[。，：]", s) and len(s) <= 20:
                noise.append(lt.noise(lineno, c0, c1, "page title"))
                continue
            pending.append(lt.unit("note", lineno, c0, c1, fragment="tail", series="（）"))
            continue
        if pending:
            first_n = starts[0][2] if starts else None
            if first_n is None:
                raise lt.error("no numbered note after the note fragment", lineno)
            for u in pending:
                u.meta["n"] = first_n - 1
            units.extend(pending)
            pending = []
        if not starts or starts[0][0] > c0:
            # a line that continues the note before it
            end_c = starts[0][0] if starts else c1
            a, b = strip_span(ln, c0, end_c)
            if not units or units[-1].kind != "note":
                raise lt.error(f"text outside any note: {s[:20]!r}", lineno)
            units.append(lt.unit("note", lineno, a, b, n=units[-1].meta["n"],
                                 fragment="continuation", series="（）"))
        for i, (a0, a1, n) in enumerate(starts):
            end_c = starts[i + 1][0] if i + 1 < len(starts) else c1
            b0, b1 = strip_span(ln, a1, end_c)
            body = ln[b0:b1]
            units.append(lt.unit("note", lineno, b0, b1, n=n, series="（）", label=(a0, a1),
                                 **note_meta(body, genre)))
    if not any(u.kind == "note" for u in units):
        raise lt.error("no numbered note found", 1)
    return ParsedSource(source_id, path, text, units, noise)
