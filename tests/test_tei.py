"""The TEI in tei/: valid against tei_all, citable, round-trippable, safe to parse."""

from __future__ import annotations

from pathlib import Path

import elementpath
import pytest
from click.testing import CliRunner
from lxml import etree

from yili_corpus.cli import main
from yili_corpus.errors import DataError, UsageError
from yili_corpus.tei import schema as schema_mod
from yili_corpus.tei.read import read_bytes, read_tei
from yili_corpus.tei.validate import validate_file
from yili_corpus.tei.write import to_bytes

from .conftest import ROOT

TEI_FILE = ROOT / "tei" / "yili-xiangsheli.xml"
NS = {"t": "http://www.tei-c.org/ns/1.0"}
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"


@pytest.fixture(scope="module")
def tree() -> etree._ElementTree:
    return etree.parse(str(TEI_FILE))


def test_committed_tei_validates_against_tei_all() -> None:
    rng = schema_mod.load_schema()  # fetched from the registry at first use, then cached
    doc = etree.parse(str(TEI_FILE))
    ok = rng.validate(doc)
    assert ok, [str(e) for e in list(rng.error_log)[:5]]
    assert validate_file(TEI_FILE, use_schema=False) == []


def test_writer_reader_writer_is_identical() -> None:
    data = TEI_FILE.read_bytes()
    doc = read_bytes(data)
    assert to_bytes(doc) == data
    assert to_bytes(read_bytes(to_bytes(doc))) == data


def _cite(root: etree._Element, ref: str) -> list[etree._Element]:
    """Resolve ``ref`` with the declared citeStructure and nothing but generic XPath."""
    ns = {"": NS["t"]}
    cs = root.find(".//t:refsDecl/t:citeStructure", NS)
    nodes = [root]
    for i, part in enumerate(ref.split(".")):
        nodes = [
            el for ctx in nodes for el in elementpath.select(ctx, cs.get("match"), namespaces=ns)
            if str(elementpath.select(el, cs.get("use"), namespaces=ns)[0]) == part
        ]
        if i < len(ref.split(".")) - 1:
            cs = cs.find("t:citeStructure", NS)
    return nodes


def test_cite_structure_resolves_with_generic_xpath(tree: etree._ElementTree) -> None:
    root = tree.getroot()
    s16 = _cite(root, "16")
    assert [e.get(XML_ID) for e in s16] == ["xiangsheli.16"]
    assert s16[0].findtext("t:head", None, NS) == "比三耦"
    p161 = _cite(root, "16.1")
    assert [e.get(XML_ID) for e in p161] == ["xiangsheli.16.1"]
    assert p161[0].find("t:ab/t:seg", NS).text == "司射不释弓矢"
    s53 = _cite(root, "53")
    assert [e.get(XML_ID) for e in s53] == ["xiangsheli.53"]
    assert s53[0].get("subtype") == "ji"
    assert s53[0].find(".//t:ab[@type='ji']/t:seg", NS).text.startswith("君射则为下射")


def _layers(tree: etree._ElementTree, n: int) -> set[str]:
    sec = tree.getroot().find(f".//t:body/t:div[@n='{n}']", NS)
    out = {ab.get("type") for ab in sec.iterfind(".//t:ab", NS) if ab.get("type") in ("jing", "ji", "trans")}
    out |= {x.get("type") for x in sec.iterfind(".//t:note", NS) if x.get("type") in ("zhu", "shu", "note")}
    return out


def test_layers_by_section(tree: etree._ElementTree) -> None:
    for n in range(16, 23):
        assert {"jing", "zhu", "shu"} <= _layers(tree, n), n
    for n in range(1, 14):
        # the 四库 witness's 疏 covers every section of the 经
        assert {"jing", "zhu", "shu", "trans"} <= _layers(tree, n), n
    for n in (52, 53):
        assert {"ji", "zhu", "trans", "note"} <= _layers(tree, n), n
    for n in range(23, 52):
        assert "trans" not in _layers(tree, n)
        assert ("zhu" in _layers(tree, n)) == (n not in (40, 42)), n
    # the header says which sections have which layers
    items = {i.get("n"): i.text.split() for i in tree.getroot().iterfind(".//t:projectDesc//t:item", NS)}
    assert items["17"] == ["jing", "zhu", "yinyi", "shu", "note"] and items["30"] == ["jing", "zhu", "shu", "note"]
    assert items["40"] == ["jing", "note"]


def test_apparatus_restored_characters_and_emendation(tree: etree._ElementTree) -> None:
    root = tree.getroot()
    restored = root.findall(".//t:app[@type='restored']", NS)
    zin = [a for a in restored if a.findtext("t:lem/t:supplied", None, NS) == "搢"]
    assert len(zin) == 4
    rdg = zin[0].find("t:rdg[@wit='#w003']", NS)
    assert rdg.get("type") == "placeholder" and rdg.find("t:g", NS).get("ref") == "#w003-E270"
    assert zin[0].find("t:lem/t:supplied", NS).get("source") == "#w001 #w005 #w006"
    char = root.find(".//t:charDecl/t:char[@xml:id='w003-E270']", {**NS, "xml": "http://www.w3.org/XML/1998/namespace"})
    assert char.findtext("t:mapping[@type='standard']", None, NS) == "搢"
    fu = [a for a in restored if a.findtext("t:lem/t:supplied", None, NS) == "楅"]
    assert len(fu) == 6
    shu = [a for a in root.findall(".//t:app[@type='variant']", NS) if a.findtext("t:lem", None, NS) == "束"]
    assert len(shu) == 1 and shu[0].find("t:lem", NS).get("wit") == "#w003 #w005 #w006"
    assert shu[0].findtext("t:rdg[@wit='#w001']", None, NS) == "东"
    assert shu[0].findtext("t:note[@type='rule']", None, NS) == "majority (3 of 4 witnesses)"
    # no emendation: where one was made (§10 皆宾), the 四库 copy and w006 read 皆降
    assert root.find(".//t:app[@type='emendation']", NS) is None
    # a 注 of two witnesses (16–22) carries its apparatus: 21's 注 on 后/後, abridged in the 四库 copy
    hou = next(n for n in root.iterfind(".//t:note[@type='zhu']", NS) if "後也當從后" in "".join(n.itertext()))
    app = hou.find("t:app", NS)
    assert app.findtext("t:lem", None, NS) == "后" and app.find("t:lem", NS).get("wit") == "#w005"
    assert app.findtext("t:rdg[@wit='#w003']", None, NS) == "古文而后作後，非也。《孝经说》然后曰后者"


def test_commentary_links_resolve_and_quote_their_sources(tree: etree._ElementTree) -> None:
    root = tree.getroot()
    ids = {e.get(XML_ID) for e in root.iter() if isinstance(e.tag, str)}
    zhu = root.findall(".//t:note[@type='zhu']", NS)
    shu = root.findall(".//t:note[@type='shu']", NS)
    # 注 of the 四库 copy (w003's merged into them); 疏 of the 四库 copy (317), w003's 40 blocks
    # collated into them (its blocks 35 and 36, on the 经 and on the 注, into one)
    assert len(zhu) == 383 and len(shu) == 317
    for n in zhu + shu:
        assert n.get("target", "")[1:] in ids
    note13 = [r for r in root.iterfind(".//t:note[@type='note']//t:ref[@type='section']", NS)]
    assert {r.get("target") for r in note13} >= {"#xiangsheli.13", "#xiangsheli.17"}
    other = root.find(".//t:ref[@type='other-chapter'][@cRef='士丧礼.24']", NS)
    assert other is not None and other.text == "（见彼第24节）"
    seg = root.find(".//t:ab[@type='trans']/t:seg[@n='1']", NS)
    assert seg.get("corresp") == "#xiangsheli.1.1.1 #xiangsheli.1.2.1"


def test_external_entity_is_refused(tmp_path: Path) -> None:
    evil = tmp_path / "evil.xml"
    evil.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE TEI [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        '<TEI xmlns="http://www.tei-c.org/ns/1.0"><text><body><p>&x;</p></body></text></TEI>\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError, match="DOCTYPE or entity declarations"):
        read_tei(evil)
    r = CliRunner().invoke(main, ["validate", "--no-schema", str(evil)])
    assert r.exit_code == 3 and "refused" in r.output and "Traceback" not in r.output


def test_validator_finds_broken_links_and_bad_quotes(tmp_path: Path) -> None:
    bad = tmp_path / "broken.xml"  # away from its corpus: the corpus is named
    data = TEI_FILE.read_text(encoding="utf-8")
    data = data.replace('target="#xiangsheli.17.1.1"', 'target="#xiangsheli.17.9.9"', 1)
    data = data.replace("[疏]“司正为司马”。", "[疏]“司正为司徒”。", 1)  # w003's lemma of a 疏 block
    data = data.replace(">事至也今文説皆作税<", ">事至也今文説皆作說<", 1)  # a 注 of w005
    bad.write_text(data, encoding="utf-8")
    probs = [str(p) for p in validate_file(bad, use_schema=False, corpus_dir=ROOT / "corpus")]
    assert any("#xiangsheli.17.9.9, which is not an xml:id" in p for p in probs)
    assert any("does not quote corpus/003_daa8338dfba24e1e.txt" in p for p in probs)
    assert any("xiangsheli.w005.zhu" in p and "does not quote corpus/KR1d0028_005.txt" in p for p in probs)


def test_validate_cli_and_schema_option(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["validate", "--no-schema", str(TEI_FILE)])
    assert r.exit_code == 0 and "valid" in r.output
    r = CliRunner().invoke(main, ["validate", "--schema", str(tmp_path / "none.rng"), str(TEI_FILE)])
    assert r.exit_code == 2 and "schema file not found" in r.output


def test_offline_without_cached_schema_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))

    def no_network(*args, **kwargs):  # noqa: ANN002, ANN003
        raise OSError("network is unreachable")

    monkeypatch.setattr(schema_mod.subprocess, "run", no_network)
    monkeypatch.setattr(schema_mod, "_FETCHED", None)  # nothing fetched earlier in this process
    with pytest.raises(UsageError, match="cannot fetch the TEI schema.*--schema PATH"):
        schema_mod.schema_path()
    r = CliRunner().invoke(main, ["validate", str(TEI_FILE)])
    assert r.exit_code == 2 and "--schema PATH" in r.output and "Traceback" not in r.output
