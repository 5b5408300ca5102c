"""What the TEI writer and the TEI readers share: the namespaces, the attribute values that encode
the sources' forms, and the layout of the file (which elements are indented).

The read wing (:mod:`yili_corpus.tei.read`, :mod:`yili_corpus.tei.validate`,
:mod:`yili_corpus.export`) takes these from here, not from the writer (:mod:`yili_corpus.tei.write`),
so that reading never loads the writer.
"""

from __future__ import annotations

from lxml import etree

from ..layers import KAOZHENG as KAOZHENG
from ..layers import LAYERS

TEI_NS = "http://www.tei-c.org/ns/1.0"
XML_NS = "http://www.w3.org/XML/1998/namespace"
T = f"{{{TEI_NS}}}"
XML_ID = f"{{{XML_NS}}}id"
XML_LANG = f"{{{XML_NS}}}lang"

#: Series of notes → @subtype.
SERIES = {"（）": "numbered", "〔〕": "bracketed", "lemma": "lemma", "": "none"}
#: 疏 lemma forms → @subtype.
#: The kinds of a 音义 item (:data:`yili_corpus.align.yinyi.KINDS`) as the TEI's ``@type``.
YINYI_KINDS = {"反切": "fanqie", "音": "yin", "如字": "ruzi", "又音": "youyin", "释": "gloss"}
FORMS = {"“X”至“Y”": "range", "“X”": "single", "注“X”至“Y”": "zhu-range", "注“X”": "zhu-single", "position": "position"}

#: The 四库 editors' 考證 (layer KAOZHENG) is a note holding its lemma and its note (ab type=lemma|note).
#: How a 考證 entry was anchored → @cert (exact; found before the previous entry; near or partial).
KZ_CERT = {"exact": "high", "out of order": "medium", "approximate": "low"}
KZ_HOW_OF = {v: k for k, v in KZ_CERT.items()}

#: Elements whose content is text (mixed content): never indented, their white space is text.
MIXED = frozenset({
    "seg", "p", "lem", "rdg", "sic", "corr", "supplied", "g", "ref", "title", "label", "item", "head",
    "resp", "persName", "name", "idno", "mapping", "language", "note", "witness", "orig", "reg",
})
#: ab holding 经/记 clauses or translation sentences is element-only; other ab (the parts of a 疏
#: block) hold text.
ELEMENT_ONLY_AB = frozenset(x.key for x in LAYERS if x.tei in ("clauses", "sentences"))
#: The citeStructure ``@match`` of a clause within its paragraph: the clause segs of the base
#: text's ab (经 or 记, the layers whose TEI is clauses), not of its traditional copy (hant).
CLAUSE_MATCH = ("ab[" + " or ".join(f"@type='{x.key}'" for x in LAYERS if x.tei == "clauses")
                + "][not(@subtype='hant')]/seg[@type='clause']")


def is_mixed(e: etree._Element) -> bool:
    """True for an element whose content is text (see :data:`MIXED`); a 疏 note holding parts
    (``p``) is element-only."""
    name = etree.QName(e).localname
    if name == "note" and len(e) and etree.QName(e[0]).localname == "ab":
        return False
    if name == "ab":
        return e.get("type") not in ELEMENT_ONLY_AB
    if name == "p" and not (e.text or "").strip() and len(e) == 1 and etree.QName(e[0]).localname == "list":
        return False
    if name == "p" and len(e) and etree.QName(e[-1]).localname == "list" and not (e[-1].tail or "").strip():
        return True
    if name == "item" and len(e) and etree.QName(e[0]).localname == "choice":
        return False
    return name in MIXED


def indent(e: etree._Element, level: int = 0) -> None:
    """Indent element-only content by two spaces a level; leave mixed content untouched."""
    if not is_mixed(e) and len(e):
        pad = "\n" + "  " * (level + 1)
        e.text = pad
        for child in e:
            child.tail = pad
        e[-1].tail = "\n" + "  " * level
    for child in e:
        indent(child, level + 1)
