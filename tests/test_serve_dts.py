"""The DTS 1.0 API of ``yili serve`` (docs/dts.md): Entry, Collection, Navigation and Document
against the real TEIs, every error case of the spec's tables, and the clause level of the TEI's
citeStructure."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lxml import etree
from starlette.testclient import TestClient

from yili_corpus.api import load_work
from yili_corpus.cli import main
from yili_corpus.serve import create_app
from yili_corpus.serve import dts as dts_module
from yili_corpus.tei.validate import cite_index

from .conftest import ROOT
from .test_overlay import MANDOKU

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
NS = {"t": "http://www.tei-c.org/ns/1.0", "dts": "https://w3id.org/api/dts#"}
NAV = "/api/dts/navigation/?resource=xiangsheli"
DOC = "/api/dts/document/?resource=xiangsheli"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(load_work()), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def tei() -> etree._Element:
    return etree.parse(str(TEI)).getroot()


def ld(client: TestClient, url: str, status: int = 200) -> dict[str, Any]:
    r = client.get(url)
    assert r.status_code == status, (url, r.text[:300])
    if status == 200:
        assert r.headers["content-type"] == "application/ld+json"
    else:  # one line of JSON, never a traceback
        assert r.headers["content-type"] == "application/json"
        assert set(r.json()) == {"status", "message"} and "\n" not in r.json()["message"]
        assert "Traceback" not in r.text
    return r.json()


def all_members(client: TestClient, url: str) -> list[dict[str, Any]]:
    """Every member of a paginated answer, following ``view.next``."""
    out: list[dict[str, Any]] = []
    j = ld(client, url)
    out += j["member"]
    while j.get("view", {}).get("next"):
        j = ld(client, j["view"]["next"])
        out += j["member"]
    return out


# -- the TEI's citation structure ----------------------------------------------------------------
def test_refsdecl_cites_clauses_of_the_base_text_only(tei: etree._Element) -> None:
    cs = tei.findall(".//t:refsDecl//t:citeStructure", NS)
    assert [c.get("unit") for c in cs] == ["section", "paragraph", "clause"]
    index = cite_index(tei)
    hant = tei.find(".//t:ab[@subtype='hant']/t:seg", NS)
    assert hant is not None and all(hant not in els for els in index.values())
    clause = index["17.2.3"]
    assert len(clause) == 1 and clause[0].get("{http://www.w3.org/XML/1998/namespace}id") == "xiangsheli.17.2.3"
    assert clause[0].text == "遂系左下纲"
    n_clauses = len(tei.findall(".//t:ab[@type='jing']/t:seg[@type='clause']", NS)) + len(
        tei.findall(".//t:ab[@type='ji']/t:seg[@type='clause']", NS))
    assert n_clauses == 1546 and len(index) == 53 + 161 + 1546


# -- Entry ---------------------------------------------------------------------------------------
def test_entry(client: TestClient) -> None:
    j = ld(client, "/api/dts/")
    assert j["@type"] == "EntryPoint" and j["dtsVersion"] == "1.0"
    assert j["@context"] == "https://dtsapi.org/context/v1.0.json"
    # absolute, so that a client follows them as they stand
    assert j["@id"] == "http://testserver/api/dts/"
    assert j["collection"] == "http://testserver/api/dts/collection/{?id,page,nav}"
    assert j["navigation"] == "http://testserver/api/dts/navigation/{?resource,ref,start,end,down,tree,page}"
    assert j["document"] == "http://testserver/api/dts/document/{?resource,ref,start,end,tree,mediaType}"


# -- Collection ----------------------------------------------------------------------------------
def test_root_collection_is_the_work_with_its_chapters_in_order(client: TestClient) -> None:
    for url in ("/api/dts/collection/", "/api/dts/collection/?id=yili", "/api/dts/collection"):
        j = ld(client, url)
        assert (j["@id"], j["@type"], j["title"], j["totalParents"], j["totalChildren"]) == \
            ("yili", "Collection", "仪礼", 0, 17)
        assert j["dtsVersion"] == "1.0" and "view" not in j
    ids = [m["@id"] for m in j["member"]]
    assert ids == ["yili/" + c for c in load_work().ids]
    assert ids[0] == "yili/shiguanli" and ids[4] == "yili/xiangsheli" and ids[-1] == "yili/yousiche"
    c = j["member"][4]
    assert (c["@type"], c["title"], c["totalParents"], c["totalChildren"]) == ("Collection", "乡射礼", 1, 1)
    assert c["collection"] == "http://testserver/api/dts/collection/?id=yili/xiangsheli{&page,nav}"
    # the chapter's collection: its edition (the Resource), and the overlays imported into it
    j = ld(client, "/api/dts/collection/?id=yili/xiangsheli")
    assert [m["@id"] for m in j["member"]] == ["xiangsheli"]
    x = j["member"][0]
    assert x["@type"] == "Resource" and x["title"] == "乡射礼" and x["totalParents"] == 1
    assert {"lang": "zh-Hant", "value": "鄉射禮"} in x["dublinCore"]["title"]
    assert {"lang": "zh-Hans", "value": "乡射礼"} in x["dublinCore"]["title"]
    assert "lzh" in x["dublinCore"]["language"]
    assert {"lang": "zh-Hans", "value": "郑玄"} in x["dublinCore"]["contributor"]
    assert x["download"] == "http://testserver/api/dts/document/?resource=xiangsheli"
    assert x["document"] == "http://testserver/api/dts/document/?resource=xiangsheli{&ref,start,end,tree,mediaType}"
    assert x["navigation"] == "http://testserver/api/dts/navigation/?resource=xiangsheli{&ref,down,start,end,tree,page}"
    assert x["mediaTypes"] == ["application/tei+xml"]
    tree = x["citationTrees"]
    assert len(tree) == 1 and "identifier" not in tree[0] and tree[0]["@type"] == "CitationTree"
    sec = tree[0]["citeStructure"][0]
    assert sec["citeType"] == "section"
    assert sec["citeStructure"][0]["citeType"] == "paragraph"
    assert sec["citeStructure"][0]["citeStructure"][0]["citeType"] == "clause"


def test_a_chapter_and_its_parents(client: TestClient) -> None:
    j = ld(client, "/api/dts/collection/?id=dashe")
    assert j["@type"] == "Resource" and j["title"] == "大射" and "member" not in j
    p = ld(client, "/api/dts/collection/?id=dashe&nav=parents")
    assert [m["@id"] for m in p["member"]] == ["yili/dashe"] and p["member"][0]["totalChildren"] == 1
    p = ld(client, "/api/dts/collection/?id=yili/dashe&nav=parents")
    assert [m["@id"] for m in p["member"]] == ["yili"] and p["member"][0]["totalChildren"] == 17
    assert ld(client, "/api/dts/collection/?id=yili&nav=parents")["member"] == []
    # a chapter's collection is not a resource: navigating it says which resource is meant
    msg = ld(client, "/api/dts/navigation/?resource=yili/dashe&down=1", 404)["message"]
    assert "its edition is the resource dashe" in msg
    # an unknown parameter is ignored
    assert ld(client, "/api/dts/collection/?id=dashe&colour=red")["@id"] == "dashe"


def test_collection_errors(client: TestClient) -> None:
    assert "nosuch" in ld(client, "/api/dts/collection/?id=nosuch", 404)["message"]
    ld(client, "/api/dts/collection/?id=yili&nav=siblings", 400)
    ld(client, "/api/dts/collection/?id=yili&page=x", 400)
    ld(client, "/api/dts/collection/?id=yili&page=0", 400)
    ld(client, "/api/dts/collection/?id=yili&page=2", 404)


def test_collection_pagination(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dts_module, "COLLECTION_PAGE_SIZE", 5)
    j = ld(client, "/api/dts/collection/?id=yili")
    v = j["view"]
    assert v["@type"] == "Pagination" and len(j["member"]) == 5
    assert v["@id"].endswith("id=yili&page=1") and v["last"].endswith("page=4") and v["previous"] is None
    ids = [m["@id"] for m in all_members(client, "/api/dts/collection/?id=yili")]
    assert ids == ["yili/" + c for c in load_work().ids]
    last = ld(client, "/api/dts/collection/?id=yili&page=4")
    assert len(last["member"]) == 2 and last["view"]["next"] is None and last["view"]["previous"].endswith("page=3")


# -- Navigation ----------------------------------------------------------------------------------
def test_navigation_ref_down_1_gives_section_16_and_its_paragraphs(client: TestClient, tei: etree._Element) -> None:
    j = ld(client, NAV + "&ref=16&down=1")
    assert j["@type"] == "Navigation" and j["dtsVersion"] == "1.0"
    assert j["@id"] == "http://testserver" + NAV + "&ref=16&down=1"
    assert j["resource"]["@id"] == "xiangsheli" and j["resource"]["citationTrees"]
    assert j["ref"] == {"identifier": "16", "@type": "CitableUnit", "level": 1, "parent": None,
                        "citeType": "section", "dublinCore": {"title": [{"lang": "zh-Hans", "value": "比三耦"}]}}
    paras = tei.findall(".//t:div[@type='section'][@n='16']/t:div[@type='paragraph']", NS)
    assert [m["identifier"] for m in j["member"]] == ["16"] + [f"16.{p.get('n')}" for p in paras]
    assert all(m["parent"] == "16" and m["level"] == 2 and m["citeType"] == "paragraph" for m in j["member"][1:])


def test_navigation_clauses(client: TestClient) -> None:
    j = ld(client, NAV + "&ref=17.2&down=1")
    assert [m["identifier"] for m in j["member"]][:4] == ["17.2", "17.2.1", "17.2.2", "17.2.3"]
    c = j["member"][3]
    assert (c["level"], c["parent"], c["citeType"]) == (3, "17.2", "clause")
    j = ld(client, NAV + "&ref=17.2.3")
    assert j["ref"]["identifier"] == "17.2.3" and "member" not in j
    # down=0: the siblings, itself included
    sib = ld(client, NAV + "&ref=17.2.3&down=0")["member"]
    assert "17.2.3" in [m["identifier"] for m in sib] and {m["parent"] for m in sib} == {"17.2"}
    assert len(ld(client, NAV + "&ref=5&down=0")["member"]) == 53


def test_navigation_whole_tree_equals_the_citestructure(client: TestClient, tei: etree._Element) -> None:
    got = all_members(client, NAV + "&down=-1")
    assert [m["identifier"] for m in got] == list(cite_index(tei))
    assert len(got) == 53 + 161 + 1546
    first = ld(client, NAV + "&down=-1")
    assert first["view"]["last"].endswith("page=4") and len(first["member"]) == dts_module.NAVIGATION_PAGE_SIZE
    tops = ld(client, NAV + "&down=1")["member"]
    assert [m["identifier"] for m in tops] == [str(n) for n in range(1, 54)] and "view" not in ld(client, NAV + "&down=1")
    two = all_members(client, NAV + "&down=2")
    assert len(two) == 53 + 161


def test_navigation_range(client: TestClient) -> None:
    j = ld(client, NAV + "&start=16&end=17")
    assert j["start"]["identifier"] == "16" and j["end"]["identifier"] == "17" and "member" not in j
    m = ld(client, NAV + "&start=16&end=17&down=1")["member"]
    ids = [x["identifier"] for x in m]
    assert ids[0] == "16" and "17" in ids and "17.2" in ids and all(i.split(".")[0] in ("16", "17") for i in ids)
    assert max(x["level"] for x in m) == 2
    deep = ld(client, NAV + "&start=16.1.2&end=17.1&down=-1")["member"]
    assert deep[0]["identifier"] == "16.1.2" and deep[-1]["identifier"].startswith("17.1")
    assert "17" in [x["identifier"] for x in deep] and "17.2" not in [x["identifier"] for x in deep]


def test_navigation_down_ref_start_end_table(client: TestClient) -> None:
    ld(client, NAV, 400)  # nothing asked
    ld(client, NAV + "&down=0", 400)
    ld(client, NAV + "&start=16&end=17&down=0", 400)
    ld(client, NAV + "&ref=16&start=16&end=17", 400)
    ld(client, NAV + "&ref=16&start=16", 400)
    ld(client, NAV + "&start=16", 400)
    ld(client, NAV + "&end=17", 400)
    ld(client, NAV + "&ref=16&down=x", 400)
    ld(client, NAV + "&ref=16&down=-2", 400)
    ld(client, NAV + "&down=-1&page=x", 400)
    ld(client, "/api/dts/navigation/?ref=16&down=1", 400)  # no resource
    ld(client, "/api/dts/navigation/?resource=nosuch&ref=16", 404)
    ld(client, NAV + "&ref=99", 404)
    ld(client, NAV + "&ref=16.9", 404)
    ld(client, NAV + "&start=16&end=99", 404)
    ld(client, NAV + "&ref=16&tree=pages", 404)
    ld(client, NAV + "&down=-1&page=5", 404)
    ld(client, NAV + "&start=17&end=16", 400)  # end before start
    # absent means empty: an RFC 6570 expansion of an empty value
    assert ld(client, NAV + "&ref=16&start=&end=")["ref"]["identifier"] == "16"


def test_navigation_is_fast_on_a_cold_chapter(client: TestClient) -> None:
    import time

    t = time.perf_counter()
    j = ld(client, "/api/dts/navigation/?resource=yousiche&down=1")
    assert time.perf_counter() - t < 1.0 and j["member"][0]["identifier"] == "1"


# -- Document ------------------------------------------------------------------------------------
def test_document_whole_is_the_committed_file(client: TestClient) -> None:
    r = client.get(DOC)
    assert r.status_code == 200 and r.headers["content-type"] == "application/tei+xml"
    assert r.content == TEI.read_bytes()
    assert r.headers["link"] == '<http://testserver/api/dts/collection/?id=xiangsheli>; rel="collection"'
    r = client.get(DOC + "&mediaType=application/tei%2Bxml")
    assert r.status_code == 200 and r.content == TEI.read_bytes()


def wrapper(r: Any) -> etree._Element:
    assert r.status_code == 200 and r.headers["content-type"] == "application/tei+xml"
    assert r.headers["link"] == '<http://testserver/api/dts/collection/?id=xiangsheli>; rel="collection"'
    root = etree.fromstring(r.content)
    assert root.tag == "{http://www.tei-c.org/ns/1.0}TEI"
    assert root.find("t:teiHeader/t:fileDesc/t:sourceDesc/t:bibl[@type='chapter']", NS).get("n") == "xiangsheli"
    w = root.find("t:text/t:body/dts:wrapper", NS)
    assert w is not None
    return w


def test_document_ref_clause_paragraph_section(client: TestClient) -> None:
    w = wrapper(client.get(DOC + "&ref=17.2.3"))
    segs = w.findall(".//t:seg", NS)
    assert [s.text for s in segs] == ["遂系左下纲"]
    assert w.find("t:div[@type='section']/t:div[@type='paragraph']/t:ab[@type='jing']/t:seg", NS) is segs[0]
    w = wrapper(client.get(DOC + "&ref=17.2"))
    p = w.find("t:div[@type='section'][@n='17']/t:div[@type='paragraph'][@n='2']", NS)
    assert "遂系左下纲" in [s.text for s in p.findall("t:ab[@type='jing']/t:seg", NS)]
    assert p.find("t:note[@type='zhu']", NS) is not None  # the paragraph whole, with its 注
    w = wrapper(client.get(DOC + "&ref=16"))
    assert w.find("t:div[@type='section']/t:head", NS).text == "比三耦"


def test_document_range_holds_both_sections(client: TestClient) -> None:
    w = wrapper(client.get(DOC + "&start=16&end=17"))
    assert [d.get("n") for d in w.findall("t:div[@type='section']", NS)] == ["16", "17"]
    w = wrapper(client.get(DOC + "&start=16.1.2&end=17.1"))
    secs = w.findall("t:div[@type='section']", NS)
    assert [d.get("n") for d in secs] == ["16", "17"]
    assert secs[0].find("t:head", NS) is None  # part of section 16: a shallow copy of its div
    first = secs[0].findall(".//t:seg[@type='clause']", NS)
    assert first[0].get("n") == "2"
    assert [p.get("n") for p in secs[1].findall("t:div[@type='paragraph']", NS)] == ["1"]


def test_document_errors(client: TestClient) -> None:
    ld(client, "/api/dts/document/", 400)
    ld(client, "/api/dts/document/?ref=16", 400)
    ld(client, "/api/dts/document/?resource=nosuch", 404)
    ld(client, DOC + "&ref=99", 404)
    ld(client, DOC + "&start=16&end=99", 404)
    ld(client, DOC + "&ref=16&start=16&end=17", 400)
    ld(client, DOC + "&start=16", 400)
    ld(client, DOC + "&ref=16&tree=pages", 404)
    ld(client, DOC + "&mediaType=text/html", 404)
    ld(client, DOC + "&ref=16&mediaType=application/pdf", 404)


# -- overlays ------------------------------------------------------------------------------------
def test_overlays_are_resources_of_their_own(tmp_path: Path) -> None:
    f = tmp_path / "kr.txt"
    f.write_text(MANDOKU, encoding="utf-8")
    ov = tmp_path / "ov"
    r = CliRunner().invoke(main, ["--tei", str(TEI), "--overlay", str(ov), "import", "witness", str(f),
                                  "--name", "kanripo", "--format", "mandoku"])
    assert r.exit_code == 0, r.output
    with TestClient(create_app(load_work(None, ov)), raise_server_exceptions=False) as c:
        root = ld(c, "/api/dts/collection/")
        assert root["totalChildren"] == 17
        assert {m["@id"]: m["totalChildren"] for m in root["member"]}["yili/xiangsheli"] == 2
        col = ld(c, "/api/dts/collection/?id=yili/xiangsheli")
        assert [m["@id"] for m in col["member"]] == ["xiangsheli", "overlay.kanripo"]
        assert ld(c, "/api/dts/collection/?id=yili/dashe")["totalChildren"] == 1
        res = col["member"][1]
        assert res["@type"] == "Resource" and res["citationTrees"] == [] and "kanripo" in res["title"]
        assert [m["@id"] for m in ld(c, "/api/dts/collection/?id=overlay.kanripo&nav=parents")["member"]] == ["yili/xiangsheli"]
        d = c.get("/api/dts/document/?resource=overlay.kanripo")
        assert d.status_code == 200 and d.content == (ov / "kanripo.xml").read_bytes()
        assert d.headers["link"] == '<http://testserver/api/dts/collection/?id=overlay.kanripo>; rel="collection"'
        # no citation tree: an empty member, never an error; a fragment of it does not exist
        assert ld(c, "/api/dts/navigation/?resource=overlay.kanripo&down=1")["member"] == []
        ld(c, "/api/dts/document/?resource=overlay.kanripo&ref=1", 404)
