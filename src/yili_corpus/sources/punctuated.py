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

import re

from ..model import GETA, ParsedSource, SourceUnit, is_text_char
from .reader import LineText, strip_span

#: Marks that end a unit (an ASCII comma too: the transcriptions of 士昏礼 … type one now and then).
STOPS = "，。；：！？,"
#: Marks that may stand inside a unit: book titles, the enumeration comma, quotation marks (this
#: file's and 『』「」 of others), the dash (侑币－－束锦也).
INNER = "《》、·『』「」－"
#: What stands for ONE character the transcription could not type: □ (a lost or unreadable
#: character), a description by components in braces or angle brackets ({曰鼎}, <赤巠> written
#: ``&lt;赤巠&gt;``, 〈厂非〉), or a run of ASCII letters and digits (``j3四豆``, 士虞礼). Each is kept
#: in its unit and read as :data:`~yili_corpus.model.GETA` in the key (``meta["skips"]``), so it
#: matches the character another witness has there.
PLACEHOLDER_RE = re.compile(r"□|\{[^{}]{1,8}\}|&lt;[^&]{1,8}&gt;|<[^<>]{1,8}>|〈[^〈〉]{1,8}〉|[A-Za-z0-9]+")


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
        held = {m.start(): m.end() for m in PLACEHOLDER_RE.finditer(ln)}
        j = 0
        while j <= len(ln):
            ch = ln[j] if j < len(ln) else ""
            if j in held:  # one character the transcription could not type
                j = held[j]
                continue
            if ch and ch not in STOPS:
                if not (is_text_char(ch) or ch.isspace() or ch in INNER):
                    raise lt.error(f"unexpected character {ch!r} (U+{ord(ch):04X}) at column {j}", lineno)
                j += 1
                continue
            c0, c1 = strip_span(ln, start, j)
            skips = [(a - c0, b - c0, GETA) for a, b in held.items() if c0 <= a and b <= c1]
            if skips or any(is_text_char(c) for c in ln[c0:c1]):
                piece += 1
                meta: dict[str, object] = {"para": para, "piece": piece, "mark": ch}
                if skips:
                    meta["skips"] = skips
                units.append(lt.unit("text", lineno, c0, c1, **meta))
            elif ch:
                raise lt.error(f"a mark {ch!r} with no text before it at column {j}", lineno)
            start = j + 1
            j += 1
    if not units:
        raise lt.error("no text found", 1)
    return ParsedSource(source_id, path, text, units, [])
