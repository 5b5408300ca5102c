"""The yili command line, driven with click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from yili_corpus.cli import main

from .conftest import CORPUS


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def out_args(tmp_path: Path) -> list[str]:
    return ["--tei-dir", str(tmp_path / "tei"), "--report-dir", str(tmp_path / "build")]


def test_build_writes_tei_and_report_and_check_passes(tmp_path: Path) -> None:
    r = run("build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), *out_args(tmp_path))
    assert r.exit_code == 0, r.output
    assert "w003" in r.output and "placed" in r.output
    assert "built 53 sections" in r.output
    tei = (tmp_path / "tei" / "yili-xiangsheli.xml").read_bytes()
    assert tei.startswith(b"<?xml") and "弟子说<app".encode() in tei
    report = json.loads((tmp_path / "build" / "xiangsheli.report.json").read_text(encoding="utf-8"))
    assert len(report["sections"]) == 53
    r = run("build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), *out_args(tmp_path), "--check")
    assert r.exit_code == 0, r.output


def test_committed_tei_is_up_to_date() -> None:
    """tei/ in the repository is what corpus/ builds, byte for byte."""
    r = run("build", "--corpus", str(CORPUS), "--check")
    assert r.exit_code == 0, r.output


def test_check_fails_when_stale(tmp_path: Path) -> None:
    r = run("build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), *out_args(tmp_path), "--check")
    assert r.exit_code == 3
    assert "stale" in r.output
    assert run("build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), *out_args(tmp_path), "-q").exit_code == 0
    p = tmp_path / "tei" / "yili-xiangsheli.xml"
    p.write_bytes(p.read_bytes().replace("弟子说".encode(), "弟子說".encode(), 1))
    r = run("build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), *out_args(tmp_path), "--check")
    assert r.exit_code == 3 and "stale" in r.output


def test_build_json_report(tmp_path: Path) -> None:
    r = run("build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), *out_args(tmp_path), "--json")
    assert r.exit_code == 0
    rep = json.loads(r.output)
    assert {c["source"] for c in rep["sources"]} == {"w000", "w001", "w002", "w003", "w004", "w005", "w006"}
    assert any(v["lemma"] == "束" for v in rep["variants"])


def test_damaged_source_gives_one_line_and_exit_3(corpus_copy: Path, tmp_path: Path) -> None:
    p = corpus_copy / "003_daa8338dfba24e1e.txt"
    p.write_bytes(p.read_bytes() + b"\n")
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(corpus_copy), *out_args(tmp_path)])
    assert r.exit_code == 3
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "checksum changed" in lines[0] and "Traceback" not in r.output


def test_not_a_corpus_folder_is_bad_usage(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["build", "--corpus", str(tmp_path)])
    assert r.exit_code == 2
    assert "no manifest.toml" in r.output


def test_failed_build_leaves_existing_output_untouched(corpus_copy: Path, tmp_path: Path) -> None:
    assert run("build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), *out_args(tmp_path)).exit_code == 0
    tei = tmp_path / "tei" / "yili-xiangsheli.xml"
    before = tei.read_bytes()
    (corpus_copy / "sections.tsv").write_text("n\tkind\ttitle\tincipit\n1\tjing\tx\t不存在的开头\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(corpus_copy), *out_args(tmp_path)])
    assert r.exit_code == 3
    assert tei.read_bytes() == before
    assert sorted(x.name for x in tei.parent.iterdir()) == ["yili-xiangsheli.xml"]  # no temp file left


def test_help_has_an_example() -> None:
    r = run("build", "--help")
    assert r.exit_code == 0 and "Example" in r.output and "yili build --check" in r.output
