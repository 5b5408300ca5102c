"""The build on the real corpus: sections, reading text, coverage, collation, restoration."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from yili_corpus.build import BuildResult, format_report, run_build
from yili_corpus.errors import DataError
from yili_corpus.model import is_text_char
from yili_corpus.text.segment import load_sections

from .conftest import CORPUS


def section(built: BuildResult, n: int):
    return next(s for s in built.sections if s.n == n)


def test_exactly_53_sections_51_jing_2_ji(built: BuildResult) -> None:
    assert [s.n for s in built.sections] == list(range(1, 54))
    assert [s.layer for s in built.sections].count("jing") == 51
    assert [s.layer for s in built.sections[-2:]] == ["ji", "ji"]


def test_every_section_begins_with_its_incipit(built: BuildResult) -> None:
    rows = load_sections(CORPUS / "sections.tsv")
    for s, r in zip(built.sections, rows, strict=True):
        assert built.norm.key(s.text).startswith(built.norm.key(r.incipit)), s.n


def test_reading_text_accounts_for_every_character_of_w001(built: BuildResult) -> None:
    """The sections' text, concatenated, is w001's text with only the recorded changes."""
    raw = (CORPUS / "001_2a8121061e9dfe52.txt").read_text(encoding="utf-8")
    title = "乡射礼"
    assert raw.startswith(title + " ")
    chars = [c for c in raw[len(title):] if is_text_char(c)]
    col = built.collation
    assert len(chars) == len(col.base.key)
    out: list[str] = []
    i = 0
    for s in col.sites:
        assert s.kind in ("variant", "restored", "emendation") and s.rule
        out.extend(chars[i:s.start])
        out.append(s.lem)
        i = s.end
    out.extend(chars[i:])
    assert "".join(out) == "".join(s.text for s in built.sections)
    # and every change is one of the recorded ones: no other difference
    changed = sum(1 for s in col.sites if "".join(chars[s.start:s.end]) != s.lem)
    assert changed == len([s for s in col.sites if s.readings[0].text != s.lem])


def test_coverage_at_least_995_per_mille_and_noise_pinned(built: BuildResult) -> None:
    for c in built.coverage.values():
        assert c["read"] == c["placed"] + c["noise"]
        assert c["placed_share"] >= 0.995, c["source"]
    seeds = ("w000", "w001", "w002", "w003", "w004")
    noise = sorted(
        (c["source"], z["line"], z["text"], z["reason"].split(" (")[0])
        for c in built.coverage.values() if c["source"] in seeds for z in c["noise_items"]
    )
    assert noise == [
        ("w000", 1, "乡礼", "page title"),
        ("w000", 43, "<b>译文</b>", "heading 译文"),
        ("w001", 1, "乡射礼", "title line of the page"),
        ("w002", 1, "乡射礼第五", "page title"),
        ("w002", 2, "乡射礼第五 (第2/3页)", "page header"),
        ("w002", 142, "【译文】", "heading 【译文】 that opens the translation"),
        ("w002", 161, "（本章未完，请点击下一页继续阅读）", "navigation text of the web page"),
        ("w003", 1, "仪礼注疏", "book title at the head of the page"),
        ("w003", 55, "●卷十二乡射礼第五", "volume marker of the printed edition"),
        ("w004", 1, "[生僻字详见原文]", "placeholder for a character the transcription could not type"),
    ]
    # the 四库 file: its noise is its mandoku header and page breaks (its headings are placed in the
    # TEI's front and back); w006 has none
    w005 = built.coverage["w005"]
    reasons = {z["reason"].split(" (")[0] for z in w005["noise_items"]}
    assert reasons == {"mandoku header line", "page break"}, reasons
    assert w005["noise"] == sum(z["chars"] for z in w005["noise_items"] if z["reason"] == "mandoku header line")
    assert w005["placed_share"] >= 0.998
    assert {u.meta["role"] for u in built.headings} == {"edition", "juan", "byline", "chapter", "kaozheng-title"}
    assert built.coverage["w006"]["noise_items"] == [] and built.coverage["w006"]["placed_share"] == 1.0
    damaged = next(z for z in built.coverage["w000"]["noise_items"] if z["line"] == 1)
    assert "damaged" in damaged["reason"]


def test_restored_characters_in_the_w003_span(built: BuildResult) -> None:
    restored = [s for s in built.collation.sites if s.kind == "restored" and 16 <= s.section <= 22]
    assert restored, "no restored characters"
    for s in restored:
        if s.lem == "相":  # the 四库 copy writes 相 in its parts, small: 與升射者(目/木)左交 (line 606)
            ph = next(r for r in s.readings if r.wit == "w005")
            assert ph.status == "placeholder" and ph.text == "(目木)" and s.lem_wits == ["w001", "w003", "w006"]
            continue
        ph = next(r for r in s.readings if r.wit == "w003")
        assert ph.status == "placeholder"
        assert s.lem_wits == ["w001", "w005", "w006"]  # restored from the other witnesses of the span
    got = {(s.section, s.lem) for s in restored}
    assert {(19, "搢"), (20, "搢"), (22, "楅"), (18, "笴"), (19, "弣"), (18, "适")} <= got
    # 搢三而挟一个 reads whole in the reading text of section 19, where w003 has U+E270
    s19 = section(built, 19)
    assert "搢三而挟一个" in s19.text
    assert any(s.section == 19 and s.lem == "搢" and "\ue270" in s.readings[1].text for s in restored)
    assert sum(1 for s in restored if s.section == 22 and s.lem == "楅") == 6
    assert "设楅" in section(built, 22).text


def test_private_use_code_points_learned(built: BuildResult) -> None:
    learned = {(v["witness"], v["sequence"]): v["character"] for v in built.collation.pua.values()}
    assert learned[("w003", "\ue270")] == "搢"
    assert learned[("w003", "\ue7a1")] == "适"
    assert learned[("w003", "\ue3ab\ue4a4")] == "楅"
    assert learned[("w003", "\ue13d")] == "笴"
    assert learned[("w001", "\uef4d")] == "旜"
    assert all(v["consistent"] for v in built.collation.pua.values())


def test_reading_text_readings(built: BuildResult) -> None:
    assert "弟子说束" in section(built, 17).text
    assert "说东" not in section(built, 17).text
    assert "诸侯麋侯" in section(built, 52).text
    assert "古者于旅也语" in section(built, 52).text
    assert "宾及众宾皆降复初位" in section(built, 10).text
    assert "迁乐于下" in section(built, 18).text
    assert "合足而俟" in section(built, 21).text
    assert "龙旜" in section(built, 53).text


def test_variants_are_listed_with_the_rule_that_chose_them(built: BuildResult) -> None:
    sites = built.collation.sites
    by = {(s.section, s.lem): s for s in sites if s.kind in ("variant", "emendation")}
    shu = by[(17, "束")]
    assert {r.wit: r.text for r in shu.readings} == {"w001": "东", "w003": "束", "w005": "束", "w006": "束"}
    assert shu.rule == "majority (3 of 4 witnesses)"
    mi = by[(52, "麋")]
    assert mi.rule == "majority (4 of 5 witnesses)"
    assert {r.wit: r.text for r in mi.readings} == {"w001": "糜", "w000": "麋", "w004": "麋", "w005": "麋", "w006": "麋"}
    zhe = by[(52, "者")]
    assert {r.wit: r.text for r in zhe.readings}["w001"] == "来"
    # w003's own slips are outvoted (they lost on attestation when w001 was the only other witness)
    assert {r.wit: r.text for r in by[(18, "下")].readings}["w003"] == "丁"
    assert by[(21, "俟")].rule == "majority (3 of 4 witnesses)"
    # the three slips of w001 found on reading (§24, §42, §43), decided by the collation
    assert {r.wit: r.text for r in by[(24, "面")].readings}["w001"] == "西"
    assert {r.wit: r.text for r in by[(42, "设")].readings}["w001"] == "较"
    assert {r.wit: r.text for r in by[(43, "犹")].readings}["w001"] == "遂"
    for k in ((24, "面"), (42, "设"), (43, "犹")):
        assert by[k].rule == "majority (2 of 3 witnesses)"
    # a transposition is one site
    assert {r.wit: r.text for r in by[(52, "夫降阶")].readings}["w004"] == "夫皆降"
    for s in sites:
        assert s.section is not None and 1 <= s.section <= 53


def test_emendation_keeps_the_original_as_sic(corpus_copy: Path) -> None:
    """An emendation is made where no witness has the reading (here a made-up one on §16's 比三耦:
    every witness reads 比三耦), and a row that a witness attests is not applied but reported."""
    table = corpus_copy / "emendations.tsv"
    table.write_text(table.read_text(encoding="utf-8")
                     + "倚旌于侯中\t旌\t旗\ttest row: an emendation no witness has\n"
                     + "主人降宾及众宾皆宾复初位\t皆宾\t皆降\tthe old row: w005 and w006 read 皆降\n",
                     encoding="utf-8")
    r = run_build(corpus_copy)
    em = [s for s in r.collation.sites if s.kind == "emendation"]
    assert len(em) == 1
    e = em[0]
    assert (e.section, e.sic, e.lem) == (17, "旌", "旗")
    assert e.evidence == "test row: an emendation no witness has"
    assert {x.wit for x in e.readings} >= {"w001", "w003", "w005", "w006"}
    assert [(x["corr"], x["witnesses"]) for x in r.collation.superseded] == [("皆降", ["w005", "w006"])]
    assert "not applied: w005, w006 read it" in format_report(r)


def test_the_real_emendation_table_is_empty_since_the_witnesses_decide(built: BuildResult) -> None:
    assert not [s for s in built.collation.sites if s.kind == "emendation"]
    site = next(s for s in built.collation.sites if s.section == 10 and s.lem == "降")
    assert {r.wit: r.text for r in site.readings} == {"w001": "宾", "w005": "降", "w006": "降"}


def test_orthographic_variants_are_folded_not_listed(built: BuildResult) -> None:
    """荅/答, 筭/算, 闲/间 … differ in form only: the key folds them (corpus/variants.tsv)."""
    lemmas = {s.lem for s in built.collation.sites if s.kind == "variant"}
    assert not lemmas & {"答", "算", "筭", "间", "闲", "膱", "蛇", "髹", "余"}


def test_ids_and_paragraphs(built: BuildResult) -> None:
    ids = set()
    for s in built.sections:
        assert s.id == f"xiangsheli.{s.n}"
        for p in s.paragraphs:
            assert p.id == f"{s.id}.{p.n}"
            assert p.clauses
            for c in p.clauses:
                assert re.fullmatch(rf"{re.escape(p.id)}\.\d+", c.id)
                ids.add(c.id)
    assert len(ids) == sum(len(p.clauses) for s in built.sections for p in s.paragraphs)
    # 003's 经 paragraphs give the breaks of sections 16–22; its first line starts mid-paragraph
    s17 = section(built, 17)
    assert [p.text[:5] for p in s17.paragraphs] == ["司正为司马", "司马命张侯", "司马又命获", "获者由西方"]
    assert len(section(built, 16).paragraphs) == 1
    # paragraph breaks: the translation's three in section 10, and the ○ of the 四库 copy (w005)
    s10 = section(built, 10)
    assert [p.text[:6] for p in s10.paragraphs] == ["大夫若有遵者", "大夫降洗主人", "大夫荅拜主人", "主人复阼阶揖"]
    assert [p.breaks for p in s10.paragraphs] == [["w002:trans", "w005", "w006"], ["w005"], ["w002:trans"],
                                                  ["w002:trans"]]


def test_translation_paragraphs_go_to_their_sections(built: BuildResult) -> None:
    col = built.collation
    got = {}
    for t in built.translations:
        a = col.base.clauses[t.first][0]
        sec = next(s.n for s in built.sections if s.start <= a < s.end)
        got[(t.unit.source, t.unit.line)] = sec
    w002 = [got[("w002", line)] for line in range(143, 161)]
    assert w002 == [1, 2, 3, 4, 5, 5, 6, 7, 7, 8, 8, 9, 10, 10, 10, 11, 12, 13]
    assert got[("w004", 3)] == 52 and got[("w004", 7)] == 53
    merged = sum(len(t.duplicates) for t in built.translations)
    assert merged == 13  # all of w000's translation paragraphs repeat w002's
    # w000's scrambled paragraphs go, through the paragraph they repeat, to their sections
    w000 = {}
    for t in built.translations:
        a = col.base.clauses[t.first][0]
        sec = next(s.n for s in built.sections if s.start <= a < s.end)
        for d in t.duplicates:
            w000[d.line] = sec
    assert w000 == {3: 9, 5: 10, 7: 2, 9: 3, 11: 4, 13: 5, 15: 5, 27: 6, 29: 7, 31: 7, 33: 8, 35: 8, 45: 1}


def test_layers_per_section(built: BuildResult) -> None:
    for s in built.sections:
        assert (s.layer in s.layers) and s.layers[s.layer] >= 1
        # the 四库 copy has 注 in every section but two, whose 经 (如初 …) runs on with no 注 mark
        # into the next section's, where the 注 stands after the words it explains (视算, 执 …)
        assert ("zhu" in s.layers) == (s.n not in (40, 42)), s.n
        # the 四库 copy has 疏 on every section; a section without one of its own lies inside
        # the 经 since the previous 疏 of one that stands in a later section
        if "shu" not in s.layers:
            assert any(sa.jing.start <= s.start < sa.jing.end for sa in built.shu if sa.jing), s.n
        if s.n <= 13 or s.n >= 52:
            assert "trans" in s.layers, s.n
        else:
            assert "trans" not in s.layers, s.n
    assert "note" in section(built, 52).layers and "note" in section(built, 53).layers


def test_sections_without_zhu_have_no_zhu_mark_in_the_siku_copy(built: BuildResult) -> None:
    """§40 and §42: w005's 经 runs through the section into the next one before a 注 mark."""
    from yili_corpus.text.segment import Locator

    loc = Locator(built.sections)
    for n in (40, 42):
        sec = section(built, n)
        marks = [z for z in built.zhu if z.unit.source == "w005" and sec.start < z.span.end <= sec.end]
        assert marks == []
        nxt = next(z for z in built.zhu if z.span.end > sec.end)
        assert loc.at(nxt.span.end - 1)[0].n == n + 1


def test_changed_source_is_refused(corpus_copy: Path) -> None:
    p = corpus_copy / "001_2a8121061e9dfe52.txt"
    p.write_text(p.read_text(encoding="utf-8").replace("说东", "说束"), encoding="utf-8")
    with pytest.raises(DataError, match=r"001_2a8121061e9dfe52.txt: checksum changed .*update sha256 of w001"):
        run_build(corpus_copy)


def test_section_table_out_of_order_is_refused(corpus_copy: Path) -> None:
    t = corpus_copy / "sections.tsv"
    lines = t.read_text(encoding="utf-8").splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("3\t"))
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    t.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"sections.tsv:\d+: sections out of order"):
        run_build(corpus_copy)


def test_incipit_not_found_names_the_table_line(corpus_copy: Path) -> None:
    t = corpus_copy / "sections.tsv"
    text = t.read_text(encoding="utf-8").replace("司正为司马", "司正为司徒")
    t.write_text(text, encoding="utf-8")
    lineno = next(i for i, ln in enumerate(text.splitlines(), 1) if "司正为司徒" in ln)
    with pytest.raises(DataError, match=rf"sections.tsv:{lineno}: section 17: incipit"):
        run_build(corpus_copy)


def test_bad_emendation_context_is_refused(corpus_copy: Path) -> None:
    t = corpus_copy / "emendations.tsv"
    t.write_text(t.read_text(encoding="utf-8") + "宾\t宾\t客\ta context that occurs many times\n", encoding="utf-8")
    with pytest.raises(DataError, match="must occur exactly once"):
        run_build(corpus_copy)


def test_the_report_lists_substantive_variants_per_pair_of_witnesses(built: BuildResult) -> None:
    """Per pair of witnesses: the count and the list; orthographic forms (矦/侯, 岀/出, 捝/挩) are not
    among them; the 四库 copy's own readings against the reading text are listed too."""
    from yili_corpus.report import outvoted, report_json, witness_pairs

    pairs = {tuple(p["pair"]): p for p in witness_pairs(built)}
    assert len(pairs) == 15  # six witnesses of the 经/记 (w002 has notes and translation only)
    sk_w1 = pairs[("w005", "w001")]
    assert sk_w1["count"] == len(sk_w1["variants"]) == 15
    got = {(v["section"], v["w001"], v["w005"]) for v in sk_w1["variants"]}
    assert {(24, "西", "面"), (42, "较", "設"), (43, "遂", "猶"), (17, "东", "束")} <= got
    assert not any(set(v["w005"]) & set("矦岀捝歩") for v in sk_w1["variants"])
    own = outvoted(built, "w005")
    assert {(v["section"], v["reading"]) for v in own} >= {(52, "朴"), (52, "奉"), (11, "繁")}
    assert all(v["rule"].startswith("majority") for v in own)
    rep = report_json(built)
    assert rep["witness_pairs"][0]["pair"] == ["w005", "w003"] and "w005" in rep["outvoted"]
    text = format_report(built)
    assert "  w005–w001: 15" in text and "w005 (ranked first) outvoted at 7 place(s)" in text
    assert "held (parsed and counted" not in text  # every layer of the 四库 copy is in the TEI
    assert "疏 of w005: 317 blocks in the file, 317 anchored by their place" in text
    assert "196 × page break (no text characters" in text
