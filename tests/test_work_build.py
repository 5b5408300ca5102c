"""The whole work (issue 15, item 1 and item 5's build): the work manifest and the seventeen chapter
manifests load and their files check; the fields every chapter's file of one edition shares come
from the work manifest; ``yili build`` builds every chapter in parallel with progress on stderr and
lists the front matter, ``--chapter ID`` builds one, and a chapter that fails is one line naming it
while the others are written."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.cli import main
from yili_corpus.errors import DataError
from yili_corpus.sources.manifest import load_manifest, load_work, verify_checksums
from yili_corpus.tables import read_table

from .conftest import CORPUS, ROOT

WITNESSES = ROOT.parent / "shared" / "witnesses"
CHAPTERS = [(int(c[0]), c[1], c[3].strip()) for _i, c in
            read_table(CORPUS / "yili-chapters.tsv", ["n", "title", "also", "id"], "chapter table")]


def test_the_work_manifest_lists_the_seventeen_chapters_in_order() -> None:
    work = load_work(CORPUS)
    assert list(work.chapters) == [cid for _n, _t, cid in CHAPTERS]
    assert work.default == "xiangsheli" and load_manifest(CORPUS).chapter_id == "xiangsheli"
    assert work.title == "仪礼"


@pytest.mark.parametrize(("n", "title", "cid"), CHAPTERS, ids=[c[2] for c in CHAPTERS])
def test_each_chapter_manifest_loads_and_its_files_check(n: int, title: str, cid: str) -> None:
    m = load_manifest(CORPUS, cid)
    verify_checksums(m)  # every file, sha256 as recorded
    assert (m.chapter_id, m.chapter_number, m.chapter_title) == (cid, n, title)
    assert m.path == f"chapters/{cid}.toml" and m.titles[0] == title
    sk, nt = m.source("w005"), m.source("w006")
    # the files are the witness collection's, verbatim
    assert (CORPUS / sk.file).read_bytes() == (WITNESSES / "KR1d0028" / f"KR1d0028_{n:03d}.txt").read_bytes()
    assert (CORPUS / nt.file).read_bytes() == (WITNESSES / "niutrans-yili" / f"{n:02d}.txt").read_bytes()
    # juan and the chapter's title in the edition, as the file itself heads them
    lines = (CORPUS / sk.file).read_text(encoding="utf-8").splitlines()
    assert lines[5] == f"#+PROPERTY: JUAN {sk.juan}"
    assert lines[10].strip("　¶").startswith(sk.edition_chapter + "第")
    assert sk.format == "siku-zhushu" and nt.format == "punctuated"
    assert m.base in {s.id for s in m.sources}


def test_the_shared_fields_of_an_edition_are_written_once() -> None:
    """Repository, commit, licence and attribution of the 四库 edition are in the work manifest only;
    every chapter's w005 carries them."""
    work = tomllib.loads((CORPUS / "manifest.toml").read_text(encoding="utf-8"))
    siku = work["sources"]["siku"]
    for _n, _t, cid in CHAPTERS:
        raw = (CORPUS / "chapters" / f"{cid}.toml").read_text(encoding="utf-8")
        assert not re.search(r"(?m)^(repository|commit|licence) =", raw)
        w005 = load_manifest(CORPUS, cid).source("w005")
        assert (w005.repository, w005.commit, w005.licence, w005.attribution) == (
            siku["repository"], siku["commit"], siku["licence"], siku["attribution"])


def test_an_incomplete_punctuated_witness_is_not_the_base() -> None:
    """niutrans 01 has no 记 and 11 no 传: the 四库 卷 is the base there, the punctuated file elsewhere."""
    for _n, _t, cid in CHAPTERS:
        m = load_manifest(CORPUS, cid)
        nt = (CORPUS / m.source("w006").file).read_text(encoding="utf-8")
        sk = (CORPUS / m.source("w005").file).read_text(encoding="utf-8")
        # a 记 the punctuated file lacks, or a 传 (傳曰 dozens of times, not a 疏's quotation)
        lacks = (re.search(r"(?m)^記", sk) and not re.search(r"(?m)^记", nt)) or (
            sk.count("傳曰") > 20 and "传曰" not in nt)
        if cid != "xiangsheli":
            assert (m.base == "w005") == bool(lacks), cid


def test_an_unknown_chapter_is_refused() -> None:
    with pytest.raises(DataError, match="no chapter 'nosuch'"):
        load_manifest(CORPUS, "nosuch")
    r = CliRunner().invoke(main, ["build", "--chapter", "nosuch", "--check"])
    assert r.exit_code == 2 and "no chapter 'nosuch'" in r.output


def test_build_one_chapter_writes_its_tei(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["build", "--chapter", "shiguanli", "--corpus", str(CORPUS), "-q",
                                  "--tei-dir", str(tmp_path / "tei"), "--report-dir", str(tmp_path / "build")])
    assert r.exit_code == 0, r.output
    tei = (tmp_path / "tei" / "yili-shiguanli.xml").read_text(encoding="utf-8")
    assert "士冠禮" in tei and "corpus/KR1d0028_001.txt#char=" in tei
    assert sorted(p.name for p in (tmp_path / "tei").iterdir()) == ["yili-shiguanli.xml"]
    rep = json.loads((tmp_path / "build" / "shiguanli.report.json").read_text(encoding="utf-8"))
    assert {c["source"] for c in rep["sources"]} == {"w005", "w006"}


def test_a_failing_chapter_is_one_line_and_the_others_are_written(corpus_copy: Path, tmp_path: Path) -> None:
    (corpus_copy / "sections" / "sangfu.tsv").write_text("n\tkind\ttitle\tincipit\n1\tjing\tx\t不存在的开头\n",
                                                         encoding="utf-8")
    r = CliRunner().invoke(main, ["build", "--corpus", str(corpus_copy), "--chapter", "sangfu", "--chapter", "yanli",
                                  "--tei-dir", str(tmp_path / "tei"), "--report-dir", str(tmp_path / "build")])
    assert r.exit_code == 3
    assert sorted(p.name for p in (tmp_path / "tei").iterdir()) == ["yili-yanli.xml"]
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("yili: error:")]
    assert errors[0].startswith("yili: error: chapter sangfu: ") and "不存在的开头" in errors[0]
    assert "1 of 2 chapters failed: sangfu" in errors[-1]
    # progress on stderr, one line a chapter; the summary on stdout
    assert len([ln for ln in r.stderr.splitlines() if re.match(r"\[\d/2\] \w+: (built|failed) in", ln)]) == 2
    assert re.search(r"(?m)^yanli: \d+ sections, .*placed w005 \d+\.\d\d%", r.stdout)


def test_the_whole_work_builds_and_lists_its_front_matter(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["build", "--corpus", str(CORPUS), "--jobs", "2",
                                  "--tei-dir", str(tmp_path / "tei"), "--report-dir", str(tmp_path / "build")])
    assert r.exit_code == 0, r.output[-2000:]
    assert sorted(p.name for p in (tmp_path / "tei").iterdir()) == sorted(
        [f"yili-{c}.xml" for _n, _t, c in CHAPTERS] + ["front.xml"])
    assert len(re.findall(r"(?m)^\[\d+/17\] \w+: built in", r.stderr)) == 17
    assert re.search(r"(?m)^built 17 of 17 chapters: \d+ sections", r.stdout)
    work = json.loads((tmp_path / "build" / "work.report.json").read_text(encoding="utf-8"))
    front = work["front"][0]
    assert front["file"] == "KR1d0028_000.txt" and {"儀禮疏序", "提要"} <= set(front["parts"])
    assert "front matter KR1d0028_000.txt (儀禮疏序, 提要" in r.stdout
    # every chapter's 四库 file is placed to ≥ 99.5% (its headings too: only the mandoku header is noise)
    cov = {c["chapter"]: c["coverage"]["w005"] for c in work["chapters"]}
    assert len(cov) == 17 and min(cov.values()) >= 0.995, cov
    # the front matter is placed in tei/front.xml, which `build --check` checks and `validate` validates
    assert front["placed"] == str(tmp_path / "tei" / "front.xml") and front["coverage"]["placed_share"] >= 0.995
    c = CliRunner().invoke(main, ["build", "--check", "--corpus", str(CORPUS), "--tei-dir", str(tmp_path / "tei"),
                                  "--report-dir", str(tmp_path / "build")])
    assert c.exit_code == 0 and f"up to date: {tmp_path / 'tei' / 'front.xml'}" in c.output, c.output[-500:]
    (tmp_path / "tei" / "front.xml").write_text("<TEI/>", encoding="utf-8")
    c = CliRunner().invoke(main, ["build", "--check", "--corpus", str(CORPUS), "--tei-dir", str(tmp_path / "tei"),
                                  "--report-dir", str(tmp_path / "build")])
    assert c.exit_code != 0 and "front.xml" in c.output and "stale" in c.output, c.output[-500:]
    # 卷十七's 跋語 is held: counted in the report, not dropped
    assert [c["held"] for c in work["chapters"] if c["chapter"] == "yousiche"] == [{"w005": {"other": 1}}]
