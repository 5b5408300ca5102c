"""Step 3b: clause division from evidence.

The base witness (w001) divides its text into clauses with ``．``, and its clauses are the units
that ids, commentary and translation point at. Its marks are a transcriber's, and in places they
split words (18.2 堂前｜三笴, 52 礼｜射不主皮) or run a heading into the text (52 记大夫与). The
division is therefore decided by all the evidence there is, place by place (a place is the
boundary between two characters of the base key), after the witnesses are aligned and before the
collation cuts its sites at the clause starts (:meth:`~.collate.Collator.run` calls
:meth:`ClauseDivider.divide`):

* **marks** — a witness that punctuates (w006, w000, w003, w004; the base with its ``．``) votes
  *for* a boundary where it has one of ``，。；：！？`` between the two characters (``、`` and
  quotation marks divide no clause), or where it starts a paragraph (``¶``: not the first paragraph
  of a fragment, which starts where its page does); it votes *against* where it runs through
  without a mark while it has a mark within :data:`NEAR` characters before and after (a witness
  that does not punctuate there, such as the 四库 copy w005, has no vote);
* **注** — where a 注 of a 注疏 witness (w005, w003) stands after the 经 words it explains, the
  place is a boundary: a 注 never falls inside a word;
* **sites** — a place inside the range of a collation site (where the witnesses' texts differ)
  never becomes a new boundary: a clause holds whole readings.

The rule (``docs/collation.md``, and the TEI header's ``segmentation``): a place is a boundary if
a 注 stands there, or if more witnesses vote for it than against it; on a tie the base's division
stands. Translation sentence ends are not used: the translation is aligned to the clauses this
step makes, so where a sentence ends in the 经 is known only at clause ends, and it cannot say
anything about a place inside a clause.

:class:`ClauseDivision` keeps the evidence of every place where the result differs from the
base's division, and :func:`moved_ids` lists the clause ids that differ from those the base's
division gives (ids are ``section.paragraph.n``: a change renumbers the clauses after it in its
paragraph only).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model import ParsedSource, SourceUnit, is_text_char

if TYPE_CHECKING:
    from ..model import Section
    from .collate import Alignment, Base

#: Marks that end a clause in a punctuated witness.
MARKS = "，。；：！？"
#: The base witness's own clause mark (w001's ．).
BASE_MARK = "．"
#: A paragraph start in a witness.
PARA_MARK = "¶"
#: A witness that runs through a place votes against a boundary only if it punctuates near it: a
#: mark within this many characters of its key before the place and after it.
NEAR = 12


def char_end(u: SourceUnit, o: int) -> int:
    """The file offset just past the key character at ``o`` of unit ``u``: past the whole
    placeholder where a skip of several characters stands for one (``{曰鼎}``, ``&lt;赤巠&gt;``,
    a □ run of the punctuated parser), else past the one character."""
    for x, y, rep in u.meta.get("skips", ()):
        if x == o and rep:
            return u.offset + y
    return u.offset + o + 1


@dataclass
class Place:
    """The evidence at one place of the base key (a clause would start at ``at``)."""

    at: int
    #: witness → its mark there (``．`` the base's, ``¶`` a paragraph start): votes for
    marks: dict[str, str] = field(default_factory=dict)
    #: witnesses that run through the place while punctuating near it: votes against
    through: list[str] = field(default_factory=list)
    #: witnesses whose 注 stands here
    zhu: list[str] = field(default_factory=list)
    #: the place lies inside the range of a collation site
    in_site: bool = False
    boundary: bool = False
    rule: str = ""
    context: str = ""

    def evidence(self) -> str:
        """The evidence in words: the marks, who runs through, the 注."""
        parts = []
        if self.marks:
            parts.append("marked by " + ", ".join(f"{w} {m}" for w, m in sorted(self.marks.items())))
        if self.through:
            parts.append("run through by " + ", ".join(sorted(self.through)))
        if self.zhu:
            parts.append("注 of " + ", ".join(sorted(self.zhu)) + " stands here")
        if self.in_site:
            parts.append("inside a collation site")
        return "; ".join(parts)


@dataclass
class ClauseDivision:
    """The clauses the evidence gives, the base's own, and the places where the two differ."""

    base: str
    clauses: list[tuple[int, int, SourceUnit]]
    base_clauses: list[tuple[int, int, SourceUnit]]
    #: the places where the result differs from the base's division, in order
    changes: list[Place]
    #: places examined, boundaries kept, places with any vote, and the like (for the report)
    counts: dict[str, int] = field(default_factory=dict)
    #: the evidence at every place of the base key (by offset)
    places: dict[int, Place] = field(default_factory=dict)

    @property
    def added(self) -> list[Place]:
        return [p for p in self.changes if p.boundary]

    @property
    def removed(self) -> list[Place]:
        return [p for p in self.changes if not p.boundary]


def decide(p: Place, base: str) -> None:
    """Set ``p.boundary`` and ``p.rule`` by the rule of the module docstring."""
    had = base in p.marks
    pro, con = len(p.marks), len(p.through)
    count = f"{pro} for, {con} against"
    if p.zhu and not (p.in_site and not had):
        p.boundary, p.rule = True, f"a boundary where a 注 stands ({count})"
    elif p.in_site and not had:
        p.boundary, p.rule = False, f"inside a collation site: no new boundary ({count})"
    elif pro != con:
        p.boundary, p.rule = pro > con, f"majority ({count})"
    else:
        p.boundary, p.rule = had, f"tie ({count}): {base}'s division stands"


class ClauseDivider:
    """Decides the clause boundaries from the aligned witnesses (see the module docstring).

    ``parsed`` are the parsed sources as the collation has them; ``fragmentary`` names the
    witnesses whose first paragraph starts where their page does (no paragraph start there).
    After :meth:`divide` has run, :attr:`result` holds the :class:`ClauseDivision`.
    """

    def __init__(self, parsed: dict[str, ParsedSource], fragmentary: frozenset[str] = frozenset()) -> None:
        self.parsed = parsed
        self.fragmentary = fragmentary
        self.result: ClauseDivision | None = None
        self._zhu: dict[str, set[int]] = {}

    def divide(self, base: Base, alignments: list[Alignment],
               site_ranges: list[tuple[int, int]]) -> list[tuple[int, int, SourceUnit]]:
        """The clauses (start, end, base unit of the start) that the evidence gives."""
        n = len(base.key)
        places: dict[int, Place] = {}

        def place(b: int) -> Place:
            if b not in places:
                places[b] = Place(b)
            return places[b]

        base_starts = [a for a, _b, _u in base.clauses]
        for a in base_starts:
            place(a).marks[base.wit] = BASE_MARK
        # the base runs through everywhere else where it punctuates (w001: every clause ends in
        # ．); a base that does not (the 四库 經, whose units are the 經 between two 注) has no
        # vote against a boundary: the other witnesses' marks divide its runs
        starts_set = set(base_starts)
        if self._punctuates(base):
            for b in range(1, n):
                if b not in starts_set:
                    place(b).through.append(base.wit)
        seen: set[str] = set()
        for al in sorted(alignments, key=lambda x: (x.stream.wit, x.stream.para)):
            first = al.stream.wit not in seen
            seen.add(al.stream.wit)
            self._witness(al, place, first)
        places.pop(n, None)  # the end of the text (where the last paragraphs end) is no place
        for a, b in site_ranges:
            for x in range(a + 1, b):
                if x in places:
                    places[x].in_site = True
        bounds = [0]
        changes: list[Place] = []
        for b in sorted(places):
            p = places[b]
            if b == 0 or b >= n:
                continue
            decide(p, base.wit)
            if p.boundary:
                bounds.append(b)
            if p.boundary != (base.wit in p.marks):
                p.context = base.key[max(0, b - 6):b] + "｜" + base.key[b:b + 6]
                changes.append(p)
        bounds.append(n)
        clauses = [(a, e, base.pos[a][0]) for a, e in zip(bounds, bounds[1:], strict=False) if e > a]
        counts = {
            "base clauses": len(base.clauses),
            "clauses": len(clauses),
            "boundaries removed": sum(1 for p in changes if not p.boundary),
            "boundaries added": sum(1 for p in changes if p.boundary),
            "boundaries with a 注": sum(1 for b in bounds if b in places and places[b].zhu),
            "places marked by a witness other than the base": sum(
                1 for p in places.values() if any(w != base.wit for w in p.marks)),
        }
        self.result = ClauseDivision(base.wit, clauses, list(base.clauses), changes, counts, places)
        return clauses

    def _punctuates(self, base: Base) -> bool:
        """Whether the base witness ends its clause units with a clause mark (most of them are
        followed by ．or one of :data:`MARKS`), rather than by a 注 or a line end."""
        text = self.parsed[base.wit].text
        units = [u for _a, _b, u in base.clauses]
        marked = sum(1 for u in units if text[u.end:u.end + 1] in (BASE_MARK + MARKS) and text[u.end:u.end + 1])
        return bool(units) and marked * 2 >= len(units)

    def _zhu_after(self, wit: str) -> set[int]:
        """The ``id``s of the 经 units of ``wit`` that a 注 follows (its units in file order)."""
        if wit not in self._zhu:
            order = [u for u in self.parsed[wit].units if u.kind in ("text", "zhu")]
            self._zhu[wit] = {id(u) for u, v in zip(order, order[1:], strict=False)
                              if u.kind == "text" and v.kind == "zhu"}
        return self._zhu[wit]

    def _witness(self, al: Alignment, place: Callable[[int], Place], first: bool) -> None:
        """The votes of one aligned witness paragraph."""
        st = al.stream
        text = self.parsed[st.wit].text
        offs = [u.offset + o for u, o in st.pos]
        if not offs:
            return
        # where each key character ends in the file: past the whole placeholder ({曰鼎}) that
        # the key reads as one character, so that the mark after it is seen
        ends = [char_end(u, o) for u, o in st.pos]
        zhu_after = self._zhu_after(st.wit)
        # the mark after each key character (before the next), and where the marks are
        marks: list[str] = []
        for j in range(1, len(offs) + 1):
            a = ends[j - 1]
            e = offs[j] if j < len(offs) else _next_text(text, a)
            gap = text[a:e]
            k = next((i for i, c in enumerate(gap) if is_text_char(c) or c in "(（"), len(gap))
            marks.append("".join(c for c in gap[:k] if c in MARKS))
        # key offsets j where a mark stands before char j (the paragraph's start and end count,
        # in a paragraph that has marks at all)
        marked = [j for j, m in enumerate(marks, 1) if m and j < len(offs)]
        if any(marks):
            marked = [0, *marked, len(offs)]
        if st.units[0].meta.get("para_start", True) and not (first and st.wit in self.fragmentary):
            place(al.bstart).marks.setdefault(st.wit, PARA_MARK)
        for b in range(al.bstart + 1, al.bend + 1):
            i = b - al.bstart
            j = al.je[i - 1]
            if i < len(al.js) and al.js[i] < j:
                continue  # inside a difference of this witness: it has no place here
            if not 0 < j <= len(offs):
                continue
            p = place(b)
            m = marks[j - 1]
            u = st.pos[j - 1][0]
            if id(u) in zhu_after and (j == len(offs) or st.pos[j][0] is not u) and st.wit not in p.zhu:
                p.zhu.append(st.wit)  # the last 经 character before a 注
            if m:
                p.marks[st.wit] = m
                if st.wit in p.through:
                    p.through.remove(st.wit)
            elif j < len(offs) and st.wit not in p.marks and st.wit not in p.through:
                k = bisect.bisect_left(marked, j)
                before = k > 0 and j - marked[k - 1] < NEAR
                after = k < len(marked) and marked[k] - j < NEAR
                if before and after:
                    p.through.append(st.wit)


def _next_text(text: str, a: int) -> int:
    """The offset of the next text character at or after ``a`` (or the end of the text)."""
    e = a
    while e < len(text) and not is_text_char(text[e]):
        e += 1
    return e


def moved_ids(old: list[Section], new: list[Section]) -> list[dict[str, object]]:
    """The clause ids of the base's division (``old``) that differ in the evidence's (``new``):
    each old clause whose id or extent changed, with the new clause(s) that hold its text and how
    (``renumbered``: the same words under another id; ``joined``: now part of a longer clause;
    ``divided``: now in several clauses)."""
    new_cl = [(c.start, c.end, c) for s in new for p in s.paragraphs for c in p.clauses]
    starts = [a for a, _e, _c in new_cl]
    out: list[dict[str, object]] = []
    for s in old:
        for p in s.paragraphs:
            for c in p.clauses:
                k = max(0, bisect.bisect_right(starts, c.start) - 1)
                hold = []
                while k < len(new_cl) and new_cl[k][0] < c.end:
                    if new_cl[k][1] > c.start:
                        hold.append(new_cl[k][2])
                    k += 1
                if len(hold) == 1 and hold[0].start == c.start and hold[0].end == c.end:
                    if hold[0].id == c.id:
                        continue
                    how = "renumbered"
                elif len(hold) == 1:
                    how = "joined"
                else:
                    how = "divided"
                out.append({"old": c.id, "new": [h.id for h in hold], "change": how, "text": c.text})
    return out
