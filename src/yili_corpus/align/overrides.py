"""Scholar's overrides of the aligner: ``corpus/alignment-overrides.tsv``.

Each row pins one unit to a stretch of the 经/记 given by its first and last words:

    layer  source  line  item  from  to  reason

* ``trans``: ``item`` is the sentence number in the translation paragraph on ``line``; the sentence
  is linked to the clauses from the one containing ``from`` to the one containing ``to`` (looked
  for near the paragraph's place), and those clauses are taken from the other sentences.
* ``note``: ``item`` is the note number (or ``-`` for an unnumbered lemma note on ``line``); the
  note is anchored to the span from ``from`` to ``to``.

A row that no longer matches anything (no such unit, words not found) is reported, not applied.
:func:`apply_trans_overrides` and :func:`apply_note_overrides` apply the rows to what the aligners
made; each returns the rows that matched nothing.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..tables import read_table
from ..text.collate import Collation
from ..text.normalise import Normaliser
from .duplicates import TransLink
from .notes import NoteAnchor
from .translation import SentenceLink

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


def clause_span(col: Collation, norm: Normaliser, frm: str, to: str, near: int) -> tuple[int, int] | None:
    """Clause indices (first, last) from the clause holding ``frm`` to the one holding ``to``,
    the occurrence of ``frm`` nearest to clause ``near``."""
    kf, kt = norm.key(frm), norm.key(to)
    K = col.base.key
    cands = []
    i = K.find(kf)
    while i >= 0:
        cands.append(i)
        i = K.find(kf, i + 1)
    if not cands or not kt:
        return None
    starts = [a for a, _b, _u in col.base.clauses]
    anchor = starts[min(near, len(starts) - 1)]
    i = min(cands, key=lambda x: abs(x - anchor))
    j = K.find(kt, i)
    if j < 0:
        return None
    c0 = bisect.bisect_right(starts, i) - 1
    c1 = bisect.bisect_right(starts, j + len(kt) - 1) - 1
    return c0, c1


def apply_trans_overrides(
    overrides: list[Override], translations: list[TransLink], col: Collation, norm: Normaliser
) -> list[dict[str, Any]]:
    """Link each overridden translation sentence to its clauses, taking them from the other
    sentences of its paragraph; returns the rows that match nothing."""
    stale: list[dict[str, Any]] = []
    for o in overrides:
        if o.layer != "trans":
            continue
        t = next((x for x in translations if x.unit.source == o.source and x.unit.line == o.line), None)
        try:
            si = int(o.item) - 1
        except ValueError:
            si = -1
        if t is None or not 0 <= si < len(t.sentences):
            stale.append({"row": o.row, "reason": f"no sentence {o.item} of a translation paragraph at {o.source} line {o.line}"})
            continue
        span = clause_span(col, norm, o.frm, o.to, t.first)
        if span is None:
            stale.append({"row": o.row, "reason": f"{o.frm!r}…{o.to!r} not found in the 经/记"})
            continue
        clauses = list(range(span[0], span[1] + 1))
        for lk in t.links:
            if si in lk.sentences:
                lk.sentences.remove(si)
            lk.clauses = [c for c in lk.clauses if c not in clauses]
        t.links = [lk for lk in t.links if lk.sentences and lk.clauses]
        t.links.append(SentenceLink(t.links[0].para if t.links else 0, [si], clauses, 1.0, override=o.row))
        t.links.sort(key=lambda lk: (lk.sentences[0], lk.clauses[0]))
        cl = [c for lk in t.links for c in lk.clauses]
        t.first, t.last = min(cl), max(cl)
    return stale


def apply_note_overrides(
    overrides: list[Override], notes: list[NoteAnchor], col: Collation, norm: Normaliser
) -> list[dict[str, Any]]:
    """Anchor each overridden note to its span (base-key offsets); returns the rows that match
    nothing."""
    stale: list[dict[str, Any]] = []
    for o in overrides:
        if o.layer != "note":
            continue
        a = next(
            (x for x in notes if x.unit.source == o.source and x.unit.line == o.line
             and (o.item == "-" or str(x.unit.meta.get("n")) == o.item)),
            None,
        )
        near = 0
        if a is not None and a.start is not None:
            near = bisect.bisect_right([s for s, _e, _u in col.base.clauses], a.start) - 1
        span = clause_span(col, norm, o.frm, o.to, near) if a is not None else None
        if a is None or span is None:
            stale.append({"row": o.row, "reason": f"no note {o.item} at {o.source} line {o.line}, or its words not found"})
            continue
        kf = norm.key(o.frm)
        a0 = col.base.clauses[span[0]][0]
        i = col.base.key.find(kf, a0)
        j = col.base.key.find(norm.key(o.to), i)
        a.start, a.end = i, j + len(norm.key(o.to))
        a.how = f"override (corpus/alignment-overrides.tsv row {o.row}): {o.reason}"
    return stale
