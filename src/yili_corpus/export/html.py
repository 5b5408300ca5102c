"""The html export: one standalone page laid out as an 注疏 edition (docs/export.md).

The page follows :mod:`yili_corpus.export.layout`: the 经/记 large, each 注 (and the 音义 and
考證 on the same words) in smaller type right after the words it explains, the 疏 as a block
after its passage, the notes listed under the paragraph by their lemma (a marker at the lemma),
the translation in a column beside its paragraph. The apparatus is marked at its lemma (a dotted
underline, a numbered marker, the entry as a tooltip) and listed with its readings, rule and
evidence under the paragraph. Each clause is an anchor (``id`` = the clause id). Checkboxes show
and hide each layer; print CSS drops them. No external asset: no network is needed to read it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from ..document import Document, page_label
from ..layers import name as layer_name
from ..layers import short
from ..query.apparatus import entry_text
from .layout import Block, ClauseItem, Layout, ParagraphLayout, Piece, SectionLayout, layout

_e = html.escape

#: The narrowest share of the width a column may take (a quarter of the page, with a margin for
#: the gap); the other column takes the rest.
MIN_SHARE = 0.3

#: How an apparatus entry's type is named to a reader.
APP_TYPES = {"variant": "异文", "restored": "补字", "emendation": "校改"}

CSS = """
:root{--main:3fr;--side:2fr}
*{box-sizing:border-box}
body{font-family:"Noto Serif CJK SC","Source Han Serif SC","Songti SC","SimSun",serif;margin:0 auto;
 padding:1em 1.5em 3em;max-width:1500px;line-height:1.75;color:#222;background:#fffdf8}
h1{font-size:1.6em;margin:.3em 0}
h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid #c9bfa8;padding-bottom:.15em}
.source{color:#666;font-size:.85em;margin:.2em 0}
.toggles{position:sticky;top:0;z-index:2;background:#f4efe2;border:1px solid #ddd3bb;
 padding:.35em .8em;margin:.6em 0 1em;font-size:.9em}
.toggles label{margin-right:1.2em;white-space:nowrap;cursor:pointer}
.para{display:grid;grid-template-columns:minmax(0,var(--main)) minmax(0,var(--side));gap:1.5em;
 margin:.7em 0 1.1em;padding-bottom:.5em;border-bottom:1px dotted #e2dccd}
.solo .para,.no-side .para{grid-template-columns:minmax(0,1fr)}
.no-side .side{display:none}
.pid{font-family:monospace;font-size:.7em;color:#999;user-select:none}
p.text{margin:.2em 0;font-size:1.35em;text-align:justify}
.clause{scroll-margin-top:3em}
.clause:target{background:#fff2b3}
.cn{font-size:.5em;color:#a08c5b;vertical-align:super;font-family:sans-serif;margin-right:.1em}
.zhu,.yinyi,.kaozheng{font-size:.68em;line-height:1.5}
.zhu{color:#5b3a1a}
.yinyi{color:#35606e}
.kaozheng{color:#6b4a7a}
.tag{font-family:sans-serif;font-size:.78em;border:1px solid currentColor;border-radius:2px;padding:0 .15em;
 margin:0 .15em;opacity:.75}
.shu{font-size:.92em;line-height:1.65;color:#3b3b3b;border-left:3px solid #d8cba8;margin:.35em 0 .5em;
 padding:.1em 0 .1em .8em;text-align:justify}
.lem{text-decoration:underline dotted #b0413e;text-underline-offset:.2em}
.am,.nm{font-size:.55em;vertical-align:super;font-family:sans-serif;line-height:0}
.am a{color:#b0413e;text-decoration:none}
.nm a{color:#2f6f3e;text-decoration:none}
ol.notes,ol.app{margin:.4em 0 0;padding-left:0;list-style:none;font-size:.85em;line-height:1.55}
ol.notes li{margin:.15em 0}
ol.app{color:#5a2a28;border-top:1px solid #eee3d8;padding-top:.2em}
ol.app li:target,ol.notes li:target{background:#fff2b3}
.nl{color:#2f6f3e;font-weight:bold;margin-right:.3em}
.al{color:#b0413e;font-weight:bold;margin-right:.3em}
.why{color:#777}
.side{font-size:.95em;line-height:1.7}
.side .trans{margin:.2em 0 .6em}
.side h3{font-size:.75em;color:#888;margin:.2em 0;font-weight:normal;font-family:sans-serif}
.summary{font-size:.88em;color:#444;background:#f6f2e6;padding:.4em .8em;margin:.3em 0 .8em}
.pg{font-size:.6em;color:#aaa;font-family:sans-serif}
@media (max-width:800px){.para{grid-template-columns:minmax(0,1fr)}}
@media print{
 @page{size:A4;margin:13mm 12mm}
 body{font-size:9.5pt;max-width:none;padding:0;background:#fff;line-height:1.55}
 .toggles,.pid{display:none}
 h1{font-size:15pt}
 h2{font-size:12pt;break-after:avoid;page-break-after:avoid;margin:.8em 0 .3em}
 p.text{font-size:12pt}
 .para{gap:1em;margin:.3em 0 .5em;border-bottom:none}
 .shu{font-size:8.5pt;line-height:1.45;margin:.2em 0 .3em}
 ol.notes,ol.app{font-size:8pt;line-height:1.4}
 .side{font-size:9pt}
 .para{grid-template-columns:minmax(0,var(--main)) minmax(0,var(--side))}
 li,.clause{break-inside:avoid}
 a{color:inherit}
}
"""

JS = """
(function(){
  var side = %s;
  function update(){
    var boxes = document.querySelectorAll('.toggles input');
    var shown = 0;
    boxes.forEach(function(b){
      document.body.classList.toggle('hide-' + b.dataset.layer, !b.checked);
      if (b.checked && side.indexOf(b.dataset.layer) >= 0) shown++;
    });
    document.body.classList.toggle('no-side', shown === 0);
  }
  document.querySelectorAll('.toggles input').forEach(function(b){ b.addEventListener('change', update); });
  update();
})();
"""


def slug(layer: str) -> str:
    """A layer key as a CSS class (``trans:mine`` → ``trans-mine``)."""
    return layer.replace(":", "-")


def _pages(p: tuple[str, str] | None) -> str:
    return f"葉{page_label(p)}" if p else ""


def app_note(e: dict[str, Any]) -> str:
    """An apparatus entry as a reader reads it: ``束］w003 东（异文；rule；evidence）``."""
    why = [APP_TYPES.get(e["type"], e["type"])]
    if e.get("sic"):
        why.append(f"底本作「{e['sic']}」")
    if e.get("rule"):
        why.append(e["rule"])
    if e.get("evidence"):
        why.append(e["evidence"])
    return f"{entry_text(e)}（{'；'.join(why)}）"


class _Page:
    """The html of one export, built piece by piece (the apparatus numbered per paragraph)."""

    def __init__(self, lay: Layout, doc: Document) -> None:
        self.lay = lay
        self.doc = doc
        self.apps: list[tuple[str, str, dict[str, Any]]] = []  # (id, layer, entry)
        self.pid = ""
        #: the sections that have a translation beside them (a column of their own)
        self.with_side = {s.n for s in lay.sections if any(p.beside.get(k) for p in s.paragraphs for k in lay.side)}

    def pieces(self, pieces: list[Piece], apparatus: list[dict[str, Any]], layer: str) -> str:
        """The text with each lemma underlined (the entry as its tooltip) and, after the text,
        the numbered markers of its entries (so that the words themselves stay whole: a reader's
        find-in-page finds a clause)."""
        out, marks = [], []
        for x in pieces:
            if x.app is None:
                out.append(_e(x.text))
                continue
            e = apparatus[x.app]
            self.apps.append((f"app-{self.pid}-{len(self.apps) + 1}", layer, e))
            aid, k = self.apps[-1][0], len(self.apps)
            note = _e(app_note(e))
            if x.text:
                out.append(f'<span class="lem" title="{note}">{_e(x.text)}</span>')
            marks.append(f'<a href="#{aid}" title="{note}">{k}</a>')
        if marks:
            out.append(f'<sup class="am">{",".join(marks)}</sup>')
        return "".join(out)

    def block_title(self, b: Block) -> str:
        bits = [layer_name(b.layer), b.witness, _pages(b.pages)]
        if b.first != b.last:
            bits.append(f"{b.first.rsplit('.', 1)[-1]}–{b.last.rsplit('.', 1)[-1]}")
        return " · ".join(x for x in bits if x)

    def inline(self, b: Block) -> str:
        tag = "" if b.base == "zhu" else f'<span class="tag">{_e(short(b.base))}</span>'
        return (f'<span class="{b.base} l-{slug(b.layer)}" id="{_e(b.ref)}" title="{_e(self.block_title(b))}">'
                f'{tag}{self.pieces(b.pieces, b.apparatus, b.layer)}</span>')

    def shu(self, b: Block) -> str:
        quo = "".join(f'<br><span class="why">{_e(q["text"])}</span>' for q in b.quotations)
        return (f'<div class="shu l-{slug(b.layer)}" id="{_e(b.ref)}" title="{_e(self.block_title(b))}">'
                f'{self.pieces(b.pieces, b.apparatus, b.layer)}{quo}</div>')

    def clause(self, c: ClauseItem, text_layer: str, notes: dict[str, int]) -> str:
        marks = "".join(f'<sup class="nm l-{slug(lay)}"><a href="#{_e(ref)}">〔{k}〕</a></sup>'
                        for ref, (k, lay) in ((r, notes[r]) for r in c.notes if r in notes))
        return (f'<span class="clause" id="{_e(c.id)}"><span class="cn">{c.n}</span>'
                f'{self.pieces(c.pieces, c.apparatus, text_layer)}</span>{marks}'
                + "".join(self.inline(b) for b in c.inline))

    def paragraph(self, s: SectionLayout, p: ParagraphLayout, show_text: bool) -> str:
        self.apps = []
        self.pid = p.id.rsplit(".", 2)[-2] + "-" + str(p.n)
        notes = {b.ref: (i + 1 if not b.n else b.n, b.layer) for i, b in enumerate(p.notes)}
        body: list[str] = []
        run: list[str] = []

        def flush() -> None:
            if run:
                body.append(f'<p class="text l-{slug(p.layer)}">' + "　".join(run) + "</p>")
                run.clear()

        for c in p.clauses:
            if show_text:
                run.append(self.clause(c, p.layer, notes))
            else:
                run.append("".join(self.inline(b) for b in c.inline))
            if c.after:
                flush()
                body += [self.shu(b) for b in c.after]
        flush()
        if p.notes:
            body.append('<ol class="notes">' + "".join(
                f'<li class="l-{slug(b.layer)}" id="{_e(b.ref)}" title="{_e(b.quote)}">'
                f'<span class="nl">〔{notes[b.ref][0]}〕</span>{self.pieces(b.pieces, b.apparatus, b.layer)}</li>'
                for b in p.notes) + "</ol>")
        if self.apps:
            body.append('<ol class="app">' + "".join(
                f'<li id="{aid}" class="l-{slug(lay)}"><span class="al">{i}</span>{_e(app_note(e))}</li>'
                for i, (aid, lay, e) in enumerate(self.apps, 1)) + "</ol>")
        side = ""
        if self.lay.side and s.n in self.with_side:
            cols = []
            for lay in self.lay.side:
                for b in p.beside.get(lay, []):
                    head = f"<h3>{_e(layer_name(lay))}</h3>" if len(self.lay.side) > 1 else ""
                    sents = "".join(f'<span data-clauses="{_e(" ".join(x["clauses"]))}">{_e(x["text"])}</span>'
                                    for x in b.sentences) or _e(b.text)
                    bid = f' id="{_e(b.ref)}"' if b.part == 0 else ""
                    cols.append(f'<div class="trans l-{slug(lay)}"{bid}>{head}{sents}</div>')
            side = '<div class="side">' + "".join(cols) + "</div>"
        pid = f'<div class="pid">{_e(p.id)}</div>'
        return f'<div class="para" id="{_e(p.id)}"><div class="main">{pid}{"".join(body)}</div>{side}</div>'

    def share(self) -> float:
        """The translation column's share of the width: the side's share of the characters of
        the sections that have one, bounded by :data:`MIN_SHARE` (0 without a side)."""
        lay = self.lay
        main_chars = side_chars = 0
        for s in lay.sections:
            if s.n not in self.with_side:
                continue
            for p in s.paragraphs:
                main_chars += sum(len(c.text) + sum(len(b.text) for b in c.inline + c.after) for c in p.clauses)
                main_chars += sum(len(b.text) for b in p.notes)
                side_chars += sum(len(b.text) for bs in p.beside.values() for b in bs)
        share = side_chars / (main_chars + side_chars) if side_chars else 0.0
        return min(max(share, MIN_SHARE), 1 - MIN_SHARE)

    def sections(self) -> list[str]:
        """The html of each section (heading, summary, paragraphs), in order."""
        lay = self.lay
        parts = []
        for s in lay.sections:
            show_text = s.layer in lay.layers
            cls = "" if s.n in self.with_side else ' class="solo"'
            out = [f'<section id="{_e(s.id)}"{cls}><h2>第{s.n}节　{_e(s.title)}</h2>']
            for b in s.summary:
                out.append(f'<div class="summary l-{slug(b.layer)}" id="{_e(b.ref)}">'
                           f'{self.pieces(b.pieces, b.apparatus, b.layer)}</div>')
            for p in s.paragraphs:
                out.append(self.paragraph(s, p, show_text))
            out.append("</section>")
            parts.append("\n".join(out))
        return parts

    def title(self) -> str:
        """``《仪礼·乡射礼》第16节`` (``第16–18节`` for a range)."""
        lay = self.lay
        secs = lay.sections
        rng = f"{secs[0].n}–{secs[-1].n}" if secs and secs[0].n != secs[-1].n else (str(secs[0].n) if secs else "")
        return f"《{lay.work}·{lay.chapter}》第{rng}节"

    def render(self) -> str:
        lay = self.lay
        title = self.title()
        share = self.share()
        grid = f":root{{--main:{1 - share:.3f}fr;--side:{share:.3f}fr}}"
        hide = "".join(f".hide-{slug(k)} .l-{slug(k)}{{display:none}}" for k in lay.layers)
        toggles = "".join(
            f'<label><input type="checkbox" data-layer="{slug(k)}" checked> {_e(layer_name(k))}</label>'
            for k in lay.layers)
        ed = self.doc.edition
        src = "From the yili-corpus TEI edition" + (f"; pages (葉) of {ed.citation()}" if ed else "") + "."
        parts = [
            "<!DOCTYPE html>", '<html lang="zh-Hans">', "<head>", '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_e(title)}</title>", f"<style>{CSS}{grid}{hide}</style>", "</head>",
            f'<body class="{"" if self.with_side else "no-side"}">',
            f"<h1>{_e(title)}</h1>", f'<p class="source">{_e(src)}</p>',
            f'<nav class="toggles">{toggles}</nav>', "<main>",
        ]
        parts += self.sections()
        side = "[" + ",".join(f'"{slug(k)}"' for k in lay.side) + "]"
        parts += ["</main>", f"<script>{JS % side}</script>", "</body>", "</html>"]
        return "\n".join(parts) + "\n"


@dataclass
class Rendered:
    """A range laid out as an 注疏 edition, for a page of its own (the reading room of ``yili
    serve``): the html of each section, the layers with text (a toggle each), the layers set
    beside the text, the translation column's share of the width, the title."""

    sections: list[str]
    layers: list[str]
    side: list[str]
    share: float
    title: str
    with_side: bool


def render_sections(doc: Document, sections: list[int], layers: list[str], script: str = "hans") -> Rendered:
    """The sections' html as the export lays them out (the same renderer), without the page
    around them (no inline style or script: the caller's page brings its own)."""
    page = _Page(layout(doc, sections, layers, script), doc)
    return Rendered(page.sections(), list(page.lay.layers), list(page.lay.side),
                    page.share() if page.with_side else 0.0, page.title(), bool(page.with_side))


def to_html(doc: Document, sections: list[int], layers: list[str], script: str = "hans") -> str:
    """The html page of ``sections`` with ``layers`` (see the module doc)."""
    return _Page(layout(doc, sections, layers, script), doc).render()

