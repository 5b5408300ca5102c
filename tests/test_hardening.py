"""Hardening: any input gives a result or a clean error; bad files are named; interrupted builds
and corrupt indexes do no harm."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yili_corpus.build import run_build
from yili_corpus.cli import main
from yili_corpus.errors import DataError, UsageError, YiliError
from yili_corpus.query.refs import parse_range, parse_ref
from yili_corpus.tei import read as tei_read
from yili_corpus.text.normalise import Normaliser, VariantTable

from .conftest import CORPUS, ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
NORM = Normaliser(VariantTable.load(CORPUS / "variants.tsv"))
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
CJKISH = st.text(alphabet=st.sampled_from(list("司射获者释於于閒间筭算之乎．。，、“”()（）16第十节乡射礼@.-§ ") + ["\ue270", "a", "\n"]),
                 max_size=30)


# -- property-based ----------------------------------------------------------------------------------

@given(TEXT)
def test_normaliser_total_and_consistent(s: str) -> None:
    key, idx = NORM.key_map(s)
    assert len(key) == len(idx)
    assert all(0 <= i < len(s) for i in idx) and idx == sorted(idx)
    assert NORM.key(key) == key  # idempotent


@given(st.one_of(TEXT, CJKISH))
def test_reference_parser_gives_a_ref_or_a_clean_error(s: str) -> None:
    try:
        r = parse_ref(s, max_section=53)
    except UsageError as exc:
        assert "\n" not in str(exc)
        return
    assert 1 <= r.section <= 53


@given(st.one_of(TEXT, CJKISH))
def test_range_parser_gives_sections_or_a_clean_error(s: str) -> None:
    try:
        got = parse_range(s, 53)
    except UsageError:
        return
    assert got and all(1 <= n <= 53 for n in got)


@pytest.fixture(scope="module")
def corpus():
    import yili_corpus

    return yili_corpus.load(TEI)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(q=st.one_of(TEXT, CJKISH), regex=st.booleans())
def test_search_gives_hits_or_a_clean_error(corpus, q: str, regex: bool) -> None:  # noqa: ANN001
    try:
        res = corpus.search(q, regex=regex)
    except UsageError as exc:
        assert "\n" not in str(exc)
        return
    assert res["total"] == len(res["hits"])
    for h in res["hits"]:
        assert h["text"][h["start"]:h["end"]] == h["match"]


# -- the TEI reader -------------------------------------------------------------------------------------

@pytest.mark.parametrize("doc", [
    b'<?xml version="1.0"?>\n<!DOCTYPE TEI SYSTEM "http://example.org/tei.dtd">\n<TEI xmlns="http://www.tei-c.org/ns/1.0"/>',
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>\n<TEI>&lol2;</TEI>',
    b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><TEI>&e;</TEI>',
])
def test_reader_refuses_dtds_and_entities(doc: bytes) -> None:
    with pytest.raises(DataError, match="DOCTYPE"):
        tei_read.read_bytes(doc, "evil.xml")


def test_reader_refuses_huge_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tei_read, "MAX_BYTES", 1000)
    with pytest.raises(DataError, match="larger than the limit of 1000"):
        tei_read.read_tei(TEI)


def test_reader_names_the_line_of_broken_xml(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text('<?xml version="1.0"?>\n<TEI xmlns="http://www.tei-c.org/ns/1.0">\n<text>\n</TEI>\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.xml:4: not well-formed"):
        tei_read.read_tei(bad)


# -- bad source files, with the manifest updated (as a scholar replacing a file would) --------------------

def _replace(corpus: Path, name: str, data: bytes) -> None:
    (corpus / name).write_bytes(data)
    m = corpus / "chapters" / "xiangsheli.toml"
    text = m.read_text(encoding="utf-8")
    entry = text[text.index(f'file = "{name}"'):]
    old = entry[entry.index('sha256 = "') + 10:][:64]
    m.write_text(text.replace(old, hashlib.sha256(data).hexdigest()), encoding="utf-8")


@pytest.mark.parametrize(("mutate", "words", "line"), [
    (lambda b: b"\xef\xbb\xbf" + b, "byte-order mark", 1),
    (lambda b: b.replace(b"\n", b"\r\n"), "CR (Windows) line ends", 1),
    (lambda b: b.decode("utf-8").encode("gb18030"), "GBK", 1),
    (lambda b: b + "译".encode()[:2], "truncated or invalid UTF-8", 161),
])
def test_bad_encodings_are_named_with_file_and_line(corpus_copy: Path, mutate, words: str, line: int) -> None:  # noqa: ANN001
    name = "002_f61d8bf8bcd3beb8.txt"
    _replace(corpus_copy, name, mutate((corpus_copy / name).read_bytes()))
    with pytest.raises(DataError) as exc:
        run_build(corpus_copy)
    assert f"{name}:{line}:" in str(exc.value) and words in str(exc.value)
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(corpus_copy), "--tei-dir", str(corpus_copy / "t")])
    assert r.exit_code == 3 and "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_sections_in_the_wrong_order_are_named(corpus_copy: Path) -> None:
    t = corpus_copy / "sections.tsv"
    lines = t.read_text(encoding="utf-8").splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("20\t"))
    a, b = lines[i].split("\t"), lines[i + 1].split("\t")
    a[3], b[3] = b[3], a[3]  # swap the incipits of 20 and 21
    lines[i], lines[i + 1] = "\t".join(a), "\t".join(b)
    t.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"sections.tsv:\d+: section 21: incipit .* sections out of order"):
        run_build(corpus_copy)


# -- interrupted builds, corrupt indexes -----------------------------------------------------------------------

def test_killed_build_leaves_the_previous_tei_intact(tmp_path: Path) -> None:
    tei_dir = tmp_path / "tei"
    tei_dir.mkdir()
    before = b"<previous/>\n"
    (tei_dir / "yili-xiangsheli.xml").write_bytes(before)
    for delay in (0.3, 0.8, 1.3):
        p = subprocess.Popen(
            [sys.executable, "-m", "yili_corpus.cli", "build", "--chapter", "xiangsheli", "--corpus", str(CORPUS), "--tei-dir", str(tei_dir),
             "--report-dir", str(tmp_path / "rep"), "-q"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        got = (tei_dir / "yili-xiangsheli.xml").read_bytes()
        assert got == before or got.startswith(b"<?xml"), "a half-written TEI"
        if got != before:  # the build had finished: the new file is whole
            assert got.rstrip().endswith(b"</TEI>")
            (tei_dir / "yili-xiangsheli.xml").write_bytes(before)


def test_corrupt_index_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from yili_corpus.query.index import Index, index_path, tei_digest

    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    Index.open(TEI)
    path = index_path(tei_digest(TEI))
    path.write_bytes(b"this is not a database" * 100)
    idx = Index.open(TEI)
    assert idx.rows(contains="司射")
    r = CliRunner().invoke(main, ["--tei", str(TEI), "search", "司射"])
    assert r.exit_code == 0


@pytest.mark.parametrize("args", [
    ["show", "\x00"], ["search", "\ud800x"], ["cite", "\n\n"], ["export", "--format", "md", "--section", "0"],
    ["xref", "53.99"], ["search", "司射", "--context", "-3"],
])
def test_no_traceback_for_odd_input(args: list[str]) -> None:
    r = CliRunner().invoke(main, ["--tei", str(TEI), *args])
    assert r.exit_code in (1, 2), r.output
    assert "Traceback" not in r.output and r.output.strip().startswith(("yili: error:", "no "))


def test_every_error_class_has_an_exit_code() -> None:
    assert UsageError("x").exit_code == 2 and DataError("x").exit_code == 3 and YiliError("x").exit_code == 2


def test_a_witness_paragraph_the_base_lacks_is_reported_not_a_stop(corpus_copy: Path) -> None:
    """A paragraph of a witness that is nowhere in the base (here a line of the 千字文 added to
    w006) is left out of the collation and listed in the report with its file and line; the build
    goes on and the text is the same."""
    from yili_corpus.build import run_build

    name = "niutrans-yili-05.txt"
    data = (corpus_copy / name).read_bytes() + "天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。\n".encode()
    _replace(corpus_copy, name, data)
    r = run_build(corpus_copy)
    line = data.decode().count("\n")
    got = [x for x in r.unplaced if x["source"] == "w006" and "not found in the base text" in str(x["reason"])]
    assert [x["line"] for x in got] == [line] and "left out of the collation" in str(got[0]["reason"])
    assert len(r.sections) == 53
