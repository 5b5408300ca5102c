"""No private-use character reaches a user (issue 12, item 7).

The witnesses wrote characters their character sets lacked as private-use code points (w003:
U+E07D for 算, U+E3AB U+E4A4 for 楅 …). The TEI keeps them diplomatically (``<g>`` and a
``<char>`` declaration); every reader-facing output prints the character they stand for, resolved
by the collation of the 经 or of the 注 or by ``corpus/pua.tsv`` with its evidence, and 〓 where
nothing resolves one."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from yili_corpus.build import run_build
from yili_corpus.cli import main
from yili_corpus.document import CharDecl, Glyph, readable
from yili_corpus.errors import DataError
from yili_corpus.export import FORMATS
from yili_corpus.sources.manifest import load_manifest
from yili_corpus.tei.read import NS
from yili_corpus.text.normalise import Normaliser, VariantTable
from yili_corpus.text.unencoded import load_pua_table

from .conftest import CORPUS, ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
PUA = re.compile("[\ue000-\uf8ff]")
XML = "{http://www.w3.org/XML/1998/namespace}"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder of the test session's own (the index is built there once)."""
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def yili(*args: str, tei: Path = TEI) -> str:
    r = CliRunner().invoke(main, ["--tei", str(tei), *args])
    assert r.exit_code in (0, 1) and "Traceback" not in r.output, r.output
    return r.output


def no_pua(out: str, what: str) -> None:
    bad = sorted({f"U+{ord(c):04X}" for c in PUA.findall(out)})
    assert not bad, f"{what} prints private-use code points {', '.join(bad)}"


# -- the cases of the issue ------------------------------------------------------------------------

def test_show_17_reads_the_word_of_the_shu() -> None:
    out = yili("show", "17")
    # the 疏 of 17.1 is the 四库 copy's (w005 lines 457–464), w003's block collated into it: it says
    # 举觯为无筭爵 twice; w003 wrote 筭 as U+E07D, read as 算 (the collation of the 注), so the two
    # agree there and only w003's 无 against the 四库 copy's 庶 (借取庶筭爵) is an apparatus entry
    shu = [x for x in out.split("\n") if x.lstrip().startswith("疏")]
    assert sum(x.count("举觯为无算爵") for x in shu) == 2 and "借取庶算爵时" in out
    assert "为无爵" not in out
    u = json.loads(yili("show", "17.1", "--json"))["layers"]["shu"][0]
    assert "宾使二人举觯为无算爵" in u["text"]
    app = {a["lemma"]: [r["text"] for r in a["readings"]] for a in u["apparatus"]}
    assert app["庶"] == ["无"] and app["使"] == ["始"]
    assert not any("算" in a["lemma"] or "〓" in str(a["readings"]) for a in u["apparatus"])
    no_pua(out, "show 17")


def test_search_finds_the_shu_of_17_1() -> None:
    for args in (("--layer", "shu"), ()):
        data = json.loads(yili("search", "无筭爵", *args, "--json"))
        # the 四库 copy's 疏 on 17.1 has it twice (举觯为无筭爵 …)
        shu = [h for h in data["hits"] if h["layer"] == "shu" and h["ref"] == "xiangsheli.17.1@shu"]
        assert len(shu) == 2, data
        assert {h["match"] for h in shu} == {"无算爵"}
    out = yili("search", "无筭爵", "--layer", "shu")
    assert "xiangsheli.17.1@shu" in out and "为无算爵" in out


@pytest.mark.parametrize(("section", "words", "char"), [
    (18, "笴矢干也", "干"),   # U+E424 幹: the 注 of w003 (line 39) against w005's 笴矢幹也 (line 479)
    (20, "明却时还", "却"),   # U+E157 卻: corpus/pua.tsv (w005 line 504)
    (20, "阇谓之台", "阇"),   # U+E268 闍: corpus/pua.tsv (w005 line 527)
    (22, "既拾取矢梱之", "梱"),  # U+E3AB 困 梱: corpus/pua.tsv (w005 line 625)
])
def test_each_sequence_of_the_shu_reads_as_its_character(section: int, words: str, char: str) -> None:
    """w003 wrote these characters of its 疏 with private-use code points. Read as their
    characters, w003 agrees with the 四库 copy there: its block is collated into the 四库 copy's
    and no apparatus entry stands at the character."""
    data = json.loads(yili("show", str(section), "--layer", "shu", "--json"))
    u = next(x for x in data["layers"]["shu"] if words in x["text"])
    assert not any(char in a["lemma"] for a in u.get("apparatus", []))
    out = yili("show", str(section), "--layer", "shu")
    assert words in out
    no_pua(out, f"show {section}")


# -- the walk over the whole chapter ---------------------------------------------------------------

def test_no_private_use_character_in_any_output_over_the_whole_chapter() -> None:
    for n in range(1, 54):
        no_pua(yili("show", str(n)), f"show {n}")
        no_pua(yili("show", str(n), "--json"), f"show {n} --json")
    for q in ("无筭爵", "楅", "适", "搢", "弣", "笴", "释筭", "司射", "矢幹"):
        out = yili("search", q)
        assert "hits for" in out, out
        no_pua(out, f"search {q}")
        no_pua(yili("search", q, "--json"), f"search {q} --json")
        no_pua(yili("search", q, "--context", "40", "--section", "16-22"), f"search {q} --context 40")
    for q in ("借取无筭爵时於旅也语", "既拾取矢梱之", "明却时还者司射先在中西南"):
        out = yili("cite", q)
        assert "贾公彦疏" in out, out
        no_pua(out, f"cite {q}")
        for style in ("chicago", "bibtex", "csl-json"):
            no_pua(yili("cite", q, "--style", style), f"cite {q} --style {style}")
        no_pua(yili("cite", q, "--json"), f"cite {q} --json")
    for n in range(16, 23):
        no_pua(yili("xref", str(n)), f"xref {n}")
        no_pua(yili("show", str(n), "--script", "hant", "--json"), f"show {n} --script hant")
    for fmt in FORMATS:
        out = yili("export", "--section", "1-53", "--format", fmt)
        no_pua(out, f"export --format {fmt}")
        for ch in "算梱楅搢":
            assert ch in out, f"export --format {fmt} lacks {ch}"


def test_the_tei_keeps_the_code_points_and_declares_each_with_its_character_and_evidence() -> None:
    root = etree.parse(str(TEI)).getroot()
    decl = {c.get(f"{XML}id"): c for c in root.iterfind(".//t:charDecl/t:char", NS)}
    # w003's code points where its readings stand in the apparatus (of the 注 and the 经); those of
    # its 疏 that agree with the 四库 copy once read (算, 卻, 闍, 梱) stand in no reading of the TEI
    # (test_the_build_resolves_every_sequence_of_the_shu)
    want = {"w003-E424": ("幹", "collation of the 注"), "w003-E3AB-E4A4": ("楅", "collation of the 经")}
    for cid, (ch, how) in want.items():
        c = decl[cid]
        assert c.findtext("t:mapping[@type='standard']", None, NS) == ch
        assert PUA.match(c.findtext("t:mapping[@type='PUA']", "", NS))
        assert how in c.findtext("t:note", "", NS)
    # every declaration is resolved and used; every glyph is declared and holds its code points
    assert all(c.findtext("t:mapping[@type='standard']", None, NS) for c in decl.values())
    used = {}
    for g in root.iter(f"{{{NS['t']}}}g"):
        cid = g.get("ref").lstrip("#")
        assert g.text == decl[cid].findtext("t:mapping[@type='PUA']", "", NS)
        used[cid] = used.get(cid, 0) + 1
    assert {cid: int(c.get("n")) for cid, c in decl.items()} == used
    # no code point outside a glyph or its declaration
    text = TEI.read_text(encoding="utf-8")
    text = re.sub(r"<g ref=\"[^\"]+\">[^<]*</g>|<mapping type=\"PUA\">[^<]*</mapping>", "", text)
    no_pua(text, "the TEI outside <g> and <mapping type='PUA'>")


def test_the_build_resolves_every_sequence_of_the_shu(built) -> None:  # noqa: ANN001
    """Every code point of w003's 疏 is resolved, with how; the 疏 collation read them so."""
    built_pua = {seq: (v.character or "", v.how) for (w, seq), v in built.unencoded.items() if w == "w003"}
    want = {"\ue07d": ("算", "collation of the 注"), "\ue157": ("卻", "table"), "\ue268": ("闍", "table"),
            "\ue3ab困": ("梱", "table")}
    assert {k: built_pua[k] for k in want} == want


def test_the_exported_tei_reads_the_characters_and_still_quotes_its_sources(tmp_path: Path) -> None:
    from yili_corpus.tei.validate import validate_file

    out = tmp_path / "shu.xml"
    r = CliRunner().invoke(main, ["--tei", str(TEI), "export", "--section", "16-22", "--format", "tei", "-o", str(out)])
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    no_pua(text, "export --format tei")
    root = etree.fromstring(text.encode("utf-8"))
    g = root.find(".//t:g[@ref='#w003-E424']", NS)
    assert g is not None and g.text == "幹"
    prop = root.find(".//t:char[@xml:id='w003-E3AB-E4A4']/t:localProp[@name='codepoints']", {**NS, "xml": XML[1:-1]})
    assert prop is not None and prop.get("value") == "U+E3AB U+E4A4"
    # the <g> stands for what its declaration says the witness wrote: the quotes still check
    assert validate_file(out, use_schema=False, corpus_root=ROOT) == []


# -- unresolved: a visible mark, and the report lists it -------------------------------------------

def test_readable_gives_the_character_or_the_mark() -> None:
    chars = {"a": CharDecl("a", "w003", "\ue07d", "算", 1, ""), "b": CharDecl("b", "w003", "\ue268", None, 1, "")}
    assert readable(["无", Glyph("a", "\ue07d"), "爵"], chars) == "无算爵"
    assert readable([Glyph("b", "\ue268"), "谓之台"], chars) == "〓谓之台"
    assert readable([Glyph("c", "\ue000")], chars) == "〓"  # not even declared


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "corpus"
    shutil.copytree(CORPUS, dst)
    return dst


def test_a_sequence_nothing_resolves_is_marked_and_reported(tmp_path: Path) -> None:
    from yili_corpus.build import tei_bytes
    from yili_corpus.report import format_report

    cdir = _copy(tmp_path)
    table = cdir / "pua.tsv"
    table.write_text("".join(ln for ln in table.read_text(encoding="utf-8").splitlines(keepends=True)
                             if not ln.startswith("w003\tU+E268")), encoding="utf-8")
    r = run_build(cdir)
    v = r.unencoded[("w003", "\ue268")]
    assert v.character is None and v.places == ["105:702"]
    rep = format_report(r)
    assert "1 unresolved (shown as 〓)" in rep and "unresolved: w003 U+E268 (1×, line:col 105:702)" in rep
    no_pua(rep, "the build report")
    tei = tmp_path / "x.xml"
    tei.write_bytes(tei_bytes(r))
    root = etree.parse(str(tei)).getroot()
    c = root.find(".//t:char[@xml:id='w003-E268']", {**NS, "xml": XML[1:-1]})
    assert c.find("t:mapping[@type='standard']", NS) is None and "not identified" in c.findtext("t:note", "", NS)
    # unread, w003's code point differs from the 四库 copy's 闍: an apparatus entry, shown as 〓
    out = yili("show", "20", "--layer", "shu", tei=tei)
    assert "阇］w003 〓" in out
    no_pua(out, "show 20")


# -- the table is checked against the files it names -----------------------------------------------

def _load(cdir: Path) -> list:
    m = load_manifest(cdir)
    texts = {s.id: s.path(cdir).read_text(encoding="utf-8") for s in m.sources}
    return load_pua_table(m.table("pua"), texts, Normaliser(VariantTable.load(m.table("variants"))))


def test_the_table_rows_are_checked_against_both_witnesses(tmp_path: Path) -> None:
    rows = _load(CORPUS)
    assert [(r.witness, r.character, r.line, r.against, r.against_line) for r in rows] == [
        ("w003", "卻", 97, "w005", 504), ("w003", "闍", 105, "w005", 527), ("w003", "梱", 299, "w005", 625)]
    cdir = _copy(tmp_path)
    table = cdir / "pua.tsv"
    good = table.read_text(encoding="utf-8")
    for old, new, msg in [
        ("\t105\t", "\t106\t", "w003 line 106 does not hold"),            # the wrong line of w003
        ("w005:527", "w005:528", "w005 line 528 does not hold"),          # the wrong line of w005
        ("\t闍\t", "\t阁\t", "is not the same text as"),                  # a character the reading does not have
        ("U+E268", "U+E269", "does not hold"),                            # a code point not there
        ("U+E268", "E268", r"must be U\+XXXX tokens"),
    ]:
        table.write_text(good.replace(old, new, 1), encoding="utf-8")
        with pytest.raises(DataError, match=msg) as exc:
            _load(cdir)
        assert exc.value.line == 18 and "pua.tsv" in str(exc.value.path)


def test_a_row_for_a_learned_sequence_must_agree_with_the_collation(tmp_path: Path) -> None:
    from yili_corpus.text.unencoded import PuaRow, resolve_unencoded

    cdir = _copy(tmp_path)
    table = cdir / "pua.tsv"
    # U+E07D is learned from the 注 as 算 (w005 line 603); a row reading it as 筭 agrees (one
    # character in the key, variants.tsv) and changes nothing
    row = "w003\tU+E07D\t筭\t251\t未释其〓\tw005:603\t未釋其算\tthe 注 of 21.15\n"
    table.write_text(table.read_text(encoding="utf-8") + row, encoding="utf-8")
    r = run_build(cdir)
    assert r.unencoded[("w003", "\ue07d")].character == "算"
    assert r.unencoded[("w003", "\ue07d")].how == "collation of the 注"
    # a row that reads it as another character is refused, naming its line
    norm = Normaliser(VariantTable.load(cdir / "variants.tsv"))
    bad = PuaRow("w003", "\ue07d", "爵", 17, "无〓爵", "w005", 463, "無算爵", "", 20)
    learned = {("w003", "\ue07d"): {"character": "算", "evidence": "w003 line 251"}}
    with pytest.raises(DataError, match="U\\+E07D is 爵 here but the collation of the 注 reads 算") as exc:
        resolve_unencoded(r.parsed, {}, learned, [bad], norm)
    assert exc.value.line == 20


def test_build_refuses_a_bad_table_with_a_one_line_error(tmp_path: Path) -> None:
    cdir = _copy(tmp_path)
    table = cdir / "pua.tsv"
    table.write_text(table.read_text(encoding="utf-8").replace("w005:504", "w005:9999"), encoding="utf-8")
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(cdir), "--tei-dir", str(tmp_path / "tei"),
                                  "--report-dir", str(tmp_path / "build")])
    assert r.exit_code == 3 and "Traceback" not in r.output
    assert "pua.tsv" in r.output and "w005 line 9999 does not hold" in r.output
