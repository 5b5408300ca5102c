"""The LaTeX export (``yili export --format latex``): an 注疏 edition for XeLaTeX with xeCJK.

The layout is that of a printed 注疏 edition, in blocks that break across pages (no table: a
paragraph of the 记 of 161 clauses flows over as many pages as it needs):

* the 经/记 in large type, each clause with its number (small, raised) so that a note's ``[95]``
  can be found;
* each 注 right after the words it explains, in smaller type, between 〔〕;
* after the paragraph, its 疏, 音义 and 考證 in smaller type, each with the clauses it is on;
* the modern notes by their lemma (the clauses they are on), the translation after them;
* the apparatus as footnotes at the words they are on: ``lemma］witness reading；rule``.

The fonts are chosen by the template when it is compiled, from lists of candidates (the first
installed one wins, see :data:`MAIN_FONTS` and :data:`FALLBACK_FONTS`); ``$YILI_LATEX_FONT``
puts a font of the user's first on the list of main fonts. docs/export.md says why these fonts.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from ..document import App, Clause, Document, Glyph, Paragraph, Ref, Unit, glyph_text, in_script
from ..layers import is_text
from ..layers import name as layer_name
from ..query.apparatus import NOTHING, entry

#: The environment variable naming a CJK main font to try first.
FONT_ENV = "YILI_LATEX_FONT"

#: CJK main fonts, in the order the template tries them (the first installed is used). Noto
#: Serif CJK SC (Debian: fonts-noto-cjk) has every character of the corpus but 2 of Ext B;
#: Source Han Serif is the same design under Adobe's name; FandolSong comes with TeX Live.
MAIN_FONTS: tuple[str, ...] = ("Noto Serif CJK SC", "Source Han Serif SC", "FandolSong")

#: Fallback fonts for the characters the main font lacks (Ext A–G): HanaMinA/HanaMinB (Debian:
#: fonts-hanazono) cover CJK Ext A and Ext B–F; Noto Serif CJK TC/JP add forms the SC font lacks.
FALLBACK_FONTS: tuple[str, ...] = ("HanaMinA", "HanaMinB", "Noto Serif CJK TC", "Noto Serif CJK JP")

#: The Latin font candidates (pinyin with tones: àìòùūǔ; the Noto CJK fonts have them).
LATIN_FONTS: tuple[str, ...] = ("Noto Serif", "Noto Serif CJK SC", "Source Han Serif SC", "Latin Modern Roman")

#: The layers given as blocks after a paragraph, in reading order (the 注 goes inside it).
AFTER = ("yinyi", "shu", "kaozheng")

#: TeX's special characters and what stands for each in the text.
_ESC = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}

#: How a reading's status reads in a footnote (a placeholder: the witness wrote a character no
#: standard code point encodes; a lacuna: nothing legible).
_STATUS = {"placeholder": "作未编码字", "lacuna": "阙"}


def tex(s: str) -> str:
    """``s`` with TeX's special characters escaped."""
    return "".join(_ESC.get(c, c) for c in s)


def main_fonts(env: dict[str, str] | None = None) -> list[str]:
    """The CJK main font candidates: ``$YILI_LATEX_FONT`` (if set) before :data:`MAIN_FONTS`."""
    own = (os.environ if env is None else env).get(FONT_ENV, "").strip()
    return ([own] if own else []) + [f for f in MAIN_FONTS if f != own]


def _choose(macro: str, fonts: Iterable[str], last: str) -> list[str]:
    r"""TeX that defines ``\macro`` as the first installed of ``fonts`` (else ``last``)."""
    out = rf"\newcommand\{macro}{{{last}}}"
    lines = [out]
    for f in reversed(list(fonts)):
        lines.append(rf"\IfFontExistsTF{{{f}}}{{\renewcommand\{macro}{{{f}}}}}{{}}")
    return lines


def preamble(title: str, env: dict[str, str] | None = None) -> list[str]:
    """The document's preamble: fonts chosen at compile time, the styles of the layers."""
    mains = main_fonts(env)
    out = [
        r"% yili-corpus: an 注疏 layout for XeLaTeX (xelatex FILE.tex). Fonts: the first installed",
        r"% of each list below; set YILI_LATEX_FONT before the export to try a font of your own first.",
        r"\documentclass[11pt,a4paper]{article}",
        r"\usepackage[margin=2.2cm,footskip=1cm]{geometry}",
        r"\usepackage{fontspec}",
        r"\usepackage{xeCJK}",
        r"\usepackage{xcolor}",
        r"% the fonts: main CJK font, then the fallbacks for what it lacks (Ext A–G)",
        *_choose("yiliCJKmain", mains, mains[-1]),
        *_choose("yiliLatin", LATIN_FONTS, LATIN_FONTS[-1]),
        r"\setmainfont{\yiliLatin}",
        r'\xeCJKDeclareCharClass{CJK}{"25A0 -> "25FF, "00A7, "00B6, "00D7}',  # ○ ● ■ □ § ¶ ×
        r"\setCJKmainfont{\yiliCJKmain}[AutoFallBack=true]",
        r"\setCJKfallbackfamilyfont{\CJKrmdefault}{"
        + ",".join(rf"{{{f}}}" for f in FALLBACK_FONTS) + "}",
        r"\xeCJKsetup{AutoFallBack=true}",
        r"% the layers: 经/记 large, 注 smaller after its words, 疏 and notes smaller after the passage",
        r"\newcommand\jing[1]{{\large #1}}",
        r"\newcommand\cn[1]{\textsuperscript{\textcolor{gray}{\tiny #1}}}",
        r"\newcommand\zhu[1]{{\small\textcolor{black!75}{〔#1〕}}}",
        r"\newenvironment{after}[1]{\par\smallskip\small\leftskip=2em\noindent\textbf{#1}\ }{\par}",
        r"\newenvironment{trans}{\par\smallskip\leftskip=2em\rightskip=1em\noindent\textbf{今译}\ }{\par}",
        r"\newcommand\pref[1]{\par\medskip\noindent{\footnotesize\ttfamily\textcolor{gray}{#1}}\par\nopagebreak}",
        r"\setlength{\parindent}{0pt}",
        r"\linespread{1.25}",
        r"\begin{document}",
        rf"\section*{{{tex(title)}}}",
    ]
    return [x for x in out if x]


class _Writer:
    """The LaTeX of a document's sections: the footnotes of the apparatus as it goes."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.chars = doc.char_map
        order = [c.id for s in doc.sections for p in s.paragraphs for c in p.clauses]
        self.pos = {c: i for i, c in enumerate(order)}

    # -- inline content ------------------------------------------------------------------------
    def inline(self, content: Iterable[Any], own: str, lang: str | None = None) -> str:
        """Inline content as TeX: glyphs as a reader reads them, each apparatus entry its lemma
        with its footnote (when another witness reads otherwise)."""
        out = []
        for x in content:
            if isinstance(x, str):
                out.append(tex(in_script(x, lang, "hans")))
            elif isinstance(x, Glyph):
                out.append(tex(glyph_text(x, self.chars)))
            elif isinstance(x, Ref):
                out.append(tex(x.text))
            elif isinstance(x, App):
                out.append(tex(in_script(x.lem, lang, "hans")) + self.footnote(x, own))
        return "".join(out)

    def footnote(self, a: App, own: str) -> str:
        r"""``\footnote{lemma］w003 reading；rule}`` for an apparatus entry, or nothing."""
        e = entry(a, own, self.chars, "hans", self.doc.traditional)
        return rf"\footnote{{{tex(footnote_text(e))}}}" if e is not None else ""

    # -- blocks ----------------------------------------------------------------------------------
    def span(self, u: Unit) -> str:
        """The clause numbers a unit is on: ``3`` or ``1–3`` (``52.1.95`` gives ``95``)."""
        a, b = u.target or "", u.target_end or u.target or ""
        na, nb = a.rsplit(".", 1)[-1], b.rsplit(".", 1)[-1]
        return na if a == b else f"{na}–{nb}"

    def unit(self, u: Unit) -> str:
        """A unit's text as TeX (a 疏's own parts, a translation's sentences)."""
        own = u.source.split()[0].lstrip("#") if u.source else ""
        if u.parts:
            mine = [p for p in u.parts if p[0].startswith("on-")]
            return "".join(self.inline(c, own, u.lang) for _r, c, _s in (mine or u.parts))
        if u.sentences:
            return tex("".join(s.text for s in u.sentences))
        return self.inline(u.content, own, u.lang)

    def paragraph(self, p: Paragraph, layers: list[str]) -> list[str]:
        """A paragraph's block: its 经/记 with each 注 after its words, then the other layers."""
        out = [rf"\pref{{{tex(p.id)}}}"]
        zhu_after: dict[str, list[Unit]] = {}
        if "zhu" in layers:
            for u in p.units:
                if u.layer == "zhu":
                    zhu_after.setdefault(u.target_end or u.target or "", []).append(u)
        if p.layer in layers:
            text = []
            for c in p.clauses:
                text.append(self.clause(c) + "".join(rf"\zhu{{{self.unit(u)}}}" for u in zhu_after.pop(c.id, [])))
            out.append("\n".join(text) + r"\par")
        for us in zhu_after.values():  # a 注 on words outside this paragraph's clauses
            out.extend(rf"\zhu{{{self.unit(u)}}}" for u in us)
        for lay in [*AFTER, *(x for x in layers if x not in AFTER and not is_text(x) and x != "zhu")]:
            if lay not in layers:
                continue
            for u in p.units:
                if u.layer != lay:
                    continue
                if lay.startswith("trans"):
                    out.append(r"\begin{trans}" + self.unit(u) + r"\end{trans}")
                    continue
                label = layer_name(lay.split(":", 1)[0]) + (f"〔{u.n}〕" if lay == "note" and u.n else "")
                out.append(rf"\begin{{after}}{{{tex(label)}\,[{self.span(u)}]}}" + self.unit(u) + r"\end{after}")
        return out

    def clause(self, c: Clause) -> str:
        r"""A clause: its number, raised, and its text in the 经's type (``\jing``)."""
        own = c.source.split()[0].lstrip("#") if c.source else ""
        return rf"\cn{{{c.n}}}\jing{{{self.inline(c.content, own)}}}"


def footnote_text(e: dict[str, Any]) -> str:
    """An apparatus entry as a footnote reads: ``说束］w005 说东；majority (2 of 3 witnesses)``
    (a placeholder: ``w003 作未编码字``; an emendation: its original after 原作)."""
    rd = []
    for r in e["readings"]:
        status = _STATUS.get(r["status"])
        rd.append(f"{r['wit']} {status}" if status else f"{r['wit']} {r['text'] or NOTHING}")
    out = f"{e['lemma'] or NOTHING}］" + "，".join(rd)
    if e.get("sic") is not None:
        out += f"（原作{e['sic'] or NOTHING}）"
    if e.get("rule"):
        out += f"；{e['rule']}"
    if e.get("evidence"):
        out += f"（{e['evidence']}）"
    return out


def to_latex(doc: Document, sections: list[int], layers: list[str], env: dict[str, str] | None = None) -> str:
    """The sections as an 注疏 edition for XeLaTeX (see the module doc)."""
    w = _Writer(doc)
    span = f"{sections[0]}" if sections[0] == sections[-1] else f"{sections[0]}–{sections[-1]}"
    title = f"《{doc.work}·{doc.chapter}》第{span}节"
    out = preamble(title, env)
    for n in sections:
        s = doc.section(n)
        if s is None:
            continue
        out.append(rf"\subsection*{{第{n}节\quad {tex(s.title)}}}")
        for p in s.paragraphs:
            out.extend(w.paragraph(p, layers))
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"
