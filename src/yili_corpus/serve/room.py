"""The reading room (docs/serve.md): chapters and sections, a passage as an 注疏 edition, search,
citations; every passage at its own URL (``/xiangsheli/16``, ``/xiangsheli/16.1.2``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Route

from .app import Reader


def routes(reader: Reader) -> list[BaseRoute]:
    """The room's routes."""

    async def contents(request: Request) -> HTMLResponse:
        ids = await reader(lambda w: w.ids)
        return HTMLResponse("<ul>" + "".join(f'<li><a href="/{i}">{i}</a></li>' for i in ids) + "</ul>")

    return [Route("/", contents)]
