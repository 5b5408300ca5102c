"""Scholar's overrides of the aligner: ``corpus/alignment-overrides.tsv``.

Each row pins one unit to a stretch of the 经/记 given by its first and last words:

    layer  source  line  item  from  to  reason

* ``trans``: ``item`` is the sentence number in the translation paragraph on ``line``; the sentence
  is linked to the clauses from the one containing ``from`` to the one containing ``to`` (looked
  for near the paragraph's place), and those clauses are taken from the other sentences.
* ``note``: ``item`` is the note number (or ``-`` for an unnumbered lemma note on ``line``); the
  note is anchored to the span from ``from`` to ``to``.

A row that no longer matches anything (no such unit, words not found) is reported, not applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError
from ..tables import read_table

COLUMNS = ["layer", "source", "line", "item", "from", "to", "reason"]


@dataclass
class Override:
    """One row of the override table."""

    layer: str
    source: str
    line: int
    item: str
    frm: str
    to: str
    reason: str
    row: int


def load_overrides(path: Path | str) -> list[Override]:
    """Read the override table (a missing file means no overrides)."""
    p = Path(path)
    if not p.exists():
        return []
    out: list[Override] = []
    for i, cells in read_table(p, COLUMNS, "override table"):
        if len(cells) != len(COLUMNS) or not all(c.strip() for c in cells):
            raise DataError(f"override row needs {len(COLUMNS)} non-empty cells", str(p), i)
        layer, source, line, item, frm, to, reason = (c.strip() for c in cells)
        if layer not in ("trans", "note"):
            raise DataError(f"override layer must be trans or note, found {layer!r}", str(p), i)
        try:
            lineno = int(line)
        except ValueError:
            raise DataError(f"override line {line!r} is not a number", str(p), i) from None
        out.append(Override(layer, source, lineno, item, frm, to, reason, i))
    return out
