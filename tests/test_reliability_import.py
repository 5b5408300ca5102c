"""Issue 10, the import part: what `yili import` and `yili overlays` do with hostile or unlucky
input (findings 4, 8, 11, 13, 14; docs/reliability.md). Each test runs the command as a user
types it: in process through click's runner, or as a real process where it needs one (a FIFO, a
memory limit, several imports at once, a time limit)."""

from __future__ import annotations

import itertools
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from yili_corpus.align.sentences import split_sentences
from yili_corpus.cli import main
from yili_corpus.errors import UsageError

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
W002 = ROOT / "corpus" / "002_f61d8bf8bcd3beb8.txt"
NS = {"t": "http://www.tei-c.org/ns/1.0"}
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"

#: Address space a `yili` process of these tests may use: ten times what an import of a whole
#: chapter's translation takes (about 50 MB), so that a runaway read fails fast and harms nothing.
MEMORY_LIMIT = 1 << 30
#: Seconds a hypothesis example may take: the inputs are at most a few tens of KB, which import
#: in about a second; the quadratic aligner took minutes for 100 KB.
EXAMPLE_SECONDS = 20


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("YILI_OVERLAY", raising=False)
    return tmp_path


def yili(ov: Path, *args: str):  # noqa: ANN201
    r = CliRunner().invoke(main, ["--tei", str(TEI), "--overlay", str(ov), *args])
    assert "Traceback" not in r.output and "internal error" not in r.output, r.output
    return r


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_yili(args: list[str], cwd: Path, timeout: float, extra_env: dict[str, str] | None = None,
             ) -> subprocess.CompletedProcess[str]:
    """`yili ARGS` as a real process, under MEMORY_LIMIT; a run over ``timeout`` fails the test."""
    env = dict(os.environ, YILI_CACHE_DIR=str(cwd / "cache"))
    env.pop("YILI_OVERLAY", None)
    env.update(extra_env or {})
    try:
        return subprocess.run([sys.executable, "-m", "yili_corpus.cli", "--tei", str(TEI), *args], cwd=cwd,
                              env=env, capture_output=True, text=True, timeout=timeout, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"yili {' '.join(args)} ran over {timeout} s")


def translation_lines() -> list[str]:
    """w002's translation of sections 1–12, one paragraph a line."""
    return W002.read_text(encoding="utf-8").split("\n")[142:159]


def synthetic_translation(size: int, seed: int = 17) -> str:
    """About ``size`` bytes of translation: the TEI's own translation paragraphs, re-cut (sentences
    merged in ones, twos and threes) copy after copy (as benchmarks/bench_import.py makes it)."""
    root = etree.parse(str(TEI)).getroot()
    paras = [[s.text or "" for s in ab.iterfind("t:seg", NS)] for ab in root.iterfind(".//t:ab[@type='trans']", NS)]
    rng = random.Random(seed)
    out: list[str] = []
    n = 0
    while n < size:
        for para in paras:
            sents, i = [], 0
            while i < len(para):
                k = rng.choice([1, 1, 2, 3])
                group = para[i : i + k]
                sents.append("".join(x[:-1] + "，" if x.endswith("。") and j < len(group) - 1 else x
                                     for j, x in enumerate(group)))
                i += k
            out.append("".join(sents))
            n += len(out[-1].encode("utf-8")) + 2
            if n >= size:
                break
    return "\n\n".join(out) + "\n"


MANDOKU = """# -*- mode: mandoku-view; -*-
<pb:KR1d0052_test_012-1a>司正爲司馬(兼官由便/也)¶
司馬命張侯弟子說東遂繫左下綱(事至/也今文說¶
皆作税)司馬又命獲者倚旌于侯中¶
"""


# -- finding 14: the name check ----------------------------------------------------------------------

def test_a_name_ending_in_a_newline_is_refused(env: Path) -> None:
    """``$`` matched before a final newline, so ``nl\n`` passed the check (and became a file name)."""
    f = env / "kr.txt"
    f.write_text(MANDOKU, encoding="utf-8")
    for name in ("nl\n", "a/b", "", "9lives", "x" * 42, "ok\x00"):
        r = yili(env / "ov", "import", "witness", str(f), "--name", name, "--format", "mandoku")
        assert r.exit_code == 2 and "overlay name" in r.output, (name, r.output)
        r = yili(env / "ov", "overlays", "remove", name)
        assert r.exit_code == 2 and "overlay name" in r.output, (name, r.output)
    assert not (env / "ov").exists() or not any((env / "ov").iterdir())


# -- finding 4: a second import of a name ------------------------------------------------------------

def test_an_existing_overlay_is_replaced_only_with_force_and_only_by_its_kind(env: Path) -> None:
    ov = env / "ov"
    tr = env / "tr.txt"
    tr.write_text("\n\n".join(translation_lines()[:3]) + "\n", encoding="utf-8")
    wit = env / "kr.txt"
    wit.write_text(MANDOKU, encoding="utf-8")
    assert yili(ov, "import", "translation", str(tr), "--name", "ed").exit_code == 0
    before = (ov / "ed.xml").read_bytes()
    # another kind: refused, with --force too (remove it first)
    r = yili(ov, "import", "witness", str(wit), "--name", "ed", "--format", "mandoku")
    assert r.exit_code == 2 and "exists" in r.output and "--force" in r.output, r.output
    r = yili(ov, "import", "witness", str(wit), "--name", "ed", "--format", "mandoku", "--force")
    assert r.exit_code == 2 and "is a translation" in r.output and "overlays remove ed" in r.output, r.output
    # the same kind: refused without --force, replaced with it
    tr.write_text("\n\n".join(translation_lines()[:4]) + "\n", encoding="utf-8")
    assert yili(ov, "import", "translation", str(tr), "--name", "ed").exit_code == 2
    assert (ov / "ed.xml").read_bytes() == before
    assert yili(ov, "import", "translation", str(tr), "--name", "ed", "--force").exit_code == 0
    assert (ov / "ed.xml").read_bytes() != before
    # after removing it, the witness may have the name
    assert yili(ov, "overlays", "remove", "ed").exit_code == 0
    assert yili(ov, "import", "witness", str(wit), "--name", "ed", "--format", "mandoku").exit_code == 0
    assert "--force" in yili(ov, "import", "translation", "--help").output


# -- finding 8: size and cost ------------------------------------------------------------------------

def test_a_file_over_the_size_limit_is_refused_before_it_is_read(env: Path) -> None:
    from yili_corpus.overlay import MAX_IMPORT_BYTES

    f = env / "big.txt"
    with open(f, "wb") as fh:  # sparse: nothing is written, the size is what counts
        fh.truncate(MAX_IMPORT_BYTES + 1)
    t = time.perf_counter()
    r = yili(env / "ov", "import", "translation", str(f), "--name", "big")
    assert r.exit_code == 2 and "at most 1 MB" in r.output, r.output
    assert time.perf_counter() - t < 10


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_fifo_or_a_device_is_refused_not_read(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        src = tmp_path / "pipe.txt"
        os.mkfifo(src)
    else:
        src = Path(kind)
    for cmd in (["import", "translation"], ["import", "witness"]):
        r = run_yili([*cmd, str(src), "--name", "x", "--into", str(tmp_path / "ov")], tmp_path, timeout=60)
        assert r.returncode == 2 and "not a regular file" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_a_chapter_sized_translation_imports_in_seconds(tmp_path: Path) -> None:
    """100 KB (five re-cut copies of the corpus's own translation) took 182 s; the aligner is now
    near-linear and it takes a few seconds (benchmarks/bench_import.py for the figures)."""
    f = tmp_path / "big.txt"
    text = synthetic_translation(100 * 1024)
    f.write_text(text, encoding="utf-8")
    t = time.perf_counter()
    r = run_yili(["import", "translation", str(f), "--name", "big", "--into", str(tmp_path / "ov"), "--json"],
                 tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["coverage"] > 0.5 and len(rep["paragraphs"]) >= 0.9 * len(text.split("\n\n"))
    print(f"100 KB imported in {time.perf_counter() - t:.1f} s")


def test_repeated_paragraphs_do_not_sink_the_others(env: Path) -> None:
    """A file that holds its paragraphs twice: the copies used to take the clauses of the
    paragraphs after them, until no paragraph was placed and the file was refused."""
    text = "\n\n".join(translation_lines()) + "\n\n"
    f = env / "twice.txt"
    f.write_text(text * 2, encoding="utf-8")
    r = yili(env / "ov", "import", "translation", str(f), "--name", "twice", "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    sections = {p["section"] for p in rep["paragraphs"]}
    assert len(rep["paragraphs"]) >= 30 and sections >= set(range(1, 13)), rep["paragraphs"]
    assert len(rep["unplaced"]) <= 5


def test_too_many_paragraphs_or_sentences_are_refused_at_once(tmp_path: Path) -> None:
    from yili_corpus.overlay import MAX_PARAGRAPHS, MAX_SENTENCES

    lines = tmp_path / "lines.txt"
    lines.write_text("主人拜宾。\n" * (MAX_PARAGRAPHS + 1), encoding="utf-8")
    sents = tmp_path / "sents.txt"
    sents.write_text("主人拜宾。" * (MAX_SENTENCES + 1) + "\n", encoding="utf-8")
    for f in (lines, sents):
        r = run_yili(["import", "translation", str(f), "--name", "x", "--into", str(tmp_path / "ov")], tmp_path,
                     timeout=60)
        assert r.returncode == 2 and "import it in parts" in r.stderr, r.stderr


def test_a_long_one_line_paragraph_is_aligned_in_pieces(env: Path) -> None:
    """A whole translation on one line (no paragraph breaks): aligned in pieces, each with its own
    id, every sentence kept; it used to cost the square of its length."""
    from yili_corpus.overlay import PIECE_SENTENCES

    f = env / "one.txt"
    f.write_text("".join(translation_lines()) + "\n", encoding="utf-8")
    t = time.perf_counter()
    r = yili(env / "ov", "import", "translation", str(f), "--name", "one", "--json")
    assert r.exit_code == 0, r.output
    assert time.perf_counter() - t < 30
    root = etree.parse(str(env / "ov" / "one.xml")).getroot()
    abs_ = root.findall(".//t:ab[@type='trans']", NS)
    ids = [ab.get(XML_ID) for ab in abs_]
    assert len(ids) > 1 and len(set(ids)) == len(ids)
    assert all(len(ab.findall("t:seg", NS)) <= PIECE_SENTENCES for ab in abs_)
    # every sentence is kept whole, or reported (left out as the 经's own words, or not placed)
    rep = json.loads(r.output)
    line = "".join(translation_lines())
    kept = [s.text for s in root.iterfind(".//t:seg", NS)] + [x["text"] for x in rep["skipped"] + rep["unplaced"]]
    assert sorted(kept) == sorted(line[a:b] for a, b in split_sentences(line))


def test_a_witness_longer_than_twice_the_chapter_is_refused_before_collation(tmp_path: Path) -> None:
    """A long repetitive witness made difflib crawl (quadratic); no more than the chapter can
    match, so one over twice its length is refused at once, and one made of runs the chapter
    does not have is refused before the collation."""
    for body in ("宾升" * 10_000, "宾" * 13_000):
        f = tmp_path / "w.txt"
        f.write_text(body + "\n", encoding="utf-8")
        t = time.perf_counter()
        r = run_yili(["import", "witness", str(f), "--name", "w", "--into", str(tmp_path / "ov")], tmp_path,
                     timeout=60)
        assert r.returncode == 2, r.stderr
        assert "cut it to this chapter" in r.stderr or "at most 0%" in r.stderr, r.stderr
        assert time.perf_counter() - t < 15


# -- finding 11: imports of one name at once ---------------------------------------------------------

def test_four_imports_of_one_name_at_once(tmp_path: Path) -> None:
    """Four real processes import the same name into one folder at once, several rounds: without
    --force exactly one wins and the others are told it exists; with --force each replaces it in
    turn. Never an internal error, never a half-written overlay, no temporaries left behind."""
    wit = tmp_path / "kr.txt"
    wit.write_text(MANDOKU, encoding="utf-8")
    env = dict(os.environ, YILI_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("YILI_OVERLAY", None)
    for rnd in range(5):
        ov = tmp_path / f"ov{rnd}"
        for force in ([], ["--force"]):
            procs = [subprocess.Popen([sys.executable, "-m", "yili_corpus.cli", "--tei", str(TEI), "import", "witness",
                                       str(wit), "--name", "same", "--format", "mandoku", "--into", str(ov), *force],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      preexec_fn=_limit_memory) for _ in range(4)]
            results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
            for p in procs:
                p.stdout.close()
                p.stderr.close()
            assert not any("internal error" in err or "Traceback" in err for _rc, err in results), results
            codes = sorted(rc for rc, _err in results)
            if force:
                assert codes == [0, 0, 0, 0], results
            else:
                assert codes == [0, 2, 2, 2], results
                assert all("exists" in err for rc, err in results if rc == 2), results
            etree.parse(str(ov / "same.xml"))  # whole
            assert sorted(p.name for p in ov.iterdir()) == [".yili.lock", "same.xml"]


# -- finding 13: what the user gives is bad input, not damaged data -----------------------------------

def _bad_inputs() -> list[tuple[str, bytes, str]]:
    good = "\n".join(translation_lines()[:2]) + "\n"
    return [
        ("binary", bytes(range(256)) * 4, "UTF-8"),
        ("gbk", good.encode("gbk"), "GBK"),
        ("utf16", good.encode("utf-16"), "UTF-16"),
        ("bom", b"\xef\xbb\xbf" + good.encode(), "byte-order mark"),
        ("crlf", good.replace("\n", "\r\n").encode(), "CR"),
        ("control", good.replace("主人", "主\x07人", 1).encode(), "control character U+0007"),
        ("nul", good.replace("主人", "主\x00人", 1).encode(), "U+0000"),
        ("escape", good.replace("宾", "\x1b[31m宾", 1).encode(), "U+001B"),
    ]


@pytest.mark.parametrize("what,data,words", _bad_inputs(), ids=[x[0] for x in _bad_inputs()])
@pytest.mark.parametrize("cmd", ["translation", "witness"])
def test_a_file_that_is_not_clean_utf8_text_is_bad_input(env: Path, what: str, data: bytes, words: str, cmd: str) -> None:
    f = env / f"{what}.txt"
    f.write_bytes(data)
    r = yili(env / "ov", "import", cmd, str(f), "--name", "x")
    assert r.exit_code == 2, r.output
    assert f"{f}:" in r.output and words in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not (env / "ov" / "x.xml").exists()


@pytest.mark.parametrize("text,words", [
    ("司正爲司馬(兼官由便/也¶\n", "never closed"),
    ("司正爲司馬)兼官\n", "closes nothing"),
    ("司正爲司馬(兼(官)由)\n", "unbalanced"),
])
def test_a_broken_mandoku_file_is_bad_input(env: Path, text: str, words: str) -> None:
    f = env / "bad.txt"
    f.write_text(text, encoding="utf-8")
    r = yili(env / "ov", "import", "witness", str(f), "--name", "m", "--format", "mandoku")
    assert r.exit_code == 2 and words in r.output and f"{f}:1:" in r.output, r.output


def test_an_overlay_folder_that_is_a_file_is_refused(env: Path) -> None:
    tr = env / "tr.txt"
    tr.write_text(translation_lines()[0] + "\n", encoding="utf-8")
    afile = env / "afile"
    afile.write_text("mine\n", encoding="utf-8")
    for into in (afile, afile / "sub"):
        r = yili(env / "ov", "import", "translation", str(tr), "--name", "a", "--into", str(into))
        assert r.exit_code == 2 and "is not a folder" in r.output, r.output
    r = CliRunner().invoke(main, ["--tei", str(TEI), "import", "translation", str(tr), "--name", "a"],
                           env={"YILI_OVERLAY": str(afile)})
    assert r.exit_code == 2 and "is not a folder" in r.output, r.output
    assert afile.read_text(encoding="utf-8") == "mine\n"


def test_odd_language_tags_and_file_names_are_handled(env: Path) -> None:
    tr = env / "tr\x01名.txt"
    tr.write_text("\n\n".join(translation_lines()[:2]) + "\n", encoding="utf-8")
    r = yili(env / "ov", "import", "translation", str(tr), "--name", "a", "--lang", "zh\x01")
    assert r.exit_code == 2 and "not a language tag" in r.output, r.output
    r = yili(env / "ov", "import", "translation", str(tr), "--name", "a")
    assert r.exit_code == 0, r.output
    root = etree.parse(str(env / "ov" / "a.xml")).getroot()
    assert root.findtext(".//t:witness/t:label", None, NS) == "tr\\u0001名.txt"


def test_an_overlay_folder_with_a_fifo_or_a_bad_number_is_damaged_data(tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    ov.mkdir()
    os.mkfifo(ov / "x.xml")
    r = run_yili(["--overlay", str(ov), "overlays"], tmp_path, timeout=60)
    assert r.returncode == 3 and "x.xml" in r.stderr and "not a regular file" in r.stderr, r.stderr
    (ov / "x.xml").unlink()
    tr = tmp_path / "tr.txt"
    tr.write_text("\n\n".join(translation_lines()[:2]) + "\n", encoding="utf-8")
    assert run_yili(["--overlay", str(ov), "import", "translation", str(tr), "--name", "a"], tmp_path, 60).returncode == 0
    p = ov / "a.xml"
    p.write_text(p.read_text(encoding="utf-8").replace('cert="', 'cert="x'), encoding="utf-8")
    r = run_yili(["--overlay", str(ov), "overlays"], tmp_path, timeout=60)
    assert r.returncode == 3 and "a.xml" in r.stderr and "internal error" not in r.stderr, r.stderr


# -- the hypothesis test: random bytes, text and sizes -----------------------------------------------

@pytest.fixture(scope="module")
def doc():  # noqa: ANN201
    from yili_corpus.tei.read import read_tei

    return read_tei(TEI)


def _alphabet() -> list[str]:
    from yili_corpus.tei.read import read_tei

    d = read_tei(TEI)
    chars = sorted({ch for s in d.sections for p in s.paragraphs for c in p.clauses for ch in c.text})
    return chars[:300] + list("。，；！？（）()/¶#<>:pb \n\n\n\t\x00\x07\x1b\x7f\x85\u2028\ufeff\ufffe😀aZ9")


_TRANSLATION = "\n\n".join(translation_lines())
_TEXTS = st.one_of(
    st.text(alphabet=st.sampled_from(_alphabet()), max_size=3000),
    st.text(max_size=400),
    # pieces of a real translation, repeated: sizes up to some 40 KB
    st.builds(lambda a, n, k: (_TRANSLATION[a : a + n] + "\n\n") * k,
              st.integers(0, len(_TRANSLATION)), st.integers(1, 4000), st.integers(1, 10)),
)
_DATA = st.one_of(_TEXTS.map(lambda t: t.encode("utf-8")), st.binary(max_size=3000))
_EXAMPLE = itertools.count()


@settings(max_examples=40, deadline=None, database=None,  # nothing written into the repository
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=_DATA, kind=st.sampled_from(["translation", "plain", "mandoku"]))
def test_import_of_random_input_imports_or_is_refused_in_one_line(tmp_path: Path, doc, data: bytes, kind: str) -> None:  # noqa: ANN001
    from yili_corpus.overlay import import_translation, import_witness

    d = tmp_path / f"h{next(_EXAMPLE)}"  # (hypothesis seeds random: a counter, not a random name)
    d.mkdir()
    f = d / "in.txt"
    f.write_bytes(data)
    t = time.perf_counter()
    try:
        if kind == "translation":
            rep = import_translation(doc, f, "x", "zh-Hans", d / "ov")
        else:
            rep = import_witness(doc, f, "x", kind, d / "ov")
    except UsageError as exc:
        assert str(exc).strip() and "\n" not in str(exc)
    else:
        etree.parse(rep["overlay"])  # a whole, well-formed overlay
    assert time.perf_counter() - t < EXAMPLE_SECONDS
