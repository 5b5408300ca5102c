"""The layout of an 注疏 edition, as data: what a reader's page holds and in what order.

For a range of sections and layers, :func:`layout` gives, per section and per paragraph:

* the 经/记 clauses (:class:`ClauseItem`: id, number, text in the script asked for, cut into
  :class:`Piece` s so that each apparatus entry stands at its lemma, and the entries themselves,
  read by :mod:`yili_corpus.query.apparatus`);
* after each clause, the blocks that follow its words (``inline``): each 注 right after the
  clause it ends on (``Unit.target_end``), the 音义 entries on those words or on that 注, the
  考證 entries on them — in reading order, 注 first;
* after each clause, the blocks that close the passage they comment on (``after``): the 疏,
  after the last clause of its passage;
* the notes by their lemma (``ParagraphLayout.notes``, each knowing the clauses it is on; the
  clause it ends on carries its marker in ``ClauseItem.notes``);
* the translation beside its paragraph (``ParagraphLayout.beside``, a list per layer, overlays'
  translations (``trans:NAME``) included);
* a section's summary notes (``SectionLayout.summary``).

Each :class:`Block` knows its layer, its witness, its pages in the cited edition, the clauses it
is on, its text (in pieces, with its apparatus at the lemma) and its quotations.

It is built on :class:`~yili_corpus.query.show.Passage` (``units()``, ``quote()``,
``apparatus()``, ``unit_text()``), never on the TEI directly, so that what ``show`` prints and
what an edition prints are one reading. The html export (:mod:`yili_corpus.export.html`) and the
LaTeX export both take from it the order of the blocks, where each goes (inline after a clause,
after the passage, in the notes, beside), the text pieces with their apparatus markers, and
:attr:`Layout.layers` / :attr:`Layout.side` (the layers that have text in the range: no column,
no toggle for an absent layer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..document import App, Document, Glyph, Ref, Unit, glyph_text, in_script
from ..layers import KAOZHENG, KEYS, base_key, is_text, ordered
from ..query.apparatus import entry
from ..query.refs import Address
from ..query.show import Passage

#: The base layers whose blocks follow a clause's words in the text (in this order).
INLINE = ("zhu", "yinyi", KAOZHENG)
#: The base layers whose blocks close the passage they are on.
AFTER = ("shu",)
#: The base layers listed by their lemma under the paragraph.
NOTES = ("note",)
#: The base layers set beside the paragraph (a column of their own).
BESIDE = ("trans",)


@dataclass
class Piece:
    """A stretch of text; ``app`` the index (in the owner's ``apparatus``) of the entry whose
    lemma it is, else None."""

    text: str
    app: int | None = None


@dataclass
class Block:
    """A unit of a commentary, note or translation layer, where the page puts it."""

    layer: str
    ref: str
    text: str
    pieces: list[Piece]
    witness: str
    pages: tuple[str, str] | None
    first: str  # the first clause it is on
    last: str  # the last clause it is on
    quote: str  # the 经/记 words it is on
    n: str | None = None
    apparatus: list[dict[str, Any]] = field(default_factory=list)
    quotations: list[dict[str, Any]] = field(default_factory=list)
    #: a 音义 or 考證 entry on words of a 注: that 注's id
    on_zhu: str | None = None
    #: a 音义 entry's head word
    head: str = ""
    #: a translation's sentences: {"n", "text", "clauses"}
    sentences: list[dict[str, Any]] = field(default_factory=list)
    #: a translation set beside several paragraphs: which part of the unit this is (0: the first)
    part: int = 0

    @property
    def base(self) -> str:
        """The block's base layer (``trans`` for ``trans:mine``)."""
        return base_key(self.layer)


@dataclass
class ClauseItem:
    """A clause of the 经/记 and what the page sets after it."""

    id: str
    n: int
    text: str
    pieces: list[Piece]
    pages: tuple[str, str] | None
    apparatus: list[dict[str, Any]] = field(default_factory=list)
    #: 注, 音义, 考證 following the clause's words (smaller type, in the flow)
    inline: list[Block] = field(default_factory=list)
    #: 疏 closing the passage that ends here
    after: list[Block] = field(default_factory=list)
    #: the notes whose lemma ends on this clause (their refs: a marker here)
    notes: list[str] = field(default_factory=list)


@dataclass
class ParagraphLayout:
    """A paragraph: its clauses (with what follows each), its notes, its translation."""

    id: str
    n: int
    layer: str  # jing | ji
    clauses: list[ClauseItem]
    notes: list[Block] = field(default_factory=list)
    beside: dict[str, list[Block]] = field(default_factory=dict)


@dataclass
class SectionLayout:
    """A section: number, title, paragraphs, its summary notes."""

    n: int
    id: str
    title: str
    layer: str
    paragraphs: list[ParagraphLayout]
    summary: list[Block] = field(default_factory=list)


@dataclass
class Layout:
    """The layout of a range: its sections and the layers that have text in it."""

    work: str
    chapter: str
    sections: list[SectionLayout]
    #: the layers asked for that have text in the range, in reading order
    layers: list[str]
    #: the layers asked for that have nothing in the range (a notice, no column)
    absent: list[str]
    #: the layers set beside the text (translations) that have text in the range
    side: list[str]
    script: str = "hans"

    def blocks(self) -> list[Block]:
        """Every block, in page order."""
        out: list[Block] = []
        for s in self.sections:
            out += s.summary
            for p in s.paragraphs:
                for c in p.clauses:
                    out += c.inline + c.after
                out += p.notes
                for bs in p.beside.values():
                    out += bs
        return out


def _pieces(content: list[Any], p: Passage, own: str, lang: str | None,
            apparatus: list[dict[str, Any]]) -> list[Piece]:
    """Inline content as pieces, each apparatus entry (that has a differing reading) appended to
    ``apparatus`` and marked at its lemma."""
    out: list[Piece] = []
    for x in content:
        if isinstance(x, str):
            t, k = x, None
        elif isinstance(x, Glyph):
            t, k = glyph_text(x, p.chars), None
        elif isinstance(x, Ref):
            t, k = x.text, None
        elif isinstance(x, App):
            t = x.lem
            e = entry(x, own, p.chars, p.script, p.doc.traditional)
            k = None
            if e is not None:
                apparatus.append(e)
                k = len(apparatus) - 1
        else:
            continue
        t = in_script(t, lang, p.script) if lang is not None else t
        if out and out[-1].app is None and k is None:
            out[-1].text += t
        else:
            out.append(Piece(t, k))
    return out


def _block(p: Passage, u: Unit) -> Block:
    first, last, quote = p.quote(u)
    own = u.witness
    text = p.unit_text(u)
    apparatus: list[dict[str, Any]] = []
    shown = p.shown_parts(u)
    if (u.parts and not shown) or u.sentences or u.layer == KAOZHENG:
        # a 音义's items, a 考證's lemma and note, a translation's sentences: the text as show
        # reads it, its apparatus listed after it (a 考證's is that of the words it is on)
        pieces = [Piece(text)]
        apparatus = p.apparatus(u)
        if apparatus and u.layer != KAOZHENG:
            pieces.append(Piece("", 0))
    else:
        # a 注, a 疏 (of two witnesses: its own parts): each apparatus entry marked at its lemma
        content = [x for c in shown for x in c] if shown else u.content
        pieces = _pieces(content, p, own, u.lang, apparatus)
        if "".join(x.text for x in pieces) != text:  # a reading the pieces cannot give: as show has it
            apparatus = p.apparatus(u)
            pieces = [Piece(text)] + ([Piece("", 0)] if apparatus else [])
    b = Block(layer=u.layer, ref=u.id, text=text, pieces=pieces, witness=own, pages=u.page, first=first,
              last=last, quote=quote, n=u.n, apparatus=apparatus)
    b.quotations = [{"witness": q.witness, "text": q.describe()} for q in u.quotations]
    if u.attrs.get("zhu") and base_key(u.layer) in INLINE:
        b.on_zhu = u.attrs["zhu"].lstrip("#")
    if base_key(u.layer) == "yinyi" and u.parts:
        b.head = in_script("".join(x if isinstance(x, str) else "" for x in u.parts[0][1]), u.lang, p.script)
    if u.sentences:
        b.sentences = [{"n": s.n, "text": s.text, "clauses": s.corresp} for s in u.sentences]
    return b


def _by_paragraph(b: Block, home: ParagraphLayout, where: dict[str, tuple[ParagraphLayout, ClauseItem]],
                  ) -> list[tuple[ParagraphLayout, Block]]:
    """A translation cut by the paragraphs its sentences render: each sentence beside the
    paragraph of the first clause it is linked to (a sentence without a link stays with the one
    before it), so a translation unit that spans paragraphs stands beside each of them."""
    if not b.sentences:
        return [(home, b)]
    groups: list[tuple[ParagraphLayout, list[dict[str, Any]]]] = []
    cur = home
    for sent in b.sentences:
        cid = next((c for c in sent["clauses"] if c in where), None)
        if cid is not None:
            cur = where[cid][0]
        if groups and groups[-1][0] is cur:
            groups[-1][1].append(sent)
        else:
            groups.append((cur, [sent]))
    out = []
    for i, (pl, sents) in enumerate(groups):
        text = "".join(x["text"] for x in sents)
        part = Block(layer=b.layer, ref=b.ref, text=text, pieces=[Piece(text)], witness=b.witness, pages=b.pages,
                     first=b.first, last=b.last, quote=b.quote, n=b.n, sentences=sents, part=i)
        out.append((pl, part))
    if b.apparatus:
        out[-1][1].apparatus = b.apparatus
        out[-1][1].pieces.append(Piece("", 0))
    return out


def layout(doc: Document, sections: list[int], layers: list[str], script: str = "hans") -> Layout:
    """The layout of ``sections`` with ``layers`` (keys; overlays' ``trans:NAME``/``zhu:NAME``
    too), in ``script``."""
    want = ordered(layers)
    have: set[str] = set()
    out: list[SectionLayout] = []
    for n in sections:
        sec = doc.section(n)
        if sec is None:
            continue
        p = Passage(doc, Address(doc.id, n), want, script)
        paras: list[ParagraphLayout] = []
        where: dict[str, tuple[ParagraphLayout, ClauseItem]] = {}
        show_text = sec.layer in want
        for para in sec.paragraphs:
            items = []
            for c in para.clauses:
                app: list[dict[str, Any]] = []
                pieces = _pieces(c.content, p, "", c.lang, app)
                text = p.clause_text[c.id]
                if "".join(x.text for x in pieces) != text:  # traditional forms: no inline markers
                    pieces = [Piece(text)] + ([Piece("", 0)] if app else [])
                items.append(ClauseItem(c.id, c.n, text, pieces, c.page, app))
            pl = ParagraphLayout(para.id, para.n, para.layer, items)
            paras.append(pl)
            for it in items:
                where[it.id] = (pl, it)
        if show_text and any(pl.clauses for pl in paras):
            have.add(sec.layer)
        sl = SectionLayout(sec.n, sec.id, sec.title, sec.layer, paras)
        summary = set(sec.summary)
        for pl, para in zip(paras, sec.paragraphs, strict=True):
            units = [u for u in para.units if u.layer in want and not is_text(u.layer)]
            units.sort(key=lambda u: base_key(u.layer) != "zhu")  # a 注 placed before what is on it
            zhu_at: dict[str, ClauseItem] = {}
            for u in units:
                b = _block(p, u)
                have.add(u.layer)
                base = b.base
                anchor = where.get(b.last, (pl, pl.clauses[-1] if pl.clauses else None))
                if u.attrs.get("summary_of") or u.id in summary:
                    sl.summary.append(b)
                elif base in BESIDE:
                    for bpl, part in _by_paragraph(b, pl, where):
                        bpl.beside.setdefault(u.layer, []).append(part)
                elif base in NOTES:
                    apl, ac = anchor
                    apl.notes.append(b)
                    if ac is not None:
                        ac.notes.append(b.ref)
                elif anchor[1] is None:
                    pl.notes.append(b)
                elif base in AFTER:
                    anchor[1].after.append(b)
                else:
                    if base == "zhu":
                        zhu_at[b.ref] = anchor[1]
                    target = zhu_at.get(b.on_zhu or "", anchor[1])
                    target.inline.append(b)
            for it in pl.clauses:  # 注 first, then 音义, then 考證; each layer in its order
                it.inline.sort(key=lambda b: INLINE.index(b.base))
        out.append(sl)
    present = [k for k in want if k in have]
    side = [k for k in present if base_key(k) in BESIDE]
    absent = [k for k in want if k not in have and (k in KEYS or ":" in k)]
    return Layout(doc.work, doc.chapter, out, present, absent, side, script)
