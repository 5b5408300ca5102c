"""The reading room of ``yili serve`` through Starlette's TestClient, on the real corpus: the
contents, a chapter, a section (the place named highlighted, the script switch), search with its
filters and bounds, citations, the pages of what a chapter lacks, the CSP kept."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from yili_corpus.api import load_work
from yili_corpus.export.layout import layout
from yili_corpus.query.cite import format_citation, found_at
from yili_corpus.serve import create_app
from yili_corpus.serve.reading import MAX_HITS


@pytest.fixture(scope="module")
def work() -> Any:
    """The work as the tests read it (the app has its own, read by its reader thread)."""
    return load_work()


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(load_work())) as c:
        yield c


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_contents_lists_the_chapters_with_their_sections(client: TestClient, work: Any) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    links = re.findall(r'<li><a href="/([a-z]+)">', r.text)
    assert links == work.ids and len(links) == 17
    assert "乡射礼" in r.text and "53节" in r.text  # its title and its number of sections
    assert "<style" not in r.text and not re.search(r"\sstyle=", r.text) and "<script>" not in r.text


def test_a_chapter_lists_its_sections_with_titles_and_first_words(client: TestClient, work: Any) -> None:
    r = client.get("/xiangsheli")
    assert r.status_code == 200
    sections = work.corpus("xiangsheli").index.sections
    assert re.findall(r'href="/xiangsheli/(\d+)"', r.text) == [str(n) for n in sorted(sections)]
    assert "比三耦" in r.text and "司射不释弓矢" in r.text  # §16's title and first words
    assert client.get("/鄉射禮").status_code == 200  # a chapter's name as the CLI reads it


def test_a_section_is_the_export_s_layout_with_toggles_and_navigation(client: TestClient, work: Any) -> None:
    t0 = time.perf_counter()
    r = client.get("/xiangsheli/16")
    assert r.status_code == 200
    clauses = [c.text for c in layout(work.corpus("xiangsheli").range_document([16]), [16], ["jing"])
               .sections[0].paragraphs[0].clauses]
    body = _text(r.text)
    assert clauses and all(c in body for c in clauses)
    for cls in ("clause", "zhu", "shu", "yinyi", "kaozheng"):  # 注 after its words, 疏 after its passage
        assert f'class="{cls}' in r.text
    assert re.findall(r'data-layer="([a-z-]+)"', r.text) == ["jing", "zhu", "yinyi", "shu", "kaozheng", "note"]
    assert 'rel="prev" href="/xiangsheli/15"' in r.text and 'rel="next" href="/xiangsheli/17"' in r.text
    assert 'aria-current="page"><span class="num">16</span>' in r.text  # the section list at hand
    assert 'href="/static/room.css"' in r.text and 'src="/static/room.js"' in r.text
    assert not re.search(r"\sstyle=", r.text) and "<style" not in r.text and "<script>" not in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]
    # a second time from the cache: a few ms
    t1 = time.perf_counter()
    assert client.get("/xiangsheli/16").text == r.text
    assert time.perf_counter() - t1 < max(0.05, (t1 - t0) / 2)


def test_the_place_named_is_highlighted(client: TestClient) -> None:
    r = client.get("/xiangsheli/16.1.3")
    assert 'class="clause target" id="xiangsheli.16.1.3"' in r.text
    assert 'data-target="xiangsheli.16.1.3"' in r.text
    assert r.text.count(" target\"") == 1
    p = client.get("/xiangsheli/16.1")
    assert 'class="para target" id="xiangsheli.16.1"' in p.text
    s = client.get("/xiangsheli/16")
    assert "data-target" not in s.text
    u = client.get("/xiangsheli/xiangsheli.w005.shu86")  # a unit's id: its block
    assert u.status_code == 200 and 'target" id="xiangsheli.w005.shu86"' in u.text
    assert client.get("/xiangsheli/第16节").status_code == 200


def test_traditional_script_and_links_that_keep_it(client: TestClient, work: Any) -> None:
    r = client.get("/xiangsheli/16?script=hant")
    assert r.status_code == 200 and 'lang="zh-Hant"' in r.text and "script-hant" in r.text
    hant = [c.text for c in layout(work.corpus("xiangsheli").range_document([16]), [16], ["jing"], "hant")
            .sections[0].paragraphs[0].clauses]
    assert "遂以比三耦於堂西" in hant and all(c in _text(r.text) for c in hant)
    assert 'href="/xiangsheli/17?script=hant"' in r.text  # next section, same script
    assert "遂以比三耦於堂西" not in client.get("/xiangsheli/16").text
    assert client.get("/xiangsheli/16?script=latin").status_code == 400


def test_what_a_chapter_lacks_is_a_404_page_with_a_link_to_what_exists(client: TestClient) -> None:
    r = client.get("/xiangsheli/16.2")
    assert r.status_code == 404
    assert "section 16 has no paragraph 2 (it has 1–1)" in r.text and 'href="/xiangsheli/16"' in r.text
    r = client.get("/xiangsheli/16.1.30")
    assert r.status_code == 404 and "paragraph 16.1 has no clause 30 (it has 1–8)" in r.text
    assert 'href="/xiangsheli/16.1"' in r.text
    r = client.get("/xiangsheli/99")
    assert r.status_code == 404 and "no section 99" in r.text and 'href="/xiangsheli"' in r.text
    r = client.get("/xiangsheli/xiangsheli.99")  # was an internal error (raise None) in Corpus.ref
    assert r.status_code == 404 and "no section 99" in r.text
    r = client.get("/nosuchchapter/1")
    assert r.status_code == 404 and "no chapter" in r.text and "Traceback" not in r.text
    assert client.get("/nosuchchapter").status_code == 404


def test_search_gives_kwic_hits_with_counts_per_layer_and_chapter(client: TestClient, work: Any) -> None:
    r = client.get("/search", params={"q": "釋獲"})
    assert r.status_code == 200
    res = work.search("釋獲", limit=0)
    assert f"共{res['total']}处" in r.text
    for layer, n in res["counts"].items():
        assert f"layer={layer}" in r.text and f'class="n">{n}<' in r.text
    for ch in res["chapters"]:
        assert f"chapter={ch['chapter']}" in r.text
    hrefs = re.findall(r'class="kwic" href="([^"]+)"', r.text)
    assert len(hrefs) == res["total"]  # fewer than the cap: all listed
    assert "/xiangsheli/21.15.1" in hrefs  # a hit in the 经: its clause
    assert "/xiangsheli/1.1#xiangsheli.w005.shu1" in hrefs  # in the 疏: its paragraph, at the block
    page = client.get(hrefs[hrefs.index("/xiangsheli/21.15.1")])
    assert 'class="clause target" id="xiangsheli.21.15.1"' in page.text
    # the same in simplified, and filtered
    assert len(re.findall(r'class="kwic"', client.get("/search", params={"q": "释获"}).text)) == res["total"]
    f = client.get("/search", params={"q": "釋獲", "layer": "jing", "chapter": "dashe"})
    want = work.search("釋獲", chapter="dashe", layers=["jing"], limit=0)["total"]
    assert len(re.findall(r'class="kwic"', f.text)) == want > 0
    assert 'class="on">经' in f.text and 'class="on">大射' in f.text


def test_search_bounds(client: TestClient) -> None:
    assert client.get("/search").status_code == 200  # the empty form
    assert client.get("/search", params={"q": ""}).status_code == 400
    r = client.get("/search", params={"q": "射" * 101})
    assert r.status_code == 400 and "1 to 100 characters" in r.text
    assert client.get("/search", params={"q": "射", "layer": "nope"}).status_code == 400
    assert client.get("/search", params={"q": "射", "chapter": "nope"}).status_code == 400
    r = client.get("/search", params={"q": "射"})
    assert len(re.findall(r'class="kwic"', r.text)) == MAX_HITS and f"列出前{MAX_HITS}处" in r.text


def test_cite_a_clause_in_three_styles(client: TestClient, work: Any) -> None:
    index = work.corpus("xiangsheli").index
    for style in ("zh", "chicago", "bibtex"):
        r = client.get("/cite", params={"ref": "xiangsheli.16.1.3", "style": style})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        assert r.text == format_citation(index, found_at(index, "xiangsheli.16.1.3"), style)  # type: ignore[arg-type]
    zh = client.get("/cite", params={"ref": "xiangsheli.16.1.3"}).text
    assert zh.startswith("《仪礼·乡射礼》第16节（xiangsheli.16.1.3）") and "葉25b" in zh
    bib = client.get("/cite", params={"ref": "xiangsheli.16.1.3", "style": "bibtex"}).text
    assert bib.startswith("@misc{xiangsheli-16-1-3,") and "「三耦之南」" in bib
    # the same as yili cite finds for the clause's words
    assert zh == work.corpus("xiangsheli").cite("三耦之南")["results"][0]["formatted"]
    assert client.get("/cite", params={"ref": "xiangsheli.16.1.99"}).status_code == 404
    assert client.get("/cite", params={"ref": "xiangsheli.16.1.3", "style": "mla"}).status_code == 400
    assert client.get("/cite").status_code == 400
    assert client.get("/cite", params={"ref": "dashe.w005.zhu12"}).status_code in (200, 404)


def test_static_assets_are_served(client: TestClient) -> None:
    css = client.get("/static/room.css")
    assert css.status_code == 200 and "Noto Serif CJK SC" in css.text and "max-width:600px" in css.text
    js = client.get("/static/room.js")
    assert js.status_code == 200 and "navigator.clipboard" in js.text and "execCommand('copy')" in js.text
