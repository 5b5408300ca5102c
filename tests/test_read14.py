"""Issue 14, the reading side: the apparatus in show, clause numbers, witness readings in search
and cite, references that commands print, absent layers, --word on ritual terms."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from yili_corpus.cli import main

# the CLI helpers and the session cache of the query tests
from .test_query import TEI, _cache, js, yili  # noqa: F401

# -- 1. the apparatus of the 经/记 in show ---------------------------------------------------------

def test_show_17_says_shuo_shu_was_chosen_against_shuo_dong() -> None:
    r = yili("show", "17", "--layer", "jing")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    i = next(i for i, x in enumerate(lines) if "弟子说束" in x)
    assert lines[i + 1].split() == ["校", "2", "束］w001", "东"]
    item = next(x for x in js("show", "17.2", "--layer", "jing")["layers"]["jing"] if x["ref"] == "xiangsheli.17.2.2")
    (e,) = item["apparatus"]
    assert (e["lemma"], e["readings"], e["where"]) == ("束", [{"wit": "w001", "text": "东", "status": "reading"}],
                                                        "xiangsheli.17.2.2")
    assert e["rule"].startswith("majority") and "w001" not in e["wit"]


def test_show_10_tells_what_the_corpus_has_for_jie_jiang() -> None:
    # 皆降 (§10.1, clause 3 宾及众宾皆降): w001 reads 皆宾; the reading text follows the others
    jing = js("show", "10")["layers"]["jing"]
    e = next(a for a in jing[0]["apparatus"] if a["where"] == "xiangsheli.10.1.3")
    assert e["lemma"] == "降" and {"wit": "w001", "text": "宾", "status": "reading"} in e["readings"]
    assert "3 降］w001 宾" in yili("show", "10").output


def test_show_18_says_a_character_was_restored() -> None:
    out = yili("show", "18", "--layer", "jing").output
    assert "1 适］w003 适（未编码字）" in out
    e = next(a for a in js("show", "18.1", "--layer", "jing")["layers"]["jing"][0]["apparatus"])
    assert e["type"] == "restored" and e["readings"][0]["status"] == "placeholder" and "restored" in e["rule"]


def test_only_clauses_with_entries_carry_an_apparatus() -> None:
    jing = js("show", "17", "--layer", "jing")["layers"]["jing"]
    assert [x["ref"] for x in jing if "apparatus" in x] == ["xiangsheli.17.2"]


# -- 3. clause numbers -----------------------------------------------------------------------------

def test_show_52_numbers_the_clauses_of_the_ji() -> None:
    r = yili("show", "52", "--layer", "ji", "--layer", "note")
    assert r.exit_code == 0
    ji = [x for x in r.output.splitlines() if x.startswith("  记  ")]
    assert len(ji) > 10
    for x in ji:  # a line of more than one clause numbers them 1, 2, …
        nums = [int(n) for n in re.findall(r"\[(\d+)\]", x)]
        assert nums == list(range(1, len(nums) + 1)) and len(nums) == x.count("\u3000") + (1 if nums else 0)
    # each note's clause number can be found on its paragraph's 记 line
    para, seen = None, 0
    for x in r.output.splitlines():
        if x.startswith("  记  "):
            para = x
        m = re.match(r"  今注\d* \[(\d+)", x)
        if m and para is not None and "[" in para:
            assert f"[{m.group(1)}]" in para
            seen += 1
    assert seen > 10


def test_a_paragraph_of_one_clause_has_no_number() -> None:
    out = yili("show", "17.1", "--layer", "jing").output
    assert "经  司正为司马" in out and "[1]" not in out


# -- 6. --word on the ritual terms -----------------------------------------------------------------

def test_search_word_finds_shi_huo_before_jie_ru_chu() -> None:
    refs = {h["ref"].rsplit(".", 1)[0] for h in js("search", "释获", "--word")["hits"]}
    assert {"xiangsheli.30.1", "xiangsheli.39.1"} <= refs


# -- 4. every reference a command prints is accepted by show ---------------------------------------

def _printed_unit_ids() -> list[str]:
    """Unit ids as search --json prints them, one of each layer."""
    seen: dict[str, str] = {}
    for q in ("张侯", "射", "旌"):
        for h in js("search", q)["hits"]:
            seen.setdefault(h["layer"], h["unit"])
    return list(seen.values())


def test_show_accepts_unit_ids_that_search_prints() -> None:
    ids = _printed_unit_ids()
    assert {"xiangsheli.w005.zhu", "xiangsheli.w005.shu", "xiangsheli.w005.kz", "xiangsheli.w005.yinyi"} <= {
        re.sub(r"\d+(\.\d+)?$", "", i) for i in ids}
    for uid in ids:
        r = yili("show", uid)
        assert r.exit_code == 0, (uid, r.output)
        assert uid in json.dumps(js("show", uid), ensure_ascii=False) or uid.count(".") == 1


def test_a_unit_id_shows_its_paragraph_in_its_layer() -> None:
    j = js("show", "xiangsheli.w005.zhu113")
    assert set(j["layers"]) == {"zhu"} and j["ref"] == "xiangsheli.17.1@zhu"
    assert "xiangsheli.w005.zhu113" in [u["ref"] for u in j["layers"]["zhu"]]
    assert set(js("show", "xiangsheli.w005.kz1")["layers"]) == {"kaozheng"}
    assert set(js("show", "xiangsheli.w005.yinyi1.1")["layers"]) == {"yinyi"}
    r = yili("show", "xiangsheli.w009.zhu1")
    assert r.exit_code == 2 and r.output.startswith("yili: error: no unit xiangsheli.w009.zhu1")


def test_show_accepts_hit_refs() -> None:
    for h in js("search", "张侯")["hits"]:
        r = yili("show", h["ref"])
        assert r.exit_code == 0, (h["ref"], r.output)


def test_show_ranges_of_sections_and_paragraphs() -> None:
    j = js("show", "16-17", "--layer", "jing")
    assert j["ref"] == "xiangsheli.16-xiangsheli.17" and [p["section"] for p in j["passages"]] == [16, 17]
    out = yili("show", "16-17", "--layer", "jing").output
    assert "第16节" in out and "第17节" in out
    j = js("show", "17.2-17.3", "--layer", "jing")
    assert [x["ref"] for x in j["layers"]["jing"]] == ["xiangsheli.17.2", "xiangsheli.17.3"]
    # a printed range is accepted back
    assert js("show", j["ref"], "--layer", "jing")["layers"] == j["layers"]
    j = js("show", "17.3-18.1", "--layer", "jing")
    assert [[x["ref"] for x in p["layers"]["jing"]] for p in j["passages"]] == [
        ["xiangsheli.17.3", "xiangsheli.17.4"], ["xiangsheli.18.1"]]
    for bad in ("17-16", "17.3-17.9", "17.2.1-17.3"):
        r = yili("show", bad)
        assert r.exit_code == 2 and r.output.startswith("yili: error:") and len(r.output.splitlines()) == 1, bad


# -- 5. absent layers ------------------------------------------------------------------------------

def test_show_21_trans_is_a_notice_not_empty_headers() -> None:
    r = yili("show", "21", "--layer", "trans")
    assert r.exit_code == 0 and r.stdout == ""
    assert r.stderr.strip() == "yili: note: no 今译 (trans) in 21"
    j = js("show", "21", "--layer", "trans")
    assert j["absent"] == ["trans"] and j["layers"] == {}
    # the layers that are there are shown, without paragraphs that have none of them
    r = yili("show", "21", "--layer", "trans", "--layer", "zhu")
    assert "注 [" in r.stdout and "no 今译 (trans)" in r.stderr
    paras = r.stdout.split("¶ ")[1:]
    assert paras and all("注 [" in p for p in paras)


def test_search_says_a_layer_is_absent_from_the_range() -> None:
    r = yili("search", "司射", "--layer", "trans", "--section", "21")
    assert r.exit_code == 1 and r.stderr.strip() == "yili: note: no 今译 (trans) in sections 21"
    r = yili("search", "司射", "--layer", "trans", "--section", "52")
    assert r.exit_code == 0 and r.stderr == ""


# -- 2. search and cite match witness readings -----------------------------------------------------

def _witness_reads(clause: str, lemma: str) -> list[tuple[str, str]]:
    """(witness, reading) of the apparatus entry of a clause whose lemma is ``lemma``, from show."""
    ref = clause.rsplit(".", 1)[0]
    items = js("show", ref, "--layer", "ji" if int(ref.split(".")[1]) >= 52 else "jing")
    for it in next(iter(items["layers"].values())):
        for e in it.get("apparatus", []):
            if e["where"] == clause and e["lemma"] == lemma:
                return [(r["wit"], r["text"]) for r in e["readings"] if r["status"] == "reading"]
    return []


def test_search_zhan_finds_long_zhan_that_a_witness_reads() -> None:
    reads = _witness_reads("xiangsheli.53.2.10", "旜")
    assert reads and all(t == "旃" for _w, t in reads)
    j = js("search", "旃")
    (h,) = [h for h in j["hits"] if h.get("witness")]
    assert h["ref"] == "xiangsheli.53.2.10" and h["match"] == "旃" and h["before"].endswith("龙")
    assert sorted(h["witnesses"]) == sorted(w for w, _t in reads) and h["witness"] in h["witnesses"]
    assert h["lemma"] == "旜" and j["counts"]["ji"] >= 1
    out = yili("search", "旃").output
    assert f"({', '.join(h['witnesses'])} read 旃; the text has 旜)" in out
    # a query the reading text has as well is not said twice
    assert not [h for h in js("search", "龙")["hits"] if h.get("witness")]


def test_search_shuo_dong_finds_w001() -> None:
    j = js("search", "说东")
    assert [(h["ref"], h["witness"]) for h in j["hits"]] == [("xiangsheli.17.2.2", "w001")]
    assert "(w001 reads 说东; the text has 束)" in yili("search", "说东").output


def test_cite_finds_witness_readings() -> None:
    best = js("cite", "龙旃")["results"][0]
    assert best["ref"] == "xiangsheli.53.2.10" and best["score"] == 1.0
    # every witness that reads 龙旃 is named (w000 and w006), in the text too
    wits = sorted(w for w, _t in _witness_reads("xiangsheli.53.2.10", "旜"))
    assert len(wits) > 1 and sorted(best["witness"].split(", ")) == wits
    assert f"({best['witness']} read so)" in yili("cite", "龙旃").output
    best = js("cite", "诸侯糜侯赤质")["results"][0]
    assert best["ref"] == "xiangsheli.52.19.4" and best["score"] == 1.0 and best["witness"] == "w001"
    assert "(w001 reads so)" in yili("cite", "诸侯糜侯赤质").output
    # the reading text's own words carry no witness
    assert "witness" not in js("cite", "司正为司马")["results"][0]


# -- 5. an imported translation's hits are printed -------------------------------------------------

def test_search_prints_the_hit_lines_of_an_imported_translation(tmp_path) -> None:  # noqa: ANN001
    f = tmp_path / "mine.txt"
    f.write_text("司正担任司马。司马命令张侯，弟子解开侯上的束，于是系上左下纲。司马又命令获者把旌倚在侯的中央。\n",
                 encoding="utf-8")
    ov = str(tmp_path / "ov")
    r = CliRunner().invoke(main, ["--tei", TEI, "--overlay", ov, "import", "translation", str(f), "--name", "mine"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["--tei", TEI, "--overlay", ov, "search", "张侯", "--layer", "trans:mine"])
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].startswith("1 hits") and any(x.strip().startswith("xiangsheli.17.1@trans:mine")
                                                 and "张侯" in x for x in lines)
