"""A chapter whose base witness writes traditional characters (士冠礼, 丧服: the 四库 經) reads
like every other: the TEI marks its clauses' script (``xml:lang="lzh-Hant"`` on the 经/记 ``ab``,
from the manifest's ``script`` of the base source), the reader folds them to simplified one
character for one (as it folds the 四库 注), and the traditional view is the witness's own text.

Every test reads the committed tei/ and corpus/ as a user's commands do; none names a section
beyond the first of a chapter, nor a count that depends on how many sections a chapter has."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from yili_corpus.cli import main
from yili_corpus.document import HANT, plain
from yili_corpus.sources.manifest import load_manifest
from yili_corpus.tei.read import read_bytes, read_tei
from yili_corpus.tei.write import to_bytes
from yili_corpus.text.normalise import t2s_char

ROOT = Path(__file__).resolve().parent.parent
TEI_NS = {"t": "http://www.tei-c.org/ns/1.0"}
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
CHAPTERS = sorted(p.stem.removeprefix("yili-") for p in (ROOT / "tei").glob("yili-*.xml"))


def _base_script(cid: str) -> str:
    m = load_manifest(ROOT / "corpus", cid)
    return m.source(m.base).script


HANT_BASES = [c for c in CHAPTERS if _base_script(c) == "hant"]


@pytest.fixture(autouse=True)
def _in_project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("YILI_TEI", raising=False)
    monkeypatch.setenv("YILI_OVERLAY", str(tmp_path / "overlays"))


def yili(*args: str) -> str:
    r = CliRunner().invoke(main, list(args))
    assert r.exit_code == 0, r.stderr
    return r.stdout


def simplified(s: str) -> bool:
    """True when folding ``s`` to simplified (OpenCC t2s, character by character) changes nothing."""
    return all(t2s_char(c) == c for c in s)


def fold(s: str) -> str:
    return "".join(t2s_char(c) for c in s)


def test_the_corpus_has_chapters_of_both_scripts() -> None:
    assert "shiguanli" in HANT_BASES and "sangfu" in HANT_BASES
    assert "xiangsheli" not in HANT_BASES


@pytest.mark.parametrize("cid", CHAPTERS)
def test_the_tei_marks_the_clauses_script_by_the_base_witness(cid: str) -> None:
    root = etree.parse(str(ROOT / "tei" / f"yili-{cid}.xml")).getroot()
    abs_ = [a for a in root.iterfind(".//t:div[@type='paragraph']/t:ab", TEI_NS)
            if a.get("type") in ("jing", "ji") and a.get("subtype") is None]
    assert abs_
    want = HANT if _base_script(cid) == "hant" else None
    assert {a.get(XML_LANG) for a in abs_} == {want}


@pytest.mark.parametrize("cid", HANT_BASES)
def test_a_traditional_base_reads_simplified_with_its_own_forms_beside(cid: str) -> None:
    path = ROOT / "tei" / f"yili-{cid}.xml"
    doc = read_tei(path)
    clauses = [c for s in doc.sections for p in s.paragraphs for c in p.clauses]
    assert clauses and all(c.lang == HANT for c in clauses)
    changed = 0
    for c in clauses:
        own = plain(c.content)
        assert len(c.text) == len(own) and c.text == fold(own) and simplified(c.text)
        assert c.hant == own  # the traditional view: the witness's own characters
        changed += c.text != own
    assert changed > len(clauses) // 10  # the fold does something: the base is traditional
    # the TEI keeps the witness's characters: written back byte for byte
    assert to_bytes(read_bytes(path.read_bytes())) == path.read_bytes()


def test_a_simplified_base_is_unchanged_by_the_reader() -> None:
    doc = read_tei(ROOT / "tei" / "yili-dashe.xml")
    clauses = [c for s in doc.sections for p in s.paragraphs for c in p.clauses]
    assert all(c.lang is None and c.text == plain(c.content) for c in clauses)


def _jing_lines(out: str) -> list[str]:
    return [ln.split("经", 1)[1].strip() for ln in out.splitlines() if ln.startswith("  经 ")]


@pytest.mark.parametrize("cid", HANT_BASES)
def test_show_gives_the_jing_in_simplified_and_hant_in_traditional(cid: str) -> None:
    hans = _jing_lines(yili("show", f"{cid}.1"))
    hant = _jing_lines(yili("show", f"{cid}.1", "--script", "hant"))
    assert hans and len(hans) == len(hant)
    for a, b in zip(hans, hant, strict=True):
        assert simplified(a) and a == fold(b) and a != b
    d = json.loads(yili("show", f"{cid}.1", "--json"))
    texts = [x["text"] for x in d["layers"]["jing"]] + [x["text"] for x in d["layers"]["zhu"]]
    assert all(simplified(t) for t in texts)
    assert all(simplified(x["attach"]["quote"]) for x in d["layers"]["zhu"])


def test_shiguanli_opens_with_its_title_in_either_script() -> None:
    assert _jing_lines(yili("show", "士冠礼第1节"))[0].startswith("[1]士冠礼　[2]筮于")
    assert _jing_lines(yili("show", "士冠礼第1节", "--script", "hant"))[0].startswith("[1]士冠禮　[2]筮于")


@pytest.mark.parametrize("query", ["士冠礼", "士冠禮"])
def test_search_shows_a_traditional_base_in_simplified(query: str) -> None:
    d = json.loads(yili("search", query, "--chapter", "shiguanli", "--layer", "jing", "--json"))
    assert d["hits"]
    for h in d["hits"]:
        assert simplified(h["text"]) and h["match"] == "士冠礼"
        assert h["text"][h["start"]:h["end"]] == h["match"]


def test_cite_quotes_a_traditional_base_in_simplified() -> None:
    r = CliRunner().invoke(main, ["cite", "筮于庿門"])
    assert r.exit_code == 0 and "shiguanli" in r.stdout
    # the places found, with what they quote, are listed on stderr
    quoted = [ln.split("「", 1)[1] for ln in r.stderr.splitlines() if ln.lstrip().startswith("shiguanli.1.1.2")]
    assert quoted and simplified(quoted[0])


@pytest.mark.parametrize("fmt", ["md", "tsv", "json", "html", "latex"])
def test_exports_give_a_traditional_base_in_simplified(fmt: str) -> None:
    out = yili("export", "--chapter", "shiguanli", "--section", "1", "--layer", "jing", "--format", fmt)
    doc = read_tei(ROOT / "tei" / "yili-shiguanli.xml")
    first = doc.sections[0].paragraphs[0].clauses
    assert any(c.text != plain(c.content) and c.text in out for c in first)
    text = "\n".join(ln for ln in out.splitlines() if "《" not in ln)  # not the edition's title
    assert not any(c.text != plain(c.content) and plain(c.content) in text for c in first)
