"""The clause division from evidence (issue 12, item 4): w001's ． overruled where the punctuated
witnesses run through it, boundaries added where they agree, the evidence in the TEI and the
report, the moved ids listed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from yili_corpus.build import BuildResult
from yili_corpus.cli import main
from yili_corpus.text.clauses import Place, decide

from .conftest import CORPUS, ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
NS = {"t": "http://www.tei-c.org/ns/1.0"}


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def yili(*args: str):
    r = CliRunner().invoke(main, ["--tei", str(TEI), *args])
    assert "Traceback" not in r.output
    return r


def clauses(ref: str) -> list[str]:
    """The 经/记 clauses of a paragraph as ``show --json`` gives them."""
    r = yili("show", ref, "--json")
    assert r.exit_code == 0, r.output
    layers = json.loads(r.output)["layers"]
    return [c["text"] for c in layers.get("jing", layers.get("ji", []))]


def clause_of(word: str) -> tuple[str, list[str]]:
    """The clause ids and texts of the paragraph where ``word`` stands in the 经/记 (search)."""
    r = yili("search", word, "--layer", "jing", "--layer", "ji", "--json")
    assert r.exit_code == 0, r.output
    hits = json.loads(r.output)["hits"]
    assert len(hits) == 1, hits
    ref = hits[0]["ref"]
    return ref, clauses(ref.rsplit(".", 1)[0])


def test_18_2_has_tang_qian_san_gan_in_one_clause() -> None:
    got = clauses("18.2")
    assert "堂前三笴" in got  # w001 cuts 堂前．三笴; w003 and w006 read it as one clause
    assert not any(c.endswith("堂前") for c in got)
    out = yili("show", "18.2").output
    assert "堂前三笴" in out and "．" not in out  # w001's mark is not shown as punctuation


def test_52_li_she_bu_zhu_pi_is_one_clause_and_ji_is_a_heading() -> None:
    ref, got = clause_of("礼射不主皮")
    assert any(c.startswith("礼射不主皮") for c in got), got  # w001: 礼．射不主皮
    assert "礼" not in got
    # w001 runs the heading 记 into 大夫与; w006, w000 and w004 all write 记。大夫与，
    first = clauses("52.1")
    assert first[:2] == ["记", "大夫与"], first
    assert not any("记大夫与" in c for c in first)


def test_a_place_w006_and_w000_both_punctuate_is_a_clause_boundary(built: BuildResult) -> None:
    """w006 and w000 write 司马反为司正，退，复觯南而立 (§45); w001 has 退复觯南而立 as one clause."""
    _ref, got = clause_of("复觯南而立")
    assert "复觯南而立" in got and "退" in got, got
    # every such place in the build, where nothing else contradicts the two
    d = built.division
    assert d is not None
    starts = {a for a, _b, _u in d.clauses}
    both = [p for p in d.places.values()
            if {"w006", "w000"} <= set(p.marks) and not set(p.through) - {"w001"} and not p.in_site]
    assert len(both) > 200
    assert all(p.at in starts for p in both)


def test_the_rule_decides_by_votes_and_a_zhu_keeps_its_place() -> None:
    p = Place(10, marks={"w001": "．"}, through=["w003", "w006"])
    decide(p, "w001")
    assert not p.boundary and "1 for, 2 against" in p.rule
    p = Place(10, marks={"w001": "．"}, through=["w006"])
    decide(p, "w001")
    assert p.boundary and "tie" in p.rule  # one witness alone does not change w001's division
    p = Place(10, marks={"w006": "，"}, through=["w001"], zhu=["w005"])
    decide(p, "w001")
    assert p.boundary and "注" in p.rule
    p = Place(10, marks={"w006": "，", "w000": "，"}, through=["w001"], in_site=True)
    decide(p, "w001")
    assert not p.boundary and "site" in p.rule


def test_tei_records_the_evidence_of_every_changed_boundary() -> None:
    root = etree.parse(str(TEI)).getroot()
    items = root.findall(".//t:editorialDecl/t:segmentation/t:p/t:list[@type='clause-division']/t:item", NS)
    kinds = [i.get("n") for i in items]
    assert kinds.count("removed") >= 30 and kinds.count("added") >= 100
    ids = {e.get("{http://www.w3.org/XML/1998/namespace}id") for e in root.iter("{*}seg")}
    tang = [i for i in items if "堂前｜三笴" in (i.text or "")]
    assert len(tang) == 1 and tang[0].get("n") == "removed"
    assert "run through by w003, w006" in tang[0].text
    assert tang[0].get("corresp") == "#xiangsheli.18.2.5"
    for i in items:
        assert all(c.lstrip("#") in ids for c in i.get("corresp", "").split())
    # the clause over the overruled ． quotes w001's characters either side of it
    seg = next(e for e in root.iter("{*}seg") if e.get("{http://www.w3.org/XML/1998/namespace}id") == "xiangsheli.18.2.5")
    assert seg is not None and len(seg.get("source", "").split()) == 4
    assert "Clauses are divided by the evidence" in root.findtext(".//t:editorialDecl/t:correction/t:p", "", NS)


def test_the_report_lists_the_changes_and_the_moved_ids(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), "--tei-dir", str(tmp_path / "tei"),
                                  "--report-dir", str(tmp_path / "build")])
    assert r.exit_code == 0, r.output
    assert "§18 removed 下之东南堂前｜三笴西面北上" in r.output
    assert "xiangsheli.18.2.3 → xiangsheli.18.2.5 xiangsheli.18.2.6 (divided)" in r.output
    rep = json.loads((tmp_path / "build" / "xiangsheli.report.json").read_text(encoding="utf-8"))["clauses"]
    moved = {m["old"]: m for m in rep["moved_ids"]}
    assert moved["xiangsheli.52.1.2"]["new"] == ["xiangsheli.52.1.3"]  # 则公士为宾, after 记｜大夫与
    assert moved["xiangsheli.52.1.2"]["change"] == "renumbered"
    assert "xiangsheli.1.1.1" not in moved  # nothing changed in §1: its ids stand
    assert rep["counts"]["clauses"] == rep["counts"]["base clauses"] + rep["counts"]["boundaries added"] \
        - rep["counts"]["boundaries removed"]
    # the list the docs point to is the build's
    doc = (ROOT / "docs" / "clause-ids.tsv").read_text(encoding="utf-8")
    rows = [ln.split("\t") for ln in doc.splitlines() if ln and not ln.startswith(("#", "old\t"))]
    assert {row[0] for row in rows} == set(moved)
    assert "clause-ids.tsv" in (ROOT / "docs" / "collation.md").read_text(encoding="utf-8")


def test_clause_ids_doc_is_up_to_date() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_clause_ids.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_override_still_applies(built: BuildResult) -> None:
    assert built.stale_overrides == []
