"""The build's results → the :class:`~yili_corpus.document.Document` the TEI writer writes.

Every clause, reading and unit gets a source pointer: the witness and the exact characters of
its file, as an RFC 5147 fragment (``#w003 corpus/003_….txt#char=5678,5702``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..align.commentary import LEMMA_ROLES
from ..align.yinyi import entry_span as yinyi_span
from ..document import (
    LEAF,
    App,
    CharDecl,
    Clause,
    ClauseChange,
    Document,
    Edition,
    Glyph,
    Heading,
    Page,
    Paragraph,
    Quotation,
    Rdg,
    Ref,
    Section,
    SentenceSeg,
    Unit,
    Witness,
)
from ..layers import KEYS
from ..model import SourceUnit
from ..text.clauses import NEAR
from ..text.collate import key_spans
from ..text.normalise import without_layout
from ..text.pages import PageBreaks, clause_pages
from ..text.segment import Locator
from ..text.unencoded import Unencoded, sequences
from .core import KAOZHENG, YINYI_KINDS

if TYPE_CHECKING:  # the build's result, passed in by the pipeline
    from ..build_result import BuildResult
    from ..sources.manifest import Manifest, SourceEntry

NORMALIZATION = (
    "Search and matching use a normalised key: only text characters (CJK ideographs, private-use "
    "code points), folded from traditional to simplified character by character with OpenCC (t2s), "
    "then through the variant table {variants} (荅/答, 筭/算, 闲/閒/间 …, each row saying "
    "where it was seen). The diplomatic text of every witness is kept as it stands."
)


def collation_account(m: Manifest) -> str:
    """The header's account of the collation, from the manifest: the base witness, the other
    witnesses of the 经 and 记, the witness ranks, the tables."""
    wits = [s for s in m.sources if {"jing", "ji"} & set(s.layers)]
    ranked = [s.id for s in sorted(wits, key=lambda s: s.rank)]
    others = [w for w in ranked if w != m.base]
    listed = ", ".join(others[:-1]) + f" and {others[-1]}" if len(others) > 1 else "".join(others)
    src = f"{m.base} (the base, complete)" + (f", {listed}" if others else "")
    return (
        f"The reading text of the 经 and 记 is collated from {src}. A reading that holds a private-use "
        "code point or a placeholder, or that lacks characters its witness never writes, does not vote: "
        "the character is restored from the other witnesses (app type=restored, lem holding supplied "
        "with @source). Otherwise the reading is chosen by the majority of the witnesses of the passage; "
        "on a tie between unrelated readings (a passage one witness lacks or has elsewhere) by the witness "
        "rank; on a tie by attestation elsewhere in the corpus (the candidate with its neighbours, two "
        "characters of context then one); on a tie still by the witness rank of "
        f"{m.pointer(m.path)} ({', '.join(ranked)}). Each app says its rule in a note. Where no "
        f"witness has the right reading, {_table(m, 'emendations')} gives it with its evidence (app "
        f"type=emendation, choice/sic/corr). Clauses are divided by the evidence of the witnesses "
        f"(segmentation); paragraphs start where a witness starts one; sections follow "
        f"{_table(m, 'sections')}."
    )


def segmentation_account(m: Manifest) -> str:
    """The header's account of the clause division (:mod:`yili_corpus.text.clauses`)."""
    zhu = [s.id for s in m.sources if "zhu" in s.layers]
    return (
        f"The 经 and 记 are divided into clauses (seg type=clause) by the evidence of every witness, "
        f"place by place. {m.base}'s clause mark ．, a mark of ，。；：！？ in a punctuated witness and a "
        "paragraph start vote for a boundary; a punctuated witness that runs through a place while it "
        f"punctuates within {NEAR} characters either side votes against (、 and quotation marks divide no "
        "clause; a witness without punctuation has no vote). A place where a 注 of "
        f"{' or '.join(zhu) or 'a 注疏 witness'} stands after the 经 words it explains is a boundary (a "
        "注 never falls inside a word). Otherwise the majority decides; on a tie "
        f"{m.base}'s division stands. A place inside a collation site never becomes a new boundary. "
        "Translation sentence ends are not evidence: the translation is aligned to these clauses. "
        f"The list gives every place where the division differs from {m.base}'s ．, with the clauses "
        "on either side of an added boundary, or the clause that holds an overruled one, and its "
        "evidence."
    )


def clause_changes(r: BuildResult, loc: Locator) -> list[ClauseChange]:
    """The places where the clause division differs from the base witness's ．, with their
    evidence, for the header."""
    out: list[ClauseChange] = []
    for p in r.division.changes if r.division else []:
        _s, _p, here = loc.at(p.at)
        if p.boundary:
            ids = [loc.at(p.at - 1)[2].id, here.id]
        else:
            ids = [here.id]
        out.append(ClauseChange("added" if p.boundary else "removed", ids,
                                f"{p.context}: {p.evidence()}; {p.rule}"))
    return out


def _table(m: Manifest, name: str) -> str:
    return m.pointer(m.tables[name]) if name in m.tables else f"the {name} table"


class _Pointers:
    """Source pointers: witness id plus the exact characters in its file."""

    def __init__(self, r: BuildResult) -> None:
        self.files = {s.id: r.manifest.pointer(s.file) for s in r.manifest.sources}
        self.line_starts: dict[str, list[int]] = {}
        for sid, p in r.parsed.items():
            starts = [0]
            for i, ch in enumerate(p.text):
                if ch == "\n":
                    starts.append(i + 1)
            self.line_starts[sid] = starts

    def span(self, wit: str, a: int, b: int) -> str:
        return f"#{wit} {self.files[wit]}#char={a},{b}"

    def unit(self, u: SourceUnit) -> str:
        return self.span(u.source, u.offset, u.end)

    def at(self, wit: str, line: int | None, col: int | None, length: int) -> str:
        if line is None or col is None:
            return f"#{wit}"
        a = self.line_starts[wit][line - 1] + col
        return self.span(wit, a, a + length)


class _Glyphs:
    """Unencoded sequences → glyphs declared in the header, with what each stands for
    (:func:`~yili_corpus.text.unencoded.resolve_unencoded`); ``count`` is how often the document
    writes it."""

    def __init__(self, r: BuildResult) -> None:
        self.decls: dict[str, CharDecl] = {}
        self.known: dict[str, list[str]] = {}
        for (wit, seq), v in r.unencoded.items():
            self.decls[self.cid(wit, seq)] = CharDecl(self.cid(wit, seq), wit, seq, v.character, 0, v.note)
            self.known.setdefault(wit, []).append(seq)
        for lst in self.known.values():
            lst.sort(key=lambda s: -len(s))

    @staticmethod
    def cid(wit: str, seq: str) -> str:
        return wit + "-" + "-".join(f"{ord(c):04X}" for c in seq)

    def used(self) -> list[CharDecl]:
        """The declarations of the sequences the document writes."""
        return sorted((c for c in self.decls.values() if c.count), key=lambda c: c.id)

    def split(self, wit: str, text: str) -> list[str | Glyph]:
        """``text`` as plain strings and glyphs."""
        out: list[str | Glyph] = []
        i = 0
        for off, seq in sequences(text, self.known.get(wit, [])):
            if off > i:
                out.append(text[i:off])
            cid = self.cid(wit, seq)
            if cid not in self.decls:  # not in the units the build read (cannot happen for a unit's text)
                self.decls[cid] = CharDecl(cid, wit, seq, None, 0, Unencoded(wit, seq, None).note)
            self.decls[cid].count += 1
            out.append(Glyph(cid, seq))
            i = off + len(seq)
        if i < len(text):
            out.append(text[i:])
        return out


def _part_slice(u: SourceUnit, a: int, b: int) -> tuple[int, int]:
    """The file offsets of characters ``[a, b)`` of a unit's reading (``meta["text"]``)
    (:meth:`SourceUnit.reading_offsets`)."""
    offs = u.reading_offsets()
    return offs[a], offs[b - 1] + 1


def reading_of(u: SourceUnit) -> str:
    """A unit's text as a reader reads it: the parser's reading without layout marks (line ends,
    page breaks, column breaks) where the format has them (``meta["text"]``), else the slice."""
    return str(u.meta.get("text", u.text))


def edition_of(s: SourceEntry) -> Edition | None:
    """The printed edition a manifest row names (``edition_title``, ``juan`` …), or None."""
    if not s.edition_title:
        return None
    return Edition(s.edition_title, s.juan, s.edition_chapter, s.series, s.edition_name, s.publisher,
                   s.repository, s.commit, s.licence, s.licence_url, s.attribution, s.edition_date,
                   s.edition_date_text)


class _Pages:
    """The pages of the cited edition: the highest-ranked witness whose manifest row names a
    printed edition and whose file marks its pages. Clauses and 注 are cited by its pages."""

    def __init__(self, r: BuildResult, ptr: _Pointers) -> None:
        self.breaks: PageBreaks | None = None
        self.pages: list[Page] = []
        for s in sorted(r.manifest.sources, key=lambda s: s.rank):
            if s.edition_title and s.id in r.parsed:
                b = PageBreaks.of(s.id, r.parsed[s.id].text)
                if b:
                    self.breaks = b
                    break
        if self.breaks is None:
            return
        wit = self.breaks.wit
        for page, a, e in self.breaks.spans():
            n = page.rsplit("-", 1)[-1]
            self.pages.append(Page(f"{wit}.{page}", n, f"{LEAF}{n}", wit, ptr.span(wit, a, e)))
        self.by_page = {p.id.removeprefix(wit + "."): p for p in self.pages}

    def clauses(self, col: Any, ranges: list[tuple[int, int]]) -> list[list[Page]]:
        """The pages of each clause (base-key ranges)."""
        if self.breaks is None:
            return [[] for _ in ranges]
        return [[self.by_page[p] for p in ps] for ps in clause_pages(col, self.breaks, ranges)]

    def unit(self, *units: SourceUnit | None) -> list[Page]:
        """The pages of the first of ``units`` that the cited edition's witness has."""
        if self.breaks is None:
            return []
        u = next((x for x in units if x is not None and x.source == self.breaks.wit), None)
        return [self.by_page[p] for p in self.breaks.of_unit(u)] if u is not None else []


def to_document(r: BuildResult) -> Document:
    """The document for the TEI writer."""
    m = r.manifest
    col = r.collation
    cid = m.chapter_id
    ptr = _Pointers(r)
    gl = _Glyphs(r)
    # the commentators of the layers the witnesses carry (corpus/commentators.tsv)
    commentators = [c for c in m.commentators if any(c.layer in s.layers for s in m.sources)]
    resp = {c.layer: f"#{c.id}" for c in commentators}
    loc = Locator(r.sections)
    # a classical unit's language tag says its script when its witness is traditional (lzh-Hant)
    script_lang = {s.id: "lzh-Hant" if s.script == "hant" else None for s in m.sources}
    pages = _Pages(r, ptr)
    all_clauses = [c for s in r.sections for p in s.paragraphs for c in p.clauses]
    clause_pg = dict(zip((c.id for c in all_clauses),
                         pages.clauses(col, [(c.start, c.end) for c in all_clauses]), strict=True))

    def clause_content(a: int, b: int) -> list[Any]:
        out: list[Any] = []
        for x in col.pieces(a, b):
            if isinstance(x, str):
                out.append(x)
                continue
            rdgs = [
                Rdg(r.wit, gl.split(r.wit, r.text), r.status,
                    " ".join(ptr.span(r.wit, a, b) for a, b in r.spans) if r.spans
                    else ptr.at(r.wit, r.line, r.col, len(r.text)))
                for r in x.readings
            ]
            out.append(App(x.kind, x.lem, list(x.lem_wits), rdgs, x.rule, x.sic, x.evidence))
        return out

    def clause_source(a: int, b: int) -> str:
        """The base witness's characters of a clause: one span per unit of the base it takes
        (a clause that runs over a ．of the base quotes the characters either side, not the ．)."""
        return " ".join(ptr.span(col.base.wit, x, y) for x, y in key_spans(col.base.pos[a:b]))

    # sections, paragraphs, clauses
    para_of: dict[str, Paragraph] = {}
    sections: list[Section] = []
    for s in r.sections:
        paras = []
        for p in s.paragraphs:
            clauses = []
            for c in p.clauses:
                # the clause's script is its base witness's: a traditional base is marked (lzh-Hant),
                # and is its own traditional view (no second copy beside it)
                hant = r.traditional.clauses.get(c.id) if r.traditional and not script_lang[col.base.wit] else None
                clauses.append(Clause(c.id, c.n, clause_content(c.start, c.end), clause_source(c.start, c.end),
                                      hant=hant, pages=clause_pg[c.id], lang=script_lang[col.base.wit]))
            dp = Paragraph(p.id, p.n, s.layer, clauses, [], list(p.breaks))
            paras.append(dp)
            para_of[p.id] = dp
        sections.append(Section(s.id, s.n, s.layer, s.title, paras))
    sec_by_n = {s.n: s for s in sections}

    def span_ids(start: int, end: int) -> tuple[str, str, str]:
        end = max(end, start + 1)
        _s, p, c0 = loc.at(start)
        _s, _p, c1 = loc.at(end - 1)
        return p.id, c0.id, c1.id

    def place(unit: Unit, para_id: str) -> None:
        para_of[para_id].units.append(unit)

    # 注
    zid: dict[int, str] = {}
    for z in r.zhu:
        u = z.unit
        uid = f"{cid}.{u.source}.zhu{u.meta['n']}"
        zid[id(u)] = uid
        if z.other is not None:  # the other witness's text of the same 注: a 疏 may name it
            zid[id(z.other)] = uid
        # a 注 stands after the words it follows: where the 经 since the previous 注 runs over a
        # section start (a modern division the edition does not mark), it is the end's section
        end_sec = loc.at(z.point)[0]
        pid, t0, t1 = span_ids(max(z.span.start, end_sec.start), z.span.end)
        content = _zhu_content(z, gl, ptr) if z.other is not None else gl.split(u.source, reading_of(u))
        place(Unit(uid, "zhu", content, t0, t1, ptr.unit(u), n=str(u.meta["n"]), lang=script_lang[u.source],
                   resp=resp.get("zhu"), pages=pages.unit(u, z.other)), pid)
    # 疏
    for sa in r.shu:
        head = sa.units[0]
        uid = f"{cid}.{head.source}.shu{sa.block}"
        if sa.jing is None:
            continue
        start, editorial = sa.jing.start, sa.reason
        if sa.how == "position":  # like a 注: it stands in the section of its span's end
            end_sec, first = loc.at(sa.jing.end - 1)[0], loc.at(sa.jing.start)[0]
            if first.n != end_sec.n:
                start = end_sec.start
                editorial += (f"; the 经 since the previous 疏 begins in section {first.n}: "
                              f"anchored in section {end_sec.n}, where the block stands")
        pid, t0, t1 = span_ids(start, sa.jing.end)
        if "parts" in head.meta:  # the 四库 layout: one block, its 釋曰 / 注釋曰 parts
            # ab/@type: on-jing (釋曰), on-zhu (注釋曰), on-zhuan (傳釋曰), on-unmarked (before a mark)
            parts = []
            # the other witness's lemmas (its blocks collated into this one), parts of their own
            parts += [(str(u.meta["role"]), gl.split(u.source, u.text), ptr.unit(u))
                      for o in sa.other for u in o.units if u.meta.get("role") in LEMMA_ROLES]
            parts += [(f"on-{p['kind']}", _shu_part_content(sa, p["start"], p["end"], gl, ptr),
                       ptr.span(head.source, *_part_slice(head, p["start"], p["end"])))
                      for p in head.meta["parts"]]
        else:
            parts = [(str(u.meta.get("role", "body")), gl.split(u.source, u.text), ptr.unit(u)) for u in sa.units]
        attrs = {"form": sa.form, "how": sa.how}
        if sa.other:  # the ids the blocks collated into this one had (cited before the merge)
            attrs["merged"] = " ".join(f"{cid}.{o.units[0].source}.shu{o.block}" for o in sa.other)
        if sa.zhu:
            attrs["zhu"] = " ".join(f"#{zid[id(x)]}" for x in sa.zhu if id(x) in zid)
        quotations = [Quotation(f.witness, f.words, ptr.span(f.witness, f.start, f.end), f.quotes,
                                zid.get(id(f.zhu), "") if f.zhu is not None else "", f.text, f.differences)
                      for f in sa.findings]
        place(Unit(uid, "shu", [], t0, t1, ptr.unit(head), n=str(sa.block), resp=resp.get("shu"),
                   lang=script_lang[head.source], attrs=attrs, parts=parts, editorial=editorial,
                   pages=pages.unit(head) if "parts" in head.meta else [], quotations=quotations), pid)
    # the 四库 editors' 考證: lemma and note, the editions it names as refs to the header's list
    for k, ka in enumerate(r.kaozheng, 1):
        if ka.start is None:
            continue
        u = ka.unit
        pid, t0, t1 = span_ids(ka.start, ka.end if ka.end and ka.end > ka.start else ka.start + 1)
        attrs = {"quotes": ka.quotes, "how": kaozheng_how(ka.how)}
        if ka.zhu is not None and id(ka.zhu.unit) in zid:
            attrs["zhu"] = "#" + zid[id(ka.zhu.unit)]
        place(Unit(f"{cid}.{u.source}.kz{k}", KAOZHENG, [], t0, t1, ptr.unit(u), n=str(k), resp=resp.get(KAOZHENG),
                   lang=script_lang[u.source], attrs=attrs, parts=_kaozheng_parts(ka, gl, ptr),
                   editorial=ka.reason, pages=pages.unit(u)), pid)
    # 音义: one note an entry, at the clause of the 经 character it glosses (or of the 注 it is in)
    blocks: dict[int, int] = {}
    for ya in r.yinyi.placed:
        b = blocks.setdefault(id(ya.block), len(blocks) + 1)
        assert ya.point is not None
        pid, t0, _t1 = span_ids(ya.point, ya.point + 1)
        e = ya.entry
        parts = [("head", gl.split(ya.block.source, e.head), "")]
        parts += [(YINYI_KINDS[i.kind], gl.split(ya.block.source, i.text), "") for i in e.items]
        attrs = {"kind": YINYI_KINDS[e.kind]}
        if ya.zhu is not None and id(ya.zhu.unit) in zid:
            attrs["zhu"] = "#" + zid[id(ya.zhu.unit)]
        x, y = yinyi_span(ya)
        place(Unit(f"{cid}.{ya.block.source}.yinyi{b}.{ya.n}", "yinyi", [], t0, t0, ptr.span(ya.block.source, x, y),
                   n=f"{b}.{ya.n}", resp=resp.get("yinyi"), lang=script_lang[ya.block.source], attrs=attrs,
                   parts=parts, pages=pages.unit(ya.block)), pid)
    # notes: ids first (cross-references point at notes later in the file)
    note_uid: list[str] = []
    note_ids: dict[tuple[str, int], str] = {}
    seen: set[str] = set()
    for a in r.notes:
        u = a.unit
        n = u.meta.get("n")
        series = u.meta.get("series")
        base = (f"{cid}.{u.source}.l{u.line}" if series == "lemma"
                else f"{cid}.{u.source}.n{n}" if series == "〔〕" else f"{cid}.{u.source}.note{n}")
        uid, k = base, 2
        while uid in seen:
            uid, k = f"{base}.{k}", k + 1
        seen.add(uid)
        note_uid.append(uid)
        if n is not None and series == "（）":
            note_ids.setdefault((u.source, int(n)), uid)
    for a, uid in zip(r.notes, note_uid, strict=True):
        u = a.unit
        n = u.meta.get("n")
        if a.start is None:
            continue
        pid, t0, t1 = span_ids(a.start, a.end if a.end and a.end > a.start else a.start + 1)
        content = _note_content(u, a.xrefs, gl, note_ids, cid)
        attrs = {"anchor": a.how, "series": str(u.meta.get("series", ""))}
        if u.meta.get("lemma"):
            attrs["lemma"] = str(u.meta["lemma"])
        if u.meta.get("fragment"):
            attrs["fragment"] = str(u.meta["fragment"])
        if a.section is not None and a.section in sec_by_n:
            attrs["summary_of"] = "#" + sec_by_n[a.section].id
        unit = Unit(uid, "note", content, t0, t1, ptr.unit(u), n=str(n) if n is not None else None,
                    lang="zh-Hans", attrs=attrs)
        place(unit, pid)
        if a.section is not None and a.section in sec_by_n:
            sec_by_n[a.section].summary.append(uid)
    # translation
    for t in r.translations:
        u = t.unit
        uid = f"{cid}.{u.source}.trans{u.line}"
        a0 = col.base.clauses[t.first][0]
        a1 = col.base.clauses[t.last][1]
        pid, t0, t1 = span_ids(a0, a1)
        sents = []
        for i, (x, y) in enumerate(t.sentences):
            lk = next((lk for lk in t.links if i in lk.sentences), None)
            corresp = []
            if lk is not None:
                corresp = [loc.at(col.base.clauses[c][0])[2].id for c in lk.clauses]
            sents.append(SentenceSeg(i + 1, u.text[x:y], corresp, lk.confidence if lk else None,
                                     lk.override if lk else None))
        src = " ".join([ptr.unit(u)] + [ptr.unit(d) for d in t.duplicates])
        place(Unit(uid, "trans", [], t0, t1, src, n=str(u.line), lang="zh-Hans",
                   attrs={"confidence": f"{t.confidence:.3f}"}, sentences=sents), pid)
    order = {k: i for i, k in enumerate(KEYS)}
    clause_pos = {c.id: (i, j) for s in sections for p in s.paragraphs for i, c in enumerate(p.clauses) for j in [p.n]}
    for s in sections:
        for p in s.paragraphs:
            p.units.sort(key=lambda x: (order[x.layer], clause_pos.get(x.target or "", (0, 0)), x.id))
    witnesses = [
        Witness(s.id, m.pointer(s.file), s.sha256, s.edition, s.description, list(s.layers), s.rank,
                repository=s.repository, commit=s.commit, licence=s.licence, licence_url=s.licence_url,
                attribution=s.attribution, bibl=edition_of(s))
        for s in m.sources
    ]
    chars = gl.used()
    vt = r.norm.variants
    variants = [(f, vt.fold[f], vt.seen[f]) for f in vt.fold]
    works = load_works(m.table("works")) if "works" in m.tables else []
    return Document(cid, m.work_title, m.chapter_title, m.chapter_number, witnesses, chars, sections,
                    NORMALIZATION.format(variants=_table(m, "variants")), collation_account(m),
                    _table(m, "variants"), variants, works,
                    commentators=[(c.id, c.name, c.resp) for c in commentators], titles=list(m.titles),
                    corpus=m.folder, overrides_table=_table(m, "overrides") if "overrides" in m.tables else "",
                    works_table=_table(m, "works"), traditional=m.traditional or "", pages=pages.pages,
                    segmentation=segmentation_account(m), clause_changes=clause_changes(r, loc),
                    cited_editions=[(e.id, e.name, e.description, f"{r.manifest.pointer(_wfile(r))} lines {_edition_lines(r, e)}")
                                    for e in r.kaozheng_editions if any(x is e for a in r.kaozheng for x, _ in a.editions)],
                    editions_table=_table(m, "kaozheng_editions") if "kaozheng_editions" in m.tables else "",
                    headings=_headings(r, ptr, pages))


def _headings(r: BuildResult, ptr: _Pointers, pages: _Pages) -> list[Heading]:
    """The edition's headings: those before the first unit of their file's text open the 卷 (its
    title page), the others close it (the 卷's closing title, the 考證's titles)."""
    first: dict[str, int] = {}
    for sid, p in r.parsed.items():
        if p.units:
            first[sid] = min(u.offset for u in p.units)
    out = []
    for u in sorted(r.headings, key=lambda u: (u.source, u.offset)):
        out.append(Heading(str(u.meta.get("role", "other")), u.text, ptr.unit(u), pages.unit(u),
                           front=u.offset < first.get(u.source, 0)))
    return out


def _edition_lines(r: BuildResult, e: Any) -> str:
    """The lines of this chapter's 考證 file where the entries write the edition's name (``1739–1740``
    where it runs over a line end), as the table's ``lines`` column gives them for 卷五: found in
    the chapter's own file, so that another chapter's header does not cite 卷五's lines."""
    pat = re.compile(r"(?:¶\n[\s　]*)?".join(map(re.escape, e.name)))
    out: list[str] = []
    for a in r.kaozheng:
        if not any(x is e for x, _ in a.editions):
            continue
        u = a.unit
        text = r.parsed[u.source].text
        for m in pat.finditer(text, u.offset, u.end):
            first, last = text.count("\n", 0, m.start()) + 1, text.count("\n", 0, m.end() - 1) + 1
            v = str(first) if first == last else f"{first}–{last}"
            if v not in out:
                out.append(v)
    return " ".join(out)


def _wfile(r: BuildResult) -> str:
    """The file of the 考證's witness."""
    w = r.kaozheng[0].unit.source if r.kaozheng else ""
    return next((s.file for s in r.manifest.sources if s.id == w), "")


def kaozheng_how(how: str) -> str:
    """How a 考證 entry was anchored, as the TEI keeps it (its @cert): exact, out of order, or
    approximate (near, partial)."""
    return how if how in ("exact", "out of order") else "approximate"


def _kaozheng_parts(ka: Any, gl: _Glyphs, ptr: _Pointers) -> list[tuple[str, list[Any], str]]:
    """A 考證 entry's lemma and note (``ab type=lemma|note``), the editions it names as refs."""
    u = ka.unit
    lemma, note = str(u.meta.get("lemma", "")), str(u.meta.get("note", ""))
    circle = u.text.find("○")
    parts: list[tuple[str, list[Any], str]] = []
    if lemma:
        parts.append(("lemma", gl.split(u.source, lemma), ptr.span(u.source, u.offset, u.offset + max(circle, 0))))
    content: list[Any] = ["○"] if circle >= 0 else []  # the note part quotes the entry from its ○
    i = 0
    for e, at in ka.editions:
        if at < i:
            continue
        content.extend(gl.split(u.source, note[i:at]))
        content.append(Ref("edition", e.name, "#" + e.id))
        i = at + len(e.name)
    content.extend(gl.split(u.source, note[i:]))
    parts.append(("note", [x for x in content if x != ""],
                  ptr.span(u.source, u.offset + max(circle, 0), u.end)))
    return parts


def _shu_part_content(sa: Any, a: int, b: int, gl: _Glyphs, ptr: _Pointers) -> list[Any]:
    """Characters ``[a, b)`` of a 四库 疏 block's reading, with an apparatus entry wherever the
    other witness's block of the same 疏 differs (:func:`~yili_corpus.align.commentary.collate_shu`;
    a difference that runs over a part's end is cut there)."""
    u = sa.units[0]
    text = reading_of(u)
    o = sa.other[0].units[0].source if sa.other else ""
    out: list[Any] = []
    i = a
    for st in sa.sites:
        if not (a <= st.a < b):
            continue
        x, y = st.a, min(st.b, b)
        out.extend(gl.split(u.source, text[i:x]))
        lem = text[x:y]
        offs = sa.other_offsets
        if st.other_a < st.other_b:
            optr = ptr.span(o, offs[st.other_a], offs[st.other_b - 1] + 1)
        else:
            at = offs[st.other_a] if st.other_a < len(offs) else offs[-1] + 1
            optr = ptr.span(o, at, at)
        rdgs = [
            Rdg(u.source, gl.split(u.source, lem), "reading", ptr.span(u.source, *_part_slice(u, x, y))),
            Rdg(o, gl.split(o, sa.other_text[st.other_a:st.other_b]), "reading", optr),
        ]
        out.append(App("variant", lem, [u.source], rdgs, st.rule))
        i = y
    out.extend(gl.split(u.source, text[i:b]))
    return [x for x in out if x != ""]


def _zhu_content(z: Any, gl: _Glyphs, ptr: _Pointers) -> list[Any]:
    """A 注 that two witnesses have: the higher-ranked witness's text, with an apparatus entry
    wherever the other's differs (:func:`~yili_corpus.align.commentary.collate_zhu`)."""
    u, o = z.unit, z.other
    out: list[Any] = []
    i = 0
    for st in z.sites:
        out.extend(gl.split(u.source, without_layout(u.text[i:st.a])))
        lem = without_layout(u.text[st.a:st.b])
        rdgs = [
            Rdg(u.source, gl.split(u.source, lem), "reading", ptr.span(u.source, u.offset + st.a, u.offset + st.b)),
            Rdg(o.source, gl.split(o.source, o.text[st.other_a:st.other_b]), "reading",
                ptr.span(o.source, o.offset + st.other_a, o.offset + st.other_b)),
        ]
        out.append(App("variant", lem, [u.source], rdgs, st.rule))
        i = st.b
    out.extend(gl.split(u.source, without_layout(u.text[i:])))
    return [x for x in out if x != ""]


def load_works(path: Any) -> list[tuple[str, str, str, str]]:
    """Read ``corpus/works.tsv``: title, normal, kind, seen."""
    from ..errors import DataError
    from ..tables import read_table

    out = []
    for i, cells in read_table(path, ["title", "normal", "kind", "seen"], "works table"):
        title, normal, kind, seen = ([c.strip() for c in cells] + ["", "", "", ""])[:4]
        if not title or not normal or kind not in ("chapter", "work", "part", "poem"):
            row = "\t".join(cells)
            raise DataError(f"bad works row: {row[:200]!r}", str(path), i)
        out.append((title, normal, kind, seen))
    return out


def _note_content(u: SourceUnit, xrefs: list[Any], gl: _Glyphs, note_ids: dict[tuple[str, int], str], cid: str) -> list[Any]:
    """A note's text with its cross-references as :class:`Ref` and its glyphs."""
    out: list[Any] = []
    i = 0
    text = u.text
    for x in sorted(xrefs, key=lambda x: x.start):
        if x.start < i:
            continue
        out.extend(gl.split(u.source, text[i:x.start]))
        target = cref = ""
        if x.type == "section" and x.target is not None:
            target = f"#{cid}.{x.target}"
        elif x.type == "note" and x.target is not None:
            target = "#" + note_ids.get((u.source, int(x.target)), "")
            if target == "#":
                target = ""
                cref = f"{cid}.note.{x.target}"
        elif x.type == "other-chapter":
            cref = ".".join(str(v) for v in (x.work or "?", x.target) if v is not None)
        elif x.type == "other-work":
            cref = x.work or ""
        out.append(Ref(x.type, text[x.start:x.end], target, cref))
        i = x.end
    out.extend(gl.split(u.source, text[i:]))
    return [p for p in out if p != ""]
