"""Parser for a punctuated 经 text, one paragraph a line (``niutrans-yili``, format ``punctuated``).

The 经 and 记 in simplified characters with modern punctuation, no commentary: every non-empty
line is a paragraph, and every stretch between two marks of ``，。；：！？`` is a ``text`` unit with
the mark that ends it (``meta["mark"]``; ``""`` at a line end without one), its paragraph and its
number in the paragraph. Book-title marks ``《》``, ``、`` and ``·`` stay inside a unit; a space
stands where the transcription removed a quotation mark (``曰： 正歌备。 ``) and is kept outside
the units. The marks are the transcriber's, not the edition's: the build reads them as evidence
for clause division, never as the text.
"""

from __future__ import annotations

from ..model import ParsedSource, SourceUnit, is_text_char
from .reader import LineText, strip_span

#: Marks that end a unit.
STOPS = "，。；：！？"
#: Marks that may stand inside a unit.
INNER = "《》、·"


def parse(source_id: str, text: str, path: str, **options: object) -> ParsedSource:
    """Parse a punctuated text into clause units grouped by paragraph (``meta["para"]``)."""
    lt = LineText(source_id, text, path)
    units: list[SourceUnit] = []
    para = 0
    for lineno, _off, ln in lt:
        if not ln.strip():
            continue
        para += 1
        piece = 0
        start = 0
        for j in range(len(ln) + 1):
            ch = ln[j] if j < len(ln) else ""
            if ch and ch not in STOPS:
                if not (is_text_char(ch) or ch.isspace() or ch in INNER):
                    raise lt.error(f"unexpected character {ch!r} (U+{ord(ch):04X}) at column {j}", lineno)
                continue
            c0, c1 = strip_span(ln, start, j)
            if any(is_text_char(c) for c in ln[c0:c1]):
                piece += 1
                units.append(lt.unit("text", lineno, c0, c1, para=para, piece=piece, mark=ch))
            elif ch:
                raise lt.error(f"a mark {ch!r} with no text before it at column {j}", lineno)
            start = j + 1
    if not units:
        raise lt.error("no text found", 1)
    return ParsedSource(source_id, path, text, units, [])
