"""The LaTeX export (``yili export --format latex``): an 注疏 edition for XeLaTeX with xeCJK.

The layout is that of a printed 注疏 edition, in blocks that break across pages (no table: a
paragraph of the 记 of 161 clauses flows over as many pages as it needs):

* the 经/记 in large type, each clause with its number (small, raised) so that a note's ``[95]``
  can be found;
* each 注 right after the words it explains, in smaller type, between 〔〕, and the 音义 and
  考證 entries on those words after it;
* each 疏 after the passage it explains (the text stops at its last clause and goes on after it);
* the translation beside its paragraph (``paracol``: two columns that break across pages together,
  the text :data:`TEXT_SHARE` of the width), the modern notes under it by their lemma (their
  numbers raised at the clause the lemma ends on);
* the apparatus as footnotes at the words they are on: ``lemma］witness reading；rule``; a list of
  the witnesses at the end.

The fonts are chosen by the template when it is compiled, from lists of candidates (the first
installed one wins, see :data:`MAIN_FONTS` and :data:`FALLBACK_FONTS`); ``$YILI_LATEX_FONT``
puts a font of the user's first on the list of main fonts. docs/export.md says why these fonts.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from ..document import Document
from ..errors import UsageError
from ..layers import KAOZHENG
from ..layers import name as layer_name
from ..query.apparatus import NOTHING
from .layout import Block, ParagraphLayout, Piece, layout

#: The environment variable naming a CJK main font to try first.
FONT_ENV = "YILI_LATEX_FONT"

#: CJK main fonts, in the order the template tries them (the first installed is used). Noto
#: Serif CJK SC (Debian: fonts-noto-cjk) has every character of the corpus but 2 of Ext B
#: (measured with fc-match's charset against the TEI's text, docs/export.md);
#: Source Han Serif is the same design under Adobe's name; FandolSong comes with TeX Live.
MAIN_FONTS: tuple[str, ...] = ("Noto Serif CJK SC", "Source Han Serif SC", "FandolSong-Regular.otf")

#: Fallback fonts for the characters the main font lacks (Ext A–G): HanaMinA/HanaMinB (Debian:
#: fonts-hanazono) cover CJK Ext A and Ext B (𤣥 𥜗 of the 疏); Noto Serif CJK TC/JP add forms
#: the SC font lacks.
FALLBACK_FONTS: tuple[str, ...] = ("HanaMinA", "HanaMinB", "Noto Serif CJK TC", "Noto Serif CJK JP")

#: TeX's special characters and what stands for each in the text.
_ESC = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}

#: How a reading's status reads in a footnote (a placeholder: the witness wrote a character no
#: standard code point encodes; a lacuna: nothing legible).
_STATUS = {"placeholder": "作未编码字", "lacuna": "阙"}


def tex(s: str) -> str:
    """``s`` with TeX's special characters escaped."""
    return "".join(_ESC.get(c, c) for c in s)


#: The share of the page's width the text takes where a translation stands beside it.
TEXT_SHARE = 0.62


def main_fonts(env: dict[str, str] | None = None) -> list[str]:
    """The CJK main font candidates: ``$YILI_LATEX_FONT`` (if set) before :data:`MAIN_FONTS`."""
    own = (os.environ if env is None else env).get(FONT_ENV, "").strip()
    bad = sorted({c for c in own if c in _ESC})
    if bad:
        raise UsageError(f"${FONT_ENV}={own!r}: a font name cannot hold {' '.join(bad)}")
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
        r"\usepackage{paracol}",
        r"% the translation beside its paragraph: the text's column the wider; footnotes under the page",
        rf"\columnratio{{{TEXT_SHARE}}}",
        r"\footnotelayout{m}",
        r"\setlength{\columnsep}{1.5em}",
        r"% the fonts: main CJK font, then the fallbacks for what it lacks (Ext A–G)",
        *_choose("yiliCJKmain", mains, mains[-1]),
        r'\xeCJKDeclareCharClass{CJK}{"25A0 -> "25FF, "00A7, "00B6, "00D7}',  # ○ ● ■ □ § ¶ ×
        r"\setCJKmainfont{\yiliCJKmain}",
        r"\setCJKsansfont{\yiliCJKmain}",
        r"\setCJKmonofont{\yiliCJKmain}",
        r"\setCJKfallbackfamilyfont{rm}{"
        + ",".join(rf"{{{f}}}" for f in FALLBACK_FONTS) + "}",
        r"\xeCJKsetup{AutoFallBack=true}",
        r"% the layers: 经/记 large, 注 smaller after its words, 疏 and notes smaller after the passage",
        r"\newcommand\jing[1]{{\large #1}}",
        r"\newcommand\cn[1]{\textsuperscript{\textcolor{gray}{\tiny #1}}}",
        r"\newcommand\zhu[1]{{\small\textcolor{black!75}{〔#1〕}}}",
        r"\newenvironment{after}[1]{\par\smallskip\small\leftskip=2em\noindent\textbf{#1}\ }{\par}",
        r"\newenvironment{trans}[1]{\par\noindent"
        r"\textcolor{black!80}{\textbf{#1}}\ }{\par}",
        r"\newcommand\nmark[1]{\textsuperscript{\textcolor{gray}{\tiny〔#1〕}}}",
        r"\newenvironment{witnesses}{\begin{description}\small}{\end{description}}",
        r"\newcommand\pref[1]{\par\medskip\noindent{\footnotesize\ttfamily\textcolor{gray}{#1}}\par\nopagebreak}",
        r"\setlength{\parindent}{0pt}",
        r"\linespread{1.25}",
        r"\begin{document}",
        rf"\section*{{{tex(title)}}}",
    ]
    return [x for x in out if x]


class _Writer:
    """The LaTeX of a :class:`~yili_corpus.export.layout.Layout`, block by block."""

    def pieces(self, pieces: list[Piece], apparatus: list[dict[str, Any]], rest: bool = True) -> str:
        r"""Text pieces as TeX, each apparatus entry a ``\footnote`` at its lemma; an end marker
        (a piece of no text) carries the entries no lemma carries (a 疏's, whose parts are read
        whole), in one footnote (``rest``: they go there)."""
        marked = {x.app for x in pieces if x.app is not None and x.text}
        out = []
        for x in pieces:
            out.append(tex(x.text))
            if x.app is None:
                continue
            if x.text:
                out.append(footnote([apparatus[x.app]]))
            elif rest:
                out.append(footnote([e for k, e in enumerate(apparatus) if k not in marked]))
        return "".join(out)

    def block(self, b: Block, quotations: bool = True) -> str:
        """A block's text (its apparatus in footnotes; a 疏's quotations of the 注 in other words
        in a footnote of their own)."""
        text = self.pieces(b.pieces, b.apparatus, rest=b.base != KAOZHENG)
        if quotations and b.quotations:
            text += rf"\footnote{{{tex('；'.join(q['text'] for q in b.quotations))}}}"
        return text

    def label(self, b: Block, with_span: bool = True) -> str:
        """``贾疏 [1–3]``: the layer's name and the clauses the block is on."""
        name = layer_name(b.layer) + (f"〔{b.n}〕" if b.base == "note" and b.n else "")
        if b.on_zhu:
            name += "（注）"
        if not with_span:
            return tex(name)
        first, last = b.first.rsplit(".", 1)[-1], b.last.rsplit(".", 1)[-1]
        return tex(name) + r"\," + f"[{first}{'' if b.first == b.last else '–' + last}]"

    def inline(self, b: Block) -> str:
        r"""A block in the flow after the words it is on: a 注 in ``\zhu``, a 音义 or 考證 with
        its name."""
        if b.base == "zhu":
            return rf"\zhu{{{self.block(b)}}}"
        return rf"\zhu{{{self.label(b, with_span=False)}\ {self.block(b)}}}"

    def after(self, b: Block) -> str:
        """A block after its passage, or under its paragraph (疏, notes, 考證)."""
        return rf"\begin{{after}}{{{self.label(b)}}}{self.block(b)}\end{{after}}"

    def paragraph(self, p: ParagraphLayout, text_shown: bool) -> list[str]:
        """A paragraph: its 经/记 clause by clause with the 注 after the words, each 疏 after the
        passage it closes, then the translation and the notes by their lemma."""
        out = [rf"\pref{{{tex(p.id)}}}"]
        beside = [b for bs in p.beside.values() for b in bs]
        if beside:  # the translation in a column of its own, beside the text
            out.append(r"\begin{paracol}{2}")
        run: list[str] = []
        for c in p.clauses:
            if text_shown:
                marks = "".join(rf"\nmark{{{n}}}" for n in self.note_numbers(p, c.notes))
                run.append(rf"\cn{{{c.n}}}\jing{{{self.pieces(c.pieces, c.apparatus)}}}{marks}")
            follow = "".join(self.inline(b) for b in c.inline)  # right after the words, no space
            if follow:
                run[-1:] = [(run[-1] if run else "") + follow]
            if c.after:
                out.append("\n".join(run) + r"\par")
                run = []
                out.extend(self.after(b) for b in c.after)
        if run:
            out.append("\n".join(run) + r"\par")
        if beside:
            out.append(r"\switchcolumn")
            out.extend(rf"\begin{{trans}}{{{tex(layer_name(b.layer))}}}{self.block(b)}\end{{trans}}" for b in beside)
            out.append(r"\end{paracol}")
        out.extend(self.after(b) for b in p.notes)
        return out

    @staticmethod
    def note_numbers(p: ParagraphLayout, refs: list[str]) -> list[str]:
        """The numbers of the notes (``27``) whose lemma ends at a clause."""
        by = {b.ref: b.n or "" for b in p.notes}
        return [by[r] for r in refs if by.get(r)]


def footnote(entries: list[dict[str, Any]]) -> str:
    r"""``\footnote{…}`` of apparatus entries (joined by ；), or nothing."""
    if not entries:
        return ""
    rules = {e.get("rule", "") for e in entries}
    if len(entries) > 1 and len(rules) == 1:  # one rule for all (a 疏's): said once, at the end
        said = [footnote_text({**e, "rule": ""}) for e in entries]
        return rf"\footnote{{{tex('；'.join(said) + '。' + rules.pop())}}}"
    return rf"\footnote{{{tex('；'.join(footnote_text(e) for e in entries))}}}"


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
    lay = layout(doc, sections, layers)
    w = _Writer()
    span = f"{sections[0]}" if sections[0] == sections[-1] else f"{sections[0]}–{sections[-1]}"
    out = preamble(f"《{doc.work}·{doc.chapter}》第{span}节", env)
    for s in lay.sections:
        out.append(rf"\subsection*{{第{s.n}节\quad {tex(s.title)}}}")
        out.extend(w.after(b) for b in s.summary)
        for p in s.paragraphs:
            out.extend(w.paragraph(p, s.layer in lay.layers))
    wits = [x for x in doc.witnesses]
    out += [r"\subsection*{校本}", r"\begin{witnesses}"]
    out += [rf"\item[{tex(x.id)}] {tex(x.edition)}" for x in wits]
    out += [r"\end{witnesses}", r"\end{document}"]
    return "\n".join(out) + "\n"
