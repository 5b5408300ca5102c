"""Bring your own text: importing a translation and a witness into an overlay."""

from __future__ import annotations

import bisect
import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from yili_corpus.align.sentences import split_sentences
from yili_corpus.cli import main
from yili_corpus.document import Document
from yili_corpus.sources import plain_clauses

from .conftest import ROOT
from .test_align import load_gold

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
W002 = ROOT / "corpus" / "002_f61d8bf8bcd3beb8.txt"
W001 = ROOT / "corpus" / "001_2a8121061e9dfe52.txt"
NS = {"t": "http://www.tei-c.org/ns/1.0"}


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("YILI_OVERLAY", raising=False)
    return tmp_path


def yili(ov: Path, *args: str):
    r = CliRunner().invoke(main, ["--tei", str(TEI), "--overlay", str(ov), *args])
    assert "Traceback" not in r.output
    return r


def w001_clause_ids(doc: Document) -> dict[int, list[str]]:
    """w001 clause number → the ids of the clauses of the TEI that hold its characters (by the
    clauses' source pointers into w001's file)."""
    text = W001.read_text(encoding="utf-8")
    units = plain_clauses.parse("w001", text, str(W001)).units
    starts = [u.offset for u in units]
    out: dict[int, list[str]] = {}
    for s in doc.sections:
        for p in s.paragraphs:
            for c in p.clauses:
                for ptr in c.source.split():
                    m = re.search(r"#char=(\d+),(\d+)$", ptr)
                    if m and W001.name in ptr:
                        k = bisect.bisect_right(starts, int(m.group(1))) - 1
                        ids = out.setdefault(units[k].meta["clause"], [])
                        if c.id not in ids:
                            ids.append(c.id)
    return out


def make_translation(seed: int = 7) -> tuple[str, list[list[tuple[int, list[int]]]]]:
    """w002's translation of sections 1–12, re-cut: sentences merged in twos and threes (a 。
    becomes ，), long paragraphs cut in two, three paragraphs left out, the rest shuffled.
    Returns the text and, per new paragraph, per new sentence: (w002 line, original sentence numbers)."""
    lines = W002.read_text(encoding="utf-8").split("\n")
    rng = random.Random(seed)
    paras: list[list[tuple[int, list[int]]]] = []
    for line in range(143, 160):
        text = lines[line - 1]
        n = len(split_sentences(text))
        groups, i = [], 1
        while i <= n:
            k = rng.choice([1, 1, 2, 3])
            groups.append((line, list(range(i, min(n, i + k - 1) + 1))))
            i += k
        if len(groups) >= 6:
            paras += [groups[: len(groups) // 2], groups[len(groups) // 2 :]]
        else:
            paras.append(groups)
    for drop in (2, 9, 15):  # some paragraphs missing
        paras.pop(drop)
    rng.shuffle(paras)
    out = []
    for p in paras:
        sents = []
        for line, nums in p:
            text = lines[line - 1]
            ss = split_sentences(text)
            parts = [text[ss[k - 1][0]:ss[k - 1][1]] for k in nums]
            merged = "".join(x[:-1] + "，" if j < len(parts) - 1 and x.endswith("。") else x for j, x in enumerate(parts))
            sents.append(merged)
        out.append("".join(sents))
    return "\n\n".join(out) + "\n", paras


def test_import_translation_reshuffled_resplit_and_incomplete(env: Path) -> None:
    text, paras = make_translation()
    f = env / "mine.txt"
    f.write_text(text, encoding="utf-8")
    ov = env / "overlays"
    tei_before = TEI.read_bytes()
    r = yili(ov, "import", "translation", str(f), "--name", "mine", "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert rep["layer"] == "trans:mine" and rep["coverage"] > 0.5
    assert TEI.read_bytes() == tei_before  # the shipped TEI is untouched
    # compare every new sentence with the gold links of the sentences it was made from
    gold = load_gold()
    sec_of = {}
    from yili_corpus.tei.read import read_tei

    doc = read_tei(TEI)
    for s in doc.sections:
        for p in s.paragraphs:
            for c in p.clauses:
                sec_of[c.id] = s.n
    # w001 clause numbers (the gold's) → the clauses that hold their characters (the clause
    # division joins some of w001's clauses and divides others)
    ids = w001_clause_ids(doc)
    root = etree.parse(str(ov / "mine.xml")).getroot()
    abs_ = {int(ab.get("n")): ab for ab in root.iterfind(".//t:ab[@type='trans']", NS)}
    # paragraph k starts at line 2k + 1 (one a block, blank lines between)
    right_sec = total_sent = right_clause = total_clause = 0
    for k, p in enumerate(paras):
        ab = abs_.get(2 * k + 1)
        segs = ab.findall("t:seg", NS) if ab is not None else []
        for j, (line, nums) in enumerate(p):
            total_sent += 1
            want = {c for (ln, s, c) in gold if ln == line and s in nums}
            want_ids = {i for c in want for i in ids[c]}
            got = set((segs[j].get("corresp") or "").replace("#", "").split()) if j < len(segs) else set()
            if got and {sec_of[c] for c in got} <= {sec_of[c] for c in want_ids}:
                right_sec += 1

            total_clause += len(want_ids)
            right_clause += len(want_ids & got)
    assert right_sec / total_sent >= 0.98, (right_sec, total_sent)
    assert right_clause / total_clause >= 0.95, (right_clause, total_clause)
    # every command sees it
    s = json.loads(yili(ov, "search", "饮酒", "--layer", "trans:mine", "--json").output)
    assert s["total"] > 0 and {h["layer"] for h in s["hits"]} == {"trans:mine"}
    j = json.loads(yili(ov, "show", "5", "--json").output)
    assert "trans:mine" in j["layers"] and "trans" in j["layers"]
    assert "mine" in yili(ov, "overlays").output


def test_import_leaves_out_interleaved_classical_sentences(env: Path) -> None:
    lines = W002.read_text(encoding="utf-8").split("\n")
    f = env / "inter.txt"
    f.write_text("乡射之礼，主人戒宾，宾出迎，再拜，主人答再拜。" + lines[142] + "\n\n"
                 "乃席宾，南面，东上。众宾之席，继而西。" + lines[143] + "\n", encoding="utf-8")
    r = yili(env / "ov", "import", "translation", str(f), "--name", "inter", "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert [x["text"][:4] for x in rep["skipped"]] == ["乡射之礼", "乃席宾，", "众宾之席"]
    assert [p["section"] for p in rep["paragraphs"]] == [1, 2]


def test_import_refuses_text_that_is_not_a_translation(env: Path) -> None:
    f = env / "random.txt"
    f.write_text("今天天气很好，我们去公园散步吧。他说这个电脑程序写得不错，可是运行太慢了。\n\n"
                 "这本小说讲的是一个少年在城市里长大的故事，情节很感人。明天要下雨，记得带伞。\n", encoding="utf-8")
    r = yili(env / "ov", "import", "translation", str(f), "--name", "rnd")
    assert r.exit_code == 2 and "does not read as a translation" in r.output
    assert not (env / "ov" / "rnd.xml").exists()


MANDOKU = """# -*- mode: mandoku-view; -*-
#+TITLE: 儀禮注疏 鄉射禮 (made up for this test)
<pb:KR1d0052_test_012-1a>司正爲司馬(兼官由便/也)¶
司馬命張侯弟子說東遂繫左下綱(事至/也今文說¶
皆作税)司馬又命獲者倚旌于侯中¶
"""


def test_import_mandoku_witness(env: Path) -> None:
    f = env / "kr.txt"
    f.write_text(MANDOKU, encoding="utf-8")
    ov = env / "ov"
    r = yili(ov, "import", "witness", str(f), "--name", "kanripo", "--format", "mandoku", "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert rep["readings"] == [{"clause": "xiangsheli.17.2.2", "lem": "束", "rdg": "東", "line": 4}]
    root = etree.parse(str(ov / "kanripo.xml")).getroot()
    app = root.find(".//t:app", NS)
    assert app.get("corresp") == "#xiangsheli.17.2.2" and app.findtext("t:rdg", None, NS) == "東"
    assert app.find("t:rdg", NS).get("wit") == "#kanripo"
    notes = {n.get("n"): (n.get("target"), n.text) for n in root.iterfind(".//t:note", NS)}
    assert notes == {"1": ("#xiangsheli.17.1.1", "兼官由便也"), "2": ("#xiangsheli.17.2.3", "事至也今文說皆作税")}
    j = json.loads(yili(ov, "show", "17.2", "--json").output)
    assert j["layers"]["zhu:kanripo"][0]["attach"]["quote"].endswith("遂系左下纲")
    assert j["readings"] == [{"clause": "xiangsheli.17.2.2", "lem": "束", "rdg": "東", "wit": "kanripo"}]
    assert "异文 kanripo: xiangsheli.17.2.2  束 ] 東" in yili(ov, "show", "17.2").output
    assert yili(ov, "overlays", "remove", "kanripo").exit_code == 0
    assert not (ov / "kanripo.xml").exists()
    assert yili(ov, "overlays", "remove", "kanripo").exit_code == 2


def test_import_refuses_a_witness_of_something_else(env: Path) -> None:
    f = env / "junk.txt"
    f.write_text("天地玄黄宇宙洪荒日月盈昃辰宿列张\n寒来暑往秋收冬藏闰余成岁律吕调阳\n", encoding="utf-8")
    r = yili(env / "ov", "import", "witness", str(f), "--name", "junk")
    assert r.exit_code == 2 and "does not read as a witness" in r.output


def test_overlay_folder_from_the_environment(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ov = env / "from-env"
    monkeypatch.setenv("YILI_OVERLAY", str(ov))
    f = env / "kr.txt"
    f.write_text(MANDOKU, encoding="utf-8")
    r = CliRunner().invoke(main, ["--tei", str(TEI), "import", "witness", str(f), "--name", "kr", "--format", "mandoku"])
    assert r.exit_code == 0, r.output
    assert (ov / "kr.xml").exists()
    r = CliRunner().invoke(main, ["--tei", str(TEI), "overlays"])
    assert "kr" in r.output


def test_import_plain_witness(env: Path) -> None:
    f = env / "plain.txt"
    f.write_text("司正为司马\n司马命张侯，弟子说东，遂系左下纲。\n", encoding="utf-8")
    r = yili(env / "ov", "import", "witness", str(f), "--name", "plain", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["readings"] == [{"clause": "xiangsheli.17.2.2", "lem": "束", "rdg": "东", "line": 2}]


def test_import_keeps_every_character_ascii_quotes(env: Path) -> None:
    """A translation with ASCII quotes: every character of the file is in the overlay (a closing
    ``"`` after 。 at the end of a paragraph was lost)."""
    lines = W002.read_text(encoding="utf-8").split("\n")
    paras = [ln.replace("“", '"').replace("”", '"') for ln in lines[142:152]]
    paras.append('主人对宾说："请您担任射礼的宾。"宾说："某不敏，恐怕会让您受辱，冒昧推辞。"')
    text = "\n\n".join(paras) + "\n"
    assert text.count('"') >= 6
    f = env / "quotes.txt"
    f.write_text(text, encoding="utf-8")
    ov = env / "ov"
    r = yili(ov, "import", "translation", str(f), "--name", "quotes", "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    root = etree.parse(str(ov / "quotes.xml")).getroot()
    kept = "".join(seg.text or "" for seg in root.iterfind(".//t:ab[@type='trans']/t:seg", NS))
    kept += "".join(x["text"] for x in rep["skipped"] + rep["unplaced"])
    assert sorted("".join(text.split())) == sorted("".join(kept.split()))
    assert kept.count('"') == text.count('"')
    # a sentence keeps its own closing quote
    segs = [seg.text for seg in root.iterfind(".//t:ab[@type='trans']/t:seg", NS)]
    assert '宾说："某不敏，恐怕会让您受辱，冒昧推辞。"' in segs
