"""The yili command line, driven with click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from yili_corpus.cli import main

from .conftest import CORPUS


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_build_writes_model_and_report_and_check_passes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("build", "--corpus", str(CORPUS), "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "w003" in r.output and "placed" in r.output
    assert "built 53 sections" in r.output
    model = json.loads((out / "xiangsheli.model.json").read_text(encoding="utf-8"))
    assert len(model["sections"]) == 53
    assert model["sections"][16]["paragraphs"][1]["clauses"][1]["text"] == "弟子说束"
    r = run("build", "--corpus", str(CORPUS), "--out", str(out), "--check")
    assert r.exit_code == 0, r.output


def test_check_fails_when_stale(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("build", "--corpus", str(CORPUS), "--out", str(out), "--check")
    assert r.exit_code == 3
    assert "stale" in r.output


def test_build_json_report(tmp_path: Path) -> None:
    r = run("build", "--corpus", str(CORPUS), "--out", str(tmp_path), "--json")
    assert r.exit_code == 0
    rep = json.loads(r.output)
    assert {c["source"] for c in rep["sources"]} == {"w000", "w001", "w002", "w003", "w004"}
    assert any(v["lemma"] == "束" for v in rep["variants"])


def test_damaged_source_gives_one_line_and_exit_3(corpus_copy: Path, tmp_path: Path) -> None:
    p = corpus_copy / "003_daa8338dfba24e1e.txt"
    p.write_bytes(p.read_bytes() + b"\n")
    r = CliRunner().invoke(main, ["build", "--corpus", str(corpus_copy), "--out", str(tmp_path)])
    assert r.exit_code == 3
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "checksum changed" in lines[0] and "Traceback" not in r.output


def test_not_a_corpus_folder_is_bad_usage(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["build", "--corpus", str(tmp_path)])
    assert r.exit_code == 2
    assert "no manifest.toml" in r.output


def test_failed_build_leaves_existing_output_untouched(corpus_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("build", "--corpus", str(CORPUS), "--out", str(out)).exit_code == 0
    before = (out / "xiangsheli.model.json").read_bytes()
    (corpus_copy / "sections.tsv").write_text("n\tkind\ttitle\tincipit\n1\tjing\tx\t不存在的开头\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["build", "--corpus", str(corpus_copy), "--out", str(out)])
    assert r.exit_code == 3
    assert (out / "xiangsheli.model.json").read_bytes() == before


def test_help_has_an_example() -> None:
    r = run("build", "--help")
    assert r.exit_code == 0 and "Example" in r.output and "yili build --check" in r.output
