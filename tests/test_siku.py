"""The parser of the 四库 《儀禮注疏》 layout (``sources/siku.py``), on the real witness files in
``../shared/witnesses/KR1d0028/`` (not yet in corpus/): coverage, the first units of 卷五, 音義,
疏 and 考證 counts made independently here, pages, malformed inputs, and the other 卷."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from yili_corpus.errors import SourceError
from yili_corpus.model import ParsedSource, SourceUnit, is_text_char
from yili_corpus.report import coverage_of
from yili_corpus.sources import PARSERS, siku
from yili_corpus.sources.reader import read_source

WITNESS = Path(__file__).resolve().parents[1].parent / "shared" / "witnesses" / "KR1d0028"
if not (WITNESS / "KR1d0028_005.txt").is_file():
    pytest.skip(f"the 四库 witness folder {WITNESS} is absent (it lives beside the repository)",
                allow_module_level=True)

FILE = WITNESS / "KR1d0028_005.txt"
PB_LINE = re.compile(r"\n<pb:[^>]*>¶(?=\n)")


@pytest.fixture(scope="module")
def text() -> str:
    return read_source(FILE)


@pytest.fixture(scope="module")
def parsed(text: str) -> ParsedSource:
    return PARSERS["siku-zhushu"]("w_siku", text, "KR1d0028_005.txt")


def _kind(p: ParsedSource, kind: str) -> list[SourceUnit]:
    return [u for u in p.units if u.kind == kind]


def _page_key(page: str) -> tuple[int, int, str]:
    m = re.fullmatch(r"(\d{3})-(\d+)([ab])", page)
    assert m, page
    return int(m.group(1)), int(m.group(2)), m.group(3)


# ------------------------------------------------------------------------------------- 卷五


def test_every_cjk_character_is_placed_or_noise(text: str, parsed: ParsedSource) -> None:
    cov = coverage_of(parsed)  # raises on any text character in no unit and no noise record
    assert cov["read"] == sum(1 for ch in text if is_text_char(ch))
    assert cov["placed_share"] >= 0.995
    assert all(z.reason for z in parsed.noise)
    reasons = {z.reason for z in parsed.noise if any(is_text_char(c) for c in z.text)}
    assert reasons == {"mandoku header line"}  # the headings are the edition's text: units
    roles = {u.meta["role"]: u.text for u in parsed.units if u.kind == "heading"}
    assert roles["juan"] == "儀禮注疏卷五" and roles["chapter"] == "鄉射禮第五" and roles["edition"] == "欽定四庫全書"


def test_units_are_exact_slices_in_file_order(text: str, parsed: ParsedSource) -> None:
    last = -1
    for u in parsed.units:
        assert text[u.offset:u.end] == u.text
        assert u.offset >= last
        last = u.end
        assert u.text.startswith(text.split("\n")[u.line - 1][u.col:u.col + 1])
        assert text.split("\n")[u.meta["line_end"] - 1][:u.end_col].endswith(u.text[-1])


def test_first_jing_run_and_zhu_run(parsed: ParsedSource) -> None:
    units = [u for u in parsed.units if u.kind != "heading"]  # the 卷's title page comes first
    first = units[0]
    assert first.kind == "text"
    assert first.text == "鄉射之禮○主人戒賓賓岀迎再拜主人答再拜乃請"
    assert (first.line, first.col, first.meta["page"]) == (12, 0, "005-1a")
    zhu = units[1]
    assert zhu.kind == "zhu_run" and zhu.text.startswith("注主人州長也")
    assert zhu.meta["text"].startswith("主人州長也鄉大夫若在焉")
    assert zhu.meta["zhu_end"] == "unknown"
    assert (zhu.line, zhu.meta["line_end"]) == (13, 20)
    assert (zhu.meta["page"], zhu.meta["page_end"]) == ("005-1a", "005-1b")
    assert "<pb:" in zhu.text and "<pb:" not in zhu.meta["text"] and "¶" not in zhu.meta["text"]


def test_yinyi_keeps_raw_slice_and_reads_without_column_breaks(parsed: ParsedSource) -> None:
    yy = _kind(parsed, "yinyi")[0]
    assert yy.text == "音義(長丁大反警音景語/魚據反爲于僞反)"
    assert yy.meta["text"] == "長丁大反警音景語魚據反爲于僞反"
    assert (yy.line, yy.meta["page"]) == (20, "005-1b")
    # a mark broken by the line end: ``…別於賓音¶`` then ``義(别彼/列反)`` after a page break
    split = next(u for u in _kind(parsed, "yinyi") if u.line == 240)
    assert split.meta["text"] == "别彼列反"
    assert (split.meta["page"], split.meta["page_end"]) == ("005-13b", "005-14a")


def test_counts_of_blocks_and_kaozheng_entries_match_an_independent_count(
    text: str, parsed: ParsedSource
) -> None:
    body, _, kz = text.partition("#+PROPERTY: JUAN 卷五考證")
    flat = PB_LINE.sub("", body)
    # a block opens with 疏( / 音義(, or its mark ends a line and the next line goes on with ( / 義(
    n_shu = len(re.findall(r"疏\(|疏¶\n\(", flat))
    n_yinyi = len(re.findall(r"音義\(|音義¶\n\(|音¶\n義\(", flat))
    n_kz = sum(1 for ln in kz.split("\n") if ln and "\u4e00" <= ln[0] <= "\u9fff")
    assert (n_shu, n_yinyi, n_kz) == (317, 145, 41)
    assert len(_kind(parsed, "shu")) == n_shu
    assert len(_kind(parsed, "yinyi")) == n_yinyi
    assert len(_kind(parsed, "kaozheng")) == n_kz
    assert [u.meta["n"] for u in _kind(parsed, "shu")] == list(range(1, n_shu + 1))


def test_shu_block_parts_and_span(parsed: ParsedSource) -> None:
    shu = _kind(parsed, "shu")
    first = shu[0]
    assert first.text.startswith("疏(釋曰自此至無介論/州長將射先戒賓之)¶\n(事案")
    assert first.meta["text"].startswith("釋曰自此至無介論州長將射先戒賓之事案大射")
    assert (first.line, first.meta["line_end"]) == (20, 41)
    kinds = [(p["kind"], p.get("span")) for p in first.meta["parts"]]
    assert kinds == [("jing", {"verb": "至", "to": "無介"}), ("zhu", None)]
    zhu_part = first.meta["parts"][1]
    assert first.meta["text"][zhu_part["start"]:].startswith("注釋曰案鄉大夫是諸矦鄉大夫")
    for u in shu:
        t = u.meta["text"]
        assert not re.search(r"[()/¶]", t)
        assert u.meta["parts"][0]["start"] == 0 and u.meta["parts"][-1]["end"] == len(t)
    spans = [p["span"] for u in shu for p in u.meta["parts"] if "span" in p]
    assert {"verb": "盡", "to": "經末"} in spans
    # the block that ends on the line the 考證 follows, its last wrapped line ``(故肉/袒也)``
    assert shu[-1].meta["text"].endswith("今與君射爲厭與士同故肉袒也")


def test_text_after_a_block_on_the_same_line(parsed: ParsedSource) -> None:
    u = next(u for u in _kind(parsed, "text") if u.line == 41)
    assert u.text == "賓禮辭許主人再拜賓答再拜主人退賓送再拜"
    small = next(u for u in _kind(parsed, "text") if u.line == 606)
    assert small.meta["small"] == ["目木"] and small.text.startswith("與升射者(目/木)左交")
    # 疏 with no parenthesis: a 注 mark the copy wrote as 疏 (尊東明與賓夾尊也 is 郑注), flagged
    odd = next(u for u in _kind(parsed, "text") if u.line == 245)
    assert odd.meta["bare_shu"] == [odd.meta["text"].index("疏尊東明")]


def test_kaozheng_entries(parsed: ParsedSource) -> None:
    kz = _kind(parsed, "kaozheng")
    e = next(u for u in kz if u.text == "司射適階西○適敖本作西")
    assert (e.meta["lemma"], e.meta["note"], e.meta["page"]) == ("司射適階西", "適敖本作西", "005-95b")
    first = kz[0]
    assert first.meta["lemma"] == "主人戒賓賓出迎再拜主人答再拜乃請"
    assert first.meta["editors"] == ["紱"] and first.meta["note"].startswith("敖繼公云請下似脱一賓字")
    assert first.meta["line_end"] == 1650
    assert all(u.meta["lemma"] for u in kz)


def test_pages_are_monotonic(parsed: ParsedSource) -> None:
    keys = []
    for u in parsed.units:
        keys.append(_page_key(u.meta["page"]))
        if "page_end" in u.meta:
            assert _page_key(u.meta["page_end"]) > _page_key(u.meta["page"])
            keys.append(_page_key(u.meta["page_end"]))
    assert keys == sorted(keys)
    # the last unit is the 考證's closing title, on the last page (after <pb:…_005-98b>)
    assert keys[0] == (5, 1, "a") and keys[-1] == (5, 98, "b")
    assert parsed.units[-1].kind == "heading" and parsed.units[-1].meta["role"] == "kaozheng-title"


# ------------------------------------------------------------------------------- malformed


HEAD = "#+PROPERTY: JUAN 卷五\n<pb:KR1d0028_WYG_005-1a>¶\n鄉射之禮○主人戒賓¶\n"


@pytest.mark.parametrize(
    ("body", "line", "what"),
    [
        ("注主人州長也)¶\n", 4, r"'\)' at column 6 closes nothing"),
        ("注主人州長也疏(釋曰(自此/)¶\n", 4, r"'\(' at column 10 inside the block opened at line 4"),
        ("注主人州長也疏(釋曰自此/至無介)¶\n(事案大射/)¶\n(宿縣此不言¶\n", 4, "never closed"),
        ("疏(釋曰自此/至無介)¶\n(事案大射/¶\n", 4, "never closed"),
        ("乃請(賓¶\n", 4, r"'\(' at column 2 is not closed on its line"),
        ("　儀禮注疏卷五考證¶\n　敖繼公云¶\n", 5, "indented 考證 line with no entry"),
    ],
    ids=["close-nothing", "open-in-block", "shu-unclosed-at-eof", "wrap-unclosed", "small-unclosed",
         "kaozheng-orphan"],
)
def test_malformed_input_names_file_and_line(body: str, line: int, what: str) -> None:
    text = HEAD + body
    with pytest.raises(SourceError, match=re.escape(f"bad.txt:{line}: ") + ".*" + what):
        siku.parse("w", text, "bad.txt")


def test_no_jing_text_is_refused() -> None:
    with pytest.raises(SourceError, match="bad.txt:1: no 经 text"):
        siku.parse("w", "#+TITLE: x\n<pb:KR1d0028_WYG_005-1a>¶\n", "bad.txt")


# ------------------------------------------------------------------------------ the other 卷

@pytest.mark.parametrize("juan", [f"{k:03d}" for k in range(1, 18)])
def test_every_juan_parses_with_full_coverage(juan: str) -> None:
    path = WITNESS / f"KR1d0028_{juan}.txt"
    p = siku.parse("w", read_source(path), path.name)
    cov = coverage_of(p)
    assert cov["placed_share"] >= 0.995
    kinds = {u.kind for u in p.units}
    assert {"text", "zhu_run", "yinyi", "shu", "kaozheng"} <= kinds
    assert all(u.meta["page"].startswith(juan) for u in p.units)
    # only the mandoku header is noise; the headings are units, each known by its form (卷十一 writes
    # 巻, 卷十五 注䟽 at its end): the 卷 title at its head and end, the 考證 title at its head and end
    assert {z["reason"] for z in cov["noise_items"] if z["chars"]} == {"mandoku header line"}
    heads = [u for u in p.units if u.kind == "heading"]
    assert Counter(u.meta["role"] for u in heads) == {"edition": 1, "juan": 2, "byline": 1, "chapter": 1, "kaozheng-title": 2}
    assert all(u.text == p.text[u.offset:u.end] and u.meta["page"].startswith(juan) for u in heads)


@pytest.mark.parametrize(("juan", "variant"), [(2, 1), (10, 1), (13, 11), (15, 50)])
def test_the_shu_mark_written_with_its_variant_form_opens_a_block(juan: int, variant: int) -> None:
    """卷十五 writes the 疏 mark 䟽( fifty times: each opens a 疏 block, not 经 text; every mark of
    either form (also one broken over a line end) is one block."""
    f = WITNESS / f"KR1d0028_{juan:03d}.txt"
    t = read_source(f)
    assert t.count("䟽(") == variant
    p = PARSERS["siku-zhushu"]("w_siku", t, f.name)
    marks = re.findall(r"[疏䟽](?:¶\n(?:<pb:[^>]*>¶\n)?)?\(", t)
    assert len(_kind(p, "shu")) == len(marks)
    assert not any("䟽(" in u.text for u in _kind(p, "text"))
