"""Parser for Kanripo's mandoku text format (a witness a user imports).

Lines beginning with ``#`` are header or comment lines. ``<pb:…>`` marks a page, ``¶`` the end
of a line of the printed page; both are dropped from the text. Small-print commentary stands in
parentheses after the words it explains, with ``/`` where its column breaks; it becomes a note
unit with the ``/`` removed. Every unit keeps its line and columns.
"""

from __future__ import annotations

import re

from ..model import ParsedSource, SourceUnit
from .reader import LineText

PB_RE = re.compile(r"<pb:[^>]*>")
OPEN, CLOSE = "（(", "）)"


def parse(source_id: str, text: str, path: str, **options: object) -> ParsedSource:
    """Parse a mandoku file into ``text`` pieces and ``zhu`` notes (the parenthesised commentary)."""
    lt = LineText(source_id, text, path)
    units: list[SourceUnit] = []
    noise = []
    piece = 0
    depth_at: tuple[int, int] | None = None  # (line, col) where an open note began
    note_buf: list[tuple[int, int, int]] = []
    notes = 0
    for lineno, _off, ln in lt:
        if ln.startswith("#"):
            if ln.strip():
                noise.append(lt.noise(lineno, 0, len(ln), "mandoku header or comment line"))
            continue
        for m in PB_RE.finditer(ln):
            noise.append(lt.noise(lineno, m.start(), m.end(), "page marker"))
        clean = PB_RE.sub(lambda m: " " * len(m.group(0)), ln)
        i = 0
        start = 0
        while i <= len(clean):
            ch = clean[i] if i < len(clean) else None
            if depth_at is None and (ch is None or ch in OPEN):
                a, b = start, i
                seg = clean[a:b].replace("¶", " ")
                if seg.strip():
                    lo = a + len(seg) - len(seg.lstrip())
                    hi = b - (len(seg) - len(seg.rstrip()))
                    piece += 1
                    units.append(lt.unit("text", lineno, lo, hi, para=1, piece=piece))
                if ch is not None:
                    depth_at = (lineno, i)
                    start = i + 1
            elif depth_at is not None and (ch is None or ch in CLOSE):
                if clean[start:i].strip():
                    note_buf.append((lineno, start, i))
                if ch is not None:
                    parts = note_buf
                    note_buf = []
                    notes += 1
                    for k, (nl, a, b) in enumerate(parts):
                        units.append(lt.unit("zhu", nl, a, b, para=1, after_piece=piece, n=notes, part=k))
                    depth_at = None
                    start = i + 1
            elif ch is not None and ch in OPEN:
                raise lt.error(f"unbalanced parentheses: （ at column {i} inside the note opened at line {depth_at[0] if depth_at else lineno}", lineno)
            elif ch is not None and ch in CLOSE:
                raise lt.error(f"unbalanced parentheses: ） at column {i} closes nothing", lineno)
            i += 1
    if depth_at is not None:
        raise lt.error("a note opened here is never closed", depth_at[0])
    if not any(u.kind == "text" for u in units):
        raise lt.error("no text found", 1)
    return ParsedSource(source_id, path, text, units, noise)


def note_text(u: SourceUnit) -> str:
    """A note's text with its column breaks (/) and line ends (¶) removed."""
    return u.text.replace("/", "").replace("¶", "").strip()
