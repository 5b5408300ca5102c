"""The build's model: the dataclasses every step of the build passes along.

sources → parse (:class:`SourceUnit`, :class:`Noise`) → normalise → collate (:class:`Site`) →
segment (:class:`Section`, :class:`Paragraph`, :class:`Clause`) → align → TEI.
Every unit keeps the file, line and character offsets it came from; positions are offsets in the
base witness's key. The read wing never sees these classes: ``tei/assemble.py`` turns them into
the TEI's model (:mod:`yili_corpus.document`), whose classes of the same names (``Section``,
``Paragraph``, ``Clause``) hold what the TEI holds. The two share their field names where they
mean the same thing (``layer``, ``breaks``, ``lem``, ``lem_wits``); a collation :class:`Site` becomes an apparatus entry
(``document.App``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Unit kinds a parser may yield. ``text`` is canonical 经/记 text (which of the two is decided
#: by the section table); the others are the layers of the same name.
UNIT_KINDS = ("text", "zhu", "shu", "note", "trans")

#: The placeholder mark (U+3013 GETA MARK): the one character a key holds where a witness had a
#: character it could not type (``[生僻字详见原文]``); it matches any one character in a lemma.
#: Defined here only; every module imports it.
GETA = "\u3013"
#: The black square a modern note writes for one character it could not type (``■``); a key
#: reads it as :data:`GETA`.
BLACK_SQUARE = "\u25a0"
#: Both placeholder marks.
PLACEHOLDER_MARKS = frozenset({GETA, BLACK_SQUARE})


def is_text_char(ch: str) -> bool:
    """True for a character of the text: a CJK ideograph or a private-use code point.

    Private-use code points are how some witnesses encode characters Unicode lacked when they
    were transcribed (003 writes 搢 as U+E270); they are text, not noise.
    """
    o = ord(ch)
    return (
        0x3400 <= o <= 0x4DBF
        or 0x4E00 <= o <= 0x9FFF
        or 0xF900 <= o <= 0xFAFF
        or 0x20000 <= o <= 0x3FFFF
        or is_private_use(ch)
    )


def is_private_use(ch: str) -> bool:
    """True for a code point of the Private Use Areas."""
    o = ord(ch)
    return 0xE000 <= o <= 0xF8FF or 0xF0000 <= o <= 0x10FFFF


def codepoints(seq: str) -> str:
    """A sequence for a reader: private-use code points by number, other characters as themselves
    (``U+E3AB U+E4A4``, ``U+E4B6 付``)."""
    return " ".join(f"U+{ord(c):04X}" if is_private_use(c) else c for c in seq)


def parse_codepoints(s: str) -> str | None:
    """The sequence :func:`codepoints` names (its inverse), or None if a token is neither
    ``U+XXXX`` nor one character, or the first is not a private-use code point."""
    out = []
    for tok in s.split():
        if tok.startswith("U+") and 4 <= len(tok) - 2 <= 6:
            try:
                n = int(tok[2:], 16)
            except ValueError:
                return None
            if n > 0x10FFFF:
                return None
            out.append(chr(n))
        elif len(tok) == 1:
            out.append(tok)
        else:
            return None
    return "".join(out) if out and is_private_use(out[0]) else None


def count_text_chars(s: str) -> int:
    """Number of text characters (see :func:`is_text_char`) in ``s``."""
    return sum(1 for c in s if is_text_char(c))


@dataclass
class SourceUnit:
    """One unit a parser read: a clause, a paragraph, a note, a 疏 part, a translation paragraph.

    ``text`` is the exact slice of the source line (diplomatic). ``offset``/``end`` are absolute
    character offsets in the file, ``line`` is 1-based, ``col``/``end_col`` are 0-based offsets in
    that line. ``meta`` holds what the format says about the unit (note number, 疏 lemma, …).
    """

    source: str
    kind: str
    text: str
    line: int
    col: int
    end_col: int
    offset: int
    end: int
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def where(self) -> str:
        """``source:line:col`` for messages."""
        return f"{self.source}:{self.line}:{self.col}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def reading_offsets(self) -> list[int]:
        """The file offset of each character of the unit's reading (``meta["text"]``, else its
        text): each found in order in the unit's slice, past the layout and marks the reading
        drops (a 四库 疏 block's line ends, column breaks, parentheses)."""
        reading = str(self.meta.get("text", self.text))
        offs: list[int] = []
        j = 0
        for ch in reading:
            while j < len(self.text) and self.text[j] != ch:
                j += 1
            offs.append(self.offset + j)
            j += 1
        return offs


@dataclass
class Noise:
    """Characters of a source that belong to no layer, with the reason (page header, …)."""

    source: str
    text: str
    line: int
    col: int
    end_col: int
    offset: int
    end: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ParsedSource:
    """What a parser returns for one file."""

    id: str
    path: str
    text: str
    units: list[SourceUnit]
    noise: list[Noise]


@dataclass
class Reading:
    """One witness's reading at a collation site."""

    wit: str
    key: str
    text: str
    line: int | None = None
    col: int | None = None
    status: str = "reading"  # reading | placeholder | lacuna
    #: the file offsets the reading quotes (one span, or one per unit where other text stands
    #: between its parts); empty for an omission
    spans: list[tuple[int, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Site:
    """A place where the witnesses of the 经/记 differ, in base-key coordinates ``[start, end)``.

    ``kind`` is ``variant`` (substantive readings differ), ``restored`` (a witness has an
    unencoded character or a lost one there and the character is restored from the others) or
    ``emendation`` (no witness has the right reading; see ``corpus/emendations.tsv``).
    """

    start: int
    end: int
    kind: str
    lem: str
    lem_key: str
    lem_wits: list[str]
    readings: list[Reading]
    rule: str
    section: int | None = None
    evidence: str = ""
    sic: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Clause:
    """A clause of the reading text (from the base witness's clause marks)."""

    id: str
    n: int
    text: str
    start: int
    end: int
    source: str
    line: int
    col: int


@dataclass
class Paragraph:
    """A paragraph: the unit of alignment. ``breaks`` names the witnesses that give its start."""

    id: str
    n: int
    clauses: list[Clause]
    start: int
    end: int
    breaks: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.clauses)


@dataclass
class Section:
    """One of the sections of the section table."""

    id: str
    n: int
    layer: str  # its base text's layer: jing | ji
    title: str
    incipit: str
    paragraphs: list[Paragraph]
    start: int
    end: int
    layers: dict[str, int] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.paragraphs)
