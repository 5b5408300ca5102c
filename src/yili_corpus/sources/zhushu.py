"""Parser for the 注疏 format (source 003, 阮刻《仪礼注疏》 layout).

* a 经 paragraph is a line of 经 text with 郑注 in full-width parentheses after the words
  it explains: ``司正为司马。（兼官，由便也。）``;
* a 疏 block opens with ``[疏]“X”至“Y”。`` or ``[疏]“X”。`` (optionally ``[疏]注“X”…``) naming the
  range it comments on, then ``○注“X”至“Y”。`` naming a 注 range, and ``○释曰：…`` parts;
* ``●卷十二乡射礼第五`` is a volume marker of the printed edition;
* a first line without punctuation is the book title of the page.
"""

from __future__ import annotations

import re

from ..model import ParsedSource, SourceUnit
from .reader import LineText, strip_span

LEMMA_RE = re.compile(r"^(注)?“([^“”]*)”(?:至“([^“”]*)”)?[。.]?\s*$")
OPEN, CLOSE = "（", "）"


def _lemma(lt: LineText, lineno: int, body: str, what: str) -> tuple[str, str, str | None]:
    m = LEMMA_RE.match(body)
    if not m:
        raise lt.error(
            f"{what} lemma must read “X”至“Y”。 or “X”。, found {body[:30]!r}", lineno
        )
    return ("zhu" if m.group(1) else "jing", m.group(2), m.group(3))


def parse(source_id: str, text: str, path: str, **options: object) -> ParsedSource:
    """Parse a 注疏 file into 经 pieces, 注 notes and 疏 parts."""
    lt = LineText(source_id, text, path)
    units: list[SourceUnit] = []
    noise = []
    para = 0
    block = 0
    zhu_no = 0
    in_block = False
    first = True
    for lineno, _off, ln in lt:
        s = ln.strip()
        if not s:
            continue
        c0, c1 = strip_span(ln, 0, len(ln))
        if first and not re.search(r"[。，：（“]", s):
            noise.append(lt.noise(lineno, c0, c1, "book title at the head of the page"))
            first = False
            continue
        first = False
        if s.startswith("●"):
            noise.append(lt.noise(lineno, c0, c1, "volume marker of the printed edition (●卷…)"))
            continue
        if s.startswith("[疏]"):
            target, frm, to = _lemma(lt, lineno, s[len("[疏]"):], "[疏]")
            if para == 0:
                raise lt.error("[疏] block before any 经 paragraph", lineno)
            block += 1
            in_block = True
            units.append(
                lt.unit("shu", lineno, c0, c1, role="lemma", block=block, para=para,
                        target=target, lemma_from=frm, lemma_to=to)
            )
            continue
        if s.startswith("○注"):
            if not in_block:
                raise lt.error("○注 part outside a [疏] block", lineno)
            _t, frm, to = _lemma(lt, lineno, s[len("○注"):], "○注")
            units.append(
                lt.unit("shu", lineno, c0, c1, role="zhu_lemma", block=block, para=para,
                        lemma_from=frm, lemma_to=to)
            )
            continue
        if s.startswith("○"):
            if not in_block:
                raise lt.error("○ part outside a [疏] block", lineno)
            if not s.startswith("○释曰"):
                raise lt.error(f"unknown ○ part {s[:6]!r} (expected ○注 or ○释曰)", lineno)
            units.append(lt.unit("shu", lineno, c0, c1, role="body", block=block, para=para))
            continue
        # a 经 paragraph with its 注
        in_block = False
        para += 1
        piece = 0
        depth_open = -1
        start = c0
        for j in range(c0, c1 + 1):
            ch = ln[j] if j < c1 else None
            if ch == OPEN:
                if depth_open >= 0:
                    raise lt.error(f"unbalanced parentheses: （ at column {j} inside the note opened at column {depth_open}", lineno)
                a, b = strip_span(ln, start, j)
                if b > a:
                    piece += 1
                    units.append(lt.unit("text", lineno, a, b, para=para, piece=piece))
                depth_open = j
                start = j + 1
            elif ch == CLOSE:
                if depth_open < 0:
                    raise lt.error(f"unbalanced parentheses: ） at column {j} closes nothing", lineno)
                a, b = strip_span(ln, start, j)
                zhu_no += 1
                units.append(
                    lt.unit("zhu", lineno, a, b, para=para, after_piece=piece, n=zhu_no,
                            paren=(depth_open, j + 1))
                )
                depth_open = -1
                start = j + 1
            elif ch is None:
                if depth_open >= 0:
                    raise lt.error(f"unbalanced parentheses: （ at column {depth_open} is never closed (truncated line?)", lineno)
                a, b = strip_span(ln, start, j)
                if b > a:
                    piece += 1
                    units.append(lt.unit("text", lineno, a, b, para=para, piece=piece))
    if para == 0:
        raise lt.error("no 经 paragraph found", 1)
    return ParsedSource(source_id, path, text, units, noise)
