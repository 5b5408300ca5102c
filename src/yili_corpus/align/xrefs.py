"""Cross-references inside notes, parsed into typed links.

Types: ``note`` (another note of this chapter: 参阅注（55）), ``section`` (a section of this
chapter: （见第13节）, （第14节）, （参见第32节）), ``other-chapter`` (a chapter of 《仪礼》 other than
this one: 参阅《士昏礼》注（21）, 《士丧礼》作“脡”（见彼第24节）) and ``other-work`` (《周礼·春官·司常》,
《尔雅·释乐》 …). Which titles are chapters of 《仪礼》 is data: ``corpus/yili-chapters.tsv``; so is the
phrasing (见, 参见, 参阅; 彼; the titles 《注》《疏》《记》 of the chapter's own layers): the ``see``,
``that`` and ``own-title`` rows of ``corpus/genre.tsv`` (:class:`~yili_corpus.genre.Genre`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..genre import Genre

TITLE_RE = re.compile(r"《([^》]+)》")


@dataclass
class XRef:
    """A typed cross-reference found in a note (offsets into the note's text)."""

    type: str  # note | section | other-chapter | other-work
    text: str
    start: int
    end: int
    target: int | None = None  # note or section number
    work: str | None = None  # title as written (other-chapter, other-work)
    chapter: int | None = None  # chapter number in 《仪礼》 (other-chapter)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Chapters:
    """The chapters of 《仪礼》 (``corpus/yili-chapters.tsv``)."""

    def __init__(self, names: dict[str, int], this: int) -> None:
        self.names = names
        self.this = this

    @classmethod
    def load(cls, path: Path | str, this: int) -> Chapters:
        p = Path(path)
        from ..tables import read_table

        names: dict[str, int] = {}
        for i, cells in read_table(p, ["n", "title", "also"], "chapter list"):
            try:
                n, title = int(cells[0]), cells[1]
            except (IndexError, ValueError):
                raise DataError(f"bad chapter row {cells!r:.200}", str(p), i) from None
            names[title] = n
            for alt in (cells[2] if len(cells) > 2 else "").split(","):
                if alt.strip():
                    names[alt.strip()] = n
        return cls(names, this)

    def last_named(self, text: str) -> str | None:
        """The chapter name written last in ``text`` without title marks (如燕礼上的…), if any."""
        best: tuple[int, str] | None = None
        for name in self.names:
            i = text.rfind(name)
            if i >= 0 and (best is None or i + len(name) > best[0]):
                best = (i + len(name), name)
        return best[1] if best else None

    def chapter(self, title: str) -> int | None:
        """The chapter number of a title such as 士昏礼 or 乡饮酒礼·记, or None."""
        head = title.split("·")[0].strip()
        return self.names.get(head)


def parse_xrefs(text: str, chapters: Chapters, genre: Genre) -> list[XRef]:
    """The cross-references in a note's text, in order, as ``genre`` phrases them."""
    out: list[XRef] = []
    taken: list[tuple[int, int]] = []
    for m in genre.note_ref_re.finditer(text):
        title, n = m.group(1), int(m.group(2))
        if title:
            ch = chapters.chapter(title)
            typ = "other-chapter" if ch is not None and ch != chapters.this else "other-work" if ch is None else "note"
            out.append(XRef(typ, m.group(0), m.start(), m.end(), n, title, ch))
        else:
            out.append(XRef("note", m.group(0), m.start(), m.end(), n))
        taken.append((m.start(), m.end()))
    for m in genre.section_ref_re.finditer(text):
        n = int(m.group(2))
        if m.group(1):  # 彼: "that" chapter, named before
            titles = [t for t in TITLE_RE.finditer(text, 0, m.start())]
            title = titles[-1].group(1) if titles else chapters.last_named(text[: m.start()])
            ch = chapters.chapter(title) if title else None
            out.append(XRef("other-chapter", m.group(0), m.start(), m.end(), n, title, ch))
        else:
            out.append(XRef("section", m.group(0), m.start(), m.end(), n))
        taken.append((m.start(), m.end()))
    for m in TITLE_RE.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        title = m.group(1)
        if title in genre.own_titles:
            continue  # 贾《疏》, 郑《注》: this chapter's own commentary layers, not another work
        ch = chapters.chapter(title)
        if ch == chapters.this:
            continue  # this chapter named by title (《乡射礼》)
        if ch is not None:
            # a chapter named without a note or section number: an other-chapter mention, unless
            # a 彼-reference after it already points there
            if any(x.type == "other-chapter" and x.work == title for x in out):
                continue
            out.append(XRef("other-chapter", m.group(0), m.start(), m.end(), None, title, ch))
        else:
            out.append(XRef("other-work", m.group(0), m.start(), m.end(), None, title))
    out.sort(key=lambda x: x.start)
    return out
