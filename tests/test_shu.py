"""贾疏 of the 四库 witness (w005): every block anchored by where it stands, shown, searched and
exported; the 疏's own division of the chapter against sections.tsv (docs/alignment.md)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from yili_corpus.build import BuildResult
from yili_corpus.cli import main
from yili_corpus.report import format_shu_division, shu_division

ROOT = Path(__file__).resolve().parent.parent


def siku_shu(built: BuildResult) -> list:
    """The 疏 blocks of w005."""
    return [sa for sa in built.shu if sa.units[0].source == "w005"]


def test_every_siku_shu_block_is_anchored(built: BuildResult) -> None:
    file_blocks = sum(1 for u in built.parsed["w005"].units if u.kind == "shu")
    blocks = siku_shu(built)
    assert len(blocks) == file_blocks == 317
    assert all(sa.jing is not None and sa.how == "position" and sa.reason.startswith("its place") for sa in blocks)
    # a block whose parts are all 注釋曰 names the 注 it explains, and they stand before it
    on_zhu = [sa for sa in blocks if {p["kind"] for p in sa.units[0].meta["parts"]} == {"zhu"}]
    assert on_zhu and all(sa.zhu and all(z.offset < sa.units[0].offset for z in sa.zhu) for sa in on_zhu)


def test_siku_shu_in_the_tei_show_and_search() -> None:
    tei = (ROOT / "tei" / "yili-xiangsheli.xml").read_text(encoding="utf-8")
    assert tei.count('<note type="shu" xml:id="xiangsheli.w005.shu') == 317
    r = CliRunner().invoke(main, ["show", "2", "--json"])
    assert r.exit_code == 0, r.output
    assert "此已下论预张矦之事" in r.output
    r = CliRunner().invoke(main, ["search", "此已下论预张", "--layer", "shu"])
    assert r.exit_code == 0 and "xiangsheli.2.2@shu" in r.output, r.output
    r = CliRunner().invoke(main, ["show", "2", "--script", "hant"])
    assert r.exit_code == 0 and "此已下論預張矦之事" in r.output, r.output
    # the 四库 copy is the 疏's traditional witness: no notice that there is none
    assert "贾疏: no traditional witness" not in r.output


def test_division_table_is_in_the_docs(built: BuildResult) -> None:
    rows = shu_division(built)
    assert rows[0]["relation"] == "same" and rows[0]["from"] == "xiangsheli.1.1.1"
    assert {x["relation"].split()[0] for x in rows} >= {"same", "within", "joins"}
    doc = (ROOT / "docs" / "alignment.md").read_text(encoding="utf-8")
    assert format_shu_division(rows) in doc


def test_report_json_counts_the_shu(built: BuildResult) -> None:
    from yili_corpus.report import report_json
    rep = json.loads(json.dumps(report_json(built), ensure_ascii=False))
    assert sum(row["shu"] for row in rep["alignment"]["sections"]) == len(built.shu)


def test_a_range_covers_its_own_passage(built: BuildResult) -> None:
    """“上射”至“并行” (w003): the 疏 discusses 少左 of the passage's first clause, so the range runs
    from the paragraph's first 上射 (上射升堂少左), not the 上射 of 上射揖, and says so."""
    from yili_corpus.text.segment import Locator

    loc = Locator(built.sections)
    host = next(x for x in built.shu if any(o.lemma == ("上射", "并行") for o in x.other))
    sa = next(o for o in host.other if o.lemma == ("上射", "并行"))
    _s, para, c0 = loc.at(sa.jing.start)
    _s, _p, c1 = loc.at(sa.jing.end - 1)
    assert c0.id == para.clauses[0].id and c1.id == para.clauses[-1].id
    # the 四库 copy's block it is collated into covers the same passage
    assert loc.at(host.jing.start)[2].id == c0.id and loc.at(host.jing.end - 1)[2].id == c1.id
    assert "少左" in "".join(built.collation.base.key[sa.jing.start:sa.jing.end])
    assert "the first after the previous 疏's end" in sa.reason
    tei = (ROOT / "tei" / "yili-xiangsheli.xml").read_text(encoding="utf-8")
    assert "a range covers its own passage" in tei


def test_the_shu_of_16_22_is_shown_once_with_an_apparatus(built: BuildResult) -> None:
    merged = [sa for sa in built.shu if sa.other]
    assert all(o.units[0].source == "w003" for sa in merged for o in sa.other)
    # every one of w003's 40 blocks is collated into a block of the 四库 copy; two of them (35 on
    # the 经 司马堂西, 36 on the 注 揖推之也) into one, which says both
    assert sorted(o.block for sa in merged for o in sa.other) == list(range(1, 41))
    assert [[o.block for o in sa.other] for sa in merged if len(sa.other) > 1] == [[35, 36]]
    assert not [sa for sa in built.shu if sa.units[0].source == "w003"]
    r = CliRunner().invoke(main, ["show", "17"])
    assert r.exit_code == 0
    # 17.1: one 疏, w003's lemma first, the 四库 copy's words
    lines = [x for x in r.output.split("\n") if x.lstrip().startswith("疏")]
    assert sum("言兼官者" in x for x in lines) == 1
    tei = (ROOT / "tei" / "yili-xiangsheli.xml").read_text(encoding="utf-8")
    assert "two witnesses of the 疏; the higher-ranked (w005) stands" in tei


def test_a_shu_quoting_the_zhu_in_other_words_is_a_finding(built: BuildResult) -> None:
    """云“由使也” (w003's 疏 on 17.1) against the 注's 由便也: recorded, reported, shown."""
    found = [f for sa in built.shu for f in sa.findings]
    f = next(f for f in found if f.words == "由使也")
    assert (f.witness, f.quotes, f.text, f.differences, f.line) == ("w003", "zhu", "由便也", 1, 17)
    assert f.zhu is not None and f.zhu.text.startswith("兼官由便也")
    # the 四库 copy's 疏 quotes it as the 注 has it (云由便也者): no finding for its block
    host = next(sa for sa in built.shu if f in sa.findings)
    assert not [g for g in host.findings if g.witness == "w005"]
    # a quotation of another book (案彼云故强有力者, 《聘義》) is not a finding
    assert not [g for g in found if "强有力" in g.words]
    # the 四库 copy's own: 云一命以下齒於鄉里者 against the 注's 一命已下
    assert any(g.witness == "w005" and g.words == "一命以下齒於鄉里" and g.text == "一命已下齒於鄉里" for g in found)
    from yili_corpus.report import format_report
    rep = format_report(built)
    assert "疏 quoting the 注 or 经 in other words (findings, docs/alignment.md): 7" in rep
    assert "w003 line 17: w003's 疏 (block 2) quotes the 注 as 由使也; the 注 reads 由便也" in rep
    tei = (ROOT / "tei" / "yili-xiangsheli.xml").read_text(encoding="utf-8")
    assert ('w003 quotes the 注 as <quote corresp="#w003" source="#w003 corpus/003_daa8338dfba24e1e.txt#char=297,300">'
            '由使也</quote>; the 注 reads <quote corresp="#xiangsheli.w005.zhu113">由便也</quote>') in tei


def test_xref_lists_the_new_layers_and_the_works_the_siku_shu_cites() -> None:
    r = CliRunner().invoke(main, ["xref", "1", "--json"])
    x = json.loads(r.output)
    y = x["yinyi"][0]
    assert (y["head"], y["text"], y["kind"]) == ("长", "长丁大反", "fanqie")
    assert [o["section"] for o in y["same_head"]] == [8, 45, 52]  # 長丁丈反 there
    # the 四库 疏 names the works it cites without 《》: 案大射, 射義云, 鄉飲酒之禮; and a chapter
    # whose title has 礼 wherever it stands: 必先行燕禮 (docs/alignment.md, "Across the chapters")
    assert {w["work"] for w in x["works"]} == {"仪礼·大射", "仪礼·乡饮酒礼", "礼记·射义", "仪礼·燕礼"}
    assert {w["chapter"] for w in x["works"] if w["kind"] == "chapter"} == {"dashe", "xiangyinjiuli", "yanli"}
    k = json.loads(CliRunner().invoke(main, ["xref", "35", "--json"]).output)["kaozheng"]
    assert any(e["lemma"] == "司射适阶西" and [d["edition"] for d in e["editions"]] == ["敖本"] for e in k)
    out = CliRunner().invoke(main, ["xref", "1"]).output
    assert "音义 xiangsheli.w005.yinyi1.1: 长丁大反 → xiangsheli.1.2.4; 长 also: §8 长丁丈反" in out


def test_show_gives_each_yinyi_entry_its_parts_and_each_kaozheng_its_apparatus() -> None:
    y = json.loads(CliRunner().invoke(main, ["show", "1.2", "--json", "--layer", "yinyi"]).output)["layers"]["yinyi"][0]
    assert (y["head"], y["items"], y["on"], y["zhu"]) == ("长", [{"kind": "fanqie", "text": "丁大反"}], "zhu",
                                                         "xiangsheli.w005.zhu1")
    k = json.loads(CliRunner().invoke(main, ["show", "20", "--json", "--layer", "kaozheng"]).output)["layers"]["kaozheng"]
    # 豫則鉤楹内 注今文豫爲序 (考證 13): the apparatus of the 注 it is on, where w003 reads 谢 for 榭
    e = next(u for u in k if u["text"].startswith("豫则钩楹内"))
    assert {a["where"] for a in e["apparatus"]} == {"xiangsheli.w005.zhu124"}
    assert all(a["lemma"] == "榭" and a["readings"][0]["text"] == "谢" for a in e["apparatus"])
    out = CliRunner().invoke(main, ["show", "20", "--layer", "kaozheng"]).output
    assert "校  注 榭］w003 谢" in out


def test_a_w003_block_id_still_resolves_to_the_shu_it_was_collated_into() -> None:
    r = CliRunner().invoke(main, ["show", "xiangsheli.w003.shu3", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["ref"] == "xiangsheli.17.2@shu" and d["layers"]["shu"][0]["text"].startswith("注释曰上张矦时")
    tei = (ROOT / "tei" / "yili-xiangsheli.xml").read_text(encoding="utf-8")
    assert '<ab type="lemma" xml:id="xiangsheli.w003.shu3"' in tei
