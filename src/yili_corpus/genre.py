"""What the code knows of the genre, read from tables (``corpus/genre.tsv``, ``corpus/commentators.tsv``).

The words that tell modern prose from the classical text, the phrase of a section summary
(此节述…之仪), the phrasing of a cross-reference (见/参见/参阅 注（n）, （见彼第24节）), the markers of a
repeated rite (如初, 如之, 亦如), the titles in 《》 that name the chapter's own layers (《注》, 《疏》)
and the commentators (郑玄, 贾公彦, …) are data of the corpus, not literals of the code: the
build reads them once through the manifest (``[tables] genre`` and ``commentators``:
:attr:`Manifest.genre`, :attr:`Manifest.commentators`) and hands them to the parsers, the note
aligner and the TEI document. docs/sources.md describes the tables.

The read wing reads no table of ``corpus/``: what it needs of the genre (the modern markers for
``yili import``, the repetition markers for ``yili xref``) is :data:`READ_WING` below, which
``tests/test_tables.py`` holds equal to the rows of ``corpus/genre.tsv``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from .errors import DataError, shown
from .tables import read_table

#: The kinds of row of the genre table, with what a value of each kind is.
KINDS: dict[str, str] = {
    "modern": "a function word of modern written Chinese the classical text does not use (one character)",
    "summary-open": "the words that open a note summing up a section (此节述)",
    "summary-close": "the words that close the name of the rite a summary sums up (之仪)",
    "see": "a word that introduces a cross-reference to a note or a section (见, 参见)",
    "that": "the word that makes a section reference point at the chapter named before (彼)",
    "repeat": "a phrase by which a clause repeats an earlier rite (如初)",
    "own-title": "a title in 《》 that names a layer of the chapter itself, not another work (《疏》)",
}
GENRE_HEADER = ["kind", "value", "note"]
COMMENTATOR_HEADER = ["id", "name", "dynasty", "layer", "resp", "note"]
_ID_RE = re.compile(r"[a-z][a-z0-9-]{0,40}")


def _alternation(values: Iterable[str]) -> str:
    """A regex alternation of ``values``, longest first (参见 before 见); one that never matches
    when there are none."""
    vs = sorted(set(values), key=lambda v: (-len(v), v))
    return "(?:" + "|".join(map(re.escape, vs)) + ")" if vs else "(?!)"


@dataclass(frozen=True)
class Genre:
    """The markers of the genre, by kind (see :data:`KINDS`). An empty one knows nothing: no text
    reads as modern, no note opens a section, no cross-reference is recognised."""

    modern: frozenset[str] = frozenset()
    summary_open: tuple[str, ...] = ()
    summary_close: tuple[str, ...] = ()
    see: tuple[str, ...] = ()
    that: tuple[str, ...] = ()
    repeat: tuple[str, ...] = ()
    own_titles: frozenset[str] = frozenset()

    @classmethod
    def load(cls, path: Path | str) -> Genre:
        """Read ``kind<TAB>value<TAB>note`` rows. An unknown kind, an empty value or note, a
        repeated row, a ``modern`` value of more than one character or a kind without any row
        is damaged data naming the file (and the line)."""
        p = Path(path)
        by_kind: dict[str, list[str]] = {k: [] for k in KINDS}
        for i, row in read_table(p, GENRE_HEADER, "genre table"):
            cells = [c.strip() for c in row]
            if len(cells) < 3 or not all(cells[:3]):
                raise DataError(f"bad genre row {shown(chr(9).join(row))}: kind, value and a note", str(p), i)
            kind, value = cells[0], cells[1]
            if kind not in KINDS:
                raise DataError(f"unknown kind {shown(kind)} (one of {', '.join(KINDS)})", str(p), i)
            if any(c.isspace() for c in value):
                raise DataError(f"genre value {shown(value)} has white space", str(p), i)
            if kind == "modern" and len(value) != 1:
                raise DataError(f"a modern marker is one character, found {shown(value)}", str(p), i)
            if value in by_kind[kind]:
                raise DataError(f"{kind} {shown(value)} is listed twice", str(p), i)
            by_kind[kind].append(value)
        missing = [k for k, vs in by_kind.items() if not vs]
        if missing:
            raise DataError(f"the genre table has no row of kind {', '.join(missing)}", str(p))
        return cls.from_kinds(by_kind)

    @classmethod
    def from_kinds(cls, by_kind: dict[str, list[str]]) -> Genre:
        """A genre from its values by kind (the table's kind names)."""
        def get(k: str) -> list[str]:
            return list(by_kind.get(k, ()))

        return cls(frozenset(get("modern")), tuple(get("summary-open")), tuple(get("summary-close")),
                   tuple(get("see")), tuple(get("that")), tuple(get("repeat")), frozenset(get("own-title")))

    # -- modern prose -----------------------------------------------------------------------------
    def modern_score(self, text: str) -> float:
        """Modern function words per 100 characters of ``text`` (white space not counted)."""
        chars = [c for c in text if not c.isspace()]
        if not chars:
            return 0.0
        return 100.0 * sum(1 for c in chars if c in self.modern) / len(chars)

    def is_modern(self, text: str, threshold: float = 0.5) -> bool:
        """True if ``text`` reads as modern prose (translation), not as the classical text."""
        return self.modern_score(text) >= threshold

    # -- notes ------------------------------------------------------------------------------------
    @cached_property
    def summary_re(self) -> re.Pattern[str]:
        """A section summary: 此节述(X)之仪, group 1 the rite it names. ``match`` it at the start
        of a note."""
        return re.compile(_alternation(self.summary_open) + "(.+?)" + _alternation(self.summary_close))

    @cached_property
    def note_ref_re(self) -> re.Pattern[str]:
        """A reference to a note: 参阅注（55）, 参阅《士昏礼》注（21）; groups: the title, the number."""
        return re.compile(_alternation(self.see) + r"(?:《([^》]+)》)?注[（(](\d+)[）)]")

    @cached_property
    def section_ref_re(self) -> re.Pattern[str]:
        """A reference to a section: （见第13节）, （第14节）, （见彼第24节）; groups: 彼 (the chapter
        named before), the number."""
        return re.compile(r"[（(]" + _alternation(self.see) + "?(" + _alternation(self.that) + r")?第(\d+)节[）)]")

    # -- the text ---------------------------------------------------------------------------------
    def repeats(self, key: str) -> bool:
        """True if the clause ``key`` repeats an earlier rite (如初, 亦如之 …)."""
        return any(w in key for w in self.repeat)


#: What the read wing knows of the genre (it reads no table of ``corpus/``): the modern markers
#: (``yili import`` leaves out the classical sentences of a translation) and the repetition
#: markers (``yili xref``). tests/test_tables.py holds them equal to corpus/genre.tsv.
READ_WING = Genre(modern=frozenset("的了们把这着呢吗"), repeat=("如初", "如之", "亦如"))


def is_modern(text: str, threshold: float = 0.5) -> bool:
    """:meth:`Genre.is_modern` with the read wing's markers (:data:`READ_WING`)."""
    return READ_WING.is_modern(text, threshold)


@dataclass(frozen=True)
class Commentator:
    """A commentator: the ``xml:id`` the TEI gives him, name, dynasty, the layer he comments in
    and what the TEI's ``respStmt/resp`` says of it (注, 疏)."""

    id: str
    name: str
    dynasty: str
    layer: str
    resp: str
    note: str


def load_commentators(path: Path | str) -> list[Commentator]:
    """Read ``corpus/commentators.tsv`` (``id name dynasty layer resp note``). A bad id, an empty
    cell, an id or a layer listed twice is damaged data naming the file and line."""
    p = Path(path)
    out: list[Commentator] = []
    for i, row in read_table(p, COMMENTATOR_HEADER, "commentator table"):
        cells = [c.strip() for c in row]
        if len(cells) < len(COMMENTATOR_HEADER) or not all(cells[: len(COMMENTATOR_HEADER)]):
            raise DataError(f"bad commentator row {shown(chr(9).join(row))}: {', '.join(COMMENTATOR_HEADER)}",
                            str(p), i)
        c = Commentator(*cells[: len(COMMENTATOR_HEADER)])
        for what, v in (("id", c.id), ("layer", c.layer)):
            if not _ID_RE.fullmatch(v):
                raise DataError(f"commentator {what} {shown(v)} must be lower-case letters, digits and -", str(p), i)
            if any(getattr(o, what) == v for o in out):
                raise DataError(f"commentator {what} {shown(v)} is listed twice", str(p), i)
        out.append(c)
    return out
