"""The application of ``yili serve`` as a whole (docs/serve.md): its bounds, its errors, its
headers, the reader thread, the command line, and a real server answering 50 clients at once.

The DTS API and the reading room have their own tests (test_serve_dts.py, test_serve_room.py,
test_serve_browser.py)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from yili_corpus.api import load_work
from yili_corpus.cli import main
from yili_corpus.serve import app as app_module
from yili_corpus.serve import create_app
from yili_corpus.serve import reader as reader_module

from .conftest import ROOT


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(load_work()), raise_server_exceptions=False) as c:
        yield c


def test_a_url_too_long_is_414_before_any_route(client: TestClient) -> None:
    r = client.get("/api/dts/collection/?id=" + "x" * app_module.MAX_URL_CHARS)
    assert r.status_code == 414
    assert r.json()["message"].startswith("the URL is ")
    r = client.get("/xiangsheli/" + "1" * app_module.MAX_URL_CHARS)
    assert r.status_code == 414 and r.headers["content-type"].startswith("text/plain")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_the_server_is_read_only(client: TestClient, method: str) -> None:
    for path in ("/api/dts/", "/xiangsheli/16", "/"):
        r = client.request(method, path)
        assert r.status_code == 405, (method, path)
        assert r.headers["allow"] == "GET, HEAD"
        assert "read-only" in r.text


def test_head_is_answered(client: TestClient) -> None:
    r = client.head("/api/dts/")
    assert r.status_code == 200 and r.text == ""


def test_unknown_paths_are_404_json_under_api_and_a_page_elsewhere(client: TestClient) -> None:
    r = client.get("/api/dts/no-such-endpoint")
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/json"
    assert r.json() == {"status": 404, "message": "Not Found"}
    r = client.get("/static/no-such-file.css")
    assert r.status_code == 404 and "<h1>404</h1>" in r.text
    assert "Traceback" not in r.text


def test_every_answer_keeps_to_its_own_assets(client: TestClient) -> None:
    for path in ("/", "/api/dts/", "/nowhere/at/all"):
        h = client.get(path).headers
        csp = h["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp and "http" not in csp
        assert h["x-content-type-options"] == "nosniff"


def test_a_job_that_runs_too_long_is_503_and_the_reader_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    reader = reader_module.Reader(load_work())
    monkeypatch.setattr(reader_module, "REQUEST_SECONDS", 0.2)

    async def run() -> tuple[int, list[str]]:
        with pytest.raises(reader_module.HTTPException) as exc:
            await reader(lambda _w: time.sleep(0.6))
        await asyncio.sleep(0.6)  # the one reader finishes the long job before it takes the next
        return exc.value.status_code, await reader(lambda w: w.ids)

    status, ids = asyncio.run(run())
    reader.close()
    assert status == 503
    assert ids[0] == "shiguanli" and len(ids) == 17


def test_the_reader_is_one_thread() -> None:
    reader = reader_module.Reader(load_work())

    async def run() -> set[str]:
        names = await asyncio.gather(*(reader(lambda _w: threading.current_thread().name) for _ in range(20)))
        return set(names)

    names = asyncio.run(run())
    reader.close()
    assert len(names) == 1 and next(iter(names)).startswith("yili-reader")


def test_internal_errors_are_one_line_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(load_work())

    async def boom(_request):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug\nwith two lines")

    from starlette.routing import Route

    # first, before the room's /{chapter} takes the path
    app.router.routes[:0] = [Route("/api/dts/boom", boom), Route("/boom", boom)]
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.get("/api/dts/boom")
        assert r.status_code == 500
        assert r.json() == {"status": 500, "message": "internal error (the server's log says more)"}
        r = c.get("/boom")
        assert r.status_code == 500 and "Traceback" not in r.text and "RuntimeError" not in r.text


# -- the command line ------------------------------------------------------------------------------
def test_serve_refuses_a_port_in_use_in_one_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = CliRunner().invoke(main, ["serve", "--port", str(port)])
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("yili: error: cannot listen on 127.0.0.1:")
    assert "try --port" in lines[0]


@pytest.mark.parametrize("args, says", [
    (["--port", "70000"], "70000"),
    (["--host", "no such host.invalid"], "cannot listen on"),
])
def test_serve_refuses_bad_options_in_one_line(args: list[str], says: str) -> None:
    r = CliRunner().invoke(main, ["serve", *args])
    assert r.exit_code == 2
    assert len(r.output.strip().splitlines()) == 1 and says in r.output


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A real ``yili serve --port 0`` in a process of its own; its URL from the line it prints."""
    p = subprocess.Popen([sys.executable, "-m", "yili_corpus.cli", "serve", "--port", "0"], cwd=ROOT,
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert p.stderr is not None
        line = p.stderr.readline()
        m = re.search(r"at (http://127\.0\.0\.1:\d+/) ", line)
        assert m, line
        yield m.group(1)
    finally:
        p.terminate()
        p.wait(timeout=30)


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_a_real_server_answers_fifty_clients_at_once(server: str) -> None:
    urls = ([server + "api/dts/"] * 10 + [server + f"xiangsheli/{n}" for n in range(1, 21)]
            + [server + f"api/dts/navigation/?resource=xiangsheli&ref={n}" for n in range(1, 21)])
    assert len(urls) == 50
    with ThreadPoolExecutor(max_workers=50) as pool:
        answers = list(pool.map(_get, urls))
    assert [s for s, _ in answers] == [200] * 50
    assert all(json.loads(b)["@type"] == "EntryPoint" for _, b in answers[:10])
    assert all("第" in b.decode("utf-8") for _, b in answers[10:30])


def test_a_real_server_says_where_it_is_and_stops_on_a_signal() -> None:
    p = subprocess.Popen([sys.executable, "-m", "yili_corpus.cli", "serve", "--port", "0"], cwd=ROOT,
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert p.stderr is not None
    line = p.stderr.readline()
    assert line.startswith("yili serve: the reading room at http://127.0.0.1:")
    p.send_signal(2)  # Ctrl-C
    assert p.wait(timeout=30) == 0
    assert "Traceback" not in p.stderr.read()
