"""The index build at scale (issue 15, item 5): the ways of building it give the same index, and
export reads the sections it exports from the index, not the whole TEI (docs/performance.md)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from yili_corpus.api import Corpus
from yili_corpus.export import render
from yili_corpus.query import index as ix
from yili_corpus.tei.read import read_tei

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
TABLES = ["meta", "units", "grams", "gramcount", "sections", "aliases", "readings"]


def table_rows(con: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {t: con.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in TABLES}


def test_two_processes_build_the_same_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    one = sqlite3.connect(tmp_path / "one.sqlite")
    two = sqlite3.connect(tmp_path / "two.sqlite")
    assert ix.fill_index(one, TEI, workers=1) == ix.fill_index(two, TEI, workers=2)
    one.commit()
    two.commit()
    a, b = table_rows(one), table_rows(two)
    assert len(a["units"]) > 1000 and len(a["grams"]) > 50000  # the chapter, not an empty file
    for t in TABLES:
        assert a[t] == b[t], t
    schema = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
    assert one.execute(schema).fetchall() == two.execute(schema).fetchall()


def test_term_counts_are_the_counts_of_str_count() -> None:
    for key in ["司射司射", "乡乡乡射", "AAAAA", "ABABA", "宾", ""]:
        got = ix._gram_counts(key)
        terms = set(key) | {key[i : i + 2] for i in range(len(key) - 1)}
        assert got == {g: key.count(g) for g in terms}, key


@pytest.mark.parametrize("fmt", ["md", "html", "json", "tsv"])
def test_export_of_a_range_reads_only_its_sections(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    c = Corpus(TEI, tmp_path / "no-overlays")
    got = c.export(fmt, sections="16-22")
    assert "document" not in c.__dict__  # the whole TEI was not read
    want = render(read_tei(TEI), TEI, fmt, list(range(16, 23)), None, [])
    assert got == want
