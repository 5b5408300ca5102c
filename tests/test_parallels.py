"""Cross-references across the work: chapters of 《仪礼》 cited by the 注, 疏 and notes linked to their
ids, and the parallel passages of other chapters found by the text (``yili xref``).

The tests marked "the whole work" need the other chapters' TEIs in tei/ (大射, 乡饮酒礼); the others
hold with 乡射礼's alone."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.cli import main
from yili_corpus.query.index import Index
from yili_corpus.query.parallels import MIN_COMMON, find_parallels, passage_records

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
DIFF = re.compile(r"\[([^|\]]*)\|([^\]]*)\]")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def yili(*args: str, tei: Path = TEI):
    r = CliRunner().invoke(main, ["--tei", str(tei), *args])
    assert "Traceback" not in r.output
    return r


def js(*args: str, tei: Path = TEI) -> dict:
    r = yili(*args, "--json", tei=tei)
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout)


def sides(aligned: str) -> tuple[str, str]:
    """The two keys an aligned line stands for: [here|there] read one way, then the other."""
    def pick(k: int) -> str:
        return DIFF.sub(lambda m: m.group(k).replace("∅", ""), aligned)
    return pick(1), pick(2)


# -- chapter links (乡射礼's TEI alone is enough) ----------------------------------------------------

def _sections_citing(query: str, layer: str) -> list[int]:
    res = js("search", query, "--layer", layer)
    return sorted({h["section"] for h in res["hits"]})


def test_a_shu_citing_dashe_links_to_its_chapter_id() -> None:
    secs = _sections_citing("大射", "shu")
    assert secs
    linked = []
    for s in secs[:6]:
        for w in js("xref", str(s))["works"]:
            if w["work"] == "仪礼·大射":
                assert w["kind"] == "chapter"
                assert w["chapter"] == "dashe"
                linked.append(s)
    assert linked  # at least one of the sections whose 疏 says 大射 cites it by a citing word


def test_a_chapter_named_without_a_citing_word_is_linked_too() -> None:
    """The 四库 疏 names 燕禮 wherever it compares the rites (與燕禮不同, 燕禮大射 …): a chapter's
    title with 礼 in it is a citation of that chapter wherever it stands."""
    secs = _sections_citing("燕礼", "shu")
    assert secs
    found = [w for s in secs[:8] for w in js("xref", str(s))["works"] if w.get("chapter") == "yanli"]
    assert found and all(w["work"] == "仪礼·燕礼" for w in found)
    assert all("乡射" not in t for w in found for t in w["as_cited"])  # never this chapter itself


def test_a_note_pointing_to_a_section_of_another_chapter_links_the_chapter_only() -> None:
    res = js("search", "见彼第24节", "--layer", "note")
    assert res["hits"]
    hit = res["hits"][0]
    x = js("xref", hit["ref"].split("@")[0])
    links = [lk for n in x["notes"] for lk in n["links"] if "第24节" in lk["text"]]
    assert links
    for lk in links:
        assert lk["type"] == "other-chapter"
        assert lk["chapter"] == "shisangli"  # 《士丧礼》, named before 彼
        assert lk["other_section"] == 24
        assert "not resolved" in lk["numbering"]
        assert "target" not in lk and "section" not in lk  # never a section of ours
    text = yili("xref", hit["ref"].split("@")[0]).output
    assert "→ shisangli" in text and "numbering" in text and "not resolved" in text


def test_a_linked_chapter_can_be_followed() -> None:
    """The command a link gives is one the CLI takes (the chapter's TEI, where it is in tei/)."""
    x = js("xref", str(_sections_citing("大射", "shu")[0]))
    w = next(w for w in x["works"] if w.get("chapter"))
    assert w["follow"].startswith(f"yili --chapter {w['chapter']} ")
    if (ROOT / "tei" / f"yili-{w['chapter']}.xml").is_file():
        r = CliRunner().invoke(main, w["follow"].split()[1:])
        assert r.exit_code == 0, r.output


# -- the rule, on the real text ------------------------------------------------------------------------

def test_a_passage_is_its_own_parallel_without_differences() -> None:
    """Against its own chapter's index a section is found whole, with nothing different."""
    ix = Index.open(TEI)
    for n in (5, 16, 30):
        recs = passage_records(ix, n)
        key = "".join(r.key for r in recs)
        found = find_parallels(recs, [("xiangsheli", ix)])
        whole = [p for p in found if p["ref"] == p["here"]["ref"] and p["to"] == p["here"]["to"]]
        assert whole, n
        assert whole[0]["common"] == len(key) and whole[0]["differences"] == []
        assert whole[0]["text"] == whole[0]["here"]["text"]
        assert whole[0]["ref"].startswith(f"xiangsheli.{n}.")


def test_a_clause_reference_narrows_the_passage() -> None:
    ix = Index.open(TEI)
    para = passage_records(ix, 16, 1)
    clause = passage_records(ix, 16, 1, 2)
    assert len(clause) == 1 and 0 < len(clause[0].key) < len(para[0].key)
    assert clause[0].key in para[0].key


def test_a_chapter_alone_in_its_folder_has_no_parallels(tmp_path: Path) -> None:
    alone = tmp_path / "yili-xiangsheli.xml"
    shutil.copyfile(TEI, alone)
    x = js("xref", "16", tei=alone)
    assert x["parallels"] == []
    assert "parallel in" not in yili("xref", "16", tei=alone).output


# -- the whole work (needs 大射 and 乡饮酒礼 in tei/) -----------------------------------------------------

def test_xref_16_lists_the_dashe_passage_of_bisanou() -> None:
    x = js("xref", "xiangsheli.16")
    da = [p for p in x["parallels"] if p["chapter"] == "dashe"]
    assert any("比三耦" in p["text"] for p in da), [p["text"] for p in da]
    for p in da:
        assert re.fullmatch(r"dashe\.\d+\.\d+\.\d+", p["ref"]) and re.fullmatch(r"dashe\.\d+\.\d+\.\d+", p["to"])
        assert p["here"]["ref"].startswith("xiangsheli.16.") and p["common"] >= MIN_COMMON
    text = yili("xref", "xiangsheli.16").output
    assert "parallel in dashe: dashe." in text


def test_the_drinking_rounds_parallel_xiangyinjiuli_with_their_differences() -> None:
    x = js("xref", "5")  # 主人献宾
    xy = [p for p in x["parallels"] if p["chapter"] == "xiangyinjiuli"]
    assert xy
    best = max(xy, key=lambda p: p["common"])
    assert best["common"] >= 40
    here, there = sides(best["aligned"])
    assert sum(len(d["here"]) for d in best["differences"]) == len(here) - best["common"]
    assert sum(len(d["there"]) for d in best["differences"]) == len(there) - best["common"]
    assert [len(here), len(there)] == best["length"]
    for d in best["differences"]:
        assert d["op"] in ("replace", "delete", "insert") and (d["here"] or d["there"])


def test_the_other_side_of_a_parallel_is_there_in_that_chapter() -> None:
    """What a parallel says the other chapter reads, that chapter's own search finds there."""
    x = js("xref", "16")
    p = next(p for p in x["parallels"] if p["chapter"] == "dashe")
    _here, there = sides(p["aligned"])
    tei = ROOT / "tei" / f"yili-{p['chapter']}.xml"
    res = js("search", there[:12], tei=tei)
    assert any(p["ref"].startswith(h["ref"].split("@")[0]) or h["ref"].split("@")[0] in p["ref"]
               for h in res["hits"]), (there, [h["ref"] for h in res["hits"]])


def test_a_second_chapter_beside_is_compared_and_its_index_built_with_a_note(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another chapter's TEI beside the current one is read through its index (built on first use,
    with a line on stderr saying so); here a copy of 乡射礼 under another id, so every section
    has its whole self as the parallel there, with no differences."""
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "fresh-cache"))
    shutil.copyfile(TEI, tmp_path / "yili-xiangsheli.xml")
    # another file (its own index): the same TEI with a comment after it
    (tmp_path / "yili-copy.xml").write_bytes(TEI.read_bytes() + b"<!-- a copy -->\n")
    r = CliRunner().invoke(main, ["--tei", str(tmp_path / "yili-xiangsheli.xml"), "xref", "16.1", "--json"])
    assert r.exit_code == 0, r.output
    assert "building the search index of 1 other chapter" in r.stderr
    x = json.loads(r.stdout)
    assert {p["chapter"] for p in x["parallels"]} == {"copy"}
    whole = x["parallels"][0]
    assert whole["differences"] == [] and whole["ref"] == whole["here"]["ref"] == "xiangsheli.16.1.1"
    again = CliRunner().invoke(main, ["--tei", str(tmp_path / "yili-xiangsheli.xml"), "xref", "16.1"])
    assert "building" not in again.stderr and "parallel in copy: xiangsheli.16.1.1" in again.stdout


def test_xref_opens_the_other_chapters_indexes_that_search_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With overlays imported, a chapter's index is kept under its TEI and its own overlays; xref
    opens the other chapters' indexes under that same digest (the ones search opens), rather than
    building a second index of each without the overlay folder."""
    from yili_corpus.query.index import index_digest, index_path

    cache, ov = tmp_path / "cache", tmp_path / "ov"
    monkeypatch.setenv("YILI_CACHE_DIR", str(cache))
    here, copy = tmp_path / "yili-xiangsheli.xml", tmp_path / "yili-copy.xml"
    shutil.copyfile(TEI, here)
    copy.write_bytes(TEI.read_bytes() + b"<!-- a copy -->\n")
    wit = tmp_path / "w.txt"
    wit.write_text("\n".join((ROOT / "corpus" / "niutrans-yili-05.txt").read_text(encoding="utf-8").splitlines()[:3]),
                   encoding="utf-8")
    r = CliRunner().invoke(main, ["--tei", str(here), "--overlay", str(ov), "import", "witness", str(wit), "--name", "wt"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["--tei", str(here), "--overlay", str(ov), "xref", "16.1"])
    assert r.exit_code == 0 and "parallel in copy" in r.stdout, r.output
    assert index_path(index_digest(copy, ov)).is_file()
    assert not index_path(index_digest(copy, None)).is_file()
