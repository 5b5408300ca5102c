"""The web application of ``yili serve`` (docs/serve.md): routes, errors, bounds.

The work (:class:`~yili_corpus.api.Work`) is read by one thread of its own, the
:class:`~.reader.Reader`; the jobs are short (a section page is a few milliseconds once its
chapter is open), and one that runs past its time bound gets a 503.

No request can make the server do unbounded work: the URL (path and query) is at most
:data:`MAX_URL_CHARS` characters, only GET and HEAD are answered, and each job has its time bound.
Every error is a status code with a one-line message: JSON under ``/api/``, a small page elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import YiliError
from . import pages
from .reader import Reader

#: The longest URL (path and query string, in characters) the server reads; a longer one is 414.
MAX_URL_CHARS = 2000

STATIC = Path(__file__).with_name("static")


def _warm(work: Any) -> None:
    """Open the default chapter's index (the room's first page and most references need it)."""
    try:
        work.corpus().index  # noqa: B018 - opened for its side effect
    except Exception:  # noqa: BLE001 - the request that needs it will say what is wrong
        pass


async def _warm_up(reader: Reader) -> None:
    with contextlib.suppress(Exception):
        await reader(_warm)


def is_api(path: str) -> bool:
    """Whether ``path`` is one of the API's (errors as JSON) rather than the room's (as a page)."""
    return path.startswith("/api/")


def error_response(request: Request, status: int, message: str) -> Response:
    """The answer to an error: ``{"status", "message"}`` as JSON under /api/, else the room's error
    page (:func:`.pages.error`)."""
    message = " ".join(str(message).split())[:300]
    if is_api(request.url.path):
        return JSONResponse({"status": status, "message": message}, status_code=status)
    return HTMLResponse(pages.error(status, message), status_code=status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error_response(request, exc.status_code, exc.detail or "")


async def _yili_error(request: Request, exc: Exception) -> Response:
    # a YiliError that a route did not turn into a status of its own: bad input (400), or damaged
    # data on the server's side (500)
    assert isinstance(exc, YiliError)
    return error_response(request, 400 if exc.exit_code == 2 else 500, str(exc))


async def _internal_error(request: Request, exc: Exception) -> Response:
    what = " ".join(f"{type(exc).__name__}: {exc}".split())
    print(f"yili serve: internal error on {request.url.path}: {what}", file=sys.stderr)
    return error_response(request, 500, "internal error (the server's log says more)")


class Bounds:
    """ASGI middleware: a URL longer than :data:`MAX_URL_CHARS` is 414, a method other than GET or
    HEAD 405, before any route reads it; every answer carries the headers that keep the page to
    its own assets (no CDN, no frame of another site)."""

    HEADERS = [
        (b"content-security-policy",
         b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
         b"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    ]

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        size = len(scope.get("raw_path") or scope["path"]) + len(scope.get("query_string") or b"")
        status, message = 0, ""
        if size > MAX_URL_CHARS:
            status, message = 414, f"the URL is {size} characters long; at most {MAX_URL_CHARS} are read"
        elif scope["method"] not in ("GET", "HEAD"):
            status, message = 405, f"{scope['method']} is not answered: the server is read-only (GET, HEAD)"
        if status:
            api = is_api(scope["path"])
            body = (json.dumps({"status": status, "message": message}, ensure_ascii=False) if api
                    else f"{status}: {message}\n").encode("utf-8")
            headers = [(b"content-type", b"application/json" if api else b"text/plain; charset=utf-8"),
                       (b"content-length", str(len(body)).encode())]
            if status == 405:
                headers.append((b"allow", b"GET, HEAD"))
            await send({"type": "http.response.start", "status": status, "headers": headers + self.HEADERS})
            await send({"type": "http.response.body", "body": body})
            return

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in self.HEADERS if k not in have]
            await send(message)

        await self.app(scope, receive, with_headers)


def create_app(work: Any | None = None, tei: str | Path | None = None,
               overlays: str | Path | None = None) -> Starlette:
    """The application serving ``work`` (default: :func:`~yili_corpus.api.load_work` of ``tei``
    and ``overlays``): the reading room at ``/``, the DTS API at ``/api/dts/``."""
    from . import dts, room

    if work is None:
        from ..api import load_work

        work = load_work(tei, overlays)
    reader = Reader(work)
    routes: list[BaseRoute] = [
        *dts.routes(reader),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        *room.routes(reader),  # last: its passage routes take any /{chapter}/{ref}
    ]

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        # open the default chapter's index while the first reader finds the page: its first
        # page then costs what every other one does (a failure here is the request's to report)
        warm = asyncio.ensure_future(_warm_up(reader))
        yield
        warm.cancel()
        reader.close()

    app = Starlette(
        routes=routes,
        middleware=[Middleware(Bounds)],
        exception_handlers={HTTPException: _http_error, YiliError: _yili_error, Exception: _internal_error},
        lifespan=lifespan,
    )
    app.state.reader = reader
    return app
