"""The md export and the layers of an export as a user types the commands: the apparatus as
footnotes, well-formed tables, a notice for an absent layer, imported layers exported."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.cli import main

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
W002 = ROOT / "corpus" / "002_f61d8bf8bcd3beb8.txt"


@pytest.fixture()
def ov(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("YILI_OVERLAY", raising=False)
    return tmp_path / "overlays"


def yili(ov: Path, *args: str):
    r = CliRunner().invoke(main, ["--tei", str(TEI), "--overlay", str(ov), *args])
    assert "Traceback" not in r.output + r.stderr
    return r


def tables(md: str) -> list[list[str]]:
    """The tables of a Markdown text, as their lines."""
    out, cur = [], []
    for line in md.split("\n"):
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    return out + ([cur] if cur else [])


def cells(line: str) -> int:
    """The number of cells of a table line (escaped bars are not separators)."""
    return len(re.split(r"(?<!\\)\|", line.strip())) - 2


def test_md_tables_are_well_formed_with_no_empty_column(ov: Path) -> None:
    for args in (["--section", "30", "--layer", "zhu"], ["--section", "16-22"], ["--section", "1-53"]):
        r = yili(ov, "export", *args, "--format", "md")
        assert r.exit_code == 0, r.output
        ts = tables(r.stdout)
        assert ts, args
        for t in ts:
            n = cells(t[0])
            assert re.fullmatch(r"\|---\|(---\|)+", t[1]), t[1]
            assert all(cells(x) == n for x in t), (args, t[0])
            for col in range(1, n):  # every column has text in some row
                assert any(re.split(r"(?<!\\)\|", x)[col + 1].strip() for x in t[2:]), (args, t[0], col)
    r = yili(ov, "export", "--section", "30", "--layer", "zhu", "--format", "md")
    assert tables(r.stdout)[0][0] == "| ref | 郑注 |"


def test_md_apparatus_is_footnotes(ov: Path) -> None:
    r = yili(ov, "export", "--section", "17", "--format", "md")
    refs = re.findall(r"\[\^(\d+)\](?!:)", r.stdout)
    defs = re.findall(r"^\[\^(\d+)\]: (.*)$", r.stdout, re.M)
    assert refs and sorted(refs, key=int) == [d for d, _ in defs]
    note = dict(defs)[re.search(r"弟子说束\[\^(\d+)\]", r.stdout).group(1)]  # type: ignore[union-attr]
    assert note.startswith("束］") and "东" in note and "（异文；" in note


def test_an_absent_layer_gets_a_notice_and_no_empty_output(ov: Path, tmp_path: Path) -> None:
    r = yili(ov, "export", "--section", "21", "--layer", "trans", "--format", "md")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.strip().count("\n") == 0 and "yili: notice:" in r.stderr and "今译" in r.stderr
    out = tmp_path / "x.html"
    r = yili(ov, "export", "--section", "21", "--layer", "trans", "--format", "html", "-o", str(out))
    assert r.exit_code == 1 and not out.exists()
    r = yili(ov, "export", "--section", "21", "--layer", "trans", "--layer", "zhu", "--format", "md")
    assert r.exit_code == 0 and "今译" in r.stderr and "今译" not in r.stdout and "郑注" in r.stdout
    r = yili(ov, "export", "--section", "21", "--layer", "trans", "--layer", "zhu", "--format", "html")
    assert r.exit_code == 0 and 'data-layer="trans"' not in r.stdout and 'data-layer="zhu"' in r.stdout


def test_an_imported_translation_is_exported(ov: Path, tmp_path: Path) -> None:
    lines = W002.read_text(encoding="utf-8").split("\n")
    f = tmp_path / "mine.txt"
    f.write_text("\n\n".join(lines[142:150]) + "\n", encoding="utf-8")
    r = yili(ov, "import", "translation", str(f), "--name", "mine", "--json")
    assert r.exit_code == 0, r.output
    first = lines[142][:12]
    for fmt in ("md", "html", "tsv", "json"):
        r = yili(ov, "export", "--section", "1-2", "--layer", "jing", "--layer", "trans:mine", "--format", fmt)
        assert r.exit_code == 0 and r.stderr == "", (fmt, r.stderr)
        assert first in r.stdout, fmt
        assert "trans:mine" in r.stdout or "今译:mine" in r.stdout, fmt
    j = json.loads(yili(ov, "export", "--section", "1", "--format", "json").stdout)
    assert "trans:mine" in j["sections"][0]["passage"]["layers"]  # all layers: the overlay's too
    r = yili(ov, "export", "--section", "1", "--format", "html")
    assert 'data-layer="trans-mine"' in r.stdout and 'data-layer="trans"' in r.stdout


def test_a_shu_of_two_witnesses_marks_each_entry_at_its_words(ov: Path) -> None:
    """17.1: the 疏 is the 四库 copy's; w003's 使 against its 便 (in 云由便也者) is marked on 便,
    in html (a tooltip on the lemma); md lists it among the footnotes of the 疏."""
    html = yili(ov, "export", "--section", "17", "--layer", "shu", "--format", "html").stdout
    assert '云由<span class="lem" title="便］w003 使' in html
    md = yili(ov, "export", "--section", "17", "--layer", "shu", "--format", "md").stdout
    assert re.search(r"\[\^\d+\]: 便］w003 使", md), md[-600:]
