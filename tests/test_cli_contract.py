"""The command line as a user's shell sees it (issue 14, items 4, 5, 7, 8): citation entries
alone on stdout that parse, one error style with each command's exit codes in its help, the
coverage table of ``yili stats``, the corpus installed with the package."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import CORPUS, ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
SRC = ROOT / "src"


def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``yili ARGS`` in a subprocess, stdout and stderr apart."""
    e = dict(os.environ)
    e["PYTHONPATH"] = str(SRC) + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "yili_corpus.cli", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=e, timeout=300)


def commentators() -> dict[str, str]:
    """layer → name, from corpus/commentators.tsv."""
    rows = [r for r in csv.reader((ln for ln in (CORPUS / "commentators.tsv").read_text(encoding="utf-8")
                                   .splitlines() if ln and not ln.startswith("#")), delimiter="\t")]
    return {r[3]: r[1] for r in rows[1:]}


def manifest_edition() -> dict[str, str]:
    import tomllib

    m = tomllib.loads((CORPUS / "manifest.toml").read_text(encoding="utf-8"))
    return next(s for s in m["source"] if s.get("edition_date"))


def parse_bibtex(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """A minimal BibTeX reader: ``@type{key, field = {value}, …}`` entries with balanced braces;
    anything else between entries, or an entry that does not close, is an error."""
    out = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i == n:
            return out
        m = re.compile(r"@(\w+)\s*\{\s*([^,\s{}]+)\s*,").match(text, i)
        assert m, f"not an entry at {text[i:i + 40]!r}"
        typ, key, i = m.group(1).lower(), m.group(2), m.end()
        fields: dict[str, str] = {}
        while True:
            fm = re.compile(r"\s*(\}|(\w+)\s*=\s*\{)").match(text, i)
            assert fm, f"bad field at {text[i:i + 40]!r}"
            i = fm.end()
            if fm.group(1) == "}":
                break
            depth, start = 1, i
            while depth:
                assert i < n, "unbalanced braces"
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            name = fm.group(2).lower()
            assert name not in fields, f"field {name} twice"
            fields[name] = text[start : i - 1]
            sep = re.compile(r"\s*,").match(text, i)
            if sep:
                i = sep.end()
        out.append((typ, key, fields))


# -- cite: the entry alone on stdout -------------------------------------------------------------

def test_cite_csl_json_alone_on_stdout_parses_with_author_edition_and_date() -> None:
    r = run("--tei", str(TEI), "cite", "司正为司马", "--style", "csl-json")
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)  # nothing but the entry
    assert isinstance(items, list) and len(items) == 1
    it = items[0]
    assert it["locator"] == "xiangsheli.17.1.1" and it["section"] == "17" and it["title"] == "仪礼·乡射礼"
    assert it["dimensions"] == "jing" and it["chapter-number"] == "5"
    ed = manifest_edition()
    assert it["edition"] == ed["edition_name"] and it["container-title"] == ed["edition_title"]
    assert it["issued"] == {"date-parts": [[int(ed["edition_date"])]]}
    # the candidates went to stderr
    assert "also" in r.stderr and "xiangsheli.17.1@shu" in r.stderr
    # the python -m json.tool of the issue
    t = subprocess.run([sys.executable, "-m", "json.tool"], input=r.stdout, capture_output=True, text=True)
    assert t.returncode == 0, t.stderr


@pytest.mark.parametrize(("quote", "layer"), [("州长春秋以礼会民", "shu"), ("主人州長也鄉大夫若在焉", "zhu"),
                                              ("説吐活反又始鋭反", "yinyi"), ("適敖本作西", "kaozheng")])
def test_cite_names_the_author_of_the_layer(quote: str, layer: str) -> None:
    want = commentators()[layer]
    r = run("--tei", str(TEI), "cite", quote, "--style", "csl-json")
    assert r.returncode == 0, r.stderr
    it = json.loads(r.stdout)[0]
    assert it["dimensions"] == layer and it["author"] == [{"literal": want}]
    b = run("--tei", str(TEI), "cite", quote, "--style", "bibtex")
    [(_typ, _key, fields)] = parse_bibtex(b.stdout)
    assert fields["author"] == want and fields["layer"] == layer


def test_cite_modern_layers_name_their_editors() -> None:
    r = run("--tei", str(TEI), "cite", "乡射的礼仪：主人前往告请宾", "--style", "csl-json")
    it = json.loads(r.stdout)[0]
    assert it["dimensions"] == "trans" and it["author"] == [{"literal": commentators()["trans"]}]


def test_cite_bibtex_alone_on_stdout_parses() -> None:
    r = run("--tei", str(TEI), "cite", "司正为司马", "--style", "bibtex")
    assert r.returncode == 0, r.stderr
    entries = parse_bibtex(r.stdout)
    assert len(entries) == 1
    typ, key, f = entries[0]
    ed = manifest_edition()
    assert typ == "misc" and key == "xiangsheli-17-1-1"
    assert f["section"] == "17" and f["layer"] == "jing" and f["work"] == "仪礼" and f["part"] == "乡射礼"
    assert f["edition"] == ed["edition_name"] and f["booktitle"] == ed["edition_title"]
    assert f["year"] == ed["edition_date"] and f["origdate"] == ed["edition_date_text"]
    assert "also" in r.stderr and "also" not in r.stdout


def test_cite_nothing_found_says_so_on_stderr() -> None:
    r = run("--tei", str(TEI), "cite", "天地玄黄宇宙洪荒", "--style", "csl-json")
    assert r.returncode == 1 and r.stdout == "" and "no passage" in r.stderr
