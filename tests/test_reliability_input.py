"""Reliability of input (issue 10: findings 6, 13, 14, 15): regular expressions within bounds,
references and layers checked, corpus files named when damaged, JSON always UTF-8, and every
error one short line."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from yili_corpus.cli import main
from yili_corpus.errors import UsageError
from yili_corpus.query import search as search_mod
from yili_corpus.query.refs import cn_number

from .conftest import CORPUS, ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
#: Address space for a child that runs a memory-heavy case: the tool needs about 100 MB; before the
#: fix 'a{1000000000}' grew to 9 GB.
CHILD_MEMORY = 1 << 30


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("YILI_OVERLAY", str(tmp_path / "overlays"))
    return tmp_path


def yili(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["--tei", str(TEI), *args])


def one_error_line(r, code: int = 2) -> str:  # type: ignore[no-untyped-def]
    """The one line of a failed command (exit ``code``, no traceback, no internal error)."""
    assert r.exit_code == code, r.output[:500]
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("yili: error: "), r.output[:500]
    return lines[0]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def run_limited(args: list[str | bytes], cache: Path, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """``yili ARGS`` in a child process with at most :data:`CHILD_MEMORY` of address space."""
    env = dict(os.environ, YILI_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-m", "yili_corpus.cli", *args], capture_output=True, env=env,
                          timeout=timeout, preexec_fn=_limit_memory, cwd=cache.parent)


# -- 6: regular expressions ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("pattern", "rule"), [
    ("a{1000000000}", "is more than the 1000 repeats allowed"),      # 14 bytes, grew to 9 GB
    ("获{10000000}", "is more than the 1000 repeats allowed"),        # 6.8 s against a 1 s budget
    ("a{99999999999999999999999999,}", "is more than the 1000 repeats allowed"),
    ("(a{1000}){1000}", "repeats inside repeats multiply"),           # each count allowed, the product not
    ("((获{100}){100}){100}", "repeats inside repeats multiply"),
    ("(?:" * 200 + "获" + ")" * 200, "nest 200 deep"),                # a RecursionError: internal error
    ("(" * 5000 + "获" + ")" * 5000, "10001 characters"),
    ("(?x) 获 # a comment", "verbose"),
], ids=["9GB-repeat", "slow-repeat", "huge-number", "product", "product3", "deep", "long", "verbose"])
def test_regex_is_checked_before_compiling(tmp_path: Path, pattern: str, rule: str) -> None:
    t = time.monotonic()
    r = run_limited(["--tei", str(TEI), "search", pattern, "--regex"], tmp_path / "cache")
    took = time.monotonic() - t
    err = r.stderr.decode("utf-8")
    assert r.returncode == 2, err[:300]
    assert err.startswith("yili: error: the regular expression") and err.count("\n") == 1, err[:300]
    assert "is refused: " in err and rule in err
    assert took < 10  # the index is built in the child's fresh cache: a few seconds


def test_worst_admitted_regex_stays_small_and_quick(tmp_path: Path) -> None:
    """Patterns just inside the bounds compile and run in the budget, in little memory."""
    for pattern in ("(?fi)(ß{100}){200}", "(?:(?:射{10}){10}){200}", "获{1000}" * 20):
        search_mod.check_regex(pattern)  # admitted
        r = run_limited(["--tei", str(TEI), "search", pattern, "--regex"], tmp_path / "cache")
        assert r.returncode in (0, 1), r.stderr.decode("utf-8")[:300]


def _tree_size(node) -> int:  # type: ignore[no-untyped-def]
    """What the regex module's own parse of a pattern holds, with counted repeats written out."""
    from regex import _regex_core as core

    if isinstance(node, core.SetBase):
        return 1
    if isinstance(node, (core.GreedyRepeat, core.LazyRepeat, core.PossessiveRepeat)):
        times = node.max_count if node.max_count is not None else node.min_count
        return _tree_size(node.subpattern) * times
    if isinstance(node, (core.Sequence, core.Branch)):
        return sum(_tree_size(k) for k in (node.items if isinstance(node, core.Sequence) else node.branches))
    kids = [getattr(node, k) for k in ("subpattern", "yes_item", "no_item") if getattr(node, k, None) is not None]
    kids = [k for k in kids if isinstance(k, core.RegexBase)]
    return sum(_tree_size(k) for k in kids) if kids else 1


def _regex_parse(pattern: str):  # type: ignore[no-untyped-def]
    from regex import _regex_core as core

    flags = 0
    while True:
        source = core.Source(pattern)
        info = core.Info(flags, source.char_type, {})
        try:
            return core._parse_pattern(source, info)
        except core._UnscopedFlagSet:
            flags = info.global_flags


TOKENS = ["a", "射", ".", "(", ")", "(?:", "(?i)", "(?V1)", "(?#", "(?=", "(?<=", "(?P<g>", "(?>", "(?|", "[", "]",
          "[^", "[:alpha:]", "[:", ":]", "\\", "\\(", "\\)", "\\[", "\\]", "\\p{L}", "{", "}", "{3}", "{2,}", "{,4}",
          "{2,5}", "{0}", "{10}", "{e<=1}", "*", "+", "?", "|", "--", "&&", "-", "^", ",", "(?R)", "(?1)", "\\g<g>",
          "\\N{LATIN SMALL LETTER A}", "\\p{(", "[[", "]]", "(?#\\)"]


@settings(max_examples=400, deadline=None, database=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=24).map("".join))
def test_regex_scan_never_counts_less_than_the_regex_module_parses(pattern: str) -> None:
    """The check's reading of a pattern is an upper bound of the regex module's own: a pattern
    cannot slip past the bounds by syntax the scan reads differently (sets, escapes, comments)."""
    import regex

    try:
        tree = _regex_parse(pattern)
    except (regex.error, RecursionError):
        return
    readings = (False, True) if "V1" in pattern else (False,)
    try:
        ours = max(search_mod._regex_cost(pattern, v1, pattern)[0] for v1 in readings)
    except UsageError:
        return  # refused: safe
    assert ours >= _tree_size(tree), pattern


def test_regex_compile_counts_in_the_budget(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 1 s budget starts before compiling: a compile that used it up leaves no time to run."""
    import regex

    real = regex.compile

    def slow_compile(*a, **k):  # type: ignore[no-untyped-def]
        time.sleep(search_mod.REGEX_BUDGET + 0.1)
        return real(*a, **k)

    monkeypatch.setattr(regex, "compile", slow_compile)
    line = one_error_line(yili("search", "射", "--regex"))
    assert "ran over 1 s" in line


# -- 13: internal errors for what is the user's input ----------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["show", "1" * 5000], ["xref", "1" * 5000], ["show", "16." + "2" * 5000], ["show", "第" + "1" * 5000 + "节"],
    ["search", "射", "--section", "1-" + "9" * 5000], ["export", "--format", "md", "--section", "9" * 5000],
])
def test_references_of_thousands_of_digits_are_bad_usage(env: Path, args: list[str]) -> None:
    line = one_error_line(yili(*args))
    assert len(line) < 250


def _query_of(out: bytes) -> str:
    return json.loads(out.decode("utf-8"))["query"]  # strict UTF-8: raises on a surrogate's bytes


def test_json_is_valid_utf8_with_a_lone_surrogate(env: Path) -> None:
    """An argument that is not UTF-8 reaches Python as a lone surrogate; JSON output replaces it."""
    r = yili("search", "司射\udcff", "--json", "--limit", "1")
    assert r.exit_code == 0, r.output[:300]
    assert _query_of(r.stdout_bytes) == "司射\ufffd"
    r = yili("cite", "司正为司马\udcff", "--json")
    assert r.exit_code == 0 and _query_of(r.stdout_bytes) == "司正为司马\ufffd"
    one_error_line(yili("show", "16\udcff", "--json"))  # not a reference: one line, not an encoding error
    r = yili("build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), "--tei-dir", str(env / "t\udcff"), "--report-dir", str(env / "r"), "--json")
    assert r.exit_code == 0
    json.loads(r.stdout_bytes.decode("utf-8"))


def test_json_is_valid_utf8_for_bytes_typed_in_a_shell(env: Path) -> None:
    """``yili search $'司射\\xff' --json`` in a real process: the bytes written are UTF-8."""
    for args in ([b"search", "司射".encode() + b"\xff", b"--json", b"--limit", b"1"],
                 [b"cite", "司正为司马".encode() + b"\xff", b"--json"]):
        r = run_limited([b"--tei", str(TEI).encode(), *args], env / "cache")
        assert r.returncode == 0, r.stderr[:300]
        assert _query_of(r.stdout).endswith("\ufffd")
    r = run_limited([b"--tei", str(TEI).encode(), b"show", b"16\xff", b"--json"], env / "cache")
    assert r.returncode == 2 and r.stdout == b"" and r.stderr.decode("utf-8").count("\n") == 1


def _spoil(path: Path, line: int) -> None:
    lines = path.read_bytes().split(b"\n")
    lines[line - 1] += b"\xff\xfe"
    path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize(("name", "line"), [
    ("manifest.toml", 3), ("variants.tsv", 9), ("sections.tsv", 12), ("works.tsv", 12),
    ("yili-chapters.tsv", 12), ("emendations.tsv", 5), ("alignment-overrides.tsv", 3),
])
def test_table_or_manifest_not_utf8_is_damaged_data_naming_file_and_line(corpus_copy: Path, tmp_path: Path,
                                                                        name: str, line: int) -> None:
    _spoil(corpus_copy / name, line)
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(corpus_copy), "--tei-dir", str(tmp_path / "t"),
                                  "--report-dir", str(tmp_path / "r")])
    msg = one_error_line(r, 3)
    assert f"{name}:{line}: " in msg and "UTF-8" in msg
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize(("name", "kind"), [
    ("manifest.toml", "folder"), ("variants.tsv", "folder"), ("works.tsv", "fifo"), ("001_2a8121061e9dfe52.txt", "fifo"),
    ("sections.tsv", "fifo"),
])
def test_unreadable_corpus_file_is_damaged_data_naming_it(corpus_copy: Path, tmp_path: Path, name: str, kind: str) -> None:
    """A folder or a FIFO where a corpus file should be: one line naming it, exit 3 (a FIFO used to
    hang the build; a folder for the manifest was an internal error)."""
    p = corpus_copy / name
    p.unlink()
    p.mkdir() if kind == "folder" else os.mkfifo(p)
    r = run_limited(["build", "--chapter", "xiangsheli", "--corpus", str(corpus_copy), "--tei-dir", str(tmp_path / "t"),
                     "--report-dir", str(tmp_path / "r")], tmp_path / "cache", timeout=30)
    err = r.stderr.decode("utf-8")
    assert r.returncode == 3 and err.count("\n") == 1, err[:300]
    assert err.startswith(f"yili: error: {p}: cannot read: ") and ("folder" in err or "FIFO" in err)


@pytest.mark.parametrize(("old", "new", "words"), [
    ("number = 5", "number = " + "1" * 5000, "not valid TOML"),
    ('variants = "variants.tsv"', "", "[tables] has no variants"),
    ('sections = "sections.tsv"', "sections = 5", "of the wrong type"),
], ids=["5000-digits", "no-table", "not-a-string"])
def test_manifest_entry_of_the_wrong_kind_is_damaged_data(corpus_copy: Path, tmp_path: Path, old: str, new: str,
                                                          words: str) -> None:
    # the chapter's manifest, or the work's where the entry is shared by every chapter
    m = next(f for f in (corpus_copy / "chapters" / "xiangsheli.toml", corpus_copy / "manifest.toml")
             if old in f.read_text(encoding="utf-8"))
    m.write_text(m.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(corpus_copy), "--tei-dir", str(tmp_path / "t"),
                                  "--report-dir", str(tmp_path / "r")])
    assert words in one_error_line(r, 3)


def test_bad_tei_dir_is_refused_before_building_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import yili_corpus.build

    def no_build(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("built before checking the destination")

    monkeypatch.setattr(yili_corpus.build, "run_build", no_build)
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")

    def build(tei: Path, rep: Path):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), "--tei-dir", str(tei), "--report-dir", str(rep)])

    assert "--tei-dir" in one_error_line(build(a_file, tmp_path / "rep")) and "is not a folder" in one_error_line(
        build(a_file, tmp_path / "rep"))
    assert "in the way" in one_error_line(build(a_file / "sub", tmp_path / "rep"))
    assert "--report-dir" in one_error_line(build(tmp_path / "new-tei", a_file))
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, m, **k: Path(p) != tmp_path / "ro" and real_access(p, m, **k))
    (tmp_path / "ro").mkdir()  # unwritable (os.access is told so: as root nothing is unwritable)
    assert "cannot write in" in one_error_line(build(tmp_path / "ro", tmp_path / "rep"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "ro"]  # no folder made, nothing written


# -- 14: wrong answers to bad input ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    ("十", 10), ("十六", 16), ("二十", 20), ("二十三", 23), ("五十三", 53), ("一百", 100), ("一百零二", 102),
    ("一百二十三", 123), ("三", 3), ("十十十十", None), ("一二三", None), ("二百百", None), ("十二十", None),
    ("零一", None), ("一百零", None), ("", None),
])
def test_cn_number_reads_only_well_formed_numerals(text: str, value: int | None) -> None:
    assert cn_number(text) == value


@pytest.mark.parametrize("ref", ["第十十十十节", "第一二三节", "乡射礼十二十"])
def test_malformed_chinese_section_numbers_are_refused(env: Path, ref: str) -> None:
    assert "not a Chinese numeral" in one_error_line(yili("show", ref))


def test_well_formed_chinese_section_numbers_still_work(env: Path) -> None:
    r = yili("show", "乡射礼第二十三节", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["section"] == 23
    assert "no section 102" in one_error_line(yili("show", "第一百零二节"))


def test_unknown_overlay_layer_is_bad_usage_naming_the_overlays(env: Path) -> None:
    assert "there are no overlays" in one_error_line(yili("search", "司射", "--layer", "trans:nope"))
    ov = env / "overlays"
    ov.mkdir()
    (ov / "mine.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc>'
        '<sourceDesc><listWit><witness xml:id="mine" n="translation"/></listWit></sourceDesc></fileDesc>'
        "</teiHeader><text><body/></text></TEI>\n", encoding="utf-8")
    for args in (["search", "司射", "--layer", "trans:nope"], ["show", "16", "--layer", "zhu:mine"],
                 ["export", "--format", "md", "--section", "16", "--layer", "trans:mne"]):
        line = one_error_line(yili(*args))
        assert "no such overlay" in line and "trans:mine" in line
    assert yili("search", "司射", "--layer", "trans:mine").exit_code == 1  # exists: no hits, not an error


# -- 15: messages -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "words"), [
    (["search", "司射", "--bogus"], "No such option '--bogus' (yili search --help for usage)"),
    (["search"], "Missing argument 'QUERY' (yili search --help for usage)"),
    (["--bogus"], "No such option '--bogus' (yili --help for usage)"),
    (["nosuch"], "No such command 'nosuch' (yili --help for usage)"),
    (["search", "司射", "--context", "abc"], "'abc' is not a valid integer"),
    (["show", "16", "--script", "foo"], "'foo' is not one of 'hans', 'hant'"),
    (["import", "translation"], "Missing argument 'FILE' (yili import translation --help for usage)"),
])
def test_click_usage_errors_are_one_line(env: Path, args: list[str], words: str) -> None:
    assert words in one_error_line(yili(*args))


def test_help_still_shows_for_a_bare_group(env: Path) -> None:
    r = CliRunner().invoke(main, [])
    assert "Usage:" in r.output and "Commands:" in r.output


def test_bad_variant_row_is_named_at_its_own_line(corpus_copy: Path) -> None:
    from yili_corpus.errors import DataError
    from yili_corpus.text.normalise import VariantTable

    p = corpus_copy / "variants.tsv"
    lines = p.read_text(encoding="utf-8").splitlines()
    lines.insert(19, "两字\t两\ta bad row: two characters")  # now line 20
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"variants.tsv:20: bad variant row"):
        VariantTable.load(p)


MEGA = "x" * 1_000_000


@pytest.mark.parametrize("args", [
    ["search", MEGA], ["search", MEGA, "--regex"], ["show", MEGA], ["xref", MEGA], ["search", "射", "--layer", MEGA],
    ["search", "射", "--section", MEGA], ["search", "射", "--context", MEGA], ["cite", "司射" + MEGA, "--style", MEGA],
])
def test_error_lines_do_not_echo_a_megabyte(env: Path, args: list[str]) -> None:
    assert len(one_error_line(yili(*args))) <= 400


def test_no_hits_line_quotes_the_query_cut(env: Path) -> None:
    r = yili("search", "天" * 100_000)
    assert r.exit_code == 1 and len(r.output) < 200 and "…" in r.output


# -- the reference parser over random Unicode, bytes and sizes ---------------------------------------

#: What a reference parse may cost at most, whatever it is given (it is a handful of regexes).
REF_PARSE_SECONDS = 1.0
_REF_PIECES = st.sampled_from(["乡射礼", "鄉射禮", "第", "节", "節", "十", "百", "零", "一", "三", "六", "九",
                               "§", ".", "@", "-", "16", "0", "99999999", "xiangsheli", "zhu", "trans:x",
                               " ", "\u3000", "１", "．", "\udcff", "\x00"])


@settings(max_examples=150, deadline=None, database=None)
@given(st.one_of(
    st.text(max_size=200),
    st.binary(max_size=400).map(os.fsdecode),  # bytes as a shell hands them to Python
    st.lists(_REF_PIECES, max_size=40).map("".join),
    st.tuples(st.sampled_from(["1", "十", "乡射礼", "."]), st.integers(1, 200_000)).map(lambda t: t[0] * t[1]),
))
def test_reference_parser_over_random_unicode_bytes_and_sizes(text: str) -> None:
    from yili_corpus.query.refs import parse_range, parse_ref

    for parse in (lambda s: parse_ref(s, max_section=53), lambda s: parse_range(s, 53)):
        t0 = time.perf_counter()
        try:
            got = parse(text)
        except UsageError as exc:
            msg = str(exc)
            assert "\n" not in msg and len(msg) < 400
        else:
            assert got
        assert time.perf_counter() - t0 < REF_PARSE_SECONDS
