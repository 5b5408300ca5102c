"""The TEI reader: TEI P5 XML → :class:`~yili_corpus.document.Document`.

Parsing is hardened (lxml's own advice for untrusted XML): no DTD is loaded, no entity is
expanded, nothing is fetched from the network, and a document with a DOCTYPE, or larger than
:data:`MAX_BYTES`, is refused with a clear error.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lxml import etree

from ..document import (
    App,
    CharDecl,
    Clause,
    Document,
    Glyph,
    Paragraph,
    Rdg,
    Ref,
    Section,
    SentenceSeg,
    Unit,
    Witness,
)
from ..errors import DataError
from .write import FORMS, SERIES, TEI_NS, XML_ID, XML_LANG

#: The largest TEI file the reader accepts (bytes). The chapter is about 0.5 MB.
MAX_BYTES = 64 * 1024 * 1024

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
    if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
        raise DataError("TEI file has a DOCTYPE or entity declarations; DTDs and entities are refused", path, 1)


def parse_tei(data: bytes, path: str = "<tei>") -> etree._ElementTree:
    """Parse TEI bytes safely (see module doc)."""
    _refuse_unsafe(len(data), data[:65536], path)
    try:
        tree = etree.ElementTree(etree.fromstring(data, safe_parser()))
    except etree.XMLSyntaxError as exc:
        line = exc.lineno or None
        raise DataError(f"not well-formed XML: {exc.msg}", path, line) from None
    if tree.docinfo.doctype:
        raise DataError("TEI file has a DOCTYPE; DTDs are refused", path, 1)
    return tree


def _local(e: etree._Element) -> str:
    return etree.QName(e).localname if isinstance(e.tag, str) else ""


def _ids(value: str | None) -> list[str]:
    return [v[1:] if v.startswith("#") else v for v in (value or "").split()]


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, e: etree._Element, msg: str) -> DataError:
        return DataError(msg, self.path, e.sourceline)

    def req(self, e: etree._Element, attr: str) -> str:
        v = e.get(attr)
        if v is None:
            raise self.fail(e, f"<{_local(e)}> lacks @{attr.split('}')[-1]}")
        return v

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

    def unit(self, e: etree._Element) -> Unit:
        name = _local(e)
        if name == "ab":
            sents = []
            for s in e.findall("t:seg", NS):
                cert = s.get("cert")
                src = s.get("source", "")
                m = re.search(r"#line=(\d+),(\d+)$", src)
                sents.append(SentenceSeg(int(self.req(s, "n")), s.text or "", _ids(s.get("corresp")),
                                         float(cert) if cert else None, int(m.group(2)) if m else None))
            linked = [c for s in sents for c in s.corresp]
            return Unit(self.req(e, XML_ID), "trans", [], linked[0] if linked else None,
                        linked[-1] if linked else None, e.get("source", ""), n=e.get("n"),
                        lang=e.get(XML_LANG), attrs={"confidence": e.get("cert", "")}, sentences=sents)
        layer = self.req(e, "type")
        target = _ids(e.get("target"))
        target_end = _ids(e.get("targetEnd"))
        u = Unit(self.req(e, XML_ID), layer, [], target[0] if target else None,
                 target_end[0] if target_end else (target[0] if target else None), e.get("source", ""),
                 n=e.get("n"), resp=e.get("resp"), lang=e.get(XML_LANG))
        if layer == "shu":
            u.attrs["form"] = FORM_OF.get(e.get("subtype", ""), "")
            u.attrs["how"] = "exact" if e.get("cert") == "high" else "by position"
            if e.get("corresp"):
                u.attrs["zhu"] = e.get("corresp", "")
            for part in e:
                if _local(part) == "ab":
                    u.parts.append((part.get("type", ""), self.inline(part), part.get("source", "")))
                elif _local(part) == "note":
                    u.editorial = part.text or ""
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

    def document(self, tree: etree._ElementTree) -> Document:
        root = tree.getroot()
        if root.tag != f"{{{TEI_NS}}}TEI":
            raise self.fail(root, "the root element is not a TEI element in the TEI namespace")
        doc_id = self.req(root, XML_ID).removeprefix("yili.")
        title = root.findtext("t:teiHeader/t:fileDesc/t:titleStmt/t:title", "", NS)
        head = title.split("：")[0]
        work, _, chapter = head.partition("·")
        sub = root.findtext("t:teiHeader/t:fileDesc/t:titleStmt/t:title[@type='sub']", "", NS)
        m = re.search(r"chapter (\d+)", sub)
        number = int(m.group(1)) if m else 0
        witnesses = []
        for w in root.iterfind("t:teiHeader/t:fileDesc/t:sourceDesc/t:listWit/t:witness", NS):
            ref = w.find("t:ref", NS)
            witnesses.append(Witness(
                self.req(w, XML_ID), ref.get("target", "") if ref is not None else "",
                w.findtext("t:idno", "", NS), w.findtext("t:label", "", NS),
                w.findtext("t:note[@type='description']", "", NS),
                [i.get("n", "") for i in w.iterfind("t:list/t:item", NS)], int(w.get("n", "99")),
            ))
        works = [
            (b.findtext("t:title[@type='as-cited']", "", NS), b.findtext("t:title[@type='main']", "", NS),
             b.get("type", ""), b.findtext("t:note", "", NS))
            for b in root.iterfind("t:teiHeader/t:fileDesc/t:sourceDesc/t:listBibl/t:bibl", NS)
        ]
        ed = root.find("t:teiHeader/t:encodingDesc", NS)
        normalization = collation = variants = ""
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
            for c in ed.iterfind("t:charDecl/t:char", NS):
                chars.append(CharDecl(
                    self.req(c, XML_ID), c.get("corresp", "").lstrip("#"),
                    c.findtext("t:mapping[@type='PUA']", "", NS),
                    c.findtext("t:mapping[@type='standard']", None, NS), int(c.get("n", "0")),
                    c.findtext("t:note", "", NS),
                ))
        sections = []
        body = root.find("t:text/t:body", NS)
        if body is None:
            raise self.fail(root, "no text/body")
        for sd in body.iterfind("t:div[@type='section']", NS):
            paras = []
            for pd in sd.iterfind("t:div[@type='paragraph']", NS):
                ab = pd.find("t:ab", NS)
                if ab is None or ab.get("type") not in ("jing", "ji"):
                    raise self.fail(pd, "a paragraph must open with its 经 or 记 (ab type=jing|ji)")
                clauses = [
                    Clause(self.req(s, XML_ID), int(self.req(s, "n")), self.inline(s), s.get("source", ""))
                    for s in ab.iterfind("t:seg", NS)
                ]
                units = [self.unit(x) for x in pd if _local(x) in ("note", "ab") and x is not ab]
                paras.append(Paragraph(self.req(pd, XML_ID), int(self.req(pd, "n")), ab.get("type", "jing"),
                                       clauses, units, _ids(pd.get("source"))))
            sections.append(Section(self.req(sd, XML_ID), int(self.req(sd, "n")), sd.get("subtype", "jing"),
                                    sd.findtext("t:head", "", NS), paras, _ids(sd.get("corresp"))))
        return Document(doc_id, work, chapter, number, witnesses, chars, sections, normalization,
                        collation, variants, folds, works)


def iter_tei(path: Path | str):  # type: ignore[no-untyped-def]
    """Stream a TEI file: yields ``("header", header_bytes)`` once (the root start tag and the
    teiHeader, as a document without sections), then ``("section", n, section_bytes)`` for each
    section, freeing each as it goes (memory stays small for a large file)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        with p.open("rb") as f:
            head = f.read(65536)
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", str(p)) from None
    _refuse_unsafe(size, head, str(p))
    sec_tag = f"{{{TEI_NS}}}div"
    root_attrs: dict[str, str] = {}
    try:
        for event, el in etree.iterparse(str(p), events=("start", "end"), resolve_entities=False, load_dtd=False,
                                         no_network=True, huge_tree=False, remove_comments=False):
            if event == "start" and el.tag == f"{{{TEI_NS}}}TEI":
                root_attrs = dict(el.attrib)
            elif event == "end" and el.tag == f"{{{TEI_NS}}}teiHeader":
                root = etree.Element(f"{{{TEI_NS}}}TEI", root_attrs, nsmap={None: TEI_NS})
                root.append(etree.fromstring(etree.tostring(el)))
                etree.SubElement(etree.SubElement(root, f"{{{TEI_NS}}}text"), f"{{{TEI_NS}}}body")
                yield ("header", etree.tostring(root))
                el.clear()
            elif event == "end" and el.tag == sec_tag and el.get("type") == "section":
                yield ("section", int(el.get("n", "0")), etree.tostring(el))
                el.clear()
                parent = el.getparent()
                while parent is not None and el.getprevious() is not None:
                    del parent[0]
    except etree.XMLSyntaxError as exc:
        raise DataError(f"not well-formed XML: {exc.msg}", str(p), exc.lineno or None) from None


def assemble(header: bytes, sections: list[bytes], path: str = "<tei>") -> Document:
    """A Document from a header (as yielded by :func:`iter_tei`) and some sections."""
    root = etree.fromstring(header, safe_parser())
    body = root.find("t:text/t:body", NS)
    for sb in sections:
        body.append(etree.fromstring(sb, safe_parser()))
    return _Reader(path).document(etree.ElementTree(root))


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
    return _Reader(path).document(parse_tei(data, path))
