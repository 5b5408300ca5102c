"""The TEI's model: the corpus as the TEI document holds it (the build's model is
:mod:`yili_corpus.model`; ``tei/assemble.py`` is the one place that turns the one into the other).

The build turns its results into a :class:`Document`; ``tei/write.py`` writes it and
``tei/read.py`` reads it back (writer → reader → writer is byte-identical). The read wing — search,
show, cite, export — works on a :class:`Document` read from the TEI, never on the sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from .layers import KEYS


@dataclass
class Glyph:
    """A character a witness wrote with private-use code points (``text``: diplomatic), declared
    in the header as ``chars[ref]`` with what it stands for when that is known; a reader is shown
    :func:`glyph_text`, never ``text``."""

    ref: str
    text: str


@dataclass
class Ref:
    """A cross-reference inside a note: ``type`` is note, section, other-chapter or other-work;
    ``target`` an id in this document (note, section) or empty; ``cref`` a canonical reference
    outside it (士丧礼.24, 周礼·春官·司常)."""

    type: str
    text: str
    target: str = ""
    cref: str = ""


#: Inline content: plain text, glyphs, apparatus entries, cross-references.
Inline = Union[str, Glyph, "App", Ref]


@dataclass
class Rdg:
    """A witness's reading at an apparatus entry (diplomatic; glyphs kept)."""

    wit: str
    content: list[str | Glyph]
    status: str = "reading"  # reading | placeholder | lacuna
    source: str = ""  # pointer to the place in the witness file

    @property
    def text(self) -> str:
        return plain(self.content)


@dataclass
class App:
    """An apparatus entry: the chosen reading (``lem``) and the others.

    ``type`` is ``variant``, ``restored`` (the lemma restored where a witness has an unencoded or
    lost character; ``supplied`` names the witnesses it came from) or ``emendation`` (``sic``
    keeps the original).
    """

    type: str
    lem: str
    lem_wits: list[str]
    rdgs: list[Rdg]
    rule: str
    sic: str | None = None
    evidence: str = ""

    @property
    def text(self) -> str:
        return self.lem


def plain(content: list[Any]) -> str:
    """The text of inline content: glyphs as written, apparatus entries as their lemma."""
    out = []
    for x in content:
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, (Glyph, Ref)):
            out.append(x.text)
        else:
            out.append(x.lem)
    return "".join(out)


#: What a reader sees for a glyph whose character is not known (U+3013 GETA MARK).
UNRESOLVED_MARK = "\u3013"


def glyph_text(g: Glyph, chars: dict[str, CharDecl]) -> str:
    """A glyph as a reader reads it: the character its declaration maps it to, else 〓 (a
    private-use code point never reaches a reader)."""
    c = chars.get(g.ref)
    return c.character if c is not None and c.character else UNRESOLVED_MARK


def readable(content: list[Any], chars: dict[str, CharDecl]) -> str:
    """Like :func:`plain`, but every glyph as a reader reads it (:func:`glyph_text`)."""
    out = []
    for x in content:
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, Glyph):
            out.append(glyph_text(x, chars))
        elif isinstance(x, Ref):
            out.append(x.text)
        else:
            out.append(x.lem)
    return "".join(out)


#: The language tag of a classical unit whose witness writes traditional characters (the 四库 注).
HANT = "lzh-Hant"
#: The scripts a reader may ask for.
SCRIPTS = ("hans", "hant")


def in_script(text: str, lang: str | None, script: str) -> str:
    """A unit's text in the script asked for, by what the unit is (its ``xml:lang``):

    * simplified (``hans``): a classical text in traditional characters (``lzh-Hant``) is folded
      character by character (OpenCC t2s, one character for one, so offsets hold); the rest is
      simplified already;
    * traditional (``hant``): a classical text in traditional characters is its witness's own;
      a modern text (``zh-Hans``) is converted with OpenCC's phrase dictionaries (s2t); a classical
      text whose witness is simplified (the 疏 of w003) stays as its witness writes it — the caller
      says so (:func:`lacks_traditional`).

    The 经/记 have their own traditional forms (``Clause.hant``), not converted; a clause whose
    base witness writes traditional characters (``Clause.lang`` ``lzh-Hant``) reads folded like a 注."""
    if script == "hans":
        if lang == HANT:
            from .text.normalise import t2s_char

            return "".join(t2s_char(c) for c in text)
        return text
    if lang == HANT:
        return text
    if lang and lang.startswith("zh"):
        from .text.normalise import opencc_convert

        return opencc_convert(text, "s2t")
    return text


def lacks_traditional(lang: str | None) -> bool:
    """True for a classical text with no traditional witness (shown as written, with a notice)."""
    return lang != HANT and not (lang and lang.startswith("zh"))


#: How a citation names a page of a thread-bound Chinese book: 葉 (leaf) and its half, 葉12b.
LEAF = "葉"


@dataclass
class Page:
    """A page of a printed edition a witness transcribes (a ``surface`` of the TEI's
    ``facsimile``): ``n`` as the edition numbers it (``12b``: 葉12, second half), ``label`` as a
    citation writes it (``葉12b``), ``witness`` the witness whose file transcribes it, ``source``
    the pointer to the page's characters in that file."""

    id: str
    n: str
    label: str
    witness: str
    source: str = ""


def page_span(pages: list[Page]) -> tuple[str, str] | None:
    """(first page, last page) of a unit's pages, as the edition numbers them (``("12b",
    "13a")``; the same twice for one page), or None for a unit without pages."""
    return (pages[0].n, pages[-1].n) if pages else None


@dataclass
class Clause:
    """A clause of the 经/记 reading text. ``pages``: the pages of the cited printed edition on
    which its text stands (in order; see :func:`page_span`).

    ``content`` is the base witness's characters, as the TEI quotes them; ``lang`` their script
    when the base witness writes traditional characters (``lzh-Hant``, the ``xml:lang`` of the
    ``ab`` the clause stands in), else None. Every chapter reads the same: the reading text in
    simplified characters (:attr:`text`, :meth:`reading`: a traditional base folded character by
    character, so offsets hold) and its traditional forms in :attr:`hant`."""

    id: str
    n: int
    content: list[Inline]
    source: str
    #: the clause in the characters of the traditional witness (None: the TEI has none)
    hant: str | None = None
    pages: list[Page] = field(default_factory=list)
    #: the script of ``content`` when it is not the reading's simplified (``lzh-Hant``), else None
    lang: str | None = None

    @property
    def text(self) -> str:
        """The reading text (glyphs as written), in simplified characters."""
        return in_script(plain(self.content), self.lang, "hans")

    def reading(self, chars: dict[str, CharDecl]) -> str:
        """The reading text as a reader reads it (:func:`readable`), in simplified characters."""
        return in_script(readable(self.content, chars), self.lang, "hans")

    @property
    def page(self) -> tuple[str, str] | None:
        """(start page, end page) in the cited edition, or None."""
        return page_span(self.pages)


@dataclass
class SentenceSeg:
    """A sentence of a translation paragraph and the clauses it renders."""

    n: int
    text: str
    corresp: list[str]
    cert: float | None = None
    override: int | None = None


@dataclass
class Quotation:
    """Where a 疏 quotes the 注 or 经 in other words than the text has (a finding of the
    collation, :mod:`yili_corpus.align.quotations`): the witness, its words and their pointer,
    what it quotes (``zhu`` or ``jing``), the 注 it quotes (a note id), the text's words and how
    many characters differ."""

    witness: str
    words: str
    source: str
    quotes: str
    zhu: str
    text: str
    differences: int

    def describe(self) -> str:
        """``w003 引注作「由使也」，注作「由便也」`` (the line of ``show``)."""
        what = "注" if self.quotes == "zhu" else "经"
        return f"{self.witness} 引{what}作「{self.words}」，{what}作「{self.text}」"


@dataclass
class Unit:
    """A commentary or translation unit attached to the 经/记.

    ``target``/``target_end`` are clause ids (the stretch it is attached to: for 注 the words it
    follows, for 疏 the range its lemma names, for a note its lemma, for a translation paragraph
    the clauses it renders). ``parts`` holds the parts of a 疏 block (role, content, source);
    ``sentences`` the sentences of a translation paragraph.
    """

    id: str
    layer: str
    content: list[Any]
    target: str | None
    target_end: str | None
    source: str
    n: str | None = None
    resp: str | None = None
    lang: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)
    parts: list[tuple[str, list[str | Glyph], str]] = field(default_factory=list)
    sentences: list[SentenceSeg] = field(default_factory=list)
    refs: list[dict[str, str]] = field(default_factory=list)
    editorial: str = ""
    #: the pages of the cited printed edition on which the unit stands (a 注 of that edition)
    pages: list[Page] = field(default_factory=list)
    #: a 疏's quotations of the 注 or 经 in other words (findings)
    quotations: list[Quotation] = field(default_factory=list)

    @property
    def page(self) -> tuple[str, str] | None:
        """(start page, end page) in the cited edition, or None."""
        return page_span(self.pages)

    @property
    def witness(self) -> str:
        """The witness the unit comes from (``w005``: the first id of its ``@source``), or ""."""
        return self.source.split()[0].lstrip("#") if self.source else ""

    @property
    def text(self) -> str:
        if self.parts:
            return "".join(plain(c) for _r, c, _s in self.parts)
        if self.sentences:
            return "".join(s.text for s in self.sentences)
        return plain(self.content)


@dataclass
class Paragraph:
    """A paragraph: the 经/记 clauses and the units whose stretch starts in it."""

    id: str
    n: int
    layer: str  # jing | ji
    clauses: list[Clause]
    units: list[Unit] = field(default_factory=list)
    breaks: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.clauses)


@dataclass
class Section:
    """A section of the chapter."""

    id: str
    n: int
    layer: str
    title: str
    paragraphs: list[Paragraph]
    summary: list[str] = field(default_factory=list)  # ids of the notes that sum it up

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.paragraphs)

    def layers(self) -> list[str]:
        """The layers present in the section, in reading order."""
        have = {self.layer}
        for p in self.paragraphs:
            have.update(u.layer for u in p.units)
        return [k for k in KEYS if k in have]


@dataclass
class Edition:
    """The printed edition a witness transcribes, as a citation names it (from the manifest row
    of the witness): ``《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本``, with where the transcription
    comes from and on what terms."""

    title: str  # 儀禮注疏
    juan: str  # 卷五
    chapter: str  # 鄉射禮
    series: str = ""  # 文淵閣四庫全書
    name: str = ""  # 文淵閣四庫全書本
    publisher: str = ""
    url: str = ""
    commit: str = ""
    licence: str = ""
    licence_url: str = ""
    attribution: str = ""
    date: str = ""  # when the edition was made, ISO (1776)
    date_text: str = ""  # the date as the edition says it (乾隆四十一年九月)

    def citation(self, page: tuple[str, str] | None = None, leaf: str = LEAF) -> str:
        """``《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉12b`` (``葉12b–13a`` for two pages;
        without a page, the edition alone)."""
        out = f"《{self.title}》{self.juan}《{self.chapter}》" + (f"，{self.name}" if self.name else "")
        if page:
            out += f"，{leaf}{page_label(page)}"
        return out


def page_label(page: tuple[str, str]) -> str:
    """``12b``, or ``12b–13a`` for a span of pages."""
    return page[0] if page[0] == page[1] else f"{page[0]}–{page[1]}"


@dataclass
class Witness:
    """A source file as a witness; ``bibl``: the printed edition it transcribes, if it is cited
    by page."""

    id: str
    file: str
    sha256: str
    edition: str
    description: str
    layers: list[str]
    rank: int
    #: where a file from a published edition comes from, and its licence (empty for the seeds)
    repository: str = ""
    commit: str = ""
    licence: str = ""
    licence_url: str = ""
    attribution: str = ""
    bibl: Edition | None = None


@dataclass
class CharDecl:
    """A character written with private-use code points by a witness."""

    id: str
    witness: str
    sequence: str
    character: str | None
    count: int
    note: str


@dataclass
class ClauseChange:
    """A place where the clause division differs from the base witness's ．: ``kind`` is
    ``added`` (a boundary the base does not have) or ``removed`` (a ．of the base overruled);
    ``clauses`` the clause ids either side of an added boundary, or the clause that now holds the
    place; ``text`` the place (堂前｜三笴) with its evidence and the rule that decided."""

    kind: str
    clauses: list[str]
    text: str


@dataclass
class Heading:
    """A heading of the printed edition (a ``heading`` unit of the 四库 parser): its role
    (``edition``, ``juan``, ``byline``, ``chapter``, ``kaozheng``, ``other``), its text as the file has
    it, its source pointer, the page it stands on, and whether it opens the 卷 (``front``: its title
    page) or stands after the text (the 卷's closing title, the 考證 headings)."""

    role: str
    text: str
    source: str
    pages: list[Page] = field(default_factory=list)
    front: bool = True


@dataclass
class Document:
    """The chapter: header facts and sections."""

    id: str
    work: str
    chapter: str
    number: int
    witnesses: list[Witness]
    chars: list[CharDecl]
    sections: list[Section]
    normalization: str = ""
    collation: str = ""
    variants_table: str = ""
    #: The variant forms the search key folds: (form, normal form, where seen).
    variants: list[tuple[str, str, str]] = field(default_factory=list)
    #: Works cited in 《》: (title as written, normalised title, kind, where seen).
    works: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: The commentators of the header (corpus/commentators.tsv): (xml:id, name, resp: 注, 疏).
    commentators: list[tuple[str, str, str]] = field(default_factory=list)
    #: The chapter's titles as references write them (the title first, then its variants).
    titles: list[str] = field(default_factory=list)
    #: The corpus folder's name: source pointers are ``FOLDER/FILE#char=A,B``.
    corpus: str = "corpus"
    #: The alignment-overrides table, as a pointer (``corpus/alignment-overrides.tsv``).
    overrides_table: str = ""
    #: The table of cited works, as a pointer (``corpus/works.tsv``).
    works_table: str = "corpus/works.tsv"
    #: The witness whose characters the clauses' traditional forms are (``Clause.hant``), or "".
    traditional: str = ""
    #: The pages of the printed edition that clauses and 注 are cited by (the TEI's facsimile).
    pages: list[Page] = field(default_factory=list)
    #: The editions the 四库 考證 names: (xml:id, name, what it is, where seen), and their table.
    cited_editions: list[tuple[str, str, str, str]] = field(default_factory=list)
    editions_table: str = ""
    #: The edition's headings (title page and closing titles), in file order.
    headings: list[Heading] = field(default_factory=list)

    @property
    def edition(self) -> Edition | None:
        """The printed edition the pages belong to (its witness's ``bibl``), or None."""
        wits = {p.witness for p in self.pages}
        return next((w.bibl for w in self.witnesses if w.id in wits and w.bibl is not None), None)
    #: How the text is divided into clauses (the header's ``segmentation``), and every place where
    #: the division differs from the base witness's ．, with its evidence.
    segmentation: str = ""
    clause_changes: list[ClauseChange] = field(default_factory=list)

    def normaliser(self) -> Any:
        """The normaliser of the search key, with the variant table this document carries."""
        from .text.normalise import Normaliser, VariantTable

        return Normaliser(VariantTable(fold={f: n for f, n, _s in self.variants},
                                       seen={f: s for f, _n, s in self.variants}))

    def work_title(self, title: str) -> tuple[str, str] | None:
        """(normalised title, kind) of a title as written, or None."""
        for t, n, k, _s in self.works:
            if t == title:
                return n, k
        return None

    def section(self, n: int) -> Section | None:
        return next((s for s in self.sections if s.n == n), None)

    @property
    def char_map(self) -> dict[str, CharDecl]:
        return {c.id: c for c in self.chars}
