"""Step 4: divide the reading text into sections, paragraphs and clauses.

* **Sections** come from the section table (``corpus/sections.tsv``): each incipit is found, in
  order, in the key of the base text; a section runs to the next incipit.
* **Clauses** are those of the clause division (:mod:`.clauses`: w001's ． where the evidence of
  the other witnesses does not overrule it), ``col.base.clauses``.
* **Paragraphs** start where a witness starts one: a 经 paragraph of 003, a paragraph of 000 or
  004, a translation paragraph (as placed by the aligner). A break inside a clause moves to the
  nearest clause start. The first paragraph of a fragmentary witness starts where its page starts,
  not where a paragraph does, and gives no break unless it falls on a section start.

Ids (docs/design.md, "Layers and units"): ``xiangsheli.16``, ``xiangsheli.16.2``,
``xiangsheli.16.2.3``.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError
from ..layers import TEXT_KEYS
from ..model import Clause, Paragraph, Section
from ..tables import read_table
from .collate import Collation
from .normalise import Normaliser


@dataclass
class SectionRow:
    """One row of the section table."""

    n: int
    kind: str
    title: str
    incipit: str
    line: int


def load_sections(path: Path | str) -> list[SectionRow]:
    """Read the section table: ``n, kind, title, incipit`` (``#`` comment lines allowed)."""
    p = Path(path)
    rows: list[SectionRow] = []
    for i, cells in read_table(p, ["n", "kind", "title", "incipit"], "section table"):
        if len(cells) < 4:
            raise DataError(f"section row needs 4 cells, has {len(cells)}", str(p), i)
        try:
            n = int(cells[0])
        except ValueError:
            raise DataError(f"section number {cells[0]!r} is not a number", str(p), i) from None
        if n != len(rows) + 1:
            raise DataError(f"sections out of order: expected {len(rows) + 1}, found {n}", str(p), i)
        if cells[1] not in TEXT_KEYS:
            raise DataError(f"section kind must be jing or ji, found {cells[1]!r}", str(p), i)
        rows.append(SectionRow(n, cells[1], cells[2].strip(), cells[3].strip(), i))
    if not rows:
        raise DataError("section table is empty", str(p))
    return rows


def find_sections(rows: list[SectionRow], key: str, norm: Normaliser, path: str,
                  where: list[int] | None = None) -> list[int]:
    """Start offsets of the sections in ``key``, found by their incipits in order; with
    ``where`` (the reading text's map to the base key, :meth:`Collation.reading_key_map`) the key
    is the reading text's and the offsets returned are the base key's."""
    starts = _find_sections(rows, key, norm, path)
    return [where[i] if i < len(where) else len(where) for i in starts] if where is not None else starts


def _find_sections(rows: list[SectionRow], key: str, norm: Normaliser, path: str) -> list[int]:
    starts: list[int] = []
    at = 0
    for r in rows:
        k = norm.key(r.incipit)
        if not k:
            raise DataError(f"section {r.n}: empty incipit", path, r.line)
        i = key.find(k, at)
        if i < 0:
            earlier = key.find(k)
            hint = f" (it occurs earlier, at {earlier}: sections out of order?)" if 0 <= earlier < at else ""
            raise DataError(f"section {r.n}: incipit {r.incipit!r} not found in the text{hint}", path, r.line)
        if starts and i == starts[-1]:
            raise DataError(f"section {r.n} starts where section {r.n - 1} does", path, r.line)
        starts.append(i)
        at = i + len(k)
    if starts[0] != 0:
        raise DataError(f"the text has {starts[0]} characters before section 1's incipit", path, rows[0].line)
    return starts


def reading_text(col: Collation, a: int, b: int) -> str:
    """The reading text of base-key range ``[a, b)``: base characters, sites' chosen readings.

    A site belongs to the range where it starts, so that ranges that tile the text give texts
    that concatenate to the whole reading text.
    """
    return "".join(x if isinstance(x, str) else x.lem for x in col.pieces(a, b))


def segment(
    col: Collation,
    rows: list[SectionRow],
    norm: Normaliser,
    chapter_id: str,
    table_path: str,
    extra_breaks: dict[int, list[str]] | None = None,
    fragmentary: frozenset[str] = frozenset(),
    incipits: str | None = None,
) -> list[Section]:
    """Sections, paragraphs and clauses of the reading text.

    ``extra_breaks`` maps base-key offsets to the names of what gives a paragraph break there
    (e.g. the translation aligner). ``fragmentary`` names witnesses whose first paragraph is a page
    start rather than a paragraph start. ``incipits`` names the witness whose reading the section
    table's incipits quote (None: the reading text).
    """
    K = col.base.key
    rkey, rmap = col.reading_key_map(incipits)
    starts = find_sections(rows, rkey, norm, table_path, rmap)
    bounds = starts + [len(K)]
    clause_starts = [a for a, _b, _u in col.base.clauses]

    def snap(off: int) -> int:
        i = bisect.bisect_left(clause_starts, off)
        cands = [clause_starts[j] for j in (i - 1, i) if 0 <= j < len(clause_starts)]
        return min(cands, key=lambda c: (abs(c - off), c))

    breaks: dict[int, set[str]] = defaultdict(set)
    first_seen: set[str] = set()
    for al in sorted(col.alignments, key=lambda x: (x.stream.wit, x.stream.para)):
        w = al.stream.wit
        is_first = w not in first_seen
        first_seen.add(w)
        pos = snap(al.bstart)
        if is_first and w in fragmentary and pos not in starts:
            continue
        if not al.stream.units[0].meta.get("para_start", True):
            continue  # a run of the collation that the witness does not open as a paragraph
        breaks[pos].add(w)
    for off, names in (extra_breaks or {}).items():
        breaks[snap(off)].update(names)

    sections: list[Section] = []
    for si, r in enumerate(rows):
        s0, s1 = bounds[si], bounds[si + 1]
        sid = f"{chapter_id}.{r.n}"
        pstarts = sorted({s0} | {b for b in breaks if s0 < b < s1})
        paragraphs: list[Paragraph] = []
        for pi, p0 in enumerate(pstarts):
            p1 = pstarts[pi + 1] if pi + 1 < len(pstarts) else s1
            pid = f"{sid}.{pi + 1}"
            clauses: list[Clause] = []
            for a, b, u in col.base.clauses:
                if b <= p0 or a >= p1:
                    continue
                ca, cb = max(a, p0), min(b, p1)
                clauses.append(
                    Clause(
                        id=f"{pid}.{len(clauses) + 1}",
                        n=len(clauses) + 1,
                        text=reading_text(col, ca, cb),
                        start=ca,
                        end=cb,
                        source=u.source,
                        line=u.line,
                        col=u.col + (col.base.pos[ca][1] if ca < len(col.base.pos) else 0),
                    )
                )
            paragraphs.append(
                Paragraph(pid, pi + 1, clauses, p0, p1, sorted(breaks.get(p0, set())))
            )
        sections.append(Section(sid, r.n, r.kind, r.title, r.incipit, paragraphs, s0, s1))
    for st in col.sites:
        st.section = next(s.n for s in sections if s.start <= st.start < s.end)
    return sections


class Locator:
    """Base-key offset → the section, paragraph and clause that hold it (an offset before the
    first clause belongs to the first)."""

    def __init__(self, sections: list[Section]) -> None:
        self.clauses = [(c.start, c, p, s) for s in sections for p in s.paragraphs for c in p.clauses]
        self.starts = [c[0] for c in self.clauses]

    def at(self, off: int) -> tuple[Section, Paragraph, Clause]:
        i = max(0, bisect.bisect_right(self.starts, off) - 1)
        _st, c, p, s = self.clauses[i]
        return s, p, c
