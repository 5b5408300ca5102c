"""The sections of the chapters from the 疏's own division (text/division.py, issue 15 item 2):
the rule on the real 四库 卷 files, the committed tables in corpus/sections/ (found in order in
each chapter's 经 key, and equal to what the generator makes now unless a row carries a hand
note), and the generator as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from yili_corpus.sources import siku
from yili_corpus.tables import read_table
from yili_corpus.text import division
from yili_corpus.text.normalise import Normaliser, VariantTable
from yili_corpus.text.segment import find_sections, load_sections

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
WITNESSES = ROOT.parent / "shared" / "witnesses"
CHAPTERS = [(int(c[0]), c[3].strip()) for _i, c in
            read_table(CORPUS / "yili-chapters.tsv", ["n", "title", "also", "id"], "chapter table")]


def siku_file(n: int) -> Path:
    """The 四库 卷 of chapter ``n``: the corpus copy, else the witness collection's."""
    p = CORPUS / f"KR1d0028_{n:03d}.txt"
    return p if p.is_file() else WITNESSES / "KR1d0028" / f"KR1d0028_{n:03d}.txt"


def niutrans_file(n: int) -> Path:
    """The niutrans file of chapter ``n``: the corpus copy, else the witness collection's."""
    p = CORPUS / f"niutrans-yili-{n:02d}.txt"
    return p if p.is_file() else WITNESSES / "niutrans-yili" / f"{n:02d}.txt"


def table_path(n: int, cid: str) -> Path:
    """The generated table of chapter ``n`` (乡射礼: the 疏's division beside sections.tsv)."""
    return CORPUS / "sections" / ("xiangsheli-shu.tsv" if cid == "xiangsheli" else f"{cid}.tsv")


pytestmark = pytest.mark.skipif(not all(siku_file(n).is_file() and niutrans_file(n).is_file() for n, _ in CHAPTERS),
                                reason="the 四库 and niutrans files of the 17 chapters are absent")
NORM = Normaliser(VariantTable.load(CORPUS / "variants.tsv"))


def test_juan_five_first_division_is_zhouzhang_at_the_opening() -> None:
    rows, key = division.generate(siku_file(5), niutrans_file(5), NORM)
    first = rows[0]
    assert first.title == "州长将射先戒宾"
    assert first.shu.startswith("自此至無介論州長將射先戒賓")
    assert first.start == 0 and key.key.startswith(NORM.key(first.incipit))
    assert NORM.key(first.incipit).startswith(NORM.key("鄉射之禮"))
    assert first.kind == "jing" and "ends where the next section starts" in first.how
    # the 记 starts a ji section, and every row after it is ji
    ji = [i for i, r in enumerate(rows) if r.kind == "ji"]
    assert ji and rows[ji[0]].incipit.startswith("记") and ji == list(range(ji[0], len(rows)))


def test_the_phrasings_of_the_division() -> None:
    """Divisions written in other ways than 自此至X論Y之事, read from the real blocks."""
    found: dict[str, tuple[str, str, str, str, bool]] = {}
    for n in (2, 5, 8, 13):
        for u in siku.parse("w005", siku_file(n).read_text(encoding="utf-8"), str(siku_file(n))).units:
            if u.kind == "shu":
                d = division.find_division(str(u.meta["text"]), u.meta["parts"])
                if d is not None:
                    found[f"{n}:{u.line}"] = d
    # 從此下至X…陳Y之禮 (卷二): the verb 陳, and 之禮 kept in the title
    assert found["2:17"][2:4] == ("主人許賔入授如初禮", "納采問名之禮")
    # in a 注釋曰 part, 已下盡 …論Y事 with a bare 事 (卷五)
    assert found["5:398"][0] == "zhu" and found["5:398"][2:4] == ("樂正北面立於其南", "三番射")
    # X that itself ends in 之禮 (卷八): the verb decides
    assert found["8:1446"][2] == "于卿之禮" and found["8:1446"][3].startswith("主國下大夫")
    # 此經論Y: a division of the block's own 经 (卷十三)
    assert found["13:12"][4] is True and found["13:12"][3] == "既夕哭請啓期"
    # 此經 in an explanation is no division (卷五: 釋曰此經亦與鄉飲酒同)
    assert "5:118" not in found


@pytest.mark.parametrize(("n", "cid"), CHAPTERS)
def test_committed_table_is_found_in_order_in_the_jing(n: int, cid: str) -> None:
    path = table_path(n, cid)
    rows = load_sections(path)
    assert len(rows) >= 1
    ps = siku.parse("w005", siku_file(n).read_text(encoding="utf-8"), str(siku_file(n)))
    if n in division.SIKU_KEY_CHAPTERS:  # niutrans incomplete (士冠礼; 丧服 without its 传)
        key = division.siku_key(ps.units, NORM, siku_file(n).name)[0].key
    else:
        key = division.niutrans_key(niutrans_file(n), NORM).key
    starts = find_sections(rows, key, NORM, str(path))
    assert starts == sorted(set(starts)) and starts[0] == 0
    cells = [ln.split("\t") for ln in path.read_text(encoding="utf-8").splitlines()
             if ln and not ln.startswith("#")][1:]
    # a title is the 疏's words or, where it gives none, the row's own incipit (记 for the row
    # where the 记 starts) — never made up
    for c in cells:
        assert c[2] == c[3] or c[6] or (c[2] == "记" and c[3].startswith("记")), c
        assert c[4], c
    kinds = [c[1] for c in cells]
    assert kinds == sorted(kinds, key=lambda k: k == "ji")  # jing rows, then ji rows


@pytest.mark.parametrize(("n", "cid"), CHAPTERS)
def test_committed_table_is_what_the_generator_makes(n: int, cid: str) -> None:
    made = division.table(siku_file(n), niutrans_file(n), CORPUS / "variants.tsv").splitlines()
    have = table_path(n, cid).read_text(encoding="utf-8").splitlines()
    header = [ln for ln in have if ln.startswith("#")]
    assert header == [ln for ln in made if ln.startswith("#")]
    body = [ln.split("\t") for ln in have if not ln.startswith("#")]
    made_body = [ln.split("\t") for ln in made if not ln.startswith("#")]
    assert body[0] == made_body[0] == division.HEADER
    if any(len(c) > 7 and c[7].strip() for c in body[1:]):  # corrected by hand: those rows are kept
        kept = {c[0] for c in body[1:] if len(c) > 7 and c[7].strip()}
        body = [c for c in body if c[0] not in kept]
        made_body = [c for c in made_body if c[0] not in kept]
    assert body == made_body


def test_the_generator_as_a_user_runs_it(tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "yili_corpus.text.division", str(siku_file(10)),
                          "--niutrans", str(niutrans_file(10))], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "KR1d0028_010.txt" in out.stdout.splitlines()[0]
    assert out.stdout == table_path(10, "jinli").read_text(encoding="utf-8")
    bad = tmp_path / "notes.txt"
    bad.write_text("x\n", encoding="utf-8")
    err = subprocess.run([sys.executable, "-m", "yili_corpus.text.division", str(bad)],
                         capture_output=True, text=True, env=env, timeout=60)
    assert err.returncode == 2 and err.stdout == ""
    assert err.stderr.startswith("yili: error: ") and len(err.stderr.strip().splitlines()) == 1
    assert "Traceback" not in err.stderr


def test_docs_carry_the_current_counts() -> None:
    doc = (ROOT / "docs" / "alignment.md").read_text(encoding="utf-8")
    assert "### Sections from the 疏's division" in doc
    assert division.summary_table(CORPUS) in doc
