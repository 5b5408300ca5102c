"""The edition's own headings and the front matter are placed, not dropped (issue 15): each 卷's
headings (欽定四庫全書, 儀禮注疏卷N, the byline, the chapter title, the 考證 titles) are in its TEI's
<front>/<back> with pointers that quote the file; the front matter (KR1d0028_000.txt: 序, 提要, 原目,
原目考證) is tei/front.xml, which validates and which no reader takes for a chapter."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from lxml import etree

from yili_corpus.cli import main
from yili_corpus.tei import schema as schema_mod

from .conftest import CORPUS, ROOT

NS = {"t": "http://www.tei-c.org/ns/1.0"}
PTR = re.compile(r"corpus/([^#\s]+)#char=(\d+),(\d+)")


def _quoted(e: etree._Element) -> str:
    """The characters of the corpus file the element's @source points to."""
    m = PTR.search(e.get("source", ""))
    assert m, etree.tostring(e)
    text = (CORPUS / m.group(1)).read_text(encoding="utf-8")
    return text[int(m.group(2)):int(m.group(3))]


def test_the_headings_of_juan_three_are_in_its_tei_and_quote_the_file(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["build", "--chapter", "shixiangjianli", "--corpus", str(CORPUS), "-q",
                                  "--tei-dir", str(tmp_path / "tei"), "--report-dir", str(tmp_path / "build")])
    assert r.exit_code == 0, r.output
    root = etree.parse(str(tmp_path / "tei" / "yili-shixiangjianli.xml")).getroot()
    tp = root.find("t:text/t:front/t:titlePage", NS)
    assert tp is not None
    items = [e for e in tp.iter() if e.get("source")]
    assert [etree.QName(e).localname for e in items] == ["docEdition", "titlePart", "byline", "titlePart"]
    file_lines = (CORPUS / "KR1d0028_003.txt").read_text(encoding="utf-8").splitlines()
    for e in items:
        assert e.text == _quoted(e)
        assert e.text in "\n".join(file_lines[:12])  # the head of the 卷
        assert e.get("facs", "").startswith("#w005.003-1a")
        assert root.find(f".//t:surface[@xml:id='{e.get('facs')[1:]}']", {**NS, "xml": "http://www.w3.org/XML/1998/namespace"}) is not None
    assert [e.text for e in items] == ["欽定四庫全書", "儀禮注疏卷三", "漢鄭氏注　唐陸德明音義　賈公彦疏", "士相見禮第三"]
    back = root.findall("t:text/t:back/t:div[@type='edition-head']/t:ab[@type='heading']", NS)
    assert [(e.get("subtype"), e.text) for e in back] == [
        ("juan", "儀禮注疏卷三"), ("kaozheng-title", "儀禮注疏卷三考證"), ("kaozheng-title", "儀禮注疏卷三考證")]
    assert all(e.text == _quoted(e) for e in back)
    # coverage of the 卷 (it was 99.38% with the headings as noise)
    rep = (tmp_path / "build" / "shixiangjianli.report.json").read_text(encoding="utf-8")
    w005 = next(c for c in json.loads(rep)["sources"] if c["source"] == "w005")
    assert w005["placed_share"] >= 0.995
    assert {z["reason"] for z in w005["noise_items"]} == {"mandoku header line", "page break"}


def test_the_front_tei_has_the_preface_and_the_tiyao_and_validates() -> None:
    path = ROOT / "tei" / "front.xml"
    root = etree.parse(str(path)).getroot()
    divs = root.findall("t:text/t:body/t:div[@type='front-part']", NS)
    assert [d.get("n") for d in divs] == ["儀禮疏序", "提要", "原目", "原目考證"]
    for d in divs:
        assert d.find("t:head", NS) is not None and d.find("t:pb", NS) is not None
        for e in d.iter():
            if e.get("source"):
                assert e.text == _quoted(e)
    xu = "".join(e.text for e in divs[0].findall("t:ab", NS))
    assert xu.startswith("唐朝散大夫") and "竊聞道本沖虚" in xu and xu.endswith("取玖得無譏焉")
    tiyao = [e.text for e in divs[1].findall("t:ab[@type='line']", NS)]
    last_text = next(t for t in tiyao if "恭校上" in t)
    assert last_text.endswith("乾隆四十一年九月恭校上")
    # no chapter: no bibl type=chapter in its header
    assert root.find(".//t:sourceDesc/t:bibl[@type='chapter']", NS) is None
    r = CliRunner().invoke(main, ["validate", str(path), "--no-schema"])
    assert r.exit_code == 0 and "valid" in r.output, r.output
    rng = schema_mod.load_schema()  # tei_all, as test_tei.py loads it
    assert rng.validate(etree.parse(str(path))), [str(e) for e in list(rng.error_log)[:5]]


def test_the_front_tei_is_no_chapter_of_the_read_side() -> None:
    assert (ROOT / "tei" / "front.xml").exists()
    r = CliRunner().invoke(main, ["stats"])
    assert r.exit_code == 0, r.output
    assert "front" not in r.output and re.search(r"(?m)^ 17 yousiche", r.output)
    r = CliRunner().invoke(main, ["search", "比三耦"])
    assert r.exit_code == 0 and "in 2 chapters" in r.output, r.output
