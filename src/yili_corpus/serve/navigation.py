"""A chapter's citation tree for the DTS Navigation endpoint (docs/dts.md): section → paragraph →
clause, as the TEI's ``refsDecl/citeStructure`` declares it.

The tree is read from the TEI (parsed with lxml, a few tens of milliseconds for a chapter): the
sections are ``body/div[@type='section']``, their paragraphs ``div[@type='paragraph']``, the
paragraphs' clauses the ``seg[@type='clause']`` of the base text's ``ab`` (经 or 记, never the
traditional copy, ``subtype="hant"``), exactly what the citeStructure's ``@match`` selects (the
tests compare the two). An identifier is the units' ``@n`` joined with each level's ``@delim``
(``16``, ``16.1``, ``16.1.3``); the unit names (``citeType``) are the citeStructure's ``@unit``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from ..layers import LAYERS
from ..tei.core import TEI_NS

T = f"{{{TEI_NS}}}"
#: The ``ab`` types that hold clauses (经, 记).
CLAUSE_ABS = frozenset(x.key for x in LAYERS if x.tei == "clauses")
#: How many chapters' parsed TEIs are kept (each some tens of MB in lxml).
KEEP_CHAPTERS = 6


@dataclass
class Unit:
    """A citable unit: its identifier, citeType, level (1 = section), parent identifier, the
    section's head (sections only), its element, and the index after its last descendant in the
    tree's document order (``end``)."""

    identifier: str
    cite_type: str
    level: int
    parent: str | None
    element: etree._Element
    title: str = ""
    end: int = 0

    def json(self) -> dict[str, Any]:
        """The unit as a DTS ``CitableUnit``."""
        out: dict[str, Any] = {"identifier": self.identifier, "@type": "CitableUnit", "level": self.level,
                               "parent": self.parent, "citeType": self.cite_type}
        if self.title:
            out["dublinCore"] = {"title": [{"lang": "zh-Hans", "value": self.title}]}
        return out


@dataclass
class Tree:
    """A chapter's parsed TEI and its citation tree in document order (pre-order)."""

    root: etree._Element
    units: list[Unit] = field(default_factory=list)
    by_id: dict[str, int] = field(default_factory=dict)

    def get(self, identifier: str) -> Unit | None:
        """The unit ``identifier`` names, or None."""
        i = self.by_id.get(identifier)
        return None if i is None else self.units[i]

    def index(self, unit: Unit) -> int:
        """The unit's place in document order."""
        return self.by_id[unit.identifier]


def _names(root: etree._Element) -> list[tuple[str, str]]:
    """(unit, delim) of each level of the refsDecl's citeStructure, outermost first."""
    out = []
    cs = root.find(f"{T}teiHeader/{T}encodingDesc/{T}refsDecl/{T}citeStructure")
    while cs is not None:
        out.append((cs.get("unit", ""), cs.get("delim", "")))
        cs = cs.find(f"{T}citeStructure")
    return out


def build_tree(path: Path) -> Tree:
    """The citation tree of the TEI ``path`` (see module doc)."""
    root = etree.parse(str(path), etree.XMLParser(huge_tree=True, resolve_entities=False)).getroot()
    tree = Tree(root)
    names = _names(root)
    if not names:
        return tree

    def add(identifier: str, level: int, parent: str | None, el: etree._Element, title: str = "") -> Unit:
        u = Unit(identifier, names[level - 1][0], level, parent, el, title)
        tree.by_id[identifier] = len(tree.units)
        tree.units.append(u)
        return u

    body = root.find(f"{T}text/{T}body")
    for s in body.findall(f"{T}div[@type='section']") if body is not None else []:
        sec = add(s.get("n", ""), 1, None, s, " ".join((s.findtext(f"{T}head") or "").split()))
        if len(names) > 1:
            for p in s.findall(f"{T}div[@type='paragraph']"):
                par = add(f"{sec.identifier}{names[1][1]}{p.get('n', '')}", 2, sec.identifier, p)
                if len(names) > 2:
                    for ab in p.findall(f"{T}ab"):
                        if ab.get("type") in CLAUSE_ABS and ab.get("subtype") != "hant":
                            for c in ab.findall(f"{T}seg[@type='clause']"):
                                add(f"{par.identifier}{names[2][1]}{c.get('n', '')}", 3, par.identifier, c)
    # each unit's end: the index after its last descendant
    stack: list[Unit] = []
    for i, u in enumerate(tree.units):
        while stack and stack[-1].level >= u.level:
            stack.pop().end = i
        stack.append(u)
    for u in stack:
        u.end = len(tree.units)
    return tree


class Trees:
    """The parsed chapters, the last :data:`KEEP_CHAPTERS` used kept (the reader thread's own)."""

    def __init__(self) -> None:
        self._trees: OrderedDict[Path, Tree] = OrderedDict()

    def __call__(self, path: Path) -> Tree:
        """The tree of the TEI ``path``, parsed on first use."""
        if path in self._trees:
            self._trees.move_to_end(path)
            return self._trees[path]
        tree = build_tree(path)
        self._trees[path] = tree
        while len(self._trees) > KEEP_CHAPTERS:
            self._trees.popitem(last=False)
        return tree


def members(tree: Tree, ref: Unit | None, start: Unit | None, end: Unit | None, down: int | None) -> list[Unit]:
    """The ``member`` of a Navigation answer (the spec's table of ``down``/``ref``/``start``/``end``;
    the 400 cases are the caller's), in document order."""
    units = tree.units
    if down == 0 and ref is not None:  # the siblings of ref, itself included
        return [u for u in units if u.level == ref.level and u.parent == ref.parent]
    if ref is not None:
        lo, hi, base = tree.index(ref), ref.end, ref.level
    elif start is not None and end is not None:
        lo, hi, base = tree.index(start), end.end, max(start.level, end.level)
    else:
        lo, hi, base = 0, len(units), 0
    if down is None:
        return []
    limit = None if down == -1 else base + down
    return [u for u in units[lo:hi] if limit is None or u.level <= limit]
