"""Parser for the 白文 format (source 001): the whole 经 and 记 on one line, clauses ended by ．.

An optional title stands before the first space (``乡射礼 乡射之礼．…``). Every clause becomes a
``text`` unit; the title is reported as noise. A file whose last clause has no closing ．is
refused as truncated.
"""

from __future__ import annotations

from ..model import ParsedSource, is_text_char
from .reader import LineText, strip_span

STOP = "．"


def parse(source_id: str, text: str, path: str, **options: object) -> ParsedSource:
    """Parse a 白文 file into clause units."""
    lt = LineText(source_id, text, path)
    units = []
    noise = []
    clause_no = 0
    seen_text = False
    for lineno, _off, ln in lt:
        if not ln.strip():
            continue
        i = 0
        if not seen_text:
            sp = ln.find(" ")
            stop = ln.find(STOP)
            if 0 < sp and (stop < 0 or sp < stop):
                c0, c1 = strip_span(ln, 0, sp)
                noise.append(lt.noise(lineno, c0, c1, "title line of the page (the chapter title is in the TEI header)"))
                i = sp + 1
        seen_text = True
        start = i
        for j in range(i, len(ln) + 1):
            ch = ln[j] if j < len(ln) else None
            if ch == STOP or ch is None:
                c0, c1 = strip_span(ln, start, j)
                if c1 > c0:
                    if ch is None:
                        raise lt.error(
                            f"truncated: the last clause {ln[c0:c1][-8:]!r} has no closing {STOP}", lineno
                        )
                    inner = next((k for k in range(c0, c1) if ln[k].isspace()), None)
                    if inner is not None:
                        raise lt.error(f"white space inside a clause at column {inner} (a lost {STOP}?)", lineno)
                    clause_no += 1
                    units.append(lt.unit("text", lineno, c0, c1, clause=clause_no))
                start = j + 1
            elif not ch.isspace() and not is_text_char(ch):
                raise lt.error(f"unexpected character {ch!r} (U+{ord(ch):04X}) at column {j}", lineno)
    if not units:
        raise lt.error("no clauses found", 1)
    return ParsedSource(source_id, path, text, units, noise)
