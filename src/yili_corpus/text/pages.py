"""The pages of a printed edition: on which page of the 四库 copy each clause and each 注 stands.

A witness that transcribes a printed edition page by page marks each page's beginning
(``<pb:KR1d0028_WYG_005-12b>``: 卷 005, 葉12, second half); a character belongs to the page of
the last page break before it. The page of a unit of that witness (a 注) is read from its file
offsets. The page of a clause of the reading text is where that witness's text of the clause
stands: the collation aligns the witness to the base key (:class:`~.collate.Alignment`), so
every base-key position of the clause leads to the witness's characters there, and their file
offsets to pages. A clause may cross a page break (``設|洗於阼階東南``, 葉3b–4a); a clause the
witness lacks (an omission) has the page where the witness's text resumes after it.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from ..model import SourceUnit
from ..sources.siku import PB_RE
from .collate import Collation


@dataclass
class PageBreaks:
    """The page breaks of one witness file: where each page's text starts and ends."""

    wit: str
    #: (offset of the mark, offset after it, page) in file order
    marks: list[tuple[int, int, str]]
    length: int
    starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.starts = [a for a, _b, _p in self.marks]

    @classmethod
    def of(cls, wit: str, text: str) -> PageBreaks:
        """The page breaks of the file ``text`` of witness ``wit``."""
        return cls(wit, [(m.start(), m.end(), m.group(1)) for m in PB_RE.finditer(text)], len(text))

    def __bool__(self) -> bool:
        return bool(self.marks)

    def at(self, off: int) -> str | None:
        """The page holding file offset ``off`` (None before the first page break)."""
        k = bisect.bisect_right(self.starts, off) - 1
        return self.marks[k][2] if k >= 0 else None

    def pages(self, offsets: list[int]) -> list[str]:
        """The pages of some file offsets, in file order, each once."""
        out: list[str] = []
        for off in sorted(offsets):
            p = self.at(off)
            if p is not None and (not out or out[-1] != p):
                out.append(p)
        return out

    def of_unit(self, u: SourceUnit) -> list[str]:
        """The pages a unit of the witness stands on (from its first to its last character)."""
        inside = self.starts[bisect.bisect_right(self.starts, u.offset):bisect.bisect_left(self.starts, u.end)]
        return self.pages([u.offset, *inside, max(u.offset, u.end - 1)])

    def spans(self) -> list[tuple[str, int, int]]:
        """Each page with the file span of its characters (after its mark, up to the next)."""
        ends = [a for a, _b, _p in self.marks[1:]] + [self.length]
        return [(p, b, e) for (_a, b, p), e in zip(self.marks, ends, strict=True)]


def clause_pages(col: Collation, breaks: PageBreaks, ranges: list[tuple[int, int]]) -> list[list[str]]:
    """For each base-key range ``[start, end)`` (a clause), the pages of the witness of ``breaks``
    on which its text of that range stands; a range it lacks gets the page where its text resumes
    (or, at the end, the page where it stopped)."""
    n = len(col.base.key)
    offs: list[list[int]] = [[] for _ in range(n)]
    for al in col.alignments:
        if al.stream.wit != breaks.wit:
            continue
        for i in range(al.bstart, al.bend):
            for j in range(al.js[i - al.bstart], al.je[i - al.bstart]):
                u, o = al.stream.pos[j]
                offs[i].append(u.offset + o)
    firsts = [min(x) if x else None for x in offs]
    out: list[list[str]] = []
    for a, b in ranges:
        here = [o for i in range(a, min(b, n)) for o in offs[i]]
        if not here:  # an omission: where the witness's text resumes, else where it stopped
            after = next((f for f in firsts[b:] if f is not None), None)
            before = next((max(offs[i]) for i in range(min(a, n) - 1, -1, -1) if offs[i]), None)
            here = [x for x in (after if after is not None else before,) if x is not None]
        out.append(breaks.pages(here))
    return out
