"""陆德明音义 (layer ``yinyi``): the entries of the 四库 witness's 音義 blocks, parsed, attached to
the character each glosses, in the TEI and seen by every command."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from lxml import etree

from yili_corpus.align.yinyi import parse_block
from yili_corpus.build import BuildResult
from yili_corpus.cli import main
from yili_corpus.report import format_report, yinyi_summary

from .conftest import ROOT

TEI = str(ROOT / "tei" / "yili-xiangsheli.xml")
NS = {"t": "http://www.tei-c.org/ns/1.0"}


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def yili(*args: str) -> str:
    r = CliRunner().invoke(main, ["--tei", TEI, *args])
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    return r.output


def test_a_block_of_four_entries_splits_by_the_grammar() -> None:
    # KR1d0028_005.txt line 20: 音義(長丁大反警音景語/魚據反爲于僞反)
    es, rest = parse_block("長丁大反警音景語魚據反爲于僞反")
    assert rest == ""
    assert [(e.head, e.kind, e.reading) for e in es] == [
        ("長", "反切", "丁大反"), ("警", "音", "景"), ("語", "反切", "魚據反"), ("爲", "反切", "于僞反")]


def test_other_readings_glosses_and_phrase_heads() -> None:
    # line 57: 斯如字劉音賜 …; line 587: 無射之射食亦反 …; line 860: 下 is a head, 下相下同 a gloss
    es, _ = parse_block("斯如字劉音賜勺上灼反篚音匪")
    assert [(i.kind, i.reading) for i in es[0].items] == [("如字", "如字"), ("又音", "賜")]
    es, _ = parse_block("無射之射食亦反傍蒲郎反或作旁")
    assert (es[0].head, es[0].char, es[0].context) == ("無射之射", "射", "無射")
    assert [i.kind for i in es[1].items] == ["反切", "释"]
    es, _ = parse_block("少詩召反下遐嫁反下相下同")
    assert [(e.head, [i.text for i in e.items]) for e in es] == [("少", ["詩召反"]), ("下", ["遐嫁反", "下相下同"])]
    assert parse_block("長丁大反㐀")[1] == "㐀"  # what the grammar cannot read is left over


def test_every_block_splits_and_the_entries_attach_to_their_head(built: BuildResult) -> None:
    y = yinyi_summary(built)
    assert y["blocks"] == y["split"] == 145 and y["entries"] == len(built.yinyi.entries)
    assert y["share"] >= 0.98
    # each of the rest is in the report with its reason
    text = format_report(built)
    for x in y["rest"]:
        assert f"{x['source']} line {x['line']}: {x['entry']} — {x['reason']}" in text
    assert all(x["reason"] for x in y["rest"])


def test_zhang_of_zhouzhang_in_the_zhu_of_section_1(built: BuildResult) -> None:
    a = next(a for a in built.yinyi.entries if a.entry.text == "長丁大反")
    assert a.unit is not None and a.unit.kind == "zhu" and a.equal
    assert a.unit.text[a.offset - 1:a.offset + 1] == "州長"
    assert a.zhu is not None and a.zhu.unit is a.unit
    root = etree.parse(TEI).getroot()
    note = root.find(".//t:note[@type='yinyi'][@n='1.1']", NS)
    assert note is not None and note.findtext("t:term", namespaces=NS) == "長"
    assert note.find("t:seg", NS).get("type") == "fanqie" and note.findtext("t:seg", namespaces=NS) == "丁大反"
    zhu = root.find(f".//t:note[@xml:id='{note.get('corresp')[1:]}']", NS | {"xml": "http://www.w3.org/XML/1998/namespace"})
    assert zhu is not None and zhu.get("type") == "zhu" and "州長" in "".join(zhu.itertext())
    assert note.get("target", "").startswith("#xiangsheli.1.") and note.get("{http://www.w3.org/XML/1998/namespace}lang") == "lzh-Hant"


def test_search_finds_the_entry_of_section_1() -> None:
    out = json.loads(yili("search", "丁大反", "--layer", "yinyi", "--json"))
    assert out["counts"] == {"yinyi": 1}
    assert [(h["ref"], h["text"]) for h in out["hits"]] == [("xiangsheli.1.2@yinyi", "长丁大反")]


def test_show_cite_export_stats_see_the_layer() -> None:
    shown = yili("show", "17")
    assert "音义" in shown and "说吐活反又始锐反" in shown
    assert "長丁大反" in yili("show", "1", "--script", "hant")
    assert "陆德明音义" in yili("cite", "説吐活反又始鋭反")
    assert "长丁大反 | 警音景" in yili("export", "--section", "1", "--layer", "yinyi", "--format", "tsv")
    assert "音义" in yili("stats").splitlines()[0].split()
