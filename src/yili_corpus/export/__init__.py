"""Export a range of sections and layers as parallel text (``yili export``).

Formats: ``tsv``, ``csv`` (a row a paragraph, a column a layer), ``md`` (a parallel table a
section), ``html`` (one standalone page, the layers side by side), ``json``, ``tei`` (a TEI subset:
the header and the chosen sections and layers, valid against tei_all), ``latex`` (an 注疏
edition for XeLaTeX with xeCJK: :mod:`.latex`).
"""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path
from typing import Any

from lxml import etree

from ..document import Document
from ..layers import KEYS, LAYERS, TEXT_KEYS
from ..layers import name as layer_title
from ..query.refs import Address
from ..query.show import Passage
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


def to_md(doc: Document, sections: list[int], layers: list[str]) -> str:
    rs = rows(doc, sections, layers)
    cols = _columns(rs, layers)
    out = [f"# 《{doc.work}·{doc.chapter}》 {sections[0]}–{sections[-1]}", ""]
    cur = None
    for r in rs:
        if r["section"] != cur:
            cur = r["section"]
            out += ["", f"## 第{cur}节 {r['title']}", "", "| ref | " + " | ".join(layer_title(c) for c in cols) + " |",
                    "|---|" + "---|" * len(cols)]
        cells = ["<br>".join(x.replace("|", "\\|").replace("\n", " ") for x in r["layers"].get(c, [])) for c in cols]
        out.append(f"| {r['ref']} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def to_html(doc: Document, sections: list[int], layers: list[str]) -> str:
    rs = rows(doc, sections, layers)
    cols = _columns(rs, layers)
    e = html.escape
    title = f"《{doc.work}·{doc.chapter}》第{sections[0]}–{sections[-1]}节"
    parts = [
        "<!DOCTYPE html>", '<html lang="zh-Hans">', "<head>", '<meta charset="utf-8">', f"<title>{e(title)}</title>",
        "<style>body{font-family:serif;max-width:1200px;margin:2em auto;line-height:1.7}"
        "table{border-collapse:collapse;width:100%}td,th{border-top:1px solid #ccc;padding:.4em .6em;vertical-align:top}"
        "th{text-align:left;background:#f4f1ea}td.ref{font-family:monospace;font-size:.8em;color:#666}"
        "td.jing,td.ji{font-size:1.15em}p{margin:.2em 0}</style>",
        "</head>", "<body>", f"<h1>{e(title)}</h1>",
        f"<p>From the yili-corpus TEI edition. Layers: {e('、'.join(layer_title(c) for c in cols))}.</p>",
    ]
    cur = None
    for r in rs:
        if r["section"] != cur:
            if cur is not None:
                parts.append("</table>")
            cur = r["section"]
            parts.append(f'<h2 id="s{cur}">第{cur}节 {e(r["title"])}</h2>')
            parts.append("<table><tr><th>ref</th>" + "".join(f"<th>{e(layer_title(c))}</th>" for c in cols) + "</tr>")
        cells = "".join(
            f'<td class="{c}">' + "".join(f"<p>{e(x)}</p>" for x in r["layers"].get(c, [])) + "</td>" for c in cols
        )
        parts.append(f'<tr><td class="ref">{e(r["ref"])}</td>{cells}</tr>')
    if cur is not None:
        parts.append("</table>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


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


def render(doc: Document, tei_path: Path, fmt: str, sections: list[int], layers: list[str] | None) -> str:
    """The export of ``sections`` and ``layers`` in ``fmt``."""
    lays = [x for x in KEYS if x in (layers or KEYS)]
    if TEXT_KEYS[0] in lays:  # the 经 asked for: a section's own base text (the 记) comes with it
        text_of = {s.layer for s in (doc.section(n) for n in sections) if s is not None}
        lays = [x for x in KEYS if x in lays or x in text_of]
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
