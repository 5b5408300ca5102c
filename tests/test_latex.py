"""The LaTeX export (export/latex.py) on the real corpus, as a user types the command: an 注疏
layout in blocks that break across pages, the apparatus in footnotes, fonts that cover every
character; compiled with xelatex where it is installed (CI does not install TeX: too slow)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.api import load
from yili_corpus.cli import main
from yili_corpus.export.latex import FALLBACK_FONTS, FONT_ENV, MAIN_FONTS, footnote_text, tex
from yili_corpus.export.layout import layout
from yili_corpus.layers import KEYS

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
#: The characters the issue found missing from the default font (☐ in the PDF), and Ext B ones.
HARD = "荅筭楅搢笴弣脰胑○𤣥𥜗"

NO_TEX = shutil.which("xelatex") is None or shutil.which("pdftotext") is None
WHY = ("xelatex or pdftotext not installed (apt-get install texlive-xetex texlive-lang-chinese "
       "texlive-latex-extra fonts-noto-cjk fonts-hanazono poppler-utils); CI does not install TeX")


def yili(*args: str, env: dict[str, str] | None = None):
    r = CliRunner().invoke(main, ["--tei", str(TEI), *args], env=env)
    assert "Traceback" not in r.output
    return r


@pytest.fixture(scope="module")
def chapter_tex() -> str:
    r = yili("export", "--format", "latex")
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def clauses() -> dict[str, str]:
    """Every clause of the 经 and the 记 as the export prints it: id → text."""
    doc = load(TEI).document
    lay = layout(doc, [s.n for s in doc.sections], list(KEYS))
    return {c.id: c.text for s in lay.sections for p in s.paragraphs for c in p.clauses}


def _section(tex_text: str, n: int) -> str:
    a = tex_text.index(f"第{n}节\\quad")
    b = tex_text.find(f"第{n + 1}节\\quad", a)
    return tex_text[a: b if b > 0 else len(tex_text)]


def _plain(tex_text: str) -> str:
    """The text of TeX: footnotes, commands and braces out (what the clauses' words are)."""
    t = re.sub(r"\\footnote\{(?:[^{}]|\{[^{}]*\})*\}", "", tex_text)
    t = re.sub(r"\\cn\{\d+\}|\\nmark\{\d+\}|\\[a-zA-Z]+|[{}]", "", t)
    return t


# -- the .tex, always --------------------------------------------------------------------------------

def test_the_ji_is_blocks_that_break_not_one_row(chapter_tex: str, clauses: dict[str, str]) -> None:
    assert not re.search(r"longtable|tabular|minipage|\\parbox|\\mbox", chapter_tex)
    envs = set(re.findall(r"\\begin\{(\w+)\}", chapter_tex))
    # paracol: the translation beside its paragraph, two columns that break across pages together
    assert envs <= {"document", "after", "trans", "witnesses", "description", "paracol"}, envs
    assert "\\begin{paracol}{2}" in _section(chapter_tex, 1) and "\\switchcolumn" in _section(chapter_tex, 1)
    ji = _section(chapter_tex, 52)
    ji_clauses = [c for c in clauses if c.startswith("xiangsheli.52.")]
    assert len(ji_clauses) > 100
    # each clause is in the flow of text (no row holds the section): the 记 is many paragraphs,
    # none of which holds more than a fifth of its clauses
    pars = [p for p in ji.split("\\par") if "\\cn{" in p]
    assert len(pars) > 20 and max(p.count("\\cn{") for p in pars) < len(ji_clauses) / 5
    text = _plain(ji)
    assert all(clauses[c] in text for c in ji_clauses), [clauses[c] for c in ji_clauses if clauses[c] not in text][:5]
    assert "楚扑长如笴" in text


def test_every_clause_of_the_jing_is_in_the_tex(chapter_tex: str, clauses: dict[str, str]) -> None:
    text = _plain(chapter_tex)
    missing = [c for c, t in clauses.items() if t not in text]
    assert not missing, missing[:5]


def test_specials_are_escaped() -> None:
    assert tex(r"50% & $1 #2 a_b {x} ~ ^ \ 说束") == (
        r"50\% \& \$1 \#2 a\_b \{x\} \textasciitilde{} \textasciicircum{} \textbackslash{} 说束")
    # a footnote's rule goes through the same escaping
    e = {"lemma": "束", "readings": [{"wit": "w001", "text": "东", "status": "reading"}], "rule": "100% of_them"}
    assert tex(footnote_text(e)) == r"束］w001 东；100\% of\_them"


def test_braces_balance_and_no_bare_special(chapter_tex: str) -> None:
    body = chapter_tex[chapter_tex.index(r"\begin{document}"):]
    depth = 0
    for m in re.finditer(r"\\.|[{}]", body):
        depth += {"{": 1, "}": -1}.get(m.group(), 0)
        assert depth >= 0
    assert depth == 0
    bare = re.sub(r"\\.", "", body)  # what is left after every escape and command letter
    assert not re.search(r"[%$&#_^~]", bare)


def test_the_apparatus_is_in_footnotes_at_the_lemma() -> None:
    r = yili("export", "--section", "17", "--format", "latex")
    assert r.exit_code == 0
    # 说束 chosen against 说东: the footnote stands after 束, with the witness and the rule
    m = re.search(r"弟子说束\\footnote\{束］(w\d+) 东；([^}]*)\}", r.output)
    assert m and "majority" in m.group(2), r.output[:3000]
    # a 注's reading in a footnote at its lemma, a 疏's quotation of the 注 in other words
    assert "引注作「由使也」" in r.output
    # (§17's 注 涖/莅 is one form now, corpus/variants.tsv: §20's 榭/谢 is a 注 reading)
    r20 = yili("export", "--section", "20", "--format", "latex")
    assert re.search(r"榭\\footnote\{榭］w003 谢；two witnesses of the 注", r20.output)
    # the restored characters of §18 say that a witness has an unencoded character there
    r = yili("export", "--section", "18", "--format", "latex")
    assert re.search(r"笴\\footnote\{笴］w003 作未编码字；restored from", r.output)


def test_layout_of_an_edition(chapter_tex: str) -> None:
    s17 = _section(chapter_tex, 17)
    # the 注 right after the words it explains (smaller type), the 疏 after its passage
    assert "\\jing{司正为司马}\\zhu{兼官由便也" in s17
    a, b = s17.index("遂系左下纲}"), s17.index("\\begin{after}{贾疏\\,[1–3]}")
    assert a < b and "\\par" in s17[a:b]
    # notes by their lemma (the clauses they are on), with their number marked at the clause
    assert "\\begin{after}{今注〔28〕\\,[2]}说束" in s17 and "\\nmark{28}" in s17


def test_the_fonts_are_named_and_configurable(chapter_tex: str) -> None:
    for f in (*MAIN_FONTS[:2], *FALLBACK_FONTS):
        assert f"{{{f}}}" in chapter_tex
    assert "\\setCJKfallbackfamilyfont{rm}" in chapter_tex
    r = yili("export", "--section", "17", "--format", "latex", env={FONT_ENV: "LXGW WenKai"})
    assert r.exit_code == 0
    tries = re.findall(r"\\IfFontExistsTF\{([^}]*)\}\{\\renewcommand\\yiliCJKmain", r.output)
    assert tries[-1] == "LXGW WenKai" and "Noto Serif CJK SC" in tries  # tried last = wins first
    r = yili("export", "--section", "17", "--format", "latex", env={FONT_ENV: "Bad}Font"})
    assert r.exit_code == 2 and r.output.startswith("yili: error:") and r.output.count("\n") == 1


# -- compiled, where xelatex is installed ------------------------------------------------------------

def _found(text: str, pages: list[str]) -> bool:
    """Whether ``text`` is on a page, or begins at the end of a page's body and ends on the next."""
    if any(text in p for p in pages):
        return True
    return any(text[:k] in a and text[k:] in b
               for a, b in zip(pages, pages[1:], strict=False) for k in range(1, len(text)))


@pytest.mark.skipif(NO_TEX, reason=WHY)
def test_the_pdf_has_every_clause_and_every_character(tmp_path: Path, chapter_tex: str,
                                                      clauses: dict[str, str]) -> None:
    src = tmp_path / "xiangsheli.tex"
    src.write_text(chapter_tex, encoding="utf-8")
    run = subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", src.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    pdf = tmp_path / "xiangsheli.pdf"
    assert run.returncode == 0 and pdf.is_file(), run.stdout[-2000:]
    log = (tmp_path / "xiangsheli.log").read_text(encoding="utf-8", errors="replace")
    assert "Missing character" not in log, re.findall(r"Missing character.*", log)[:5]
    # -raw: the text in the order the PDF writes it; the default's layout analysis interleaves the
    # lines of the two paracol columns (the text, its translation beside)
    subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(pdf), str(tmp_path / "x.txt")], check=True, timeout=120)
    raw = (tmp_path / "x.txt").read_text(encoding="utf-8")
    pages = [re.sub(r"[\s\d]", "", p) for p in raw.split("\f")]
    missing = [c for c, t in clauses.items() if not _found(t, pages)]
    assert not missing, [(c, clauses[c]) for c in missing[:5]]
    assert _found("楚扑长如笴", pages)
    # no character of the text is missing from the PDF (no tofu): the sets are the same
    body = _plain(chapter_tex[chapter_tex.index(r"\begin{document}"):])
    want = {c for c in body if ord(c) > 0x7F and not c.isspace()}
    assert set(HARD) <= want
    assert want - set(raw) == set()
    # the first page, for a person to look at
    if shutil.which("pdftoppm"):
        out = ROOT / "build"
        out.mkdir(exist_ok=True)
        subprocess.run(["pdftoppm", "-f", "1", "-l", "1", "-r", "100", "-png", "-singlefile", str(pdf),
                        str(out / "latex-page1")], check=True, timeout=120)
        assert (out / "latex-page1.png").stat().st_size > 10_000
