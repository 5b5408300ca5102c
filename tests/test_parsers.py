"""Unit tests for the five source parsers and the strict source reader.

Two groups: facts about the real files in ``corpus/`` (with the traceability guarantee that
every unit and noise record is the exact slice of the file it names), and small malformed
inputs, each of which must be refused with a :class:`SourceError` naming the file and line.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from yili_corpus.errors import DataError, SourceError
from yili_corpus.genre import Genre
from yili_corpus.model import GETA, Noise, ParsedSource, SourceUnit
from yili_corpus.sources import (
    PARSERS,
    annotated_translation,
    ji_translation,
    mixed_page,
    plain_clauses,
    punctuated,
    siku,
    zhushu,
)
from yili_corpus.sources.reader import decode_source, read_source

CORPUS = Path(__file__).parent.parent / "corpus"
CHAPTER_TITLE = "乡射礼"
GENRE = Genre.load(CORPUS / "genre.tsv")

#: source id → (file, parser module)
SOURCES = {
    "w000": ("000_a2148d2a69de1968.txt", mixed_page),
    "w001": ("001_2a8121061e9dfe52.txt", plain_clauses),
    "w002": ("002_f61d8bf8bcd3beb8.txt", annotated_translation),
    "w003": ("003_daa8338dfba24e1e.txt", zhushu),
    "w004": ("004_22d3dbd6e54e4b3b.txt", ji_translation),
}


# --------------------------------------------------------------------------- helpers


def _parse_real(source_id: str) -> ParsedSource:
    file, module = SOURCES[source_id]
    path = CORPUS / file
    text = read_source(path)
    return module.parse(source_id, text, str(path), chapter_title=CHAPTER_TITLE, genre=GENRE)


@pytest.fixture(scope="module")
def parsed() -> dict[str, ParsedSource]:
    return {sid: _parse_real(sid) for sid in SOURCES}


def _raises_at(path: str, line: int, what: str):
    """``pytest.raises`` for a SourceError whose message starts ``path:line: `` and says ``what``."""
    return pytest.raises(SourceError, match=re.escape(f"{path}:{line}: ") + ".*" + what)


def _check_prefix(excinfo: pytest.ExceptionInfo[SourceError], path: str, line: int) -> None:
    err = excinfo.value
    assert str(err).startswith(f"{path}:{line}: ")
    assert err.path == path
    assert err.line == line
    assert isinstance(err, DataError)
    assert err.exit_code == 3


def _check_span(text: str, rec: SourceUnit | Noise) -> None:
    """The traceability guarantee: the record is the slice of the file it says it is."""
    assert 0 <= rec.offset < rec.end <= len(text)
    assert rec.text == text[rec.offset : rec.end]
    assert rec.text, "empty span"
    assert "\n" not in rec.text
    assert rec.line == text.count("\n", 0, rec.offset) + 1
    line_start = text.rfind("\n", 0, rec.offset) + 1
    assert rec.col == rec.offset - line_start
    assert rec.end_col == rec.col + (rec.end - rec.offset)
    line_text = text.split("\n")[rec.line - 1]
    assert line_text[rec.col : rec.end_col] == rec.text
    assert rec.text == rec.text.strip(), "span not stripped of white space"


def _units(p: ParsedSource, kind: str) -> list[SourceUnit]:
    return [u for u in p.units if u.kind == kind]


# --------------------------------------------------------------------------- all sources


def test_parsers_registry_names_the_modules() -> None:
    assert PARSERS == {
        "plain-clauses": plain_clauses.parse,
        "zhushu": zhushu.parse,
        "annotated-translation": annotated_translation.parse,
        "mixed-page": mixed_page.parse,
        "ji-translation": ji_translation.parse,
        "siku-zhushu": siku.parse,
        "punctuated": punctuated.parse,
    }


@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_real_file_units_and_noise_are_exact_slices(
    parsed: dict[str, ParsedSource], source_id: str
) -> None:
    p = parsed[source_id]
    file, _module = SOURCES[source_id]
    assert p.id == source_id
    assert p.path == str(CORPUS / file)
    assert p.text == read_source(CORPUS / file)
    assert p.units
    for u in p.units:
        assert u.source == source_id
        _check_span(p.text, u)
    for n in p.noise:
        assert n.source == source_id
        assert n.reason
        _check_span(p.text, n)


@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_real_file_units_do_not_overlap_and_run_in_file_order(
    parsed: dict[str, ParsedSource], source_id: str
) -> None:
    units = parsed[source_id].units
    for a, b in zip(units, units[1:], strict=False):
        assert a.end <= b.offset, (a.where, b.where)


@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_real_file_noise_does_not_overlap_text_units_except_placeholders(
    parsed: dict[str, ParsedSource], source_id: str
) -> None:
    p = parsed[source_id]
    for n in p.noise:
        inside = [u for u in p.units if u.offset < n.end and n.offset < u.end]
        if "placeholder" in n.reason:
            # a placeholder stays in its unit, marked as a skip
            assert len(inside) == 1
        else:
            assert inside == [], n


# --------------------------------------------------------------------------- reader


def test_read_source_reads_clean_utf8() -> None:
    text = read_source(CORPUS / SOURCES["w001"][0])
    assert text.startswith("乡射礼 乡射之礼．主人戒宾．")
    assert "\r" not in text
    assert not text.startswith("\ufeff")


def test_decode_source_accepts_clean_utf8_with_lf() -> None:
    data = "乡射礼\n乡射之礼．\n".encode()
    assert decode_source(data, "ok.txt") == "乡射礼\n乡射之礼．\n"


def test_decode_source_refuses_gbk() -> None:
    data = "乡射之礼．主人戒宾．".encode("gbk")
    with _raises_at("gbk.txt", 1, "GBK") as excinfo:
        decode_source(data, "gbk.txt")
    _check_prefix(excinfo, "gbk.txt", 1)
    assert "convert the file to UTF-8" in str(excinfo.value)


def test_decode_source_refuses_gbk_and_names_the_line() -> None:
    data = "w001\n乡射之礼．主人戒宾．\n".encode("gbk")
    with _raises_at("corpus/gbk.txt", 2, "GBK") as excinfo:
        decode_source(data, "corpus/gbk.txt")
    _check_prefix(excinfo, "corpus/gbk.txt", 2)
    assert "at byte 5" in str(excinfo.value)


def test_decode_source_refuses_truncated_utf8_at_the_end() -> None:
    data = "乡射礼\n乡射之礼．\n主人戒宾".encode()[:-1]
    with _raises_at("cut.txt", 3, "truncated or invalid UTF-8") as excinfo:
        decode_source(data, "cut.txt")
    _check_prefix(excinfo, "cut.txt", 3)
    assert "GBK" not in str(excinfo.value)
    assert f"at byte {len(data) - 2}" in str(excinfo.value)


def test_decode_source_refuses_bom() -> None:
    data = "乡射礼\n乡射之礼．".encode("utf-8-sig")
    with _raises_at("bom.txt", 1, "byte-order mark") as excinfo:
        decode_source(data, "bom.txt")
    _check_prefix(excinfo, "bom.txt", 1)


def test_decode_source_refuses_crlf_on_the_first_line() -> None:
    data = "乡射礼\r\n乡射之礼．\r\n".encode()
    with _raises_at("crlf.txt", 1, "CR") as excinfo:
        decode_source(data, "crlf.txt")
    _check_prefix(excinfo, "crlf.txt", 1)


def test_decode_source_refuses_crlf_and_names_the_first_line_with_cr() -> None:
    data = "乡射礼\n乡射之礼．\n主人戒宾．\r\n".encode()
    with _raises_at("crlf.txt", 3, "CR") as excinfo:
        decode_source(data, "crlf.txt")
    _check_prefix(excinfo, "crlf.txt", 3)


def test_read_source_refuses_bad_bytes_and_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / "gbk.txt"
    p.write_bytes("w001\n乡射之礼．".encode("gbk"))
    with _raises_at(str(p), 2, "GBK") as excinfo:
        read_source(p)
    _check_prefix(excinfo, str(p), 2)


def test_read_source_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "missing.txt"
    with pytest.raises(SourceError, match=re.escape(f"{p}: ") + "cannot read"):
        read_source(p)


# --------------------------------------------------------------------------- w001 plain clauses


def test_w001_real_clauses(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w001"]
    assert len(p.units) == 1442
    assert {u.kind for u in p.units} == {"text"}
    assert [u.meta["clause"] for u in p.units] == list(range(1, 1443))
    assert all(u.line == 1 for u in p.units)
    assert all("．" not in u.text and " " not in u.text for u in p.units)
    first = p.units[0]
    assert (first.text, first.col, first.offset) == ("乡射之礼", 4, 4)
    assert [u.text for u in p.units[1:4]] == ["主人戒宾", "宾出迎再拜", "主人荅再拜"]
    # every clause is followed by its ．
    assert all(p.text[u.end] == "．" for u in p.units)


def test_w001_title_is_noise(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w001"]
    assert len(p.noise) == 1
    title = p.noise[0]
    assert (title.text, title.line, title.col, title.end_col) == ("乡射礼", 1, 0, 3)
    assert "title" in title.reason


def test_w001_small_input_without_title() -> None:
    p = plain_clauses.parse("w001", "乡射之礼．主人戒宾．\n", "w.txt")
    assert [u.text for u in p.units] == ["乡射之礼", "主人戒宾"]
    assert p.noise == []


def test_w001_truncated_last_clause() -> None:
    text = "乡射礼 乡射之礼．主人戒宾．宾出迎再拜"
    with _raises_at("corpus/001.txt", 1, "truncated") as excinfo:
        plain_clauses.parse("w001", text, "corpus/001.txt")
    _check_prefix(excinfo, "corpus/001.txt", 1)
    assert "宾出迎再拜" in str(excinfo.value)


def test_w001_truncated_last_clause_on_a_later_line() -> None:
    text = "乡射礼 乡射之礼．主人戒宾．\n宾出迎再拜．主人荅再拜\n"
    with _raises_at("w001.txt", 2, "truncated") as excinfo:
        plain_clauses.parse("w001", text, "w001.txt")
    _check_prefix(excinfo, "w001.txt", 2)


def test_w001_truncated_last_clause_with_trailing_space() -> None:
    text = "乡射礼 乡射之礼．主人戒宾．宾出迎再拜 "
    with _raises_at("w001.txt", 1, "truncated"):
        plain_clauses.parse("w001", text, "w001.txt")


def test_w001_unexpected_character() -> None:
    text = "乡射礼 乡射之礼．主人戒宾，宾出迎再拜．"
    with _raises_at("w001.txt", 1, r"unexpected character '，' \(U\+FF0C\) at column 13"):
        plain_clauses.parse("w001", text, "w001.txt")


def test_w001_empty_file() -> None:
    with _raises_at("w001.txt", 1, "no clauses found"):
        plain_clauses.parse("w001", "\n\n", "w001.txt")


# --------------------------------------------------------------------------- w003 注疏


def test_w003_real_counts(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w003"]
    kinds = Counter(u.kind for u in p.units)
    assert kinds == Counter({"shu": 112, "text": 48, "zhu": 44})
    roles = Counter(u.meta["role"] for u in _units(p, "shu"))
    assert roles == Counter({"lemma": 40, "body": 40, "zhu_lemma": 32})
    zhu = _units(p, "zhu")
    assert [u.meta["n"] for u in zhu] == list(range(1, 45))


def test_w003_shu_blocks(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w003"]
    lemmas = [u for u in _units(p, "shu") if u.meta["role"] == "lemma"]
    assert len(lemmas) == 40
    assert [u.meta["block"] for u in lemmas] == list(range(1, 41))
    assert all(u.text.startswith("[疏]") for u in lemmas)
    first = lemmas[0]
    assert first.line == 5
    assert first.meta["target"] == "jing"
    assert (first.meta["lemma_from"], first.meta["lemma_to"]) == ("司射", "子射")
    single = next(u for u in lemmas if u.line == 13)
    assert (single.meta["lemma_from"], single.meta["lemma_to"]) == ("司正为司马", None)
    on_zhu = [u.line for u in lemmas if u.meta["target"] == "zhu"]
    assert on_zhu == [247, 283, 289]
    # every 疏 part belongs to an existing block and to the 经 paragraph before it
    paras = {u.meta["para"] for u in _units(p, "text")}
    blocks = {u.meta["block"] for u in lemmas}
    for u in _units(p, "shu"):
        assert u.meta["block"] in blocks
        assert u.meta["para"] in paras
        assert u.text[0] in "[○"
    zl = next(u for u in _units(p, "shu") if u.line == 7)
    assert zl.meta["role"] == "zhu_lemma"
    assert (zl.meta["lemma_from"], zl.meta["lemma_to"]) == ("比选", "於子")


def test_w003_zhu_follow_existing_text_pieces(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w003"]
    pieces = {(u.meta["para"], u.meta["piece"]) for u in _units(p, "text")}
    lines = p.text.split("\n")
    zhu = _units(p, "zhu")
    assert len(zhu) == 44
    for u in zhu:
        assert (u.meta["para"], u.meta["after_piece"]) in pieces, u.where
        a, b = u.meta["paren"]
        assert lines[u.line - 1][a] == "（"
        assert lines[u.line - 1][b - 1] == "）"
        assert a < u.col and u.end_col < b
    first = zhu[0]
    assert first.line == 3
    assert first.text.startswith("比，选次其才相近者也")


def test_w003_text_pieces(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w003"]
    text = _units(p, "text")
    assert sorted({u.meta["para"] for u in text}) == list(range(1, 47))
    assert all("（" not in u.text and "）" not in u.text for u in text)
    by_line = [u for u in text if u.line == 11]
    assert [u.text for u in by_line] == ["司正为司马。"]
    assert by_line[0].meta == {"para": 2, "piece": 1}
    # a paragraph without 注
    assert [u.text for u in text if u.line == 35] == ["获者由西方坐取旌，倚于侯中，乃退。"]


def test_w003_noise(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w003"]
    assert [(n.line, n.text) for n in p.noise] == [(1, "仪礼注疏"), (55, "●卷十二乡射礼第五")]
    assert "title" in p.noise[0].reason
    assert "volume marker" in p.noise[1].reason
    assert not any("●" in u.text for u in p.units)


Z_PATH = "corpus/003_test.txt"


def test_w003_small_valid_input() -> None:
    text = (
        "仪礼注疏\n\n司正为司马。（兼官，由便也。）\n\n[疏]“司正为司马”。\n\n"
        "○注“兼官”至“便也”。\n\n○释曰：言“兼官”者。\n"
    )
    p = zhushu.parse("w003", text, Z_PATH)
    assert [(u.kind, u.meta.get("role"), u.line) for u in p.units] == [
        ("text", None, 3),
        ("zhu", None, 3),
        ("shu", "lemma", 5),
        ("shu", "zhu_lemma", 7),
        ("shu", "body", 9),
    ]
    assert p.units[1].text == "兼官，由便也。"
    assert p.units[1].meta["after_piece"] == 1


def test_w003_unclosed_parenthesis() -> None:
    text = "仪礼注疏\n\n司正为司马。（兼官，由便也。\n"
    with _raises_at(Z_PATH, 3, "（ at column 6 is never closed") as excinfo:
        zhushu.parse("w003", text, Z_PATH)
    _check_prefix(excinfo, Z_PATH, 3)


def test_w003_stray_closing_parenthesis() -> None:
    text = "仪礼注疏\n\n司正为司马。（兼官。）\n\n司马命张侯，弟子说束。事至也。）\n"
    with _raises_at(Z_PATH, 5, "） at column 15 closes nothing") as excinfo:
        zhushu.parse("w003", text, Z_PATH)
    _check_prefix(excinfo, Z_PATH, 5)


def test_w003_nested_parenthesis() -> None:
    text = "仪礼注疏\n\n司正为司马。（兼官，（由便也。）\n"
    with _raises_at(Z_PATH, 3, "unbalanced parentheses: （ at column 10 inside"):
        zhushu.parse("w003", text, Z_PATH)


def test_w003_shu_lemma_without_zhi() -> None:
    text = "仪礼注疏\n\n司射遂以比三耦於堂西。（比，选次其才相近者也。）\n\n[疏]“司射”“子射”。\n"
    with _raises_at(Z_PATH, 5, r"\[疏\] lemma must read") as excinfo:
        zhushu.parse("w003", text, Z_PATH)
    _check_prefix(excinfo, Z_PATH, 5)


def test_w003_shu_lemma_without_quotes() -> None:
    text = "仪礼注疏\n\n司射遂以比三耦於堂西。（比，选次其才相近者也。）\n\n[疏]司射至子射。\n"
    with _raises_at(Z_PATH, 5, r"\[疏\] lemma must read") as excinfo:
        zhushu.parse("w003", text, Z_PATH)
    _check_prefix(excinfo, Z_PATH, 5)
    assert "司射至子射" in str(excinfo.value)


def test_w003_zhu_part_lemma_without_zhi() -> None:
    text = "仪礼注疏\n\n司正为司马。（兼官。）\n\n[疏]“司正为司马”。\n\n○注“兼官”“便也”。\n"
    with _raises_at(Z_PATH, 7, "○注 lemma must read"):
        zhushu.parse("w003", text, Z_PATH)


def test_w003_zhu_part_outside_a_block() -> None:
    text = "仪礼注疏\n\n司正为司马。（兼官，由便也。）\n\n○注“兼官”至“便也”。\n"
    with _raises_at(Z_PATH, 5, "○注 part outside a \\[疏\\] block") as excinfo:
        zhushu.parse("w003", text, Z_PATH)
    _check_prefix(excinfo, Z_PATH, 5)


def test_w003_zhu_part_after_the_block_has_closed() -> None:
    # a new 经 paragraph closes the [疏] block before it
    text = (
        "仪礼注疏\n\n司正为司马。（兼官。）\n\n[疏]“司正为司马”。\n\n○释曰：言“兼官”者。\n\n"
        "司马命张侯。（事至也。）\n\n○注“事至也”。\n"
    )
    with _raises_at(Z_PATH, 11, "○注 part outside"):
        zhushu.parse("w003", text, Z_PATH)


def test_w003_unknown_circle_part() -> None:
    text = "仪礼注疏\n\n司正为司马。（兼官。）\n\n[疏]“司正为司马”。\n\n○按：此误。\n"
    with _raises_at(Z_PATH, 7, "unknown ○ part"):
        zhushu.parse("w003", text, Z_PATH)


def test_w003_shu_before_any_paragraph() -> None:
    text = "仪礼注疏\n\n[疏]“司射”至“子射”。\n"
    with _raises_at(Z_PATH, 3, "before any 经 paragraph"):
        zhushu.parse("w003", text, Z_PATH)


# --------------------------------------------------------------------------- w002 notes + 译文


def test_w002_note_numbers(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w002"]
    notes = _units(p, "note")
    assert len(notes) == 144
    assert [u.meta["n"] for u in notes] == list(range(21, 165))
    assert all(u.meta["series"] == "（）" for u in notes)
    tail = notes[0]
    assert tail.meta["fragment"] == "tail"
    assert (tail.meta["n"], tail.line, tail.col) == (21, 3, 0)
    assert tail.text.startswith("（弣：弓把）")
    assert all("fragment" not in u.meta for u in notes[1:])
    # a numbered note's text does not contain its label; the label is recorded in meta
    lines = p.text.split("\n")
    for u in notes[1:]:
        a, b = u.meta["label"]
        assert lines[u.line - 1][a:b] == f"（{u.meta['n']}）"
        assert b <= u.col


def test_w002_section_openers(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w002"]
    openers = {u.meta["n"]: u for u in _units(p, "note") if u.meta.get("opener")}
    assert len(openers) == 37
    assert {23, 25, 27, 30, 59, 97, 122} <= set(openers)
    n25 = openers[25]
    assert n25.meta["opener"] is True
    assert n25.meta["summary"] == "此节述司射比三耦之仪"
    assert n25.meta["lemma"] == "比三耦"
    assert n25.line == 7
    assert openers[23].meta["summary"] == "此节述纳射器之事"
    assert openers[97].meta["summary"].startswith("以节述")
    assert all(u.text.startswith(u.meta["summary"]) for u in openers.values())
    plain = next(u for u in _units(p, "note") if u.meta["n"] == 22)
    assert "opener" not in plain.meta
    assert plain.meta["lemma"] == "某不能，为二三子"


def test_w002_notes_sharing_a_line(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w002"]
    on_40 = [u for u in _units(p, "note") if u.line == 40]
    assert [u.meta["n"] for u in on_40] == [58, 59, 60]
    assert on_40[0].col == 4
    assert on_40[0].text.startswith("不索：不尽。")
    assert on_40[0].text.endswith("以免因有毁折而不够用。")
    assert on_40[1].text.startswith("此节述司射请射比耦之仪。")
    assert on_40[1].meta["opener"] is True
    assert on_40[2].text.startswith("以耦告于大夫曰")
    assert on_40[0].end_col < on_40[1].col < on_40[1].end_col < on_40[2].col
    assert [u.meta["n"] for u in _units(p, "note") if u.line == 55] == [75, 76]


def test_w002_translation_paragraphs(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w002"]
    trans = _units(p, "trans")
    assert len(trans) == 18
    assert [u.meta["para"] for u in trans] == list(range(1, 19))
    assert [u.line for u in trans] == list(range(143, 161))
    assert trans[0].text.startswith("乡射的礼仪：主人前往告请宾。")
    # the translation comes after every note
    assert max(u.end for u in _units(p, "note")) < trans[0].offset


def test_w002_noise(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w002"]
    by_line = {n.line: n for n in p.noise}
    assert sorted(by_line) == [1, 2, 142, 161]
    assert by_line[1].text == "乡射礼第五"
    assert "page header" in by_line[2].reason
    assert by_line[142].text == "【译文】"
    nav = by_line[161]
    assert nav.text == "（本章未完，请点击下一页继续阅读）"
    assert "navigation" in nav.reason
    assert not any(u.line == 161 for u in p.units)


A_PATH = "corpus/002_test.txt"


def test_w002_small_valid_input() -> None:
    text = (
        "乡射礼第五\n（弣：弓把），可供参考。\n（22）某不能：谦辞。（23）此节述纳射器之事。射器：弓矢。\n"
        "【译文】\n乡射的礼仪：主人前往告请宾。\n"
    )
    p = annotated_translation.parse("w002", text, A_PATH, genre=GENRE)
    assert [(u.kind, u.meta.get("n"), u.line) for u in p.units] == [
        ("note", 21, 2),
        ("note", 22, 3),
        ("note", 23, 3),
        ("trans", None, 5),
    ]
    assert p.units[2].meta["summary"] == "此节述纳射器之事"
    assert p.units[2].meta["lemma"] == "射器"


def test_w002_numbering_jump_at_line_start() -> None:
    text = (
        "乡射礼第五\n"
        "（22）某不能，为二三子：谦辞。\n"
        "（23）此节述纳射器之事。射器：即弓矢决拾等射事所用的器具。\n"
        "（25）此节述司射比三耦之仪。比三耦：比较才艺的高下。\n"
    )
    with _raises_at(A_PATH, 4, "note numbering: expected （24）, found （25）") as excinfo:
        annotated_translation.parse("w002", text, A_PATH)
    _check_prefix(excinfo, A_PATH, 4)


def test_w002_repeated_number_at_line_start() -> None:
    text = "（22）某不能：谦辞。\n（23）射器：弓矢。\n（23）上射：耦分上、下射。\n"
    with _raises_at(A_PATH, 3, "expected （24）, found （23）"):
        annotated_translation.parse("w002", text, A_PATH)


def test_w002_fragment_without_following_note() -> None:
    text = "（弣：弓把），右大指勾弦，可供参考。\n【译文】\n乡射的礼仪。\n"
    with _raises_at(A_PATH, 1, "no numbered note found"):
        annotated_translation.parse("w002", text, A_PATH)


# --------------------------------------------------------------------------- w000 mixed page


def test_w000_paragraph_kinds(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w000"]
    kinds = {u.line: u.kind for u in p.units}
    text_lines = [17, 19, 21, 23, 25, 37, 39, 41]
    assert sorted(line for line, k in kinds.items() if k == "text") == text_lines
    trans_lines = [3, 5, 7, 9, 11, 13, 15, 27, 29, 31, 33, 35, 45]
    assert sorted(line for line, k in kinds.items() if k == "trans") == trans_lines
    assert [u.meta["para"] for u in p.units] == list(range(1, 22))
    assert all(u.meta["modern_score"] == 0.0 for u in p.units if u.kind == "text")
    assert all(u.meta["modern_score"] > 0.5 for u in p.units if u.line < 43 and u.kind == "trans")
    ji = next(u for u in p.units if u.line == 41)
    assert ji.text.startswith("记。大夫与，则公士为宾。")
    after_heading = next(u for u in p.units if u.line == 45)
    assert after_heading.kind == "trans"


def test_w000_noise(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w000"]
    assert [(n.line, n.text) for n in p.noise] == [(1, "乡礼"), (43, "<b>译文</b>")]
    title = p.noise[0]
    assert "damaged" in title.reason
    assert "'乡礼'" in title.reason and "'乡射礼'" in title.reason
    assert "译文" in p.noise[1].reason


def test_w000_title_without_chapter_option_is_plain_page_title() -> None:
    p = mixed_page.parse("w000", "乡射礼\n\n主人戒宾，宾出迎，再拜。\n", "m.txt")
    assert [(n.text, n.reason) for n in p.noise] == [("乡射礼", "page title")]
    p2 = mixed_page.parse(
        "w000", "乡射礼\n\n主人戒宾，宾出迎，再拜。\n", "m.txt", chapter_title="乡射礼"
    )
    assert p2.noise[0].reason == "page title"


def test_w000_heading_makes_translation() -> None:
    text = "乡礼\n\n主人戒宾，宾出迎，再拜。\n\n<b>译文</b>\n\n主人戒宾，宾出迎，再拜。\n"
    p = mixed_page.parse("w000", text, "m.txt", chapter_title="乡射礼")
    assert [(u.line, u.kind) for u in p.units] == [(3, "text"), (7, "trans")]


def test_w000_unexpected_markup() -> None:
    text = "乡礼\n\n主人戒宾，宾出迎，再拜。\n\n<i>译文</i>\n"
    with _raises_at("m.txt", 5, "unexpected markup"):
        mixed_page.parse("w000", text, "m.txt")


# --------------------------------------------------------------------------- w004 记 + 译文


def test_w004_text_and_translation(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w004"]
    text = _units(p, "text")
    trans = _units(p, "trans")
    assert [(u.line, u.meta["para"], u.meta["para_label"]) for u in text] == [
        (1, 1, None),
        (5, 2, 53),
    ]
    assert [(u.line, u.meta["para"], u.meta["para_label"]) for u in trans] == [
        (3, 1, None),
        (7, 2, 53),
    ]
    assert text[0].text.startswith("《记》。大夫与，则公士为宾。")
    # the paragraph number 53. is not part of the text
    assert text[1].col == 3
    assert text[1].text.startswith("君射则为下射")
    markers = text[1].meta["markers"]
    assert [n for n, _ in markers] == list(range(1, 13))
    for n, at in markers:
        assert text[1].text[at:].startswith(f"〔{n}〕")


def test_w004_numbered_notes(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w004"]
    numbered = [u for u in _units(p, "note") if u.meta["series"] == "〔〕"]
    assert len(numbered) == 12
    assert [u.meta["n"] for u in numbered] == list(range(1, 13))
    assert all(u.line == 9 and u.meta["para_label"] == 53 for u in numbered)
    assert (numbered[0].text, numbered[0].meta["lemma"]) == ("答：对。", "答")
    assert numbered[11].meta["lemma"] == "肉袒"


def test_w004_lemma_notes(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w004"]
    lemma_notes = [u for u in _units(p, "note") if u.meta["series"] == "lemma"]
    assert len(lemma_notes) == 40
    assert [u.line for u in lemma_notes] == list(range(11, 90, 2))
    assert lemma_notes[0].meta["lemma"] == "大夫与，则公士为宾"
    assert all(u.text.startswith(u.meta["lemma"] + "：") for u in lemma_notes)
    assert lemma_notes[-1].meta["lemma"] == "本"
    assert Counter(u.kind for u in p.units) == Counter({"note": 52, "text": 2, "trans": 2})


def test_w004_placeholder_is_noise(parsed: dict[str, ParsedSource]) -> None:
    p = parsed["w004"]
    assert len(p.noise) == 1
    ph = p.noise[0]
    assert ph.text == "[生僻字详见原文]"
    assert (ph.line, ph.col) == (1, 790)
    assert "placeholder" in ph.reason
    # the placeholder stays in the 记 unit, marked as a skip replaced by the geta mark
    unit = next(u for u in p.units if u.offset <= ph.offset and ph.end <= u.end)
    assert unit.kind == "text" and unit.line == 1
    assert (ph.col - unit.col, ph.end_col - unit.col, GETA) in unit.meta["skips"]


def test_w004_numbering_jump() -> None:
    text = "53.君射则为下射〔1〕。\n\n〔1〕答：对。 〔3〕国中：都城中。\n"
    with _raises_at("j.txt", 3, "note numbering: expected 〔2〕, found 〔3〕"):
        ji_translation.parse("w004", text, "j.txt")


def test_w001_space_inside_a_clause_is_refused() -> None:
    with _raises_at("w001.txt", 1, "white space inside a clause"):
        plain_clauses.parse("w001", "乡射礼 乡射之礼．主人 戒宾．", "w001.txt")


def test_w002_number_jump_mid_line_is_refused() -> None:
    text = "（22）甲：乙。（23）丙：丁。（25）戊：己。\n"
    with _raises_at("w002.txt", 1, "expected （24）, found （25）"):
        annotated_translation.parse("w002", text, "w002.txt")


def test_gbk_line_after_utf8_lines_is_named() -> None:
    data = "乡射之礼．\n".encode() + "主人戒宾．".encode("gbk")
    with _raises_at("mixed.txt", 2, "GBK"):
        decode_source(data, "mixed.txt")


# -- the punctuated 经 texts of the other chapters (issue 15) ----------------------------------------

def test_punctuated_reads_a_character_it_could_not_type_as_one_placeholder() -> None:
    """□, a description by components ({曰鼎}, &lt;赤巠&gt;, 〈厂非〉) or a run of ASCII (j3) stands for
    one character: kept in its unit, read as 〓 in the key; 『』「」 and －－ stay inside a unit, an
    ASCII comma ends one."""
    from yili_corpus.text.normalise import Normaliser

    line = "受侑币－－束锦也,设{曰鼎}于&lt;赤巠&gt;南；j3四豆，「正歌备」。□者\n"
    p = punctuated.parse("w", line, "x.txt")
    texts = [u.text for u in p.units]
    assert texts == ["受侑币－－束锦也", "设{曰鼎}于&lt;赤巠&gt;南", "j3四豆", "「正歌备」", "□者"]
    assert [u.meta["mark"] for u in p.units] == [",", "；", "，", "。", ""]
    norm = Normaliser()
    keys = [norm.key_map(u.text, u.meta.get("skips", ()))[0] for u in p.units]
    assert keys[1] == f"设{GETA}于{GETA}南" and keys[2] == f"{GETA}四豆" and keys[4] == f"{GETA}者"
    for u in p.units:  # each unit is the slice of the file it names
        assert line[u.offset:u.end] == u.text


WITNESS_NIUTRANS = Path(__file__).resolve().parents[1].parent / "shared" / "witnesses" / "niutrans-yili"


@pytest.mark.skipif(not (WITNESS_NIUTRANS / "01.txt").is_file(), reason="the niutrans witness folder is absent")
def test_punctuated_parses_all_seventeen_chapters() -> None:
    for n in range(1, 18):
        f = WITNESS_NIUTRANS / f"{n:02d}.txt"
        p = punctuated.parse("w", read_source(f), f.name)
        assert p.units, f
