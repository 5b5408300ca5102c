"""Export a range of sections and layers as parallel text (``yili export``).

Formats: ``tsv``, ``csv`` (a row a paragraph, a column a layer), ``md`` (a parallel table a
section), ``html`` (one standalone page laid out as an 注疏 edition: :mod:`.html`, on :mod:`.layout`), ``json``,
``tei`` (a TEI subset: the header and the chosen sections and layers, valid against tei_all),
``latex`` (an 注疏 edition for XeLaTeX with xeCJK: :mod:`.latex`, on :mod:`.layout`).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from lxml import etree

from ..document import Document
from ..layers import KEYS, LAYERS, TEXT_KEYS, is_overlay, ordered
from ..layers import name as layer_title
from ..query.refs import Address
from ..query.show import Passage
from .html import to_html
from .latex import to_latex

FORMATS = ("tsv", "csv", "md", "html", "json", "tei", "latex")


def rows(doc: Document, sections: list[int], layers: list[str]) -> list[dict[str, Any]]:
    """A row a paragraph: its ref, section, title and, per layer, the texts."""
    out = []
    for n in sections:
        s = doc.section(n)
        if s is None:
            continue
        for p in s.paragraphs:
            j = Passage(doc, Address(doc.id, n, p.n), layers).to_json()
            cells = {}
            for lay in layers:
                units = j["layers"].get(lay, [])
                cells[lay] = [u["text"] for u in units]
            out.append({"section": n, "title": s.title, "ref": p.id, "layers": cells})
    return out


def _columns(rs: list[dict[str, Any]], layers: list[str]) -> list[str]:
    """The layers that have text in the rows."""
    have = {lay for r in rs for lay, v in r["layers"].items() if v}
    return [lay for lay in layers if lay in have]


def to_table(doc: Document, sections: list[int], layers: list[str], sep: str) -> str:
    rs = rows(doc, sections, layers)
    cols = _columns(rs, layers)
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=sep, lineterminator="\n")
    w.writerow(["section", "ref", "title"] + cols)
    for r in rs:
        w.writerow([r["section"], r["ref"], r["title"]] + [" | ".join(r["layers"].get(c, [])) for c in cols])
    return buf.getvalue()


def _md_cell(s: str) -> str:
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip()


def to_md(doc: Document, sections: list[int], layers: list[str]) -> str:
    """A parallel table a section (a row a paragraph, a column a layer that has text in the range),
    laid out by :mod:`.layout` (a 注 in the row of the clause it follows); each apparatus entry a
    footnote (``[^n]``) after its clause or 注, listed under the section's table."""
    from .html import app_note
    from .layout import Block, Piece, layout

    lay = layout(doc, sections, layers)
    rng = f"{sections[0]}–{sections[-1]}" if sections[0] != sections[-1] else str(sections[0])
    out = [f"# 《{doc.work}·{doc.chapter}》第{rng}节"]
    k = 0
    notes: list[str] = []  # the footnotes of the section being written

    def text(pieces: list[Piece], apparatus: list[dict[str, Any]]) -> str:
        nonlocal k
        body = "".join(x.text for x in pieces)
        for x in pieces:
            if x.app is not None:
                k += 1
                body += f"[^{k}]"
                notes.append(f"[^{k}]: {_md_cell(app_note(apparatus[x.app]))}")
        return _md_cell(body)

    def blocks(bs: list[Block]) -> list[str]:
        return [(f"〔{b.n}〕" if b.base == "note" and b.n else "") + text(b.pieces, b.apparatus) for b in bs]

    for s in lay.sections:
        out += ["", f"## 第{s.n}节 {s.title}", ""]
        for b in s.summary:
            out.append(f"> {text(b.pieces, b.apparatus)}")
        if s.summary:
            out.append("")
        have = {s.layer} | {b.layer for p in s.paragraphs for x in p.clauses for b in x.inline + x.after}
        have |= {b.layer for p in s.paragraphs for b in p.notes} | {lk for p in s.paragraphs for lk in p.beside}
        cols = [c for c in lay.layers if c in have]  # no empty column: the section's own layers
        if not cols:
            continue
        out += ["| ref | " + " | ".join(layer_title(c) for c in cols) + " |", "|---|" + "---|" * len(cols)]
        for p in s.paragraphs:
            cells = []
            for c in cols:
                if c == p.layer:
                    cells.append("　".join(f"<sup>{x.n}</sup>{text(x.pieces, x.apparatus)}" for x in p.clauses))
                    continue
                found = [b for x in p.clauses for b in x.inline + x.after if b.layer == c]
                found += [b for b in p.notes if b.layer == c] + p.beside.get(c, [])
                cells.append("<br>".join(blocks(found)))
            out.append(f"| {p.id} | " + " | ".join(cells) + " |")
        if notes:
            out += [""] + notes
            notes.clear()
    return "\n".join(out) + "\n"


def to_json(doc: Document, sections: list[int], layers: list[str]) -> str:
    data = {
        "work": doc.work, "chapter": doc.chapter, "layers": layers,
        "sections": [
            {"n": n, "title": doc.section(n).title,  # type: ignore[union-attr]
             "passage": Passage(doc, Address(doc.id, n), layers).to_json()}
            for n in sections if doc.section(n)
        ],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def to_tei(tei_path: Path, sections: list[int], layers: list[str]) -> str:
    """The TEI, cut down to ``sections`` and ``layers``; pointers to what is left out are dropped."""
    from ..tei.core import TEI_NS, XML_ID, indent
    from ..tei.read import parse_tei

    tree = parse_tei(tei_path.read_bytes(), str(tei_path))
    root = tree.getroot()
    t = f"{{{TEI_NS}}}"
    keep = {str(n) for n in sections}
    body = root.find(f"{t}text/{t}body")
    for div in list(body.findall(f"{t}div[@type='section']")):
        if div.get("n") not in keep:
            body.remove(div)
    unit_layers = {x.key for x in LAYERS if x.tei == "note"}
    for div in body.iter(f"{t}div"):
        for u in list(div):
            typ = u.get("type")
            if (u.tag == f"{t}note" and typ in unit_layers and typ not in layers) or (
                u.tag == f"{t}ab" and typ == "trans" and "trans" not in layers
            ):
                div.remove(u)
    for item in list(root.iterfind(f".//{t}projectDesc//{t}item")):
        if item.get("n") not in keep:
            item.getparent().remove(item)
    ids = {e.get(XML_ID) for e in root.iter() if isinstance(e.tag, str) and e.get(XML_ID)}
    for e in root.iter():
        if not isinstance(e.tag, str):
            continue
        for a in ("target", "targetEnd", "corresp"):
            v = e.get(a)
            if v is None:
                continue
            kept = [x for x in v.split() if not x.startswith("#") or x[1:] in ids]
            if kept:
                e.set(a, " ".join(kept))
            else:
                del e.attrib[a]
    _readable_glyphs(root, t)
    indent(root)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8").decode("utf-8") + "\n"


def _readable_glyphs(root: Any, t: str) -> None:
    """No private-use code point in an export: each ``<g>`` holds the character a reader reads
    (its declaration's standard mapping, else 〓), and each declaration gives its code points as
    ``<localProp name="codepoints" value="U+E07D"/>`` instead of the PUA mapping."""
    from ..document import UNRESOLVED_MARK
    from ..model import codepoints
    from ..tei.core import XML_ID

    std: dict[str, str] = {}
    for c in root.iterfind(f".//{t}charDecl/{t}char"):
        std[c.get(XML_ID, "")] = c.findtext(f"{t}mapping[@type='standard']") or UNRESOLVED_MARK
        for m in c.findall(f"{t}mapping[@type='PUA']"):
            prop = etree.Element(f"{t}localProp", {"name": "codepoints", "value": codepoints(m.text or "")})
            prop.tail = m.tail
            c.replace(m, prop)
    for g in root.iter(f"{t}g"):
        g.text = std.get((g.get("ref") or "").lstrip("#"), UNRESOLVED_MARK)


def present(doc: Document, sections: list[int]) -> set[str]:
    """The layers that have text in ``sections`` (their base text, every unit's layer)."""
    have: set[str] = set()
    for n in sections:
        sec = doc.section(n)
        if sec is not None:
            have.add(sec.layer)
            have.update(u.layer for p in sec.paragraphs for u in p.units)
    return have


def span(sections: list[int]) -> str:
    """``§21`` or ``§16–22`` (a notice's range)."""
    return f"§{sections[0]}" if sections[0] == sections[-1] else f"§{sections[0]}–{sections[-1]}"


def render(doc: Document, tei_path: Path, fmt: str, sections: list[int], layers: list[str] | None,
           notices: list[str] | None = None) -> str:
    """The export of ``sections`` and ``layers`` in ``fmt`` (None: every layer, the overlays'
    included). A layer asked for that has no text in the range is left out with a line in
    ``notices``; when none of them has any, the export is empty ("")."""
    have = present(doc, sections)
    if layers:
        asked = ordered(layers)
        lays = list(asked)
        if any(x in TEXT_KEYS for x in asked):  # the 经 asked for: a section's own base text (the 记) comes with it
            lays = ordered(set(lays) | (have & set(TEXT_KEYS)))
        gone = [x for x in asked if x not in have and not (x in TEXT_KEYS and have & set(TEXT_KEYS))]
        for x in gone:
            if notices is not None:
                notices.append(f"{layer_title(x)} ({x}) has no text in {span(sections)}; left out of the export")
        lays = [x for x in lays if x in have]
        if not lays:
            return ""
    else:
        lays = ordered(set(KEYS) | {x for x in have if is_overlay(x)})
    if fmt == "tsv":
        return to_table(doc, sections, lays, "\t")
    if fmt == "csv":
        return to_table(doc, sections, lays, ",")
    if fmt == "md":
        return to_md(doc, sections, lays)
    if fmt == "html":
        return to_html(doc, sections, lays)
    if fmt == "json":
        return to_json(doc, sections, lays)
    if fmt == "tei":
        return to_tei(tei_path, sections, lays)
    if fmt == "latex":
        return to_latex(doc, sections, lays)
    raise ValueError(fmt)
