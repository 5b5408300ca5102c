"""The Distributed Text Services 1.0 API under ``/api/dts/`` (docs/serve.md): Entry, Collection,
Navigation and Document, as distributed-text-services/specifications ``versions/v1.0`` gives them."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from .app import Reader

CONTEXT = "https://dtsapi.org/context/v1.0.json"


def routes(reader: Reader) -> list[BaseRoute]:
    """The API's routes."""

    async def entry(request: Request) -> JSONResponse:
        return JSONResponse({"@context": CONTEXT, "dtsVersion": "1.0", "@id": "/api/dts/", "@type": "EntryPoint",
                             "collection": "/api/dts/collection/{?id,page,nav}",
                             "navigation": "/api/dts/navigation/{?resource,ref,start,end,down,tree,page}",
                             "document": "/api/dts/document/{?resource,ref,start,end,tree,mediaType}"},
                            media_type="application/ld+json")

    return [Route("/api/dts/", entry), Route("/api/dts", entry)]
