"""The TEI writer: a :class:`~yili_corpus.document.Document` → TEI P5 XML (bytes, deterministic).

See ``docs/encoding.md`` for the encoding. The output is stable byte for byte for the same
document: attribute order is fixed, ids and lists are in document order, no timestamps.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from ..document import App, Document, Edition, Glyph, Heading, Page, Ref, Section, Unit
from ..document import Paragraph as DocParagraph
from ..layers import LAYERS
from ..layers import name as layer_title
from .core import FORMS, KAOZHENG, KZ_CERT, SERIES, TEI_NS, XML_ID, XML_LANG, T, indent


def _el(parent: etree._Element, tag: str, attrs: dict[str, str] | None = None, text: str | None = None) -> etree._Element:
    e = etree.SubElement(parent, T + tag)
    for k, v in (attrs or {}).items():
        if v is not None and v != "":
            e.set(k, v)
    if text:
        e.text = text
    return e


def _append_text(e: etree._Element, s: str) -> None:
    if not s:
        return
    if len(e):
        last = e[-1]
        last.tail = (last.tail or "") + s
    else:
        e.text = (e.text or "") + s


def _inline(e: etree._Element, content: list[Any]) -> None:
    """Write inline content (text, glyphs, refs, apparatus entries) into ``e``."""
    for x in content:
        if isinstance(x, str):
            _append_text(e, x)
        elif isinstance(x, Glyph):
            g = _el(e, "g", {"ref": "#" + x.ref})
            g.text = x.text
        elif isinstance(x, Ref):
            attrs = {"type": x.type}
            if x.target:
                attrs["target"] = x.target
            if x.cref:
                attrs["cRef"] = x.cref
            r = _el(e, "ref", attrs)
            r.text = x.text
        elif isinstance(x, App):
            _app(e, x)


def _app(parent: etree._Element, a: App) -> None:
    app = _el(parent, "app", {"type": a.type})
    lem_attrs = {"wit": " ".join("#" + w for w in a.lem_wits)} if a.lem_wits else {"resp": "#yili-corpus"}
    lem = _el(app, "lem", lem_attrs)
    if a.type == "restored":
        _el(lem, "supplied", {"reason": "unencoded or lost in a witness",
                              "source": " ".join("#" + w for w in a.lem_wits)}, a.lem)
    elif a.type == "emendation":
        ch = _el(lem, "choice")
        _el(ch, "sic", None, a.sic or "")
        _el(ch, "corr", {"resp": "#yili-corpus"}, a.lem)
    else:
        lem.text = a.lem
    for r in a.rdgs:
        typ = r.status if r.status != "reading" else ("lem" if r.wit in a.lem_wits else "")
        rdg = _el(app, "rdg", {"wit": "#" + r.wit, "type": typ, "source": r.source})
        if r.status == "lacuna":
            # what the witness has, then the gap where it lost the rest (its pointer quotes the
            # characters it has: 地 where the 四库 reads 地武)
            _inline(rdg, r.content)
            _el(rdg, "gap", {"reason": "lost"})
        elif not r.content and r.status != "placeholder":
            _el(rdg, "gap", {"reason": "omitted"})
        else:
            _inline(rdg, r.content)
    _el(app, "note", {"type": "rule"}, a.rule)
    if a.evidence:
        _el(app, "note", {"type": "evidence"}, a.evidence)


def _cert(v: float | None) -> str:
    """A probability with at most three decimals and no trailing zeros (1, 0.5, 0.667)."""
    return "" if v is None else f"{v:.3f}".rstrip("0").rstrip(".")


def _unit(parent: etree._Element, u: Unit, para_ids: list[str], overrides: str = "") -> None:
    if u.layer == "trans":
        ab = _el(parent, "ab", {
            "type": "trans", XML_ID: u.id, "n": u.n or "", XML_LANG: u.lang or "",
            "corresp": " ".join(f"#{p}.{'jing'}" if not p.endswith("@ji") else f"#{p[:-3]}.ji" for p in para_ids),
            "source": u.source, "cert": u.attrs.get("confidence", ""),
        })
        for s in u.sentences:
            attrs = {"type": "sentence", "n": str(s.n), "corresp": " ".join("#" + c for c in s.corresp),
                     "cert": _cert(s.cert)}
            if s.override is not None:
                attrs["source"] = f"{overrides}#line={s.override - 1},{s.override}"
            seg = _el(ab, "seg", attrs)
            seg.text = s.text
        return
    attrs: dict[str, str] = {"type": u.layer, XML_ID: u.id, "n": u.n or ""}
    if u.layer == "shu":
        attrs["subtype"] = FORMS.get(u.attrs.get("form", ""), "")
        attrs["cert"] = "high" if u.attrs.get("how") in ("exact", "position") else "low"
        attrs["corresp"] = u.attrs.get("zhu", "")
    if u.layer == KAOZHENG:
        attrs["subtype"] = u.attrs.get("quotes", "")
        attrs["cert"] = KZ_CERT.get(u.attrs.get("how", ""), "")
        attrs["corresp"] = u.attrs.get("zhu", "")
    if u.layer == "yinyi":
        attrs["subtype"] = u.attrs.get("kind", "")
        attrs["corresp"] = u.attrs.get("zhu", "")
    if u.layer == "note":
        sub = SERIES.get(u.attrs.get("series", ""), "none")
        if u.attrs.get("fragment"):
            sub += "-fragment"
        attrs["subtype"] = sub
        how = u.attrs.get("anchor", "")
        attrs["cert"] = "high" if how.startswith("exact, in order") else "medium" if how.startswith(("approximate", "exact")) else "low"
        attrs["corresp"] = u.attrs.get("summary_of", "")
    attrs[XML_LANG] = u.lang or ""
    attrs["resp"] = u.resp or ""
    attrs["source"] = u.source
    attrs["facs"] = _facs(u.pages)
    attrs["target"] = "#" + u.target if u.target else ""
    if u.target_end and u.target_end != u.target:
        attrs["targetEnd"] = "#" + u.target_end
    note = _el(parent, "note", attrs)
    if u.layer == "yinyi":
        # the head as a term, each item a seg of its kind (a reading: 反切, 音, 如字, 又音) or a gloss
        for role, content, _src in u.parts:
            tag = "term" if role == "head" else "gloss" if role == "gloss" else "seg"
            _inline(_el(note, tag, {"type": role} if tag == "seg" else {}), content)
        return
    if u.parts:
        merged = iter(u.attrs.get("merged", "").split())
        for role, content, src in u.parts:
            # a block of another witness collated into this one: its lemma keeps the block's id
            pid = next(merged, "") if role == "lemma" and u.attrs.get("merged") else ""
            part = _el(note, "ab", {"type": role, XML_ID: pid, "source": src})
            _inline(part, content)
        for q in u.quotations:  # a finding: the 疏 quotes the 注 or 经 in other words
            qn = _el(note, "note", {"type": "quotation", "subtype": q.quotes, "resp": "#yili-corpus",
                                    "n": str(q.differences)})
            qn.text = f"{q.witness} quotes the {'注' if q.quotes == 'zhu' else '经'} as "
            a = _el(qn, "quote", {"corresp": "#" + q.witness, "source": q.source}, q.words)
            a.tail = f"; the {'注' if q.quotes == 'zhu' else '经'} reads "
            b = _el(qn, "quote", {"corresp": q.zhu and "#" + q.zhu}, q.text)
            b.tail = f" ({q.differences} character{'s' if q.differences > 1 else ''} differ)"
        if u.editorial:
            _el(note, "note", {"type": "editorial", "resp": "#yili-corpus"}, u.editorial)
    else:
        _inline(note, u.content)


def _facs(pages: list[Page]) -> str:
    """``@facs``: the surfaces (pages of the cited edition) a clause or 注 stands on."""
    return " ".join("#" + p.id for p in pages)


def _edition(parent: etree._Element, e: Edition) -> None:
    """The printed edition a witness transcribes, as a ``bibl`` (docs/encoding.md, "Pages")."""
    b = _el(parent, "bibl", {"type": "edition"})
    _el(b, "title", {"level": "m"}, e.title)
    _el(b, "biblScope", {"unit": "juan"}, e.juan)
    _el(b, "title", {"level": "a"}, e.chapter)
    if e.name:
        _el(b, "edition", None, e.name)
    if e.series:
        _el(_el(b, "series"), "title", {"level": "s"}, e.series)
    if e.publisher:
        _el(b, "publisher", None, e.publisher)
    if e.date:
        _el(b, "date", {"type": "edition", "when": e.date}, e.date_text or e.date)
    if e.url:
        _el(b, "ref", {"type": "repository", "target": e.url}, e.url)
    if e.commit:
        _el(b, "idno", {"type": "commit"}, e.commit)
    if e.licence:
        _el(_el(b, "availability"), "licence", {"target": e.licence_url}, e.licence)
    if e.attribution:
        _el(b, "note", {"type": "attribution"}, e.attribution)


def _facsimile(root: etree._Element, pages: list[Page]) -> None:
    """The pages of the cited edition: a ``surface`` each (no image: the page as a unit of
    citation), with its number, its label and the characters of the witness file that transcribe
    it."""
    if not pages:
        return
    fx = _el(root, "facsimile")
    for p in pages:
        sf = _el(fx, "surface", {XML_ID: p.id, "n": p.n, "source": p.source})
        _el(sf, "label", None, p.label)


def _paragraph(parent: etree._Element, p: DocParagraph, index: dict[str, tuple[int, int]], all_paras: list[str],
               overrides: str = "", traditional: str = "") -> None:
    div = _el(parent, "div", {"type": "paragraph", "n": str(p.n), XML_ID: p.id,
                              "source": " ".join(sorted({"#" + b.split(":")[0] for b in p.breaks}))})
    # the clauses' script, when the base witness writes traditional characters (lzh-Hant)
    lang = next((c.lang for c in p.clauses if c.lang), None)
    ab = _el(div, "ab", {"type": p.layer, XML_ID: f"{p.id}.{p.layer}", XML_LANG: lang or ""})
    for c in p.clauses:
        seg = _el(ab, "seg", {"type": "clause", "n": str(c.n), XML_ID: c.id, "source": c.source,
                              "facs": _facs(c.pages)})
        _inline(seg, c.content)
    if any(c.hant and c.lang is None for c in p.clauses):
        # the clauses in the characters of the traditional witness (text/traditional.py), beside them
        hab = _el(div, "ab", {"type": p.layer, "subtype": "hant", XML_LANG: "lzh-Hant",
                              "corresp": f"#{p.id}.{p.layer}", "source": "#" + traditional})
        for c in p.clauses:
            if c.hant:
                _el(hab, "seg", {"corresp": "#" + c.id}, c.hant)
    for u in p.units:
        paras = [p.id]
        if u.layer == "trans" and u.target and u.target_end:
            a, b = index[u.target][0], index[u.target_end][0]
            paras = [x + ("@ji" if lay == "ji" else "") for x, lay in all_paras[a : b + 1]]  # type: ignore[misc]
        _unit(div, u, paras, overrides)


def build_tree(doc: Document) -> etree._Element:
    """The TEI tree of ``doc``."""
    root = etree.Element(T + "TEI", nsmap={None: TEI_NS})
    root.set(XML_ID, f"yili.{doc.id}")
    root.set(XML_LANG, "lzh")
    header = _el(root, "teiHeader")
    fd = _el(header, "fileDesc")
    ts = _el(fd, "titleStmt")
    _el(ts, "title", {XML_LANG: "zh-Hans"}, f"{doc.work}·{doc.chapter}：{'、'.join(x.name for x in LAYERS)}对照")
    _el(ts, "title", {"type": "sub", XML_LANG: "en"}, f"Yili, chapter {doc.number}: aligned, citable corpus")
    for pid, name, resp in doc.commentators:
        rs = _el(ts, "respStmt")
        _el(rs, "resp", None, resp)
        _el(rs, "persName", {XML_ID: pid}, name)
    rs = _el(ts, "respStmt", {XML_ID: "yili-corpus"})
    _el(rs, "resp", None, "collation, alignment and encoding")
    _el(rs, "name", None, "yili-corpus")
    ps = _el(fd, "publicationStmt")
    _el(ps, "authority", None, "yili-corpus")
    av = _el(ps, "availability")
    # the corpus folder, which the source pointers (FOLDER/FILE#char=A,B) are relative to
    pp = _el(av, "p", None, "Generated by yili-corpus (yili build) from the files in ")
    _el(pp, "ref", {"type": "corpus", "target": f"{doc.corpus}/"}, f"{doc.corpus}/")
    _append_text(pp, "; a correction made here by hand is checked by yili validate and lost at the next "
                 f"build unless made in {doc.corpus}/. The texts from published editions are used under "
                 "their licences, with their attribution:")
    for w in doc.witnesses:
        if w.licence:
            lic = _el(av, "licence", {"target": w.licence_url} if w.licence_url else {}, f"{w.id}: {w.attribution}")
            lic.set("n", w.licence)
    sd = _el(fd, "sourceDesc")
    # the chapter as explicit fields: work, chapter (id, number), its title and the title's variants
    cb = _el(sd, "bibl", {"type": "chapter", "n": doc.id})
    _el(cb, "title", {"type": "work"}, doc.work)
    _el(cb, "title", {"type": "chapter"}, doc.chapter)
    for t in doc.titles:
        if t != doc.chapter:
            _el(cb, "title", {"type": "variant"}, t)
    _el(cb, "biblScope", {"unit": "chapter", "n": str(doc.number)}, str(doc.number))
    lw = _el(sd, "listWit")
    for w in doc.witnesses:
        we = _el(lw, "witness", {XML_ID: w.id, "n": str(w.rank)})
        _el(we, "label", None, w.edition)
        _el(we, "note", {"type": "description"}, w.description)
        _append_text(we, " file ")
        _el(we, "ref", {"target": w.file}, w.file)
        _append_text(we, ", sha256 ")
        _el(we, "idno", {"type": "sha256"}, w.sha256)
        if w.repository:
            src = _el(we, "note", {"type": "source"}, "from ")
            _el(src, "ref", {"target": w.repository}, w.repository)
            _append_text(src, ", commit ")
            _el(src, "idno", {"type": "git-commit"}, w.commit)
        if w.licence:
            lic = _el(we, "note", {"type": "licence"})
            _el(lic, "ref", {"target": w.licence_url} if w.licence_url else {}, w.licence)
            _append_text(lic, ": " + w.attribution)
        lst = _el(we, "list", {"type": "layers"})
        for lay in w.layers:
            _el(lst, "item", {"n": lay}, layer_title(lay))
        if w.bibl is not None:
            _edition(we, w.bibl)
    if doc.works:
        lb = _el(sd, "listBibl", {"type": "cited-works"})
        _el(lb, "head", None, f"Works cited in the commentaries and notes, with the normalised title ({doc.works_table})")
        for title, normal, kind, seen in doc.works:
            b = _el(lb, "bibl", {"type": kind})
            _el(b, "title", {"type": "main"}, normal)
            _el(b, "title", {"type": "as-cited"}, title)
            _el(b, "note", None, seen)
    if doc.cited_editions:
        lb = _el(sd, "listBibl", {"type": "kaozheng-editions"})
        _el(lb, "head", None, "Editions named by the 四库 editors' 考證, with what each is "
            f"(standard bibliographic identifications) ({doc.editions_table})")
        for eid, name, desc, seen in doc.cited_editions:
            b = _el(lb, "bibl", {XML_ID: eid})
            _el(b, "title", None, name)
            _el(b, "note", {"type": "description"}, desc)
            _el(b, "note", {"type": "seen"}, seen)
    ed = _el(header, "encodingDesc")
    pd = _el(ed, "projectDesc")
    pp = _el(pd, "p", None, "The layers each section has (absent layers are absent in the sources, not left out):")
    lst = _el(pp, "list", {"type": "section-layers"})
    for s in doc.sections:
        _el(lst, "item", {"n": str(s.n), "corresp": "#" + s.id}, " ".join(s.layers()))
    edl = _el(ed, "editorialDecl")
    nz = _el(edl, "normalization", {"source": doc.variants_table})
    _el(nz, "p", None, doc.normalization)
    if doc.variants:
        vp = _el(nz, "p")
        vl = _el(vp, "list", {"type": "variants"})
        for form, normal, seen in doc.variants:
            item = _el(vl, "item")
            ch = _el(item, "choice")
            _el(ch, "orig", None, form)
            _el(ch, "reg", None, normal)
            _el(item, "note", None, seen)
    cr = _el(edl, "correction")
    _el(cr, "p", None, doc.collation)
    if doc.segmentation:
        sg = _el(edl, "segmentation")
        _el(sg, "p", None, doc.segmentation)
        if doc.clause_changes:
            cl = _el(_el(sg, "p"), "list", {"type": "clause-division"})
            for ch in doc.clause_changes:
                _el(cl, "item", {"n": ch.kind, "corresp": " ".join("#" + c for c in ch.clauses)}, ch.text)
    rd = _el(ed, "refsDecl")
    cs = _el(rd, "citeStructure", {"unit": "section", "match": "//body/div[@type='section']", "use": "@n"})
    _el(cs, "citeStructure", {"unit": "paragraph", "match": "div[@type='paragraph']", "use": "@n", "delim": "."})
    if doc.chars:
        cd = _el(ed, "charDecl")
        for c in doc.chars:
            ce = _el(cd, "char", {XML_ID: c.id, "n": str(c.count), "corresp": "#" + c.witness})
            _el(ce, "mapping", {"type": "PUA"}, c.sequence)
            if c.character:
                _el(ce, "mapping", {"type": "standard"}, c.character)
            _el(ce, "note", None, c.note)
    prof = _el(header, "profileDesc")
    lu = _el(prof, "langUsage")
    _el(lu, "language", {"ident": "lzh"}, f"文言 ({', '.join(x.name for x in LAYERS if not x.is_modern)})")
    _el(lu, "language", {"ident": "zh-Hans"}, f"现代汉语，简体 ({', '.join(x.name for x in LAYERS if x.is_modern)})")
    _facsimile(root, doc.pages)
    text = _el(root, "text")
    front = [h for h in doc.headings if h.front]
    if front:
        _title_page(_el(text, "front"), front)
    body = _el(text, "body")
    all_paras = [(p.id, p.layer) for s in doc.sections for p in s.paragraphs]
    index = {c.id: (i, j) for i, (s, p) in enumerate((s, p) for s in doc.sections for p in s.paragraphs)
             for j, c in enumerate(p.clauses)}
    for s in doc.sections:
        _section(body, s, index, all_paras, doc.overrides_table, doc.traditional)
    back = [h for h in doc.headings if not h.front]
    if back:
        div = _el(_el(text, "back"), "div", {"type": "edition-head"})
        for h in back:
            _el(div, "ab", {"type": "heading", "subtype": h.role, "source": h.source, **_facs_attr(h.pages)}, h.text)
    return root


def _facs_attr(pages: list[Page]) -> dict[str, str]:
    return {"facs": _facs(pages)} if pages else {}


#: The title page's element of each heading role (docs/encoding.md, "The edition's headings").
TITLE_PAGE = {"edition": "docEdition", "byline": "byline"}


def _title_page(front: etree._Element, headings: list[Heading]) -> None:
    """The 卷's title page: 欽定四庫全書 (docEdition), the 卷 and chapter titles (docTitle/titlePart),
    the byline of the 注, 音義 and 疏, each with its source pointer and page, in file order."""
    tp = _el(front, "titlePage", {"type": "juan"})
    for h in headings:
        attrs = {"source": h.source, **_facs_attr(h.pages)}
        tag = TITLE_PAGE.get(h.role)
        if tag:
            _el(tp, tag, attrs, h.text)
        else:
            _el(_el(tp, "docTitle"), "titlePart", {"type": h.role, **attrs}, h.text)


def _section(body: etree._Element, s: Section, index: dict[str, tuple[int, int]], all_paras: list[Any],
             overrides: str = "", traditional: str = "") -> None:
    div = _el(body, "div", {"type": "section", "subtype": s.layer, "n": str(s.n), XML_ID: s.id,
                            "corresp": " ".join("#" + x for x in s.summary)})
    _el(div, "head", None, s.title)
    for p in s.paragraphs:
        _paragraph(div, p, index, all_paras, overrides, traditional)


def to_bytes(doc: Document) -> bytes:
    """The TEI document as UTF-8 bytes, indented, ending with a newline."""
    root = build_tree(doc)
    indent(root)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"
