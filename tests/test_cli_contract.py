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
    """The printed edition's fields of the default chapter's manifest (the work manifest's shared
    rows merged in)."""
    from dataclasses import asdict

    from yili_corpus.sources.manifest import load_manifest

    return next(asdict(s) for s in load_manifest(CORPUS).sources if s.edition_date)


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


# -- one error style, exit codes in every help ------------------------------------------------------

USAGE_ERRORS = [
    (["search", "司射", "--context", "abc"], "'abc' is not a valid integer"),
    (["search"], "Missing argument 'QUERY'"),
    (["show", "17", "--bogus"], "No such option '--bogus'"),
    (["export", "--format", "pdf"], "'pdf' is not one of"),
    (["export"], "Missing option '--format'"),
    (["cite", "司正为司马", "--style", "mla"], "'mla' is not one of"),
    (["nosuch"], "No such command 'nosuch'"),
    (["import", "witness", "x.txt", "--name", "a", "--format", "foo"], "'foo' is not one of"),
    (["overlays", "remove"], "Missing argument 'NAME'"),
    (["import"], "missing command"),
    ([], "missing command"),
    (["show", "99"], "no section 99"),
    (["--tei", "/nonexistent/yili.xml", "show", "1"], "no such TEI file"),
]


@pytest.mark.parametrize(("args", "says"), USAGE_ERRORS)
def test_every_error_is_one_yili_error_line_with_exit_2(args: list[str], says: str) -> None:
    r = run(*(["--tei", str(TEI)] if args[:1] != ["--tei"] else []), *args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("yili: error: "), r.stderr
    assert says.lower() in r.stderr.lower() and "Error:" not in r.stderr and "Traceback" not in r.stderr
    if args and args != ["import"]:
        assert r.stdout == ""


def _commands() -> list[str]:
    import click

    from yili_corpus.cli import main

    out = []

    def walk(g: click.Group, prefix: str) -> None:
        for name, cmd in g.commands.items():
            path = f"{prefix} {name}".strip()
            out.append(path)
            if isinstance(cmd, click.Group):
                walk(cmd, path)

    walk(main, "")
    return out


@pytest.mark.parametrize("command", _commands())
def test_every_command_lists_its_exit_codes_in_its_help(command: str) -> None:
    from yili_corpus.cli import exit_codes

    r = run(*command.split(), "--help")
    assert r.returncode == 0, r.stderr
    tail = r.stdout[r.stdout.index("Exit codes:"):]
    for code, meaning in exit_codes(command).items():
        assert re.search(rf"^\s+{code}\s+{re.escape(meaning[:30])}", tail, re.M), (code, tail)


def test_exit_codes_in_help_are_the_codes_commands_give(tmp_path: Path) -> None:
    from yili_corpus.cli import exit_codes

    env = {"YILI_CACHE_DIR": str(tmp_path / "cache"), "YILI_OVERLAY": str(tmp_path / "ov")}
    for args, code, command in ((["search", "无此之词"], 1, "search"), (["cite", "天地玄黄宇宙洪荒"], 1, "cite"),
                                (["search", "司射"], 0, "search"), (["overlays", "remove", "x"], 2, "overlays remove"),
                                (["show", "99"], 2, "show")):
        r = run("--tei", str(TEI), *args, env=env)
        assert r.returncode == code and code in exit_codes(command), (args, r.returncode, r.stderr)


# -- the coverage table -------------------------------------------------------------------------------

def _doc_layers() -> dict[int, list[str]]:
    from yili_corpus.tei.read import read_tei

    return {s.n: s.layers() for s in read_tei(TEI).sections}


def test_stats_coverage_is_the_layers_each_section_has(tmp_path: Path) -> None:
    env = {"YILI_CACHE_DIR": str(tmp_path / "cache"), "YILI_OVERLAY": str(tmp_path / "ov")}
    r = run("--tei", str(TEI), "stats", "--json", env=env)
    assert r.returncode == 0, r.stderr
    cov = json.loads(r.stdout)["coverage"]
    want = _doc_layers()
    got: dict[int, list[str]] = {}
    for row in cov["rows"]:
        for n in range(row["from"], row["to"] + 1):
            got[n] = row["layers"]
    assert got == want
    # the text: a grid row per run of sections, ● where the layer is
    text = run("--tei", str(TEI), "stats", env=env).stdout
    grid = text[text.index("coverage:"):].splitlines()[2:]
    assert len(grid) == len(cov["rows"])
    for line, row in zip(grid, cov["rows"], strict=True):
        sections, *marks = line.split()
        assert sections == row["sections"]
        assert [k for k, m in zip(cov["layers"], marks, strict=True) if m == "●"] == row["layers"]
    # the README's form: a row a layer, the sections that have it
    md = run("--tei", str(TEI), "stats", "--coverage", env=env).stdout
    from yili_corpus.layers import name

    for k in cov["layers"]:
        have = sorted(n for n, ls in want.items() if k in ls)
        line = next(ln for ln in md.splitlines() if ln.startswith(f"| {name(k)} |"))
        listed: list[int] = []
        for part in line.split("|")[2].split(","):
            a, _, b = part.strip().partition("–")
            listed += range(int(a), int(b or a) + 1)
        assert listed == have and line.split("|")[3].strip() == str(len(have))
    assert "| 记 | 52–53 | 2 |" in md


def test_readme_coverage_table_is_current() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_coverage.py"), "--check"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, "README's coverage table is out of date: run python docs/gen_coverage.py"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| 经 | 1–51 | 51 |" in readme


# -- the corpus installed with the package ------------------------------------------------------------

@pytest.fixture()
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder outside the clone, the TEI where ``pip install .`` puts it (yili_corpus/data/tei,
    see setup.py), and no other way to the TEI."""
    import shutil

    import yili_corpus.paths as paths

    pkg = tmp_path / "site" / "yili_corpus" / "data" / "tei"
    pkg.mkdir(parents=True)
    shutil.copyfile(TEI, pkg / TEI.name)
    monkeypatch.setattr(paths, "__file__", str(tmp_path / "site" / "yili_corpus" / "paths.py"))
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("YILI_TEI", raising=False)
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("YILI_OVERLAY", str(tmp_path / "ov"))
    return pkg


def test_the_packaged_tei_is_found_from_any_folder(outside: Path) -> None:
    import yili_corpus
    from yili_corpus.paths import find_tei_dir, packaged_tei_dir

    assert find_tei_dir() is None  # no clone above this folder
    assert packaged_tei_dir() == outside
    c = yili_corpus.load()
    assert c.tei == outside / TEI.name
    res = c.search("司正")
    assert res["total"] > 0 and res["hits"][0]["section"]
    from click.testing import CliRunner

    from yili_corpus.cli import main

    r = CliRunner().invoke(main, ["search", "司正"])
    assert r.exit_code == 0 and "hits for '司正'" in r.output
    r = CliRunner().invoke(main, ["cite", "司正为司马", "--style", "csl-json"])
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["locator"] == "xiangsheli.17.1.1"


def test_without_clone_or_package_the_error_says_how(outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import yili_corpus.paths as paths

    monkeypatch.setattr(paths, "__file__", str(outside.parent / "nowhere" / "paths.py"))
    from click.testing import CliRunner

    from yili_corpus.cli import main

    r = CliRunner().invoke(main, ["search", "司正"])
    assert r.exit_code == 2 and "pip install ." in r.output and "Traceback" not in r.output


def test_setup_copies_the_tei_into_the_package(tmp_path: Path) -> None:
    """setup.py's build_py puts tei/yili-*.xml where packaged_tei_dir looks (the wheel's
    contents were checked by hand with pip wheel . -w DIR: yili_corpus/data/tei/yili-xiangsheli.xml)."""
    src = (ROOT / "setup.py").read_text(encoding="utf-8").replace("setup(cmdclass=", "dict(cmdclass=")
    ns: dict[str, object] = {"__file__": str(ROOT / "setup.py"), "__name__": "yili_setup"}
    exec(compile(src, str(ROOT / "setup.py"), "exec"), ns)  # the module without running setup()
    from setuptools import Distribution

    dist = Distribution({"name": "yili-corpus", "packages": [], "package_dir": {"": "src"}})
    cmd = ns["BuildWithCorpus"](dist)  # type: ignore[operator]
    cmd.initialize_options()
    cmd.build_lib = str(tmp_path / "lib")
    cmd.finalize_options()
    cmd.run()
    got = tmp_path / "lib" / ns["DATA"]  # type: ignore[operator]
    assert (got / TEI.name).read_bytes() == TEI.read_bytes()
