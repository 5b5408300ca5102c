"""Parser for the 记-with-translation format (source 004).

Paragraphs, one a line: 记 text (punctuated), its translation, a numbered paragraph ``53.…``
carrying note markers ``〔n〕``, its translation, a line of notes ``〔1〕…〔12〕…``, then lemma notes
``lemma：gloss``, one a line. Text and translation are told apart by modern function words (the
``modern`` rows of the genre table).
Placeholders such as ``[生僻字详见原文]`` stand where a character could not be typed: they are
reported as noise and marked in the unit so that the collation sees a missing character.
"""

from __future__ import annotations

import re

from ..model import ParsedSource, SourceUnit
from .common import genre_option, placeholder_skips
from .reader import LineText, strip_span

PARA_NO_RE = re.compile(r"^(\d{1,3})\s*[.．、]\s*")
MARKER_RE = re.compile(r"〔(\d{1,3})〕")


def parse(source_id: str, text: str, path: str, **options: object) -> ParsedSource:
    """Parse 记 text, translation and the two series of notes."""
    lt = LineText(source_id, text, path)
    genre = genre_option(options)
    units: list[SourceUnit] = []
    noise = []
    para = 0
    label: int | None = None
    for lineno, _off, ln in lt:
        if not ln.strip():
            continue
        c0, c1 = strip_span(ln, 0, len(ln))
        s = ln[c0:c1]
        if s.startswith("〔"):
            starts = list(MARKER_RE.finditer(ln, c0, c1))
            if not starts or starts[0].start() != c0:
                raise lt.error("a note line must open with 〔n〕", lineno)
            prev = None
            for i, m in enumerate(starts):
                n = int(m.group(1))
                if prev is not None and n != prev + 1:
                    raise lt.error(f"note numbering: expected 〔{prev + 1}〕, found 〔{n}〕", lineno)
                prev = n
                end = starts[i + 1].start() if i + 1 < len(starts) else c1
                b0, b1 = strip_span(ln, m.end(), end)
                body = ln[b0:b1]
                k = body.find("：")
                meta = {"n": n, "series": "〔〕", "para_label": label, "label": (m.start(), m.end())}
                if 0 < k <= 40:
                    meta["lemma"] = body[:k]
                units.append(lt.unit("note", lineno, b0, b1, **meta))
            continue
        k = s.find("：")
        if 0 < k <= 40 and not MARKER_RE.search(s[:k]) and not PARA_NO_RE.match(s):
            lemma = s[:k]
            if "。" not in lemma:
                units.append(lt.unit("note", lineno, c0, c1, lemma=lemma, series="lemma"))
                continue
        m = PARA_NO_RE.match(s)
        col = c0
        if m:
            label = int(m.group(1))
            col = c0 + m.end()
        body = ln[col:c1]
        skips: list[tuple[int, int, str]] = [
            (mm.start(), mm.end(), "") for mm in MARKER_RE.finditer(body)
        ]
        markers = [(int(mm.group(1)), mm.start()) for mm in MARKER_RE.finditer(body)]
        skips += placeholder_skips(body)
        for a, b, rep in skips:
            if rep:
                noise.append(lt.noise(lineno, col + a, col + b,
                                      "placeholder for a character the transcription could not type"))
        if genre.is_modern(body):
            units.append(lt.unit("trans", lineno, col, c1, para=para, para_label=label,
                                 skips=sorted(skips)))
        else:
            para += 1
            units.append(lt.unit("text", lineno, col, c1, para=para, para_label=label,
                                 markers=markers, skips=sorted(skips)))
    if not units:
        raise lt.error("no paragraph found", 1)
    return ParsedSource(source_id, path, text, units, noise)
