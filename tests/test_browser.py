"""The html export in a real headless browser (Debian's chromium, driven by selenium): the text
is all there, no column is too narrow, a screenshot for a person to look at, and print to PDF.

Skipped only when chromium, its driver or selenium is absent (``.ci/run`` installs them)."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from yili_corpus.api import load
from yili_corpus.cli import main

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
BUILD = ROOT / "build"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WIDTH = 1280

try:
    import selenium  # noqa: F401
    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(DRIVER).exists() and HAVE_SELENIUM),
    reason="no headless browser here: needs Debian's chromium and chromium-driver (apt) and selenium "
           "(pip install '.[test]'); .ci/run installs them",
)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run",
              f"--window-size={WIDTH},1000", f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        yield d
    finally:
        d.quit()


def _export(sections: str, out: Path) -> Path:
    r = CliRunner().invoke(main, ["--tei", str(TEI), "export", "--section", sections, "--format", "html",
                                  "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out


def _clauses(first: int, last: int, layer: str | None = None) -> list[str]:
    doc = load(TEI).document
    return [c.text for s in doc.sections if first <= s.n <= last and (layer is None or s.layer == layer)
            for p in s.paragraphs for c in p.clauses]


def _flat(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _render(browser: Any, page: Path, shot: Path) -> dict[str, Any]:
    browser.set_window_size(WIDTH, 1000)
    browser.get(page.as_uri())
    inner = browser.execute_cdp_cmd("Runtime.evaluate", {"expression": "window.innerWidth", "returnByValue": True})
    widths = browser.execute_script(
        "return Array.from(document.querySelectorAll('.para > div'))"
        ".filter(e => e.offsetParent !== null).map(e => e.getBoundingClientRect().width)")
    text = browser.execute_script("return document.body.innerText")
    BUILD.mkdir(exist_ok=True)
    browser.save_screenshot(str(shot))
    pdf = browser.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True, "printBackground": False})
    out = shot.with_suffix(".pdf")
    out.write_bytes(base64.b64decode(pdf["data"]))
    return {"inner": inner["result"]["value"], "widths": widths, "text": text, "pdf": out}


def _pdf(path: Path) -> tuple[int, str]:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))  # type: ignore[union-attr]
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout
    return pages, text


def test_sections_16_to_22_read_and_print(browser: Any, tmp_path: Path) -> None:
    r = _render(browser, _export("16-22", tmp_path / "p.html"), BUILD / "export-16-22.png")
    assert r["inner"] == WIDTH
    missing = [c for c in _clauses(16, 22) if c not in r["text"]]
    assert not missing, f"{len(missing)} clauses not in the page: {missing[:5]}"
    assert r["widths"] and min(r["widths"]) >= WIDTH / 4, sorted(r["widths"])[:5]
    assert (BUILD / "export-16-22.png").stat().st_size > 10_000
    pages, text = _pdf(r["pdf"])
    assert 1 <= pages <= 20, pages
    flat = _flat(text)
    assert all(_flat(c) in flat for c in _clauses(16, 22))


def test_the_whole_chapter_reads_and_prints(browser: Any, tmp_path: Path) -> None:
    r = _render(browser, _export("1-53", tmp_path / "all.html"), BUILD / "export-all.png")
    missing = [c for c in _clauses(1, 53) if c not in r["text"]]
    assert not missing, f"{len(missing)} clauses not in the page: {missing[:5]}"
    # a translation beside the 经 and the 记 (§1–13, 52–53): two columns there, none narrow
    assert min(r["widths"]) >= WIDTH / 4, sorted(r["widths"])[:5]
    assert len({round(w) for w in r["widths"]}) >= 2
    pages, text = _pdf(r["pdf"])
    flat = _flat(text)
    ji = _clauses(1, 53, "ji")
    assert len(ji) > 150 and "楚扑长如笴" in ji
    missing = [c for c in ji if _flat(c) not in flat]
    assert not missing, f"{len(missing)} clauses of the 记 not in the PDF: {missing[:5]}"


def test_the_layer_toggles_hide_a_layer_and_the_column(browser: Any, tmp_path: Path) -> None:
    page = _export("52", tmp_path / "ji.html")
    browser.get(page.as_uri())
    boxes = {b.get_attribute("data-layer"): b for b in browser.find_elements("css selector", ".toggles input")}
    assert {"ji", "zhu", "shu", "trans"} <= set(boxes)
    zhu = browser.find_element("css selector", ".zhu")
    side = browser.find_element("css selector", ".side")
    assert zhu.is_displayed() and side.is_displayed()
    boxes["zhu"].click()
    boxes["trans"].click()
    assert not zhu.is_displayed() and not side.is_displayed()
    w = browser.execute_script("return document.querySelector('.para .main').getBoundingClientRect().width")
    assert w > WIDTH * 0.8  # the text takes the page when no translation is shown
