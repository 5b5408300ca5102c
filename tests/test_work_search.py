"""Search of the whole work (issue 15, item 5): the shortcuts that make it fast (a chapter skipped
when a term of the query is in none of its units, the rarest pair found in one lookup, the
readings joined through ``units_layer``) give what a plain scan of every unit gives.

These run ``yili search`` on the project's tei/ as a user types it, and check each chapter's
count against every unit's key read from the chapter's index; they hold for any chapters in tei/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.cli import main
from yili_corpus.query.index import Index
from yili_corpus.query.search import make_normaliser

ROOT = Path(__file__).resolve().parent.parent
TEIS = sorted((ROOT / "tei").glob("yili-*.xml"))
# found in one chapter, in several, in every one, and nowhere
QUERIES = ["比三耦", "获者", "宾西阶上北面荅拜", "斩衰", "主人", "觯", "司马命张侯弟子", "冠礼无此之文"]


@pytest.fixture(autouse=True)
def _in_project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("YILI_TEI", raising=False)
    monkeypatch.setenv("YILI_OVERLAY", str(tmp_path / "overlays"))


@pytest.fixture(scope="module")
def indexes() -> dict[str, Index]:
    return {p.stem.removeprefix("yili-"): Index.open(p) for p in TEIS}


def test_search_of_the_work_counts_what_a_scan_of_every_unit_finds(indexes: dict[str, Index]) -> None:
    assert len(TEIS) > 1, "needs the chapters' TEIs in tei/"
    for q in QUERIES:
        r = CliRunner().invoke(main, ["search", q, "--json"])
        assert r.exit_code in (0, 1), r.stderr
        res = json.loads(r.stdout) if r.exit_code == 0 else {"hits": [], "chapters": []}
        got: dict[str, int] = {}
        for h in res["hits"]:
            if "witness" not in h:
                got[h["chapter"]] = got.get(h["chapter"], 0) + 1
        want: dict[str, int] = {}
        for cid, idx in indexes.items():
            key = make_normaliser(idx).key(q)
            n = sum(rec.key.count(key) for rec in idx.rows())
            if n:
                want[cid] = n
            # the shortcut never drops a chapter that holds the query
            assert idx.may_hold(key) or not n, (q, cid)
        assert got == want, q
        assert r.exit_code == (0 if want or res["hits"] else 1), q
    # the cases the issue names
    res = json.loads(CliRunner().invoke(main, ["search", "比三耦", "--json"]).stdout)
    assert {"xiangsheli", "dashe"} <= {c["chapter"] for c in res["chapters"]}


def test_a_readings_paragraph_is_a_unit_of_its_section_and_layer(indexes: dict[str, Index]) -> None:
    """The readings are joined to their units on layer, section and unit (through units_layer):
    the same rows as the join on the unit alone."""
    seen = 0
    for cid, idx in indexes.items():
        alone = idx.con.execute("SELECT r.id, u.pages FROM readings r JOIN units u ON u.unit = r.paragraph "
                                "ORDER BY r.id")
        n = idx.con.execute("SELECT count(*) FROM readings").fetchone()[0]
        assert len(alone) == n, cid
        assert [json.loads(pg) for _, pg in alone] == [rd.rec.pages for rd in idx.readings()], cid
        seen += n
    assert seen, "no witness readings in any chapter"
