"""The chapter is data (issue 11, item 1): a renamed copy of the corpus — chapter id, titles,
witness ids, file names and the corpus folder all changed — builds into a TEI whose report, header
and pointers name the copy's own witnesses and files; ``yili validate`` checks it through the
folder its header records; with two chapters' TEIs, the commands ask which, and a reference to the
other chapter is refused."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.cli import main
from yili_corpus.errors import UsageError
from yili_corpus.query.refs import parse_ref
from yili_corpus.tei.read import read_tei
from yili_corpus.tei.validate import validate_file

from .conftest import CORPUS, ROOT

OLD_IDS = ("w000", "w001", "w002", "w003", "w004", "w005", "w006")
NEW_IDS = {"w000": "pg", "w001": "bw", "w002": "yz", "w003": "zs", "w004": "jy", "w005": "sk", "w006": "nt"}
FOLDER = "yinjiu-src"


def _renamed_copy(proj: Path) -> Path:
    """The corpus copied into ``proj/yinjiu-src``: chapter xiangyinjiu (乡饮酒礼), witnesses and
    files renamed, in the manifest and in every table that names them."""
    dst = proj / FOLDER
    (dst / "chapters").mkdir(parents=True)
    from yili_corpus.sources.manifest import load_manifest

    # the files of 乡射礼 only (the work's other chapters are not in the copy)
    files = {s.file: f"yj-{s.file[:3]}.txt" for s in load_manifest(CORPUS, "xiangsheli").sources}

    def rename(t: str) -> str:
        for a, b in files.items():
            t = t.replace(a, b)
        for a, b in NEW_IDS.items():
            t = re.sub(rf"\b{a}\b", b, t)
        return t

    for old, new in files.items():
        shutil.copyfile(CORPUS / old, dst / new)
    for f in CORPUS.glob("*.tsv"):
        (dst / f.name).write_text(rename(f.read_text(encoding="utf-8")), encoding="utf-8")
    # the work manifest of the copy: its one chapter, no front matter
    work = rename((CORPUS / "manifest.toml").read_text(encoding="utf-8")).split("[[front]]")[0]
    work = re.sub(r"(?s)chapters = \[.*?\]", 'chapters = ["chapters/xiangyinjiu.toml"]', work, count=1)
    work = work.replace("xiangsheli", "xiangyinjiu")
    (dst / "manifest.toml").write_text(work, encoding="utf-8")
    man = rename((CORPUS / "chapters" / "xiangsheli.toml").read_text(encoding="utf-8"))
    man = man.replace('id = "xiangsheli"', 'id = "xiangyinjiu"').replace('title = "乡射礼"', 'title = "乡饮酒礼"')
    man = re.sub(r"(?m)^titles = \[.*\]$", 'titles = ["乡饮酒礼", "鄉飲酒禮", "乡饮酒"]', man)
    man = man.replace("number = 5", "number = 4")
    assert "xiangsheli" not in man and not any(i in man for i in OLD_IDS)
    (dst / "chapters" / "xiangyinjiu.toml").write_text(man, encoding="utf-8")
    return dst


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The renamed copy, built with ``yili build`` (its printed report kept)."""
    proj = tmp_path_factory.mktemp("chapter") / "proj"
    cdir = _renamed_copy(proj)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(proj)
        r = CliRunner().invoke(main, ["build", "--corpus", FOLDER])
    assert r.exit_code == 0, r.output
    return {"proj": proj, "corpus": cdir, "tei": proj / "tei" / "yili-xiangyinjiu.xml",
            "report": proj / "build" / "xiangyinjiu.report.json", "printed": r.output}


def test_report_header_and_pointers_name_the_copys_own_witnesses_and_files(copy: dict) -> None:
    tei: Path = copy["tei"]  # type: ignore[assignment]
    xml = tei.read_text(encoding="utf-8")
    printed: str = copy["printed"]  # type: ignore[assignment]
    report = Path(copy["report"]).read_text(encoding="utf-8")  # type: ignore[arg-type]
    for text in (xml, printed, report):
        assert not [i for i in OLD_IDS if re.search(rf"\b{i}\b", text)]
        assert "corpus/" not in text and "xiangsheli" not in text
    # the pointers: the copy's folder and files
    files = set(re.findall(r'source="#\w+ ([^#"\s]+)#char=', xml))
    assert files and files <= {f"{FOLDER}/yj-{n:03d}.txt" for n in range(5)} | {f"{FOLDER}/yj-KR1.txt", f"{FOLDER}/yj-niu.txt"}
    doc = read_tei(tei)
    assert doc.corpus == FOLDER
    assert {w.id: w.file for w in doc.witnesses}["zs"] == f"{FOLDER}/yj-003.txt"
    # the header: explicit chapter fields and titles, the collation told from the manifest
    assert (doc.id, doc.work, doc.chapter, doc.number) == ("xiangyinjiu", "仪礼", "乡饮酒礼", 4)
    assert doc.titles == ["乡饮酒礼", "鄉飲酒禮", "乡饮酒"]
    assert "collated from bw (the base, complete), sk, zs, pg, jy and nt" in doc.collation
    assert "witness rank of yinjiu-src/chapters/xiangyinjiu.toml (sk, zs, pg, jy, nt, bw)" in doc.collation
    assert "Clauses are divided by the evidence of the witnesses (segmentation)" in doc.collation
    # the 注/疏 counts come from the witnesses whose layers hold zhu and shu (sk: 注 and 疏 of every
    # section; zs: 注 and 疏 of 16–22)
    data = json.loads(report)
    layers = {s["n"]: s["layers"] for s in data["sections"]}
    assert all(layers[n].get("zhu", 0) > 0 and layers[n].get("shu", 0) > 0 for n in range(16, 23))
    assert sum(1 for n in range(1, 54) if "shu" in layers[n]) >= 50
    assert "疏 of sk: 317 blocks in the file, 317 anchored by their place" in printed
    assert all("zhu" in layers[n] for n in range(1, 54) if n not in (40, 42))
    assert re.search(r"(?m)^\s*17 .*zhu \d+, shu \d+", printed)


def test_validate_passes_on_the_copy_and_fails_naming_the_changed_unit(copy: dict, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    proj: Path = copy["proj"]  # type: ignore[assignment]
    monkeypatch.chdir(proj)
    r = CliRunner().invoke(main, ["validate", "--no-schema"])  # found through the header's folder
    assert r.exit_code == 0 and "yili-xiangyinjiu.xml: valid" in r.output, r.output
    # a quoted 注 changed in a copy of the TEI beside it: the unit is named
    xml = Path(copy["tei"]).read_text(encoding="utf-8")  # type: ignore[arg-type]
    m = re.search(r'<note type="zhu" xml:id="([^"]+)"[^>]*>([^<])', xml)
    assert m
    bad = proj / "tei" / "changed.xml"
    bad.write_text(xml[: m.end() - 1] + ("甲" if m.group(2) != "甲" else "乙") + xml[m.end():], encoding="utf-8")
    try:
        r = CliRunner().invoke(main, ["validate", "--no-schema", str(bad)])
    finally:
        bad.unlink()
    assert r.exit_code == 3, r.output
    assert f"{m.group(1)} does not quote {FOLDER}/yj-KR1.txt#char=" in r.output  # the 注 is the 四库 copy's


def test_validate_reports_pointers_it_cannot_resolve(copy: dict, tmp_path: Path) -> None:
    xml = Path(copy["tei"]).read_text(encoding="utf-8")  # type: ignore[arg-type]
    # a pointer outside the recorded corpus folder is a problem, never skipped
    moved = tmp_path / "tei" / "moved.xml"
    moved.parent.mkdir()
    moved.write_text(xml.replace(f"#yz {FOLDER}/yj-002.txt#char=", "#yz elsewhere/yj-002.txt#char=", 1),
                     encoding="utf-8")
    probs = [str(p) for p in validate_file(moved, use_schema=False, corpus_dir=copy["corpus"])]
    assert any("elsewhere/yj-002.txt" in p and "not a file of the corpus folder (yinjiu-src/NAME)" in p
               for p in probs), probs
    # a file the corpus folder does not have is a problem at each witness and pointer
    gone = tmp_path / "corpus-without-yz"
    shutil.copytree(copy["corpus"], gone)  # type: ignore[arg-type]
    (gone / "yj-002.txt").unlink()
    probs = [str(p) for p in validate_file(copy["tei"], use_schema=False, corpus_dir=gone)]
    assert any("witness yz" in p and "no such file" in p for p in probs), probs
    # beside its folder, a TEI that records another folder name is checked against that one
    lone = tmp_path / "lone" / "tei" / "x.xml"
    lone.parent.mkdir(parents=True)
    lone.write_text(xml, encoding="utf-8")
    (tmp_path / "lone" / "corpus").mkdir()  # the default name is not used: the header says yinjiu-src
    probs = validate_file(lone, use_schema=False)
    assert [p.kind for p in probs] == ["unchecked"] and "yinjiu-src" in str(probs[0])


def test_two_chapters_are_one_work_and_refuse_the_other_chapters_references(copy: dict, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    proj = tmp_path / "two"
    (proj / "tei").mkdir(parents=True)
    shutil.copyfile(copy["tei"], proj / "tei" / "yili-xiangyinjiu.xml")  # type: ignore[arg-type]
    shutil.copyfile(ROOT / "tei" / "yili-xiangsheli.xml", proj / "tei" / "yili-xiangsheli.xml")
    monkeypatch.chdir(proj)
    run = CliRunner().invoke
    r = run(main, ["search", "司射"])  # the whole work: both chapters, each named
    assert r.exit_code == 0 and "in 2 chapters" in r.output and "(xiangyinjiu)" in r.output, r.output
    r = run(main, ["--chapter", "xiangyinjiu", "search", "司射"])
    assert r.exit_code == 0 and "hits for" in r.output and "(xiangsheli)" not in r.output
    r = run(main, ["--chapter", "xiangyinjiu", "show", "乡饮酒礼第十七节"])
    assert r.exit_code == 0 and "《仪礼·乡饮酒礼》第17节" in r.output
    r = run(main, ["--chapter", "xiangyinjiu", "show", "鄉飲酒禮 17"])
    assert r.exit_code == 0
    r = run(main, ["show", "鄉飲酒禮 17"])  # a full reference needs no --chapter
    assert r.exit_code == 0 and "《仪礼·乡饮酒礼》第17节" in r.output
    r = run(main, ["show", "17"])  # a bare number: the default chapter
    assert r.exit_code == 0 and "《仪礼·乡射礼》第17节" in r.output
    for ref in ("乡射礼第十七节", "xiangsheli.17", "鄉射禮17"):  # --chapter and a reference at odds
        r = run(main, ["--chapter", "xiangyinjiu", "show", ref])
        assert r.exit_code == 2 and "another chapter" in r.output and "xiangyinjiu (乡饮酒礼)" in r.output, ref
    r = run(main, ["--chapter", "xiangsheli", "show", "乡射礼第十七节"])
    assert r.exit_code == 0 and "《仪礼·乡射礼》第17节" in r.output
    r = run(main, ["--chapter", "dashe", "search", "司射"])
    assert r.exit_code == 2 and "no chapter 'dashe'" in r.output and "xiangsheli, xiangyinjiu" in r.output
    import yili_corpus

    assert isinstance(yili_corpus.load(), yili_corpus.Work)
    assert yili_corpus.load(chapter="xiangyinjiu").ref("乡饮酒17").chapter == "xiangyinjiu"


def test_parse_ref_checks_against_the_chapter_given() -> None:
    titles = ("乡饮酒礼", "鄉飲酒禮")
    assert parse_ref("鄉飲酒禮第三节", chapter="xiangyinjiu", titles=titles).section == 3
    assert parse_ref("《仪礼·乡饮酒礼》十六", chapter="xiangyinjiu", titles=titles).section == 16
    for ref in ("乡射礼第三节", "xiangsheli.3", "《乡射礼》3"):
        with pytest.raises(UsageError, match="another chapter"):
            parse_ref(ref, chapter="xiangyinjiu", titles=titles)
    assert parse_ref("十六节").section == 16 and parse_ref("乡射礼二十三節").section == 23


def test_witness_roles_come_from_the_manifest(corpus_copy: Path) -> None:
    from yili_corpus.build import run_build
    from yili_corpus.errors import DataError

    man = corpus_copy / "chapters" / "xiangsheli.toml"
    text = man.read_text(encoding="utf-8")
    man.write_text(text.replace('layers = ["jing", "zhu", "shu"]', 'layers = ["jing", "shu"]'), encoding="utf-8")
    with pytest.raises(DataError, match=r"source w003: its file holds zhu, which its layers \(jing, shu\) do not list"):
        run_build(corpus_copy)
