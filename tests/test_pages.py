"""Page citations (issue 12, item 8): every clause and 注 carries its page in the 四库 copy (w005),
``show`` and ``cite`` give it, and the BibTeX / CSL-JSON entries name the edition."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from lxml import etree

from yili_corpus.build import run_build
from yili_corpus.cli import main
from yili_corpus.sources.manifest import load_manifest
from yili_corpus.tei.assemble import to_document
from yili_corpus.tei.read import read_tei
from yili_corpus.tei.validate import project_problems
from yili_corpus.text.pages import PageBreaks

from .conftest import CORPUS, ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
NS = {"t": "http://www.tei-c.org/ns/1.0"}
W005 = CORPUS / "KR1d0028_005.txt"
PB = re.compile(r"<pb:[^>]*_(\d+-\d+[ab])>")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def yili(*args: str) -> str:
    r = CliRunner().invoke(main, ["--tei", str(TEI), *args])
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    return r.output


def page_of_line(lineno: int) -> str:
    """The page of a line of the 四库 file, read from its page breaks (the last one before it)."""
    page = ""
    for i, ln in enumerate(W005.read_text(encoding="utf-8").splitlines(), 1):
        if i > lineno:
            break
        m = PB.search(ln)
        if m:
            page = m.group(1).split("-")[1]
    return page


def edition() -> object:
    return load_manifest(CORPUS).source("w005")


# -- show -------------------------------------------------------------------------------------------

def test_show_1_has_the_zhu_on_zhuren_jie_bin_with_its_page() -> None:
    # 005 line 13: 注主人州長也…, on the page opened at line 7 (<pb:…_005-1a>); the 注 runs on past
    # the page break of line 16 (005-1b) to …詢衆(line 19)庶乎 on line 20
    lines = W005.read_text(encoding="utf-8").splitlines()
    assert lines[12].startswith("注主人州長也") and page_of_line(13) == "1a"
    assert lines[19].startswith("庶乎音義(") and page_of_line(20) == "1b"
    out = yili("show", "1")
    zhu = next(ln for ln in out.splitlines() if "主人州长也乡大夫若在焉" in ln)  # simplified by default
    assert zhu.lstrip().startswith("注 [4]") and zhu.endswith("〔葉1a–1b〕")
    j = json.loads(yili("show", "1", "--json"))
    z = next(u for u in j["layers"]["zhu"] if u["text"].startswith("主人州长也"))
    assert z["page"] == {"start": "1a", "end": "1b"}
    assert j["layers"]["jing"][0]["page"] == {"start": "1a", "end": "1a"}  # 鄉射之禮, line 12
    assert j["edition"] == "《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本"


def test_show_a_clause_across_a_page_break() -> None:
    # 005 line 60 ends a 疏 block, then 設, on 葉3b; line 62, after <pb:…_005-4a> (line 61), goes on
    # 洗於阼階東南
    lines = W005.read_text(encoding="utf-8").splitlines()
    assert lines[59].rstrip("¶").endswith(")設") and page_of_line(60) == "3b"
    assert lines[61].startswith("洗於阼階東南") and page_of_line(62) == "4a"
    out = yili("show", "2.1.9", "--layer", "jing")
    assert "设洗于阼阶东南  〔葉3b–4a〕" in out
    j = json.loads(yili("show", "2.1", "--json", "--layer", "jing"))
    pages = {c["ref"]: c["page"] for c in j["layers"]["jing"]}
    assert pages["xiangsheli.2.1.9"] == {"start": "3b", "end": "4a"}
    assert pages["xiangsheli.2.1.10"]["start"] == "4a"


# -- cite -------------------------------------------------------------------------------------------

def test_cite_gives_the_page_of_a_clause() -> None:
    # 005 line 456: …)○司正爲司馬注…, on the page opened by <pb:…_005-25b>
    assert "○司正爲司馬" in W005.read_text(encoding="utf-8").splitlines()[455] and page_of_line(456) == "25b"
    j = json.loads(yili("cite", "司正为司马", "--json"))
    best = j["results"][0]
    assert best["ref"] == "xiangsheli.17.1.1" and best["page"] == {"start": "25b", "end": "25b"}
    assert best["edition"] == "《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉25b"
    assert best["formatted"] == "《仪礼·乡射礼》第17节（xiangsheli.17.1.1）；《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉25b"
    assert yili("cite", "司正为司马").splitlines()[0].endswith("文淵閣四庫全書本，葉25b")


def test_cite_across_a_page_break_and_in_either_script() -> None:
    j = json.loads(yili("cite", "设洗于阼阶东南", "--json"))
    assert j["results"][0]["edition"] == "《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉3b–4a"
    hans = json.loads(yili("cite", "设洗于阼阶东南", "--json", "--script", "hans"))["results"][0]
    assert hans["edition"] == "《仪礼注疏》卷五《乡射礼》，文渊阁四库全书本，叶3b–4a"
    assert hans["formatted"].endswith("；《仪礼注疏》卷五《乡射礼》，文渊阁四库全书本，叶3b–4a")
    # traditional: the corpus's words converted, the edition's kept as it writes them (not 註疏)
    hant = yili("cite", "设洗于阼阶东南", "--script", "hant").splitlines()[0]
    assert hant == "《儀禮·鄉射禮》第2節（xiangsheli.2.1.9）；《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉3b–4a"


def test_cite_a_zhu_by_its_page() -> None:
    best = json.loads(yili("cite", "主人州長也鄉大夫若在焉", "--json"))["results"][0]
    assert best["layer"] == "zhu" and best["edition"].endswith("，葉1a–1b")


def test_bibtex_and_csl_json_name_the_edition() -> None:
    s = edition()
    bib = json.loads(yili("cite", "设洗于阼阶东南", "--json", "--style", "bibtex"))["results"][0]["formatted"]
    fields = dict(re.findall(r"^  (\w+) = \{(.*)\},?$", bib, re.M))
    assert fields["booktitle"] == s.edition_title == "儀禮注疏"
    assert fields["chapter"] == f"{s.juan}《{s.edition_chapter}》" == "卷五《鄉射禮》"
    assert fields["series"] == s.series == "文淵閣四庫全書" and fields["edition"] == s.edition_name
    assert fields["pages"] == "3b--4a"
    assert fields["publisher"] == s.publisher and fields["url"] == s.repository
    assert s.licence in fields["addendum"] and s.licence_url in fields["addendum"]
    csl = json.loads(json.loads(yili("cite", "设洗于阼阶东南", "--json", "--style", "csl-json"))
                     ["results"][0]["formatted"])[0]
    assert csl["locator"] == "xiangsheli.2.1.9" and csl["page"] == "3b–4a"
    assert (csl["container-title"], csl["volume"], csl["part-title"]) == ("儀禮注疏", "卷五", "鄉射禮")
    assert csl["collection-title"] == "文淵閣四庫全書" and csl["edition"] == "文淵閣四庫全書本"
    assert csl["publisher"] == s.publisher and csl["URL"] == s.repository and csl["version"] == s.commit
    assert csl["custom"] == {"license": "CC BY-SA 4.0", "license-url": s.licence_url}
    hans = json.loads(json.loads(yili("cite", "设洗于阼阶东南", "--json", "--style", "csl-json", "--script", "hans"))
                      ["results"][0]["formatted"])[0]
    assert hans["container-title"] == "仪礼注疏" and hans["collection-title"] == "文渊阁四库全书"


# -- the TEI ----------------------------------------------------------------------------------------

def test_every_clause_and_zhu_of_the_tei_has_a_page() -> None:
    root = etree.parse(str(TEI)).getroot()
    surfaces = root.findall("t:facsimile/t:surface", NS)
    ids = [s.get("{http://www.w3.org/XML/1998/namespace}id") for s in surfaces]
    # one surface for every page break of the file, in order: 葉1a … 葉98b
    breaks = PB.findall(W005.read_text(encoding="utf-8"))
    assert ids == [f"w005.{b}" for b in breaks] and len(ids) == 196
    assert [s.findtext("t:label", "", NS) for s in surfaces[:2]] == ["葉1a", "葉1b"]
    order = {i: k for k, i in enumerate(ids)}
    clauses = root.findall(".//t:seg[@type='clause']", NS)
    zhu = root.findall(".//t:note[@type='zhu']", NS)
    assert len(clauses) > 1400 and len(zhu) > 370
    last = -1
    for e in clauses + zhu:
        facs = [f.lstrip("#") for f in e.get("facs", "").split()]
        assert facs and all(f in order for f in facs), e.get("{http://www.w3.org/XML/1998/namespace}id")
        assert [order[f] for f in facs] == sorted(order[f] for f in facs)
    for e in clauses:  # the clauses follow the pages of the edition, never going back
        first = order[e.get("facs").split()[0].lstrip("#")]
        assert first >= last
        last = first
    doc = read_tei(TEI)
    assert all(c.page for s in doc.sections for p in s.paragraphs for c in p.clauses)
    assert all(u.page for s in doc.sections for p in s.paragraphs for u in p.units if u.layer == "zhu")
    assert doc.edition is not None and doc.edition.citation(("12b", "13a")) == \
        "《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉12b–13a"


def test_a_facs_pointing_nowhere_is_a_problem() -> None:
    tree = etree.parse(str(TEI))
    seg = tree.getroot().find(".//t:seg[@type='clause']", NS)
    seg.set("facs", "#w005.005-99a")
    probs = project_problems(tree, str(TEI), None)
    assert any("@facs points to #w005.005-99a" in p.message for p in probs)


def test_the_edition_comes_from_the_manifest(corpus_copy) -> None:  # type: ignore[no-untyped-def]
    m = corpus_copy / "chapters" / "xiangsheli.toml"
    m.write_text(m.read_text(encoding="utf-8").replace('edition_chapter = "鄉射禮"', 'edition_chapter = "鄉射禮第五"'),
                 encoding="utf-8")
    doc = to_document(run_build(corpus_copy))
    assert doc.edition is not None and doc.edition.citation(("1a", "1a")).startswith("《儀禮注疏》卷五《鄉射禮第五》")
    m.write_text(m.read_text(encoding="utf-8").replace('juan = "卷五"\n', ""), encoding="utf-8")
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(corpus_copy), "--check"])
    assert r.exit_code != 0 and "edition_title needs juan and edition_chapter" in r.output


def test_page_breaks_of_a_unit() -> None:
    text = W005.read_text(encoding="utf-8")
    b = PageBreaks.of("w005", text)
    at = text.index("注主人州長也")
    end = text.index("庶乎音義(") + 2
    from yili_corpus.model import SourceUnit

    u = SourceUnit("w005", "zhu", text[at:end], 13, 0, 0, at, end)
    assert b.of_unit(u) == ["005-1a", "005-1b"]
    assert b.at(0) is None and b.at(at) == "005-1a"
    assert [p for p, _a, _e in b.spans()][:3] == ["005-1a", "005-1b", "005-2a"]
