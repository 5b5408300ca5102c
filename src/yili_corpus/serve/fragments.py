"""Parts of a chapter's TEI for the DTS Document endpoint (docs/dts.md).

A fragment is a TEI document: the chapter's ``teiHeader`` as it is, then ``<text><body>`` holding
a ``<dts:wrapper xmlns:dts="https://w3id.org/api/dts#">`` with the units asked for. A ``ref`` is
its element whole (a section's ``div``, a paragraph's ``div`` with its 注, 疏 and translation, a
clause's ``seg``). A range ``start``–``end`` is every unit from ``start`` to the end of ``end``
(inclusive, in document order): the largest units lying wholly in the range, each within shallow
copies of its enclosing elements (the section ``div``, the paragraph ``div``, the clause's ``ab``),
units sharing an ancestor under one copy of it, so the fragment stays well-formed.
"""

from __future__ import annotations

import copy

from lxml import etree

from ..tei.core import TEI_NS
from .navigation import Tree, Unit

T = f"{{{TEI_NS}}}"
DTS_NS = "https://w3id.org/api/dts#"


def _shell(tree: Tree) -> tuple[etree._Element, etree._Element]:
    """A TEI root with the chapter's header, and its empty ``dts:wrapper``."""
    src = tree.root
    root = etree.Element(src.tag, dict(src.attrib), nsmap={None: TEI_NS})
    header = src.find(f"{T}teiHeader")
    if header is not None:
        root.append(copy.deepcopy(header))
    body = etree.SubElement(etree.SubElement(root, f"{T}text"), f"{T}body")
    wrapper = etree.SubElement(body, f"{{{DTS_NS}}}wrapper", nsmap={"dts": DTS_NS})
    return root, wrapper


def _serialise(root: etree._Element) -> bytes:
    etree.cleanup_namespaces(root, keep_ns_prefixes=["dts"])
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def whole_units(tree: Tree, start: Unit, end: Unit) -> list[Unit]:
    """The largest units lying wholly between ``start`` and the end of ``end``, in order."""
    lo, hi = tree.index(start), end.end
    out: list[Unit] = []
    i = lo
    while i < hi:
        u = tree.units[i]
        if u.end <= hi:
            out.append(u)
            i = u.end
        else:  # it runs past the range: its children that do not
            i += 1
    return out


def fragment(tree: Tree, units: list[Unit]) -> bytes:
    """The TEI document holding ``units`` (each whole) in a ``dts:wrapper`` (see module doc)."""
    root, wrapper = _shell(tree)
    body = tree.root.find(f"{T}text/{T}body")
    copies: dict[etree._Element, etree._Element] = {}
    for u in units:
        chain = []
        a = u.element.getparent()
        while a is not None and a is not body:
            chain.append(a)
            a = a.getparent()
        parent = wrapper
        for anc in reversed(chain):
            if anc not in copies:
                copies[anc] = etree.SubElement(parent, anc.tag, dict(anc.attrib))
            parent = copies[anc]
        el = copy.deepcopy(u.element)
        el.tail = None
        parent.append(el)
    return _serialise(root)
