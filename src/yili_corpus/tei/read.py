"""The TEI reader: TEI P5 XML → :class:`~yili_corpus.document.Document`.

Parsing is hardened (lxml's own advice for untrusted XML): no DTD is loaded, no entity is
expanded, nothing is fetched from the network, and a document with a DOCTYPE, or larger than
:data:`MAX_BYTES`, is refused with a clear error. The DOCTYPE is looked for in what the parser
read, not only in the first bytes (a long comment before it, or UTF-16, would hide it there).
Every error names the file and the line of the fault: a duplicated ``xml:id`` is named where it
is used the second time, an undefined entity where it stands.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lxml import etree

from ..document import (
    HANT,
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
    plain,
)
from ..errors import DataError
from ..layers import TEXT_KEYS
from .core import FORMS, KAOZHENG, KZ_HOW_OF, SERIES, TEI_NS, XML_ID, XML_LANG

#: The largest TEI file the reader accepts (bytes). The chapter is about 0.5 MB.
MAX_BYTES = 64 * 1024 * 1024

#: How many bytes of the head are searched for a DOCTYPE before parsing (a cheap early refusal;
#: the parsed document's own DOCTYPE is checked as well, wherever it stands).
HEAD_BYTES = 65536

NS = {"t": TEI_NS}
FORM_OF = {v: k for k, v in FORMS.items()}
SERIES_OF = {v: k for k, v in SERIES.items()}
CERT_TO_ANCHOR = {"high": "exact, in order", "medium": "approximate", "low": "with the next note"}


def safe_parser() -> etree.XMLParser:
    """An lxml parser that loads no DTD, expands no entity and never touches the network."""
    return etree.XMLParser(
        resolve_entities=False, load_dtd=False, no_network=True, dtd_validation=False,
        huge_tree=False, remove_comments=False,
    )


def _refuse_unsafe(size: int, head: bytes, path: str) -> None:
    """Refuse a file over the size limit, or with a DOCTYPE or entity declarations in its head."""
    if size > MAX_BYTES:
        raise DataError(f"TEI file is {size} bytes, larger than the limit of {MAX_BYTES}", path)
    for mark in (b"<!DOCTYPE", b"<!ENTITY"):
        at = head.find(mark)
        if at >= 0:
            raise DataError("TEI file has a DOCTYPE or entity declarations; DTDs and entities are refused",
                            path, head.count(b"\n", 0, at) + 1)


def _encoding_of(data: bytes) -> str:
    """The encoding an XML document's bytes declare (byte-order mark, else XML declaration)."""
    for bom, enc in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32-le"),
                     (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            return enc
    if data.startswith(b"<\x00?\x00"):
        return "utf-16-le"
    if data.startswith(b"\x00<\x00?"):
        return "utf-16-be"
    m = re.match(rb"<\?xml[^>]*?encoding=[\"']([A-Za-z0-9._-]+)[\"']", data)
    return m.group(1).decode("ascii") if m else "utf-8"


def _doctype_line(data: bytes, before: int | None) -> int | None:
    """The line of the DOCTYPE in ``data`` (decoded as it declares), or ``before`` if not found."""
    try:
        text = data.decode(_encoding_of(data), errors="replace")
    except LookupError:
        text = data.decode("utf-8", errors="replace")
    at = text.find("<!DOCTYPE")
    return text.count("\n", 0, at) + 1 if at >= 0 else before


def _doctype_error(path: str, line: int | None) -> DataError:
    return DataError("TEI file has a DOCTYPE; DTDs are refused", path, line)


def _syntax_error(exc: etree.XMLSyntaxError, path: str) -> DataError:
    """A parse error as a DataError at the line of its first fault. (lxml's iterparse raises a
    follow-up error "Start tag expected" at line 1; the first entry of its log is the real one.)"""
    msg, line = exc.msg, exc.lineno or None
    log = getattr(exc, "error_log", None)
    first = next((e for e in log if e.level >= etree.ErrorLevels.ERROR and e.filename in (path, "<string>")),
                 None) if log else None
    if first is not None and first.line:
        msg, line = f"{first.message}, line {first.line}, column {first.column}", first.line
    return DataError(f"not well-formed XML: {msg}", path, line)


def parse_tei(data: bytes, path: str = "<tei>") -> etree._ElementTree:
    """Parse TEI bytes safely (see module doc)."""
    _refuse_unsafe(len(data), data[:HEAD_BYTES], path)
    try:
        tree = etree.ElementTree(etree.fromstring(data, safe_parser()))
    except etree.XMLSyntaxError as exc:
        raise _syntax_error(exc, path) from None
    if tree.docinfo.doctype:
        raise _doctype_error(path, _doctype_line(data, tree.getroot().sourceline))
    return tree


def _local(e: etree._Element) -> str:
    return etree.QName(e).localname if isinstance(e.tag, str) else ""


def _ids(value: str | None) -> list[str]:
    return [v[1:] if v.startswith("#") else v for v in (value or "").split()]


#: The processing instruction that :func:`iter_tei` puts before a header or section it yields:
#: how far that fragment's lines are from the file's, so that an error names the file's line.
LINES_PI = "yili-lines"
_LINES_RE = re.compile(r"shift=(\d+)(?: root=(\d+))?")


class _Reader:
    def __init__(self, path: str, shifts: dict[etree._Element, int] | None = None,
                 root_line: int | None = None) -> None:
        self.path = path
        self.shifts = shifts or {}  # fragment root -> lines to add (see LINES_PI)
        self.root_line = root_line
        self.pages: dict[str, Page] = {}  # surface id -> page (the facsimile)

    def facs(self, e: etree._Element) -> list[Page]:
        """The pages ``@facs`` points to; a pointer to no surface of the facsimile is an error."""
        out = []
        for ref in _ids(e.get("facs")):
            if ref not in self.pages:
                raise self.fail(e, f"@facs points to #{ref}, which is not a surface of the facsimile")
            out.append(self.pages[ref])
        return out

    def facsimile(self, root: etree._Element) -> list[Page]:
        """The pages of the cited edition: the surfaces of the facsimile."""
        out = []
        for sf in root.iterfind("t:facsimile/t:surface", NS):
            src = sf.get("source", "")
            p = Page(self.req(sf, XML_ID), self.req(sf, "n"), sf.findtext("t:label", "", NS),
                     _ids(src)[0] if src.startswith("#") else "", src)
            out.append(p)
            self.pages[p.id] = p
        return out

    def edition(self, w: etree._Element) -> Edition | None:
        """A witness's ``bibl type=edition``: the printed edition it transcribes."""
        b = w.find("t:bibl[@type='edition']", NS)
        if b is None:
            return None
        ref = b.find("t:ref[@type='repository']", NS)
        lic = b.find("t:availability/t:licence", NS)
        date = b.find("t:date[@type='edition']", NS)
        return Edition(
            b.findtext("t:title[@level='m']", "", NS), b.findtext("t:biblScope[@unit='juan']", "", NS),
            b.findtext("t:title[@level='a']", "", NS), b.findtext("t:series/t:title", "", NS),
            b.findtext("t:edition", "", NS), b.findtext("t:publisher", "", NS),
            ref.get("target", "") if ref is not None else "", b.findtext("t:idno[@type='commit']", "", NS),
            (lic.text or "") if lic is not None else "", lic.get("target", "") if lic is not None else "",
            b.findtext("t:note[@type='attribution']", "", NS),
            date.get("when", "") if date is not None else "", (date.text or "") if date is not None else "",
        )

    def line(self, e: etree._Element) -> int | None:
        """The line of ``e`` in the file (not in the fragment it was parsed from)."""
        if not self.shifts or e.sourceline is None:
            return e.sourceline
        for a in (e, *e.iterancestors()):
            if a in self.shifts:
                return e.sourceline + self.shifts[a]
        return self.root_line if e.getparent() is None and self.root_line else e.sourceline

    def fail(self, e: etree._Element, msg: str) -> DataError:
        return DataError(msg, self.path, self.line(e))

    def req(self, e: etree._Element, attr: str) -> str:
        v = e.get(attr)
        if v is None:
            raise self.fail(e, f"<{_local(e)}> lacks @{attr.split('}')[-1]}")
        return v

    def num(self, e: etree._Element, attr: str, default: str | None = None, kind: type = int) -> Any:
        """``@attr`` of ``e`` as a number (required unless ``default`` is given)."""
        v = e.get(attr, default) if default is not None else self.req(e, attr)
        try:
            return kind(v)
        except (TypeError, ValueError):
            raise self.fail(e, f"<{_local(e)}> has @{attr.split('}')[-1]}={v!r}, which is not a number") from None

    def inline(self, e: etree._Element) -> list[Any]:
        out: list[Any] = []
        if e.text:
            out.append(e.text)
        for c in e:
            name = _local(c)
            if name == "g":
                out.append(Glyph(self.req(c, "ref").lstrip("#"), c.text or ""))
            elif name == "ref":
                out.append(Ref(c.get("type", ""), c.text or "", c.get("target", ""), c.get("cRef", "")))
            elif name == "app":
                out.append(self.app(c))
            elif name == "gap":
                pass
            elif name:
                raise self.fail(c, f"unexpected <{name}> in text")
            if c.tail:
                out.append(c.tail)
        merged: list[Any] = []
        for x in out:
            if isinstance(x, str) and merged and isinstance(merged[-1], str):
                merged[-1] += x
            else:
                merged.append(x)
        return merged

    def app(self, e: etree._Element) -> App:
        typ = e.get("type", "variant")
        lem_e = e.find("t:lem", NS)
        if lem_e is None:
            raise self.fail(e, "<app> without <lem>")
        lem_wits = _ids(lem_e.get("wit"))
        sic = None
        if typ == "emendation":
            sic_e, corr_e = lem_e.find("t:choice/t:sic", NS), lem_e.find("t:choice/t:corr", NS)
            if sic_e is None or corr_e is None:
                raise self.fail(lem_e, "emendation without choice/sic/corr")
            sic, lem = sic_e.text or "", corr_e.text or ""
        elif typ == "restored":
            sup = lem_e.find("t:supplied", NS)
            lem = (sup.text if sup is not None else lem_e.text) or ""
        else:
            lem = lem_e.text or ""
        rdgs = []
        for r in e.findall("t:rdg", NS):
            t = r.get("type", "")
            status = t if t in ("placeholder", "lacuna") else "reading"
            rdgs.append(Rdg(self.req(r, "wit").lstrip("#"), self.inline(r), status, r.get("source", "")))
        rule = evidence = ""
        for n in e.findall("t:note", NS):
            if n.get("type") == "rule":
                rule = n.text or ""
            elif n.get("type") == "evidence":
                evidence = n.text or ""
        return App(typ, lem, lem_wits, rdgs, rule, sic, evidence)

    def _parts(self, u: Unit, e: etree._Element) -> None:
        """The 注 a note explains (``@corresp``), its parts (``ab``, each with its pointer) and the
        editorial note: a 疏 block's or a 考證 entry's."""
        if e.get("corresp"):
            u.attrs["zhu"] = e.get("corresp", "")
        for part in e:
            if _local(part) == "ab":
                u.parts.append((part.get("type", ""), self.inline(part), part.get("source", "")))
                if part.get(XML_ID):  # the id of a block collated into this one (its lemma)
                    u.attrs["merged"] = (u.attrs.get("merged", "") + " " + part.get(XML_ID, "")).strip()
            elif _local(part) == "note" and part.get("type") == "quotation":
                qs = part.findall("t:quote", NS)
                if len(qs) != 2:
                    raise self.fail(part, "a quotation note holds two <quote>: the 疏's words and the text's")
                u.quotations.append(Quotation(qs[0].get("corresp", "").lstrip("#"), qs[0].text or "",
                                              qs[0].get("source", ""), part.get("subtype", ""),
                                              qs[1].get("corresp", "").lstrip("#"), qs[1].text or "",
                                              self.num(part, "n")))
            elif _local(part) == "note":
                u.editorial = part.text or ""

    def unit(self, e: etree._Element) -> Unit:
        name = _local(e)
        if name == "ab":
            sents = []
            for s in e.findall("t:seg", NS):
                cert = s.get("cert")
                src = s.get("source", "")
                m = re.search(r"#line=(\d+),(\d+)$", src)
                sents.append(SentenceSeg(self.num(s, "n"), s.text or "", _ids(s.get("corresp")),
                                         self.num(s, "cert", kind=float) if cert else None,
                                         int(m.group(2)) if m else None))
            linked = [c for s in sents for c in s.corresp]
            return Unit(self.req(e, XML_ID), "trans", [], linked[0] if linked else None,
                        linked[-1] if linked else None, e.get("source", ""), n=e.get("n"),
                        lang=e.get(XML_LANG), attrs={"confidence": e.get("cert", "")}, sentences=sents)
        layer = self.req(e, "type")
        target = _ids(e.get("target"))
        target_end = _ids(e.get("targetEnd"))
        u = Unit(self.req(e, XML_ID), layer, [], target[0] if target else None,
                 target_end[0] if target_end else (target[0] if target else None), e.get("source", ""),
                 n=e.get("n"), resp=e.get("resp"), lang=e.get(XML_LANG), pages=self.facs(e))
        if layer == "shu":
            u.attrs["form"] = FORM_OF.get(e.get("subtype", ""), "")
            u.attrs["how"] = ("position" if u.attrs["form"] == "position" else
                              "exact" if e.get("cert") == "high" else "by position")
            self._parts(u, e)
        elif layer == KAOZHENG:
            u.attrs["quotes"] = e.get("subtype", "")
            u.attrs["how"] = KZ_HOW_OF.get(e.get("cert", ""), "")
            self._parts(u, e)
        elif layer == "yinyi":
            u.attrs["kind"] = e.get("subtype", "")
            if e.get("corresp"):
                u.attrs["zhu"] = e.get("corresp", "")
            for part in e:
                name = _local(part)
                role = "head" if name == "term" else "gloss" if name == "gloss" else part.get("type", "")
                u.parts.append((role, self.inline(part), ""))
        elif layer == "note":
            sub = e.get("subtype", "none")
            if sub.endswith("-fragment"):
                u.attrs["fragment"] = "yes"
                sub = sub[: -len("-fragment")]
            u.attrs["series"] = SERIES_OF.get(sub, "")
            u.attrs["anchor"] = CERT_TO_ANCHOR.get(e.get("cert", ""), "")
            if e.get("corresp"):
                u.attrs["summary_of"] = e.get("corresp", "")
            u.content = self.inline(e)
        else:
            u.content = self.inline(e)
        return u

    def section(self, sd: etree._Element) -> tuple[Section, str]:
        """One ``div type=section``, and the traditional witness its paragraphs give the 经 in
        (its first; "" if none)."""
        traditional = ""
        paras = []
        for pd in sd.iterfind("t:div[@type='paragraph']", NS):
            ab = pd.find("t:ab", NS)
            if ab is None or ab.get("type") not in TEXT_KEYS:
                raise self.fail(pd, "a paragraph must open with its 经 or 记 (ab type=jing|ji)")
            clauses = [
                Clause(self.req(s, XML_ID), self.num(s, "n"), self.inline(s), s.get("source", ""), pages=self.facs(s),
                       lang=s.get(XML_LANG) or ab.get(XML_LANG))
                for s in ab.iterfind("t:seg", NS)
            ]
            # a base written in traditional characters (lzh-Hant) is its own traditional view
            for c in clauses:
                if c.lang == HANT:
                    c.hant = plain(c.content)
                    traditional = traditional or c.source.split(" ", 1)[0].lstrip("#")
            # the clauses in the traditional witness's characters (ab subtype=hant)
            hants = [x for x in pd if _local(x) == "ab" and x.get("subtype") == "hant"]
            by_id = {c.id: c for c in clauses}
            for h in hants:
                traditional = traditional or h.get("source", "").lstrip("#")
                for s in h.iterfind("t:seg", NS):
                    c = by_id.get(s.get("corresp", "").lstrip("#"))
                    if c is None:
                        raise self.fail(s, "a traditional form must name a clause of its paragraph (corresp)")
                    c.hant = s.text or ""
            units = [self.unit(x) for x in pd if _local(x) in ("note", "ab") and x is not ab and x not in hants]
            paras.append(Paragraph(self.req(pd, XML_ID), self.num(pd, "n"), ab.get("type", "jing"),
                                   clauses, units, _ids(pd.get("source"))))
        return Section(self.req(sd, XML_ID), self.num(sd, "n"), sd.get("subtype", "jing"),
                       sd.findtext("t:head", "", NS), paras, _ids(sd.get("corresp"))), traditional

    def document(self, tree: etree._ElementTree) -> Document:
        root = tree.getroot()
        if root.tag != f"{{{TEI_NS}}}TEI":
            raise self.fail(root, "the root element is not a TEI element in the TEI namespace")
        doc_id = self.req(root, XML_ID).removeprefix("yili.")
        pages = self.facsimile(root)
        work, chapter, number, titles = self.chapter(root)
        folder = root.find("t:teiHeader/t:fileDesc/t:publicationStmt//t:p/t:ref[@type='corpus']", NS)
        corpus = folder.get("target", "").rstrip("/") if folder is not None else "corpus"
        ovr = root.find(".//t:seg[@type='sentence'][@source]", NS)
        overrides = ovr.get("source", "").split("#")[0] if ovr is not None else ""
        witnesses = []
        for w in root.iterfind("t:teiHeader/t:fileDesc/t:sourceDesc/t:listWit/t:witness", NS):
            ref = w.find("t:ref", NS)
            src = w.find("t:note[@type='source']/t:ref", NS)
            lic = w.find("t:note[@type='licence']/t:ref", NS)
            lic_text = "".join(w.find("t:note[@type='licence']", NS).itertext()) if lic is not None else ""
            witnesses.append(Witness(
                self.req(w, XML_ID), ref.get("target", "") if ref is not None else "",
                w.findtext("t:idno[@type='sha256']", "", NS), w.findtext("t:label", "", NS),
                w.findtext("t:note[@type='description']", "", NS),
                [i.get("n", "") for i in w.iterfind("t:list/t:item", NS)], self.num(w, "n", "99"),
                src.get("target", "") if src is not None else "",
                w.findtext("t:note[@type='source']/t:idno", "", NS),
                lic.text or "" if lic is not None else "", lic.get("target", "") if lic is not None else "",
                lic_text.split(": ", 1)[1] if ": " in lic_text else "",
                self.edition(w),
            ))
        works = [
            (b.findtext("t:title[@type='as-cited']", "", NS), b.findtext("t:title[@type='main']", "", NS),
             b.get("type", ""), b.findtext("t:note", "", NS))
            for b in root.iterfind("t:teiHeader/t:fileDesc/t:sourceDesc/t:listBibl[@type='cited-works']/t:bibl", NS)
        ]
        wm = re.search(r"\(([^()]+)\)$", root.findtext(
            "t:teiHeader/t:fileDesc/t:sourceDesc/t:listBibl[@type='cited-works']/t:head", "", NS))
        cited_editions = [
            (b.get(XML_ID, ""), b.findtext("t:title", "", NS), b.findtext("t:note[@type='description']", "", NS),
             b.findtext("t:note[@type='seen']", "", NS))
            for b in root.iterfind("t:teiHeader/t:fileDesc/t:sourceDesc/t:listBibl[@type='kaozheng-editions']/t:bibl", NS)
        ]
        em = re.search(r"\(([^()]+)\)$", root.findtext(
            "t:teiHeader/t:fileDesc/t:sourceDesc/t:listBibl[@type='kaozheng-editions']/t:head", "", NS))
        works_table = wm.group(1) if wm else f"{corpus}/works.tsv"
        commentators = [
            (p.get(XML_ID, ""), p.text or "", rs.findtext("t:resp", "", NS))
            for rs in root.iterfind("t:teiHeader/t:fileDesc/t:titleStmt/t:respStmt", NS)
            for p in rs.iterfind("t:persName", NS)
        ]
        ed = root.find("t:teiHeader/t:encodingDesc", NS)
        normalization = collation = variants = segmentation = ""
        changes: list[ClauseChange] = []
        chars = []
        folds: list[tuple[str, str, str]] = []
        if ed is not None:
            nz = ed.find("t:editorialDecl/t:normalization", NS)
            if nz is not None:
                normalization = nz.findtext("t:p", "", NS)
                variants = nz.get("source", "")
                for item in nz.iterfind("t:p/t:list[@type='variants']/t:item", NS):
                    folds.append((item.findtext("t:choice/t:orig", "", NS), item.findtext("t:choice/t:reg", "", NS),
                                  item.findtext("t:note", "", NS)))
            collation = ed.findtext("t:editorialDecl/t:correction/t:p", "", NS)
            segmentation = ed.findtext("t:editorialDecl/t:segmentation/t:p", "", NS)
            for item in ed.iterfind("t:editorialDecl/t:segmentation/t:p/t:list[@type='clause-division']/t:item", NS):
                changes.append(ClauseChange(item.get("n", ""), _ids(item.get("corresp")),
                                            item.text or ""))
            for c in ed.iterfind("t:charDecl/t:char", NS):
                chars.append(CharDecl(
                    self.req(c, XML_ID), c.get("corresp", "").lstrip("#"),
                    c.findtext("t:mapping[@type='PUA']", "", NS),
                    c.findtext("t:mapping[@type='standard']", None, NS), self.num(c, "n", "0"),
                    c.findtext("t:note", "", NS),
                ))
        sections = []
        traditional = ""
        body = root.find("t:text/t:body", NS)
        if body is None:
            raise self.fail(root, "no text/body")
        for sd in body.iterfind("t:div[@type='section']", NS):
            sec, hant = self.section(sd)
            traditional = traditional or hant
            sections.append(sec)
        return Document(doc_id, work, chapter, number, witnesses, chars, sections, normalization,
                        collation, variants, folds, works, commentators=commentators, titles=titles,
                        corpus=corpus, overrides_table=overrides, works_table=works_table,
                        traditional=traditional, pages=pages, segmentation=segmentation,
                        clause_changes=changes, cited_editions=cited_editions,
                        editions_table=em.group(1) if em else "", headings=self.headings(root))

    def headings(self, root: etree._Element) -> list[Heading]:
        """The edition's headings: the 卷's title page (``text/front/titlePage``) and its closing
        titles (``text/back/div type=edition-head``), in document order."""
        out: list[Heading] = []
        tp = root.find("t:text/t:front/t:titlePage", NS)
        for e in tp.iter() if tp is not None else []:
            if e.get("source"):
                name = etree.QName(e).localname
                role = {"docEdition": "edition", "byline": "byline"}.get(name, e.get("type", "other"))
                out.append(Heading(role, e.text or "", e.get("source", ""), self.facs(e), front=True))
        for e in root.iterfind("t:text/t:back/t:div[@type='edition-head']/t:ab[@type='heading']", NS):
            out.append(Heading(e.get("subtype", "other"), e.text or "", e.get("source", ""), self.facs(e), front=False))
        return out

    def chapter(self, root: etree._Element) -> tuple[str, str, int, list[str]]:
        """Work, chapter title, chapter number and the titles a reference may use, from the
        header's ``bibl type=chapter``; a TEI without one (older builds) from its title."""
        cb = root.find("t:teiHeader/t:fileDesc/t:sourceDesc/t:bibl[@type='chapter']", NS)
        if cb is not None:
            chapter = cb.findtext("t:title[@type='chapter']", "", NS)
            scope = cb.find("t:biblScope[@unit='chapter']", NS)
            if not chapter or scope is None:
                raise self.fail(cb, "<bibl type='chapter'> needs a title type=chapter and a biblScope unit=chapter")
            titles = [chapter] + [t.text or "" for t in cb.iterfind("t:title[@type='variant']", NS) if t.text]
            return (cb.findtext("t:title[@type='work']", "", NS), chapter, self.num(scope, "n"), titles)
        title = root.findtext("t:teiHeader/t:fileDesc/t:titleStmt/t:title", "", NS)
        work, _, chapter = title.split("：")[0].partition("·")
        sub = root.findtext("t:teiHeader/t:fileDesc/t:titleStmt/t:title[@type='sub']", "", NS)
        m = re.search(r"chapter (\d+)", sub)
        return work, chapter, int(m.group(1)) if m else 0, [chapter] if chapter else []


def iter_tei(path: Path | str):  # type: ignore[no-untyped-def]
    """Stream a TEI file: yields ``("header", header_bytes)`` once (the root start tag and the
    teiHeader, as a document without sections), then ``("section", n, section_bytes)`` for each
    section, freeing each as it goes (memory stays small for a large file). A DOCTYPE (wherever
    it stands), a duplicated ``xml:id`` or a section without a numeric ``@n`` is a DataError at
    its line, before anything after it is yielded."""
    p = Path(path)
    try:
        size = p.stat().st_size
        with p.open("rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", str(p)) from None
    _refuse_unsafe(size, head, str(p))
    sec_tag = f"{{{TEI_NS}}}div"
    root_attrs: dict[str, str] = {}
    seen: dict[str, int | None] = {}  # xml:id -> line of its first use
    first = True
    root_line = 1
    front: list[bytes] = []  # the teiHeader and the facsimile, until the text starts
    shift = last_line = 0
    etree.clear_error_log()  # the log iterparse's error carries is global: only this parse's entries
    try:
        for event, el in etree.iterparse(str(p), events=("start", "end"), resolve_entities=False, load_dtd=False,
                                         no_network=True, huge_tree=False, remove_comments=False):
            if event == "start":
                if first:
                    first = False
                    if el.getroottree().docinfo.doctype:
                        raise _doctype_error(str(p), _doctype_line(p.read_bytes(), el.sourceline))
                i = el.get(XML_ID)
                if i is not None:
                    if i in seen:
                        raise DataError(f"xml:id {i!r} is used twice (first at line {seen[i]})", str(p),
                                        el.sourceline)
                    seen[i] = el.sourceline
            if event == "start" and el.tag == f"{{{TEI_NS}}}TEI":
                root_attrs = dict(el.attrib)
                root_line = el.sourceline or 1
            elif event == "end" and el.tag == f"{{{TEI_NS}}}teiHeader":
                head = etree.tostring(el, with_tail=False)
                front = [head]
                shift = max(el.sourceline - 2, 0)
                last_line = el.sourceline + head.count(b"\n")  # the line the header ends on
                el.clear()
            elif event == "end" and el.tag == f"{{{TEI_NS}}}facsimile" and front and el.getparent() is not None \
                    and el.getparent().tag == f"{{{TEI_NS}}}TEI":
                # the pages of the cited edition go with the header (every section points to them),
                # as many lines after it as in the file, so that the fragment's lines stay the file's
                fx = etree.tostring(el, with_tail=False)
                front.append(b"\n" * max(0, el.sourceline - last_line) + fx)
                last_line = el.sourceline + fx.count(b"\n")
                el.clear()
            elif event == "start" and el.tag == f"{{{TEI_NS}}}text" and front:
                yield ("header", _header_fragment(root_attrs, front, shift, root_line))
                front = []
            elif event == "end" and el.tag == sec_tag and el.get("type") == "section":
                try:
                    n = int(el.get("n", "0"))
                except ValueError:
                    raise DataError(f"<div type='section'> has @n={el.get('n')!r}, which is not a number", str(p),
                                    el.sourceline) from None
                pi = f"<?{LINES_PI} shift={max(el.sourceline - 1, 0)}?>".encode()
                yield ("section", n, pi + etree.tostring(el, with_tail=False))
                el.clear()
                parent = el.getparent()
                while parent is not None and el.getprevious() is not None:
                    del parent[0]
    except etree.XMLSyntaxError as exc:
        raise _syntax_error(exc, str(p)) from None
    if front:  # a TEI without a text
        yield ("header", _header_fragment(root_attrs, front, shift, root_line))


def _header_fragment(root_attrs: dict[str, str], front: list[bytes], shift: int, root_line: int) -> bytes:
    """The header fragment :func:`iter_tei` yields: the root start tag, the teiHeader and the
    facsimile (as serialised in ``front``, its line breaks kept) and an empty text/body."""
    root = etree.fromstring(b"<TEI xmlns='" + TEI_NS.encode() + b"'>\n" + b"".join(front) + b"</TEI>",
                            safe_parser())
    for k, v in root_attrs.items():
        root.set(k, v)
    etree.SubElement(etree.SubElement(root, f"{{{TEI_NS}}}text"), f"{{{TEI_NS}}}body")
    pi = f"<?{LINES_PI} shift={shift} root={root_line}?>".encode()
    return pi + etree.tostring(root)


def _fragment(data: bytes, path: str, what: str, shifts: dict[etree._Element, int]) -> tuple[etree._Element, int | None]:
    """Parse a header or section kept by :func:`iter_tei` (or an index made from it); notes in
    ``shifts`` how far its lines are from the file's. Returns the element and the root's line."""
    try:
        el = etree.fromstring(data, safe_parser())
    except etree.XMLSyntaxError as exc:
        raise DataError(f"{what} is not well-formed XML ({exc.msg}); rebuild the index or check the file",
                        path) from None
    pi = el.getprevious()
    m = _LINES_RE.fullmatch(pi.text or "") if isinstance(pi, etree._ProcessingInstruction) and pi.target == LINES_PI else None
    if m is None:
        return el, None
    if what == "the TEI header":
        for child in el:
            shifts[child] = int(m.group(1))
    else:
        shifts[el] = int(m.group(1))
    return el, int(m.group(2)) if m.group(2) else None


def assemble(header: bytes, sections: list[bytes], path: str = "<tei>") -> Document:
    """A Document from a header (as yielded by :func:`iter_tei`) and some sections. An error
    names the line in the TEI file the fragments came from."""
    shifts: dict[etree._Element, int] = {}
    root, root_line = _fragment(header, path, "the TEI header", shifts)
    body = root.find("t:text/t:body", NS)
    if body is None:
        raise DataError("the TEI header has no text/body", path)
    shifts.pop(root.find("t:text", NS), None)  # made by iter_tei: no line of the file
    for sb in sections:
        body.append(_fragment(sb, path, "a section", shifts)[0])
    return _Reader(path, shifts, root_line).document(etree.ElementTree(root))


class SectionReader:
    """Reads the sections :func:`iter_tei` yields one at a time, against a header parsed once
    (what a per-section :func:`assemble` would give, without parsing and reading the header for
    every section): ``doc`` is the Document of the header alone."""

    def __init__(self, header: bytes, path: str = "<tei>") -> None:
        self.path = path
        self.doc = assemble(header, [], path)
        shifts: dict[etree._Element, int] = {}
        root, root_line = _fragment(header, path, "the TEI header", shifts)
        self._reader = _Reader(path, shifts, root_line)
        self._reader.facsimile(root)

    def section(self, data: bytes) -> Section:
        """The Section of one section's bytes (as :func:`iter_tei` yields them)."""
        el, _line = _fragment(data, self.path, "a section", self._reader.shifts)
        try:
            return self._reader.section(el)[0]
        finally:
            self._reader.shifts.pop(el, None)


def read_tei(path: Path | str) -> Document:
    """Read a TEI file written by :mod:`yili_corpus.tei.write` into a Document."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", str(p)) from None
    return read_bytes(data, str(p))


def read_bytes(data: bytes, path: str = "<tei>") -> Document:
    """Read TEI bytes into a Document."""
    return read_tree(parse_tei(data, path), path)


def read_tree(tree: etree._ElementTree, path: str = "<tei>") -> Document:
    """Read a parsed TEI (see :func:`parse_tei`) into a Document."""
    return _Reader(path).document(tree)
