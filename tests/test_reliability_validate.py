"""Issue 10, validate and the TEI reader: pointers stay in the corpus (3), the citeStructure XPath
is a bounded safe subset (7), user-made TEI gives clean errors at the file's line through show and
search (13, 15), and a TEI away from its corpus is not called valid (16)."""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from yili_corpus.cli import main
from yili_corpus.tei import validate as val

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
TEXT = TEI.read_text(encoding="utf-8")
CITE = """<citeStructure unit="section" match="//body/div[@type='section']" use="@n">
          <citeStructure unit="paragraph" match="div[@type='paragraph']" use="@n" delim=".">
            <citeStructure unit="clause" match="ab[@type='jing' or @type='ji'][not(@subtype='hant')]/seg[@type='clause']" use="@n" delim="."/>
          </citeStructure>
        </citeStructure>"""
FIRST_CLAUSE = 'source="#w001 corpus/001_2a8121061e9dfe52.txt#char=4,8"'
WITNESS_REF = '<ref target="corpus/001_2a8121061e9dfe52.txt">'
SECRET = "top-secret-line-of-a-private-file\n"


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's cache or overlays."""
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("YILI_OVERLAY", str(tmp_path / "overlays"))
    monkeypatch.delenv("YILI_TEI", raising=False)


def yili(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output


def project(tmp_path: Path, text: str, name: str = "x.xml") -> Path:
    """A project folder in tmp_path: corpus/ (a copy) and tei/NAME with ``text``."""
    if not (tmp_path / "corpus").exists():
        shutil.copytree(ROOT / "corpus", tmp_path / "corpus")
    (tmp_path / "tei").mkdir(exist_ok=True)
    p = tmp_path / "tei" / name
    p.write_text(text, encoding="utf-8")
    return p


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# -- 3. pointers resolve inside the corpus folder or are refused --------------------------------------

@pytest.mark.parametrize("pointer", [
    "corpus/../secret.txt",                # .. out of the corpus folder
    "corpus/../../secret.txt",
    "corpus//{tmp}/secret.txt",            # an absolute path after corpus/
    "corpus/sub/../../secret.txt",
])
def test_char_pointer_out_of_the_corpus_is_refused_unread(tmp_path: Path, pointer: str) -> None:
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    ptr = pointer.replace("{tmp}", str(tmp_path).lstrip("/"))
    text = TEXT.replace(FIRST_CLAUSE, f'source="#w001 {ptr}#char=0,16"', 1)
    tei = project(tmp_path, text)
    code, out = yili("validate", "--no-schema", str(tei))
    assert code == 3
    assert f"{tei}:{line_of(text, ptr)}: <seg> @source points to {ptr}: refused" in out
    assert "top-secret" not in out and "Traceback" not in out


def test_symlink_leading_out_of_the_corpus_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    tei = project(tmp_path, TEXT.replace(FIRST_CLAUSE, 'source="#w001 corpus/link.txt#char=0,16"', 1))
    (tmp_path / "corpus" / "link.txt").symlink_to(tmp_path / "secret.txt")
    code, out = yili("validate", "--no-schema", str(tei))
    assert code == 3 and "corpus/link.txt: refused: it leads out of the corpus folder" in out
    assert "top-secret" not in out


def test_witness_ref_out_of_the_corpus_leaks_no_checksum(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    digest = hashlib.sha256(SECRET.encode()).hexdigest()
    for target in ("corpus/../secret.txt", str(tmp_path / "secret.txt")):
        text = TEXT.replace(WITNESS_REF, f'<ref target="{target}">', 1)
        tei = project(tmp_path, text)
        code, out = yili("validate", "--no-schema", str(tei))
        assert code == 3, out
        assert f"{tei}:{line_of(text, target)}: witness w001: " in out
        assert digest[:8] not in out and "top-secret" not in out


def test_missing_corpus_file_is_a_problem_not_skipped(tmp_path: Path) -> None:
    tei = project(tmp_path, TEXT)
    (tmp_path / "corpus" / "001_2a8121061e9dfe52.txt").unlink()
    code, out = yili("validate", "--no-schema", str(tei))
    assert code == 3
    assert "corpus/001_2a8121061e9dfe52.txt: no such file in the corpus folder" in out
    assert out.count("no such file") == 1  # named once, not once per pointer


def test_fifo_in_the_corpus_is_not_opened(tmp_path: Path) -> None:
    tei = project(tmp_path, TEXT.replace(FIRST_CLAUSE, 'source="#w001 corpus/pipe.txt#char=0,16"', 1))
    os.mkfifo(tmp_path / "corpus" / "pipe.txt")
    code, out = yili("validate", "--no-schema", str(tei))
    assert code == 3 and "corpus/pipe.txt: refused: not a regular file" in out


def test_pointer_past_the_end_of_its_file_is_named(tmp_path: Path) -> None:
    text = TEXT.replace(FIRST_CLAUSE, 'source="#w001 corpus/001_2a8121061e9dfe52.txt#char=4,99999999"', 1)
    tei = project(tmp_path, text)
    code, out = yili("validate", "--no-schema", str(tei))
    assert code == 3 and "#char=4,99999999 is outside corpus/001_2a8121061e9dfe52.txt" in out


# -- 7. the citeStructure XPath: a safe subset, bounded ------------------------------------------------

def _cite(match: str, use: str = "@n", inner: str = "") -> str:
    return TEXT.replace(CITE, f'<citeStructure unit="section" match="{match}" use="{use}">{inner}</citeStructure>', 1)


def test_cite_xpath_that_explodes_is_refused_in_a_bounded_process(tmp_path: Path) -> None:
    """The fuzz's expression took 3.9 GB in 40 s; under a 1.5 GB limit it is refused at once."""
    loop = project(tmp_path, TEXT.replace('use="@n">', 'use="for $a in 1 to 100000000 return $a">', 1), "loop.xml")
    rng = project(tmp_path, TEXT.replace('use="@n">', 'use="(1 to 100000000)">', 1), "range.xml")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))

    for tei in (loop, rng):
        t = time.monotonic()
        r = subprocess.run([sys.executable, "-c", "from yili_corpus.cli import main; main()", "validate",
                            "--no-schema", str(tei)], capture_output=True, text=True, timeout=120,
                           preexec_fn=limit, env={**os.environ, "YILI_CACHE_DIR": str(tmp_path / "cache")})
        assert time.monotonic() - t < 30
        assert r.returncode == 3, r.stderr
        assert f"{tei}:{line_of(TEXT, CITE)}: citeStructure @use=" in r.stderr and "is refused" in r.stderr
        assert "internal error" not in r.stderr


@pytest.mark.parametrize("use", [
    "doc('/etc/passwd')", "unparsed-text('/etc/passwd')", "environment-variable('HOME')",
    "collection()", "string-join(for $i in 1 to 9 return 'x')", "@n | @type", "../@n", ".",
])
def test_cite_xpath_reaching_out_or_outside_the_subset_is_a_problem(tmp_path: Path, use: str) -> None:
    tei = project(tmp_path, _cite("//body/div[@type='section']", use.replace("'", "&apos;"),
                                  '<citeStructure match="div[@type=\'paragraph\']" use="@n" delim="."/>'))
    code, out = yili("validate", "--no-schema", str(tei))
    assert code == 3 and "internal error" not in out
    assert "citeStructure @use=" in out and "is refused" in out
    assert out.count("is refused") == 1  # one problem, not one per section


@pytest.mark.parametrize("match", ["//body//div", "//*//*", "//div[.//seg]", "//div[* = *]", "//div[. = 'x']",
                                   "//div[/TEI]", "(//div)[1]"])
def test_cite_match_that_costs_a_scan_per_node_is_refused(match: str) -> None:
    root = etree.fromstring(_cite(match).encode("utf-8"))
    with pytest.raises(val.CiteStructureError, match="is refused"):
        val.cite_index(root)


def test_cite_structure_of_a_huge_document_is_not_evaluated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(val, "MAX_CITE_DOC_ELEMENTS", 1000)
    with pytest.raises(val.CiteStructureError, match="more than the 1000 whose citeStructure is evaluated"):
        val.cite_index(etree.fromstring(TEXT.encode("utf-8")))


def test_cite_structure_that_multiplies_nodes_stops_at_the_bound() -> None:
    inner = "<citeStructure match='*' use='@*'>" * 7 + "</citeStructure>" * 7
    root = etree.fromstring(_cite("//*", "@*", inner).encode("utf-8"))
    t = time.monotonic()
    with pytest.raises(val.CiteStructureError, match=f"more than {val.MAX_CITE_NODES} nodes"):
        val.cite_index(root)
    assert time.monotonic() - t < 10


def test_cite_structure_nested_too_deep_is_refused() -> None:
    inner = "<citeStructure match='div' use='@n'>" * val.MAX_CITE_DEPTH + "</citeStructure>" * val.MAX_CITE_DEPTH
    root = etree.fromstring(_cite("//body/div", "@n", inner).encode("utf-8"))
    with pytest.raises(val.CiteStructureError, match="nested"):
        val.cite_index(root)


@pytest.mark.parametrize(("match", "use", "sub"), [
    ("//body/div[@type='section']", "@n", "div[@type='paragraph']"),
    ("/TEI/text/body/div", "string(@n)", "div"),
    ("//div[@type='section' and not(@x)][position() &lt; 100]", "normalize-space(@n)", "child::div[@n]"),
    ("//body/*", "@n", "*[@type='paragraph']"),
])
def test_ordinary_cite_structures_still_resolve(match: str, use: str, sub: str) -> None:
    inner = f'<citeStructure match="{sub}" use="@n" delim="."/>'
    index = val.cite_index(etree.fromstring(_cite(match, use, inner).encode("utf-8")))
    assert [e.get("n") for e in index["16"]] == ["16"] and [e.get("n") for e in index["16.1"]] == ["1"]


# -- 13, 15. the reader: clean errors at the file's line, through validate, show and search -------------

def _doctype_after_comment() -> str:
    body = TEXT.split("\n", 1)[1].replace("主人戒宾", "主人戒宾&e;", 1)
    return ("<?xml version='1.0' encoding='UTF-8'?>\n<!--" + "x" * 70_000 + "-->\n"
            '<!DOCTYPE TEI [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n' + body)


def _doctype_utf16() -> bytes:
    body = TEXT.split("\n", 1)[1].replace("主人戒宾", "主人戒宾&e;", 1)
    return ("<?xml version='1.0' encoding='UTF-16'?>\n"
            '<!DOCTYPE TEI [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n' + body).encode("utf-16")


@pytest.mark.parametrize(("make", "line"), [(_doctype_after_comment, 3), (_doctype_utf16, 2)])
@pytest.mark.parametrize("command", [["validate", "--no-schema"], ["show", "1"], ["search", "乡射"]])
def test_hidden_doctype_is_refused_naming_the_file(tmp_path: Path, make, line: int, command: list[str]) -> None:  # noqa: ANN001
    tei = tmp_path / "doctype.xml"
    data = make()
    tei.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    args = [command[0], *command[1:], str(tei)] if command[0] == "validate" else ["--tei", str(tei), *command]
    code, out = yili(*args)
    assert code == 3, out
    assert f"{tei}:{line}: TEI file has a DOCTYPE" in out
    assert "<string>" not in out and "internal error" not in out


@pytest.mark.parametrize("command", [["show", "1"], ["search", "乡射"], ["stats"]])
@pytest.mark.parametrize("dup", ["xiangsheli.1.2.1", "xiangsheli.2.1.1"])
def test_duplicated_xml_id_is_a_clean_error_at_its_line(tmp_path: Path, command: list[str], dup: str) -> None:
    text = TEXT.replace(f'xml:id="{dup}"', 'xml:id="xiangsheli.1.1.1"', 1)
    tei = tmp_path / "dup.xml"
    tei.write_text(text, encoding="utf-8")
    code, out = yili("--tei", str(tei), *command)
    assert code == 3, out
    first = text.index('xml:id="xiangsheli.1.1.1"')
    second = text.count("\n", 0, text.index('xml:id="xiangsheli.1.1.1"', first + 1)) + 1
    assert f"{tei}:{second}: xml:id 'xiangsheli.1.1.1' is used twice" in out
    assert "internal error" not in out


@pytest.mark.parametrize("command", [["show", "1"], ["search", "乡射"]])
def test_undefined_entity_is_reported_at_its_line(tmp_path: Path, command: list[str]) -> None:
    lines = TEXT.split("\n")
    lines[1318] += "&bogus;"
    tei = tmp_path / "entity.xml"
    tei.write_text("\n".join(lines), encoding="utf-8")
    code, out = yili("--tei", str(tei), *command)
    assert code == 3 and f"{tei}:1319: not well-formed XML: Entity 'bogus' not defined" in out


@pytest.mark.parametrize(("old", "new", "needle", "message"), [
    ('cert="1"', 'cert="one"', 'cert="one"', "<seg> has @cert='one', which is not a number"),
    ('subtype="jing" n="3" xml:id="xiangsheli.3"', 'subtype="jing" n="abc" xml:id="xiangsheli.3"', 'n="abc"',
     "has @n='abc', which is not a number"),
])
def test_reader_errors_name_the_files_line_through_show_and_validate(tmp_path: Path, old: str, new: str,
                                                                      needle: str, message: str) -> None:
    text = TEXT.replace(old, new, 1)
    tei = project(tmp_path, text)
    line = line_of(text, needle)
    code, out = yili("--tei", str(tei), "show", "3")
    assert code == 3 and f"{tei}:{line}: " in out and message in out and "internal error" not in out
    code, out = yili("validate", "--no-schema", str(tei))  # validate no longer calls it valid
    assert code == 3 and f"{tei}:{line}: unreadable for yili: " in out and message.split(">")[-1] in out


# -- 16. a TEI away from its corpus -------------------------------------------------------------------

def test_tei_away_from_its_corpus_is_not_called_valid(tmp_path: Path) -> None:
    away = tmp_path / "elsewhere" / "copy.xml"
    away.parent.mkdir()
    away.write_text(TEXT.replace(">乡射之礼<", ">乡射之X<", 1), encoding="utf-8")
    code, out = yili("validate", "--no-schema", str(away))
    assert code == 2, out
    assert "the source check could not run" in out and "--corpus DIR" in out and ": valid" not in out
    code, out = yili("validate", "--no-schema", "--corpus", str(ROOT / "corpus"), str(away))
    assert code == 3 and "does not quote corpus/001_2a8121061e9dfe52.txt#char=4,8: '乡射之X'" in out
    code, out = yili("validate", "--no-schema", "--no-sources", str(away))
    assert code == 0 and "valid (the project's rules, sources not checked)" in out
    code, out = yili("validate", "--no-sources", "--corpus", str(ROOT / "corpus"), str(away))
    assert code == 2 and "contradict" in out


def test_validate_help_names_the_source_options() -> None:
    code, out = yili("validate", "--help")
    assert code == 0 and "--corpus DIR" in out and "--no-sources" in out


def test_the_real_tei_is_still_valid_beside_its_corpus() -> None:
    assert val.validate_file(TEI, use_schema=False) == []
