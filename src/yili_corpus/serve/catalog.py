"""What the DTS Collection endpoint says of the work, its chapters and the overlays (docs/dts.md).

Every fact comes from a TEI header: a chapter's titles (``bibl type="chapter"``: the title, its
traditional form among the variants, the work's title), its description (the ``titleStmt``
title), languages (``langUsage``), contributors (``respStmt/persName`` with their ``resp``),
publisher (``authority``), licences and its citation structure (``refsDecl/citeStructure``). Only
the header is parsed (the bytes up to ``</teiHeader>``), once per file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from ..tei.core import TEI_NS, XML_LANG

T = f"{{{TEI_NS}}}"
#: The most bytes read to find a header's end (a chapter's header is about 100 KB).
MAX_HEADER_BYTES = 4 << 20


@dataclass
class HeaderInfo:
    """The facts of one TEI header the Collection endpoint gives (see module doc)."""

    title: str = ""
    title_hant: str = ""
    work: str = ""
    description: str = ""
    lang: str = ""
    languages: list[str] = field(default_factory=list)
    contributors: list[tuple[str, str]] = field(default_factory=list)  # (name, resp)
    publisher: str = ""
    licences: list[str] = field(default_factory=list)
    #: the citeStructure as nested (unit, children) pairs
    cite_units: list[tuple[str, list[Any]]] = field(default_factory=list)


def read_header(path: Path) -> etree._Element:
    """The ``TEI`` element of ``path`` holding its ``teiHeader`` only (the body is not read)."""
    with open(path, "rb") as f:
        data = f.read(MAX_HEADER_BYTES)
    end = data.find(b"</teiHeader>")
    if end < 0:
        return etree.fromstring(data)
    return etree.fromstring(data[: end + len(b"</teiHeader>")] + b"</TEI>")


def _cite_units(cs: etree._Element) -> list[tuple[str, list[Any]]]:
    return [(c.get("unit", ""), _cite_units(c)) for c in cs.findall(f"{T}citeStructure")]


def header_info(path: Path) -> HeaderInfo:
    """The facts of the header of the TEI ``path``."""
    from ..query.work import fold

    root = read_header(path)
    info = HeaderInfo(lang=root.get(XML_LANG, ""))
    bibl = root.find(f"{T}teiHeader/{T}fileDesc/{T}sourceDesc/{T}bibl[@type='chapter']")
    if bibl is not None:
        info.work = (bibl.findtext(f"{T}title[@type='work']") or "").strip()
        info.title = (bibl.findtext(f"{T}title[@type='chapter']") or bibl.findtext(f"{T}title") or "").strip()
        for v in bibl.findall(f"{T}title[@type='variant']"):
            t = (v.text or "").strip()
            if t and t != info.title and fold(t) == info.title:
                info.title_hant = t
                break
    stmt = root.find(f"{T}teiHeader/{T}fileDesc/{T}titleStmt")
    if stmt is not None:
        main = stmt.find(f"{T}title")
        info.description = (main.text or "").strip() if main is not None else ""
        for rs in stmt.findall(f"{T}respStmt"):
            for p in rs.findall(f"{T}persName"):
                info.contributors.append(((p.text or "").strip(), (rs.findtext(f"{T}resp") or "").strip()))
    pub = root.find(f"{T}teiHeader/{T}fileDesc/{T}publicationStmt")
    if pub is not None:
        info.publisher = (pub.findtext(f"{T}authority") or "").strip()
        info.licences = list(dict.fromkeys(lc.get("target", "") for lc in pub.iter(f"{T}licence")
                                           if lc.get("target")))
    info.languages = [lg.get("ident", "") for lg in root.iter(f"{T}language") if lg.get("ident")]
    top = root.find(f"{T}teiHeader/{T}encodingDesc/{T}refsDecl")
    if top is not None:
        info.cite_units = _cite_units(top)
    return info


def citation_trees(info: HeaderInfo) -> list[dict[str, Any]]:
    """The Resource's ``citationTrees``: one default tree (no identifier) from the refsDecl, or
    none (an empty list) for a TEI without one."""

    def structure(units: list[tuple[str, list[Any]]]) -> list[dict[str, Any]]:
        out = []
        for unit, subs in units:
            cs: dict[str, Any] = {"@type": "CiteStructure", "citeType": unit}
            if subs:
                cs["citeStructure"] = structure(subs)
            out.append(cs)
        return out

    if not info.cite_units:
        return []
    return [{"@type": "CitationTree", "citeStructure": structure(info.cite_units)}]


def dublin_core(info: HeaderInfo) -> dict[str, Any]:
    """The Resource's ``dublinCore`` (only what the header states)."""
    dc: dict[str, Any] = {}
    titles = []
    if info.title:
        titles.append({"lang": "zh-Hans", "value": info.title})
    if info.title_hant:
        titles.append({"lang": "zh-Hant", "value": info.title_hant})
    if titles:
        dc["title"] = titles
    if info.description:
        dc["description"] = [{"lang": "zh-Hans", "value": info.description}]
    langs = list(dict.fromkeys([x for x in [info.lang, *info.languages] if x]))
    if langs:
        dc["language"] = langs
    people = [{"lang": "zh-Hans", "value": name} for name in dict.fromkeys(n for n, _ in info.contributors) if name]
    if people:
        dc["contributor"] = people
    if info.publisher:
        dc["publisher"] = [info.publisher]
    if info.licences:
        dc["license"] = info.licences
    return dc
