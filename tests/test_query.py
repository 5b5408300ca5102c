"""The reading commands on the real TEI: search, show, cite, xref, export, stats; bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree
from lxml import html as lxml_html

from yili_corpus.cli import main
from yili_corpus.query.refs import parse_range, parse_ref

from .conftest import ROOT

TEI = str(ROOT / "tei" / "yili-xiangsheli.xml")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder of the test session's own (the index is built there once)."""
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def yili(*args: str):
    r = CliRunner().invoke(main, ["--tei", TEI, *args])
    assert "Traceback" not in r.output
    return r


def js(*args: str) -> dict:
    r = yili(*args, "--json")
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout)  # notices go to stderr


# -- references ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["16", "§16", "乡射礼16", "乡射礼第十六节", "鄉射禮 16", "鄉射禮第十六節",
                                  "xiangsheli.16", "第16节", "１６"])
def test_reference_forms(text: str) -> None:
    assert parse_ref(text, max_section=53).id == "xiangsheli.16"


def test_reference_with_paragraph_clause_layer() -> None:
    r = parse_ref("xiangsheli.16.2.3@zhu")
    assert (r.section, r.paragraph, r.clause, r.layer) == (16, 2, 3, "zhu")
    assert parse_ref("乡射礼第五十三节", max_section=53).section == 53
    assert parse_range("16-22", 53) == list(range(16, 23))
    assert parse_range("16–18,20", 53) == [16, 17, 18, 20]


# -- search ---------------------------------------------------------------------------------------

def test_search_simplified_and_traditional_give_identical_json() -> None:
    a, b = js("search", "获者"), js("search", "獲者")
    assert a["hits"] == b["hits"] and a["total"] == b["total"] > 0
    assert {"jing", "zhu", "shu"} <= set(a["counts"])
    hit = a["hits"][0]
    assert set(hit) >= {"ref", "section", "layer", "text", "start", "end", "before", "match", "after", "citation"}
    assert hit["text"][hit["start"]:hit["end"]] == hit["match"] == "获者"


def test_search_variants_and_punctuation() -> None:
    a, b, c = js("search", "釋獲"), js("search", "释获"), js("search", "释 获")
    assert a["hits"] == b["hits"] == c["hits"] and a["total"] > 0
    yu = js("search", "於堂西")
    assert yu["total"] > 0 and all(h["match"] == "于堂西" for h in yu["hits"] if h["layer"] == "jing")
    assert js("search", "兩楹閒")["total"] == js("search", "两楹间")["total"] > 0


def test_search_layer_section_and_short_queries() -> None:
    t = js("search", "司射", "--layer", "trans")
    assert t["total"] > 0 and {h["layer"] for h in t["hits"]} == {"trans"}
    s = js("search", "楅", "--section", "16-22")
    assert s["total"] > 0 and all(16 <= h["section"] <= 22 for h in s["hits"])
    assert js("search", "觯")["total"] > 50  # one character
    assert js("search", "司马", "--layer", "经", "--layer", "注")["counts"].keys() <= {"jing", "zhu"}


def test_search_word_mode_keeps_whole_words() -> None:
    plain, words = js("search", "释获"), js("search", "释获", "--word")
    assert 0 < words["total"] < plain["total"]  # 释获者 is a word of its own


def test_search_nothing_found_exits_1() -> None:
    r = yili("search", "葡萄")
    assert r.exit_code == 1 and "no hits" in r.output


def test_search_regex() -> None:
    r = js("search", "释获者.{0,3}坐", "--regex")
    assert r["total"] > 0 and all(h["match"].startswith("释获者") for h in r["hits"])


def test_jieba_is_not_imported_without_word() -> None:
    code = (
        "import sys; from click.testing import CliRunner; from yili_corpus.cli import main; "
        f"r = CliRunner().invoke(main, ['--tei', {TEI!r}, 'search', '司射']); "
        "print(r.exit_code, 'jieba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]


# -- show ------------------------------------------------------------------------------------------

def test_show_16_prints_jing_zhu_and_shu() -> None:
    r = yili("show", "16")
    assert r.exit_code == 0
    # clauses apart and numbered (the 注's [8] can be found), no ． (w001's mark)
    assert "经  [1]司射不释弓矢\u3000[2]遂以比三耦于堂西" in r.output
    # the 注 is the 四库 copy's (unpunctuated), in simplified characters by default
    assert "注 [8]  比选次其才相近者也古文曰某从于子  〔葉25b〕" in r.output
    # the 疏 is the 四库 copy's (w003's block “司射”至“子射” collated into it): its words, not the lemma
    assert "疏 [1–8]  释曰言遂以者司射因上阶前令弟子" in r.output
    j = js("show", "16")
    assert j["section"] == 16 and j["title"] == "比三耦" and set(j["layers"]) >= {"jing", "zhu", "shu"}
    z = j["layers"]["zhu"][0]
    assert z["attach"]["quote"].endswith("子与某子射") and z["text"].startswith("比选次")


def test_show_accepts_every_form_alike() -> None:
    assert yili("show", "乡射礼第十七节").output == yili("show", "17").output
    assert js("show", "鄉射禮 17")["layers"] == js("show", "§17")["layers"]


def test_show_layers_script_and_clause() -> None:
    j = js("show", "17.2", "--layer", "jing", "--layer", "note")
    assert set(j["layers"]) == {"jing", "note"}
    assert [u["text"] for u in j["layers"]["jing"]] == ["司马命张侯", "弟子说束", "遂系左下纲"]
    # traditional: the 四库 copy's own forms (矦, 説), not a conversion (侯, 說)
    hant = yili("show", "17.2", "--script", "hant", "--layer", "jing").output
    assert "司馬命張矦" in hant and "弟子説束" in hant and "遂繫左下綱" in hant
    c = js("show", "xiangsheli.17.2.2")
    # 005 line 467 ends 司馬命張矦弟, line 468 goes on 子説束, both on 葉26b
    (cl,) = c["layers"]["jing"]
    assert cl["apparatus"][0]["readings"][0]["text"] == "东"  # w001 说东 (issue 14)
    assert {k: v for k, v in cl.items() if k != "apparatus"} == {
        "ref": "xiangsheli.17.2.2", "text": "弟子说束", "page": {"start": "26b", "end": "26b"}}
    assert c["layers"]["note"][0]["n"] == "28"


def test_traditional_script_is_the_witness_not_a_converter() -> None:
    """--script hant: 经/记, 注 and 疏 in the 四库 copy's characters (w003's 疏 in its
    apparatus, as w003 writes it); modern layers converted."""
    shu = js("show", "17.1", "--script", "hant", "--layer", "shu")
    u = shu["layers"]["shu"][0]
    assert u["text"].startswith("注釋曰言兼官者") and "云由便也者" in u["text"]
    assert "雲" not in u["text"]  # a converter writes 雲 for 云
    assert "notices" not in shu
    assert {"lemma": "便", "wit": ["w005"], "readings": [{"wit": "w003", "text": "使", "status": "reading"}],
            "type": "variant", "rule": "two witnesses of the 疏; the higher-ranked (w005) stands"} in u["apparatus"]
    # w003's 疏 quotes the 注 in other words: a finding, with the 注 it quotes
    assert u["quotations"] == [{"witness": "w003", "words": "由使也", "quotes": "zhu", "zhu": "xiangsheli.w005.zhu113",
                                "text": "由便也", "differences": 1}]
    out = yili("show", "17.1", "--script", "hant").output
    assert "引  w003 引注作「由使也」，注作「由便也」" in out and "no traditional witness" not in out
    assert "遂繫左下綱" in js("show", "17.2", "--script", "hant")["layers"]["jing"][1]["text"] + \
        js("show", "17.2", "--script", "hant")["layers"]["jing"][2]["text"]
    # the 注 whose point is 后 against 後 keeps both (a converter writes 後後也當從後)
    zhu = [u["text"] for u in js("show", "21", "--script", "hant", "--layer", "zhu")["layers"]["zhu"]]
    assert "后後也當從后" in zhu
    # simplified by default, one character for one
    assert "后后也当从后" in [u["text"] for u in js("show", "21", "--layer", "zhu")["layers"]["zhu"]]
    # modern layers are converted with phrase dictionaries
    note = js("show", "17.2", "--script", "hant", "--layer", "note")["layers"]["note"][0]["text"]
    assert note.startswith("說束：說，通“脫”")


def test_show_52_has_ji_translation_and_notes() -> None:
    j = js("show", "52")
    assert {"ji", "trans", "note"} <= set(j["layers"])
    assert j["layers"]["trans"][0]["sentences"][0]["clauses"]


# -- cite ------------------------------------------------------------------------------------------

def test_cite_finds_section_17() -> None:
    j = js("cite", "司正为司马")
    best = j["results"][0]
    assert best["section"] == 17 and best["score"] == 1.0 and best["ref"] == "xiangsheli.17.1.1"
    assert best["formatted"].startswith("《仪礼·乡射礼》第17节")


def test_cite_with_two_characters_changed() -> None:
    j = js("cite", "司馬命張侯，弟子說東，遂繫右下綱")  # 东 for 束, 右 for 左, traditional script
    best = j["results"][0]
    assert best["section"] == 17 and best["ref"] == "xiangsheli.17.2.1" and 0.8 <= best["score"] < 1


def test_cite_styles() -> None:
    for style in ("chicago", "bibtex", "csl-json"):
        j = js("cite", "司正为司马", "--style", style)
        assert "17" in j["results"][0]["formatted"]
    csl = json.loads(js("cite", "司正为司马", "--style", "csl-json")["results"][0]["formatted"])
    assert csl[0]["locator"] == "xiangsheli.17.1.1"
    assert yili("cite", "天地玄黄宇宙洪荒").exit_code == 1


# -- xref ------------------------------------------------------------------------------------------

def test_xref_52_points_to_14_and_17() -> None:
    x = js("xref", "52")
    assert {14, 17} <= set(x["targets"])
    assert any(j.get("section") == 17 and "命张侯" in j.get("shares", "") for j in x["ji"])


def test_xref_of_a_jing_section() -> None:
    x = js("xref", "17")
    assert any(j.get("note") for j in x["ji"])  # the 记 note （第17节）
    assert any(j.get("clause", "").startswith("xiangsheli.52") for j in x["ji"])  # 司马阶前命张侯
    assert {w["work"] for w in x["works"]} >= {"礼记·射义", "仪礼·乡饮酒礼"}
    x20 = js("xref", "20")
    assert any(r["text"] == "搢三而挟一个" and "xiangsheli.19.4.2" in r["also"] for r in x20["repeats"])
    assert "仪礼·大射" in {w["work"] for w in x20["works"]}


# -- export ------------------------------------------------------------------------------------------

def test_export_html_parses(tmp_path: Path) -> None:
    out = tmp_path / "p.html"
    r = yili("export", "--section", "16-17", "--format", "html", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = lxml_html.fromstring(out.read_text(encoding="utf-8"))
    assert doc.findtext(".//h1").startswith("《仪礼·乡射礼》")
    assert "司正为司马" in out.read_text(encoding="utf-8")
    assert len(doc.findall(".//section")) == 2 and not doc.findall(".//table")
    assert doc.get_element_by_id("xiangsheli.17.2.2").text_content().startswith("2弟子说束")  # a clause anchor


def test_export_tei_validates(tmp_path: Path) -> None:
    from yili_corpus.tei import schema
    from yili_corpus.tei.validate import validate_file

    out = tmp_path / "ji.xml"
    assert yili("export", "--section", "52-53", "--format", "tei", "-o", str(out)).exit_code == 0
    tree = etree.parse(str(out))
    assert [d.get("n") for d in tree.getroot().iterfind(".//{*}body/{*}div")] == ["52", "53"]
    assert schema.load_schema().validate(tree)
    assert validate_file(out, use_schema=False, corpus_root=ROOT) == []


@pytest.mark.parametrize("fmt", ["tsv", "csv", "md", "json", "latex"])
def test_export_other_formats(fmt: str) -> None:
    r = yili("export", "--section", "17", "--layer", "jing", "--layer", "trans", "--layer", "zhu", "--format", fmt)
    assert r.exit_code == 0 and "司正为司马" in r.stdout
    assert "今译 (trans) has no text in §17" in r.stderr  # §17 has no translation: a notice
    if fmt == "json":
        assert json.loads(r.stdout)["sections"][0]["n"] == 17
    if fmt == "latex":
        assert r"\begin{longtable}" not in r.stdout and r.stdout.rstrip().endswith(r"\end{document}")


def test_export_refuses_to_overwrite_and_bad_paths(tmp_path: Path) -> None:
    out = tmp_path / "x.md"
    out.write_text("mine", encoding="utf-8")
    r = yili("export", "--section", "17", "--format", "md", "-o", str(out))
    assert r.exit_code == 2 and "--force" in r.output and out.read_text(encoding="utf-8") == "mine"
    assert yili("export", "--section", "17", "--format", "md", "-o", str(out), "--force").exit_code == 0
    r = yili("export", "--section", "17", "--format", "md", "-o", str(tmp_path / "no" / "such" / "x.md"))
    assert r.exit_code == 2 and "does not exist" in r.output


# -- stats ---------------------------------------------------------------------------------------------

def test_stats() -> None:
    st = js("stats")
    assert len(st["sections"]) == 53
    # 注 from the 四库 copy in 51 sections (§40 and §42 have none there); w003's 44 merged into them
    assert st["totals"]["zhu"]["units"] == 383 and st["totals"]["zhu"]["sections"] == 51
    assert yili("stats").exit_code == 0


# -- bad input --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "code", "words"), [
    (["show", "99"], 2, "no section 99"),
    (["show", "天地"], 2, "not a reference"),
    (["show", "17.9"], 2, "no paragraph 9"),
    (["search", ""], 2, "empty query"),
    (["search", "   "], 2, "empty query"),
    (["search", "abc"], 2, "no Chinese characters"),
    (["search", "司(射", "--regex"], 2, "invalid regular expression"),
    (["search", r"(\w|\w)*\W", "--regex"], 2, "was stopped"),
    (["search", "司射", "--section", "40-60"], 2, "out of bounds"),
    (["search", "司射", "--section", "x-y"], 2, "not a section range"),
    (["search", "司射", "--layer", "foo"], 2, "unknown layer"),
    (["cite", "司"], 2, "at least two"),
    (["xref", "0"], 2, "no section 0"),
])
def test_bad_input_is_one_line_and_the_right_code(args: list[str], code: int, words: str) -> None:
    r = yili(*args)
    assert r.exit_code == code, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("yili: error:")


def test_catastrophic_regex_from_the_issue_ends_at_once() -> None:
    """(a+)+$ cannot backtrack on keys that hold only Chinese characters: it ends, finding nothing."""
    r = yili("search", "(a+)+$", "--regex")
    assert r.exit_code == 1


def test_missing_tei_is_bad_usage(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["--tei", str(tmp_path / "none.xml"), "search", "司射"])
    assert r.exit_code == 2 and "no such TEI file" in r.output


def test_cli_doc_matches_the_commands() -> None:
    """docs/cli.md is what `python docs/gen_cli.py` makes from real runs."""
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_cli.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, "docs/cli.md is out of date: run python docs/gen_cli.py"
