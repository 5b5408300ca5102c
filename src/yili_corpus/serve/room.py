"""The reading room (docs/serve.md): chapters and sections, a passage as an 注疏 edition, search,
citations; every passage at its own URL (``/xiangsheli/16``, ``/xiangsheli/16.1.2``).

The routes read the request and hand the job to the reader thread (:mod:`.reading`, which renders
through :mod:`.pages`); ``?script=hant`` gives the traditional script on every page.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from . import pages
from .reader import Reader
from .reading import Missing, Room


def script_of(request: Request) -> str:
    """The script a request asks for: ``hant`` (traditional) or ``hans`` (simplified, the
    default); anything else is a 400."""
    s = request.query_params.get("script", "hans") or "hans"
    if s not in pages.SCRIPTS:
        raise HTTPException(400, f"no script {s!r}; the scripts are hans (simplified) and hant (traditional)")
    return s


def routes(reader: Reader) -> list[BaseRoute]:
    """The room's routes (the passage routes last: they take any ``/{chapter}/{ref}``)."""
    room = Room()

    async def contents(request: Request) -> Response:
        return HTMLResponse(await reader(room.contents))

    async def chapter(request: Request) -> Response:
        return HTMLResponse(await reader(room.chapter, request.path_params["chapter"], script_of(request)))

    async def passage(request: Request) -> Response:
        script = script_of(request)
        try:
            page = await reader(room.passage, request.path_params["chapter"], request.path_params["ref"], script)
        except Missing as m:
            return HTMLResponse(pages.missing(m.message, m.href, m.label, script), status_code=404)
        return HTMLResponse(page)

    async def search(request: Request) -> Response:
        p = request.query_params
        return HTMLResponse(await reader(room.search, p.get("q"), p.get("layer", ""), p.get("chapter", ""),
                                         script_of(request)))

    async def cite(request: Request) -> Response:
        p = request.query_params
        ref = p.get("ref", "").strip()
        if not ref:
            raise HTTPException(400, "cite needs ref= (a clause, paragraph or section id: xiangsheli.16.1.3)")
        script = p.get("script") or None
        if script is not None:
            script = script_of(request)
        return PlainTextResponse(await reader(room.cite, ref, p.get("style", "zh"), script))

    return [Route("/", contents), Route("/search", search), Route("/cite", cite),
            Route("/{chapter}", chapter), Route("/{chapter}/{ref}", passage)]
