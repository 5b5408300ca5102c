"""The reading room of ``yili serve`` in a real headless browser (Debian's chromium, driven by
selenium), against the real server (uvicorn on a free port, in a thread): it opens §16, hides and
shows the 疏, switches to traditional script, searches 釋獲 through the search box, follows a hit,
opens a clause's panel and copies a citation. Screenshots go to build/serve-*.png (a laptop's
1280 px and a phone's 390 px) for a person to look at.

Skipped only when chromium, its driver or selenium is absent (``.ci/run`` installs them)."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from yili_corpus.api import load_work
from yili_corpus.export.layout import layout

from .conftest import ROOT
from .test_browser import CHROMIUM, DRIVER, HAVE_SELENIUM

BUILD = ROOT / "build"
LAPTOP, PHONE = 1280, 390

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(DRIVER).exists() and HAVE_SELENIUM),
    reason="no headless browser here: needs Debian's chromium and chromium-driver (apt) and selenium",
)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The room on a free port of this machine, served by uvicorn in a thread: its base URL."""
    import uvicorn

    from yili_corpus.serve import create_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(load_work()), log_level="warning", access_log=False))
    th = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    th.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        th.join(10)
        sock.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
              f"--window-size={LAPTOP},900", f"--user-data-dir={tmp_path_factory.mktemp('chromium-room')}"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    d.set_script_timeout(10)
    try:
        yield d
    finally:
        d.quit()


def _wait(cond: Any, seconds: float = 10) -> Any:
    end = time.time() + seconds
    while time.time() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def _shot(browser: Any, name: str) -> Path:
    BUILD.mkdir(exist_ok=True)
    out = BUILD / f"serve-{name}.png"
    browser.save_screenshot(str(out))
    assert out.stat().st_size > 5_000
    return out


def _css(browser: Any, sel: str) -> list[Any]:
    return browser.find_elements("css selector", sel)


def test_read_hide_switch_search_follow_cite(server: str, browser: Any) -> None:
    browser.set_window_size(LAPTOP, 900)
    browser.get(server + "/xiangsheli/16?script=hans")
    assert browser.execute_script("return window.innerWidth") == LAPTOP
    assert "比三耦" in browser.title
    _shot(browser, "laptop-passage")

    # the 疏 hidden and shown again
    shu = _css(browser, ".shu")
    assert shu and all(s.is_displayed() for s in shu)
    box = browser.find_element("css selector", '.layers input[data-layer="shu"]')
    box.click()
    assert not any(s.is_displayed() for s in shu)
    assert browser.find_element("css selector", ".zhu").is_displayed()  # the 注 stays
    box.click()
    assert all(s.is_displayed() for s in shu)

    # traditional script: the 经 in the traditional witness's characters
    corpus = load_work().corpus("xiangsheli")
    hant = [c.text for c in layout(corpus.range_document([16]), [16], ["jing"], "hant").sections[0]
            .paragraphs[0].clauses]
    hans = [c.text for c in layout(corpus.range_document([16]), [16], ["jing"], "hans").sections[0]
            .paragraphs[0].clauses]
    changed = [t for t, s in zip(hant, hans, strict=True) if t != s]
    assert changed  # 遂以比三耦於堂西 against 于
    browser.find_element("css selector", 'nav.script a[data-script="hant"]').click()
    _wait(lambda: browser.execute_script("return document.body.dataset.script") == "hant")
    text = browser.execute_script("return document.body.innerText")
    assert all(t in text for t in changed), changed
    assert "script=hant" in browser.current_url

    # search 釋獲 through the search box
    q = browser.find_element("css selector", "form.find input[name=q]")
    q.send_keys("釋獲")
    q.submit()
    _wait(lambda: "/search" in browser.current_url and _css(browser, "ol.hits li"))
    assert browser.execute_script("return document.body.dataset.script") == "hant"  # kept
    facets = browser.execute_script("return document.querySelector('.facets').innerText")
    assert "贾疏" in facets or "賈疏" in facets
    _shot(browser, "laptop-search")

    # follow a hit in the 经: its clause highlighted on the new page
    hit = next(a for a in _css(browser, "a.kwic") if "#" not in a.get_attribute("href"))
    href = hit.get_attribute("href")
    hit.click()
    _wait(lambda: browser.current_url.split("?")[0] == href.split("?")[0])
    ref = href.split("/")[-1].split("?")[0]
    target = browser.find_element("css selector", ".target")
    assert target.get_attribute("id") == f"xiangsheli.{ref}" or target.get_attribute("id").endswith("." + ref)
    assert "clause" in target.get_attribute("class")
    assert browser.execute_script(
        "var r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight", target)

    # the clause's panel: its reference, and its Chicago citation copied
    target.click()
    panel = browser.find_element("css selector", "#panel")
    _wait(panel.is_displayed)
    assert panel.find_element("css selector", ".pref").text == target.get_attribute("id")
    browser.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": server, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    panel.find_element("css selector", 'button[data-style="chicago"]').click()
    done = panel.find_element("css selector", ".done")
    _wait(done.is_displayed)
    assert done.text == "已复制"
    copied = browser.execute_script("return document.getElementById('panel').dataset.copied")
    with urllib.request.urlopen(f"{server}/cite?ref={quote(target.get_attribute('id'))}&style=chicago"
                                "&script=hant") as r:
        want = r.read().decode("utf-8")
    assert copied == want
    clip = browser.execute_async_script(
        "var done = arguments[0]; navigator.clipboard.readText().then(done, function () { done(null); });")
    if clip is not None:  # the clipboard itself, where the headless browser lets it be read
        assert clip == want
    _shot(browser, "laptop-panel")


def test_translation_beside_on_a_laptop_under_on_a_phone(server: str, browser: Any) -> None:
    browser.set_window_size(LAPTOP, 900)
    browser.get(server + "/xiangsheli/3?script=hans")
    para = browser.find_element("css selector", ".para")
    main, side = para.find_element("css selector", ".main"), para.find_element("css selector", ".side")
    assert side.is_displayed() and side.rect["x"] > main.rect["x"] + main.rect["width"] - 1  # beside
    assert side.rect["width"] >= 200
    _shot(browser, "laptop-translation")
    browser.set_window_size(PHONE, 844)
    browser.get(server + "/xiangsheli/3?script=hans")
    assert browser.execute_script("return window.innerWidth") <= PHONE
    # the translation under its paragraph, not beside it
    para = browser.find_element("css selector", ".para")
    main, side = para.find_element("css selector", ".main"), para.find_element("css selector", ".side")
    assert side.is_displayed()
    assert side.rect["y"] >= main.rect["y"] + main.rect["height"] - 1
    assert side.rect["width"] > PHONE * 0.7
    # the bars folded; no horizontal scrolling
    assert browser.execute_script("return document.querySelector('details.layers').open") is False
    assert browser.execute_script("return document.documentElement.scrollWidth") <= PHONE
    _shot(browser, "phone-passage")
    browser.find_element("css selector", ".clause").click()
    _wait(browser.find_element("css selector", "#panel").is_displayed)
    _shot(browser, "phone-panel")
    browser.get(server + "/search?q=" + quote("釋獲") + "&script=hans")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= PHONE
    _shot(browser, "phone-search")
