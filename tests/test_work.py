"""The whole work as one corpus (issue 15, items 3 and 6): references that name their chapter,
every read command across chapters or in the one --chapter names, import into any chapter.

These run the commands on the project's tei/ as a user types them. They need the chapters they
name (乡射礼, 大射, 燕礼, 士冠礼) in tei/, and hold for any number of sections per chapter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.cli import main

ROOT = Path(__file__).resolve().parent.parent
TEIS = sorted(p.stem.removeprefix("yili-") for p in (ROOT / "tei").glob("yili-*.xml"))


@pytest.fixture(autouse=True)
def _in_project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("YILI_TEI", raising=False)
    monkeypatch.setenv("YILI_OVERLAY", str(tmp_path / "overlays"))  # no user overlays in the way


def yili(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def as_json(*args: str) -> dict:  # type: ignore[type-arg]
    code, out, err = yili(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_search_reads_every_chapter_and_names_each_hits_chapter() -> None:
    res = as_json("search", "比三耦")
    chapters = {h["chapter"] for h in res["hits"]}
    assert {"xiangsheli", "dashe"} <= chapters
    assert all(h["ref"].startswith(h["chapter"] + ".") for h in res["hits"])
    assert res["total"] == sum(c["total"] for c in res["chapters"]) == len(res["hits"])
    code, out, _ = yili("search", "比三耦")
    assert code == 0 and "乡射礼 (xiangsheli)" in out and "大射 (dashe)" in out
    # --chapter, before or after the command, restricts the search to one chapter
    for args in (("--chapter", "dashe", "search", "比三耦"), ("search", "比三耦", "--chapter", "dashe")):
        code, out, _ = yili(*args, "--json")
        hits = json.loads(out)["hits"]
        assert code == 0 and hits and {h["chapter"] for h in hits} == {"dashe"}
    # --limit cuts the hits of the whole work, the counts stay whole
    limited = as_json("search", "比三耦", "--limit", "1")
    assert len(limited["hits"]) == 1 and limited["total"] == res["total"]


@pytest.mark.parametrize("args, heading", [
    (("show", "燕礼第1节"), "《仪礼·燕礼》第1节"),
    (("show", "燕禮 1"), "《仪礼·燕礼》第1节"),
    (("show", "yanli.1"), "《仪礼·燕礼》第1节"),
    (("show", "yanli.1.1"), "《仪礼·燕礼》第1节"),
    (("show", "大射 1"), "《仪礼·大射》第1节"),
    (("show", "16"), "《仪礼·乡射礼》第16节"),
    (("show", "乡射礼第十六节"), "《仪礼·乡射礼》第16节"),
    (("--chapter", "dashe", "show", "1"), "《仪礼·大射》第1节"),
    (("show", "1", "--chapter", "dashe"), "《仪礼·大射》第1节"),
    (("--chapter", "大射", "show", "1"), "《仪礼·大射》第1节"),
])
def test_references_name_their_chapter(args: tuple[str, ...], heading: str) -> None:
    code, out, err = yili(*args)
    assert code == 0, err
    assert out.splitlines()[0].startswith(heading), out[:200]


def test_a_unit_id_of_any_chapter_is_a_reference() -> None:
    hit = next(h for h in as_json("--chapter", "dashe", "search", "之")["hits"] if ".w005." in (h.get("unit") or ""))
    code, out, err = yili("show", hit["unit"])
    assert code == 0, err
    assert out.startswith("《仪礼·大射》第") and f"({hit['chapter']}." in out.splitlines()[0]


def test_a_range_stays_inside_its_chapter() -> None:
    res = as_json("show", "yanli.1-yanli.1")
    assert res["ref"].startswith("yanli.1")
    code, _, err = yili("show", "yanli.1-dashe.1")
    assert code == 2 and "another chapter" in err


@pytest.mark.parametrize("args", [
    ("--chapter", "nope", "show", "1"),
    ("show", "nope.1"),
    ("show", "周礼第3节"),
    ("search", "比三耦", "--chapter", "nope"),
    ("stats", "--chapter", "nope"),
])
def test_a_bad_chapter_is_one_line_listing_the_chapters(args: tuple[str, ...]) -> None:
    code, out, err = yili(*args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("yili: error: ")
    assert all(cid in err for cid in TEIS)


def test_cite_of_a_shiguanli_sentence_finds_its_chapter_and_section() -> None:
    # a sentence of 士冠礼 as its punctuated witness writes it: the longest of its first paragraph
    # that has no character the witness could not encode (□)
    first = (ROOT / "corpus" / "niutrans-yili-01.txt").read_text(encoding="utf-8").splitlines()[0]
    sentence = max((s for s in re.split("[。]", first) if "□" not in s), key=len)
    res = as_json("cite", sentence)
    best = res["results"][0]
    assert best["chapter"] == "shiguanli" and best["ref"].startswith("shiguanli.")
    assert best["section"] >= 1 and best["score"] > 0.9
    code, out, err = yili("cite", sentence)
    assert code == 0 and "士冠礼" in out and "shiguanli." in err


def test_stats_lists_every_tei_in_tei_dir() -> None:
    st = as_json("stats")
    numbers = [c["number"] for c in st["chapters"]]
    assert numbers == sorted(numbers)  # in the order of the work
    assert sorted(c["chapter"] for c in st["chapters"]) == TEIS
    assert all(c["sections"] >= 1 and "jing" in c["layers"] for c in st["chapters"])
    assert st["sections"] == sum(c["sections"] for c in st["chapters"])
    for k, tot in st["totals"].items():
        assert tot["units"] == sum(c["layers"][k]["units"] for c in st["chapters"] if k in c["layers"])
    code, out, _ = yili("stats")
    assert code == 0 and f"{len(TEIS)} chapters" in out
    assert all(re.search(rf"^\s*\d+ {cid}\s", out, re.M) for cid in TEIS)
    # one chapter: its section grid, as before
    one = as_json("stats", "--chapter", "yanli")
    assert one["chapter"] == "yanli" and [s["section"] for s in one["sections"]][0] == 1


def test_import_a_witness_into_another_chapter(tmp_path: Path) -> None:
    n = len(as_json("--chapter", "shiguanli", "stats")["sections"])
    res = as_json("--chapter", "shiguanli", "show", f"1-{n}", "--layer", "jing")
    passages = res.get("passages", [res])
    text = "\n".join(u["text"].replace("\u3000", "") for p in passages for u in p["layers"].get("jing", []))
    i = text.index("主人")
    (tmp_path / "w.txt").write_text(text[:i] + "主宾" + text[i + 2:], encoding="utf-8")
    code, out, err = yili("--chapter", "shiguanli", "import", "witness", str(tmp_path / "w.txt"), "--name", "mine")
    assert code == 0, err
    overlay = (tmp_path / "overlays" / "mine.xml").read_text(encoding="utf-8")
    assert 'type="chapter" n="shiguanli"' in overlay
    # its reading is shown in 士冠礼, and nowhere in 乡射礼
    code, out, _ = yili("show", f"士冠礼1-{n}")
    assert code == 0 and "异文 mine" in out
    code, out, _ = yili("show", "16")
    assert code == 0 and "异文 mine" not in out
    code, out, _ = yili("overlays")
    assert code == 0 and re.search(r"^mine\s+witness\s+shiguanli\s", out, re.M), out


def test_export_and_xref_take_the_chapter(tmp_path: Path) -> None:
    code, out, err = yili("export", "--chapter", "yanli", "--section", "1", "--layer", "jing", "--format", "md")
    assert code == 0 and "《仪礼·燕礼》" in out and "乡射礼" not in out, err
    code, out, err = yili("export", "--section", "16", "--layer", "jing", "--format", "md")  # the default chapter
    assert code == 0 and "《仪礼·乡射礼》" in out, err
    x = as_json("xref", "yanli.1")
    assert x["ref"].startswith("yanli.1") and x["section"] == 1
    assert as_json("--chapter", "dashe", "xref", "1")["ref"].startswith("dashe.1")


def test_a_section_range_is_the_default_chapters_numbering() -> None:
    res = as_json("search", "司射", "--section", "16")
    assert res["hits"] and {h["chapter"] for h in res["hits"]} == {"xiangsheli"}
    assert {h["section"] for h in res["hits"]} == {16}


def test_an_import_into_one_chapter_leaves_the_other_chapters_indexes(tmp_path: Path) -> None:
    """The digest an index is kept under takes the overlays of its own chapter only: after an
    import into 乡射礼 a search of the work does not rebuild 大射's index (nor the fifteen others)."""
    from yili_corpus.query.index import index_digest

    tei = Path(__file__).resolve().parents[1] / "tei"
    ov = tmp_path / "ov"
    ov.mkdir()
    (ov / "a.xml").write_text('<TEI><bibl type="chapter" n="xiangsheli"><title>乡射礼</title></bibl></TEI>',
                              encoding="utf-8")
    before = {c: index_digest(tei / f"yili-{c}.xml", ov) for c in ("xiangsheli", "dashe")}
    (ov / "b.xml").write_text('<TEI><bibl type="chapter" n="xiangsheli"><title>乡射礼</title> 2</bibl></TEI>',
                              encoding="utf-8")
    after = {c: index_digest(tei / f"yili-{c}.xml", ov) for c in ("xiangsheli", "dashe")}
    assert after["dashe"] == before["dashe"]
    assert after["xiangsheli"] != before["xiangsheli"]
    # an overlay that names no chapter (made before the work had several) is every chapter's
    (ov / "c.xml").write_text("<TEI><title>old</title></TEI>", encoding="utf-8")
    assert index_digest(tei / "yili-dashe.xml", ov) != after["dashe"]
