"""The Distributed Text Services 1.0 API under ``/api/dts/`` (docs/dts.md): Entry, Collection,
Navigation and Document, as distributed-text-services/specifications ``versions/v1.0`` gives them
(Level 1: ``start``/``end`` are supported).

- the root collection ``yili`` is the work (《仪礼》); its members are the 17 chapters as
  Resources (ids: the chapter ids, ``xiangsheli``), in the order of the work, and, when the user
  has imported overlays, the collection ``overlays`` whose members are the overlays
  (``overlay.NAME``) as Resources without a citation tree;
- a chapter's citation tree is section → paragraph → clause (:mod:`.navigation`);
- the Document of a chapter is its TEI as committed, or a fragment of it (:mod:`.fragments`).

Every bad parameter is a status and a one-line JSON message (``app.py``): 400 for a request the
spec calls malformed, 404 for an id, ref, tree, page or media type that does not exist.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .catalog import HeaderInfo, citation_trees, dublin_core, header_info
from .fragments import fragment, whole_units
from .navigation import Tree, Trees, Unit, members

if TYPE_CHECKING:  # app imports this module (its routes): no import back at run time
    from .reader import Reader

CONTEXT = "https://dtsapi.org/context/v1.0.json"
VERSION = "1.0"
LD_JSON = "application/ld+json"
TEI_XML = "application/tei+xml"
#: The media types a chapter's Document is given in (the html export renders whole sections
#: only, and the reading room is the html of a passage: it is not offered here).
MEDIA_TYPES = [TEI_XML]
ROOT_ID = "yili"
#: A chapter's collection is ``yili/<chapter id>``; its members, the corpus's edition of the
#: chapter (the Resource ``<chapter id>``) and the overlays imported into it.
CHAPTER_PREFIX = ROOT_ID + "/"
OVERLAY_PREFIX = "overlay."
#: Members of a Collection answer per page.
COLLECTION_PAGE_SIZE = 100
#: CitableUnits of a Navigation answer per page (乡射礼's whole tree, down=-1, has 1,760).
NAVIGATION_PAGE_SIZE = 500

COLLECTION = "/api/dts/collection/"
NAVIGATION = "/api/dts/navigation/"
DOCUMENT = "/api/dts/document/"


def entry_point(base: str = "") -> dict[str, Any]:
    """The Entry endpoint's answer (``base``: the server's URL, so the templates are absolute)."""
    return {"@context": CONTEXT, "dtsVersion": VERSION, "@id": base + "/api/dts/", "@type": "EntryPoint",
            "collection": base + COLLECTION + "{?id,page,nav}",
            "navigation": base + NAVIGATION + "{?resource,ref,start,end,down,tree,page}",
            "document": base + DOCUMENT + "{?resource,ref,start,end,tree,mediaType}"}


def ident(rid: str) -> str:
    """An id as it stands in a URL's query (``yili/xiangsheli``: its slash kept, anything odd
    percent-encoded)."""
    return quote(rid, safe="/:")


def base_url(request: Request) -> str:
    """The server's URL as the client reached it (``http://127.0.0.1:8000``): the URI templates
    are absolute, so a client can follow them without resolving them against the request."""
    return str(request.base_url).rstrip("/")


# -- parameters ---------------------------------------------------------------------------------
def param(request: Request, name: str) -> str | None:
    """The query parameter ``name``; absent or empty (an RFC 6570 expansion of an empty value) is
    None."""
    v = request.query_params.get(name)
    return v if v else None


def int_param(request: Request, name: str, minimum: int) -> int | None:
    """The integer parameter ``name`` (None if absent); not an integer, or below ``minimum``, 400."""
    v = param(request, name)
    if v is None:
        return None
    try:
        n = int(v.strip(), 10)
    except ValueError:
        raise HTTPException(400, f"{name} must be an integer, not {v[:40]!r}") from None
    if n < minimum:
        raise HTTPException(400, f"{name} must be at least {minimum}, not {n}")
    return n


def range_params(request: Request) -> tuple[str | None, str | None, str | None]:
    """``ref``, ``start``, ``end``: ref with start or end, or start without end (or the reverse), 400."""
    ref, start, end = param(request, "ref"), param(request, "start"), param(request, "end")
    if ref is not None and (start is not None or end is not None):
        raise HTTPException(400, "ref cannot be used with start or end")
    if (start is None) != (end is None):
        raise HTTPException(400, "start and end must be given together")
    return ref, start, end


def view(request: Request, page: int, last: int) -> dict[str, Any]:
    """The Pagination object of page ``page`` of ``last`` (``previous``/``next`` null at the ends)."""
    def at(n: int) -> str:
        return str(request.url.include_query_params(page=n))

    return {"@id": at(page), "@type": "Pagination", "first": at(1),
            "previous": at(page - 1) if page > 1 else None,
            "next": at(page + 1) if page < last else None, "last": at(last)}


def paginate(request: Request, items: list[Any], size: int, out: dict[str, Any]) -> list[Any]:
    """The page of ``items`` the ``page`` parameter asks for (``view`` set in ``out`` when there
    is more than one page, or a page was asked for); a page past the last is 404."""
    page = int_param(request, "page", 1)
    last = max(1, math.ceil(len(items) / size))
    if page is not None and page > last:
        raise HTTPException(404, f"page {page} does not exist: there are {last}")
    if page is None and last == 1:
        return items
    p = page or 1
    out["view"] = view(request, p, last)
    return items[(p - 1) * size: p * size]


# -- the work's objects -----------------------------------------------------------------------
class Catalog:
    """The work's collections and resources, the headers read once (used by the reader only)."""

    def __init__(self) -> None:
        self._headers: dict[Path, HeaderInfo] = {}

    def info(self, path: Path) -> HeaderInfo:
        """The facts of the header of ``path``."""
        if path not in self._headers:
            self._headers[path] = header_info(path)
        return self._headers[path]

    @staticmethod
    def overlays(work: Any, chapter: str | None = None) -> dict[str, tuple[str, Path]]:
        """The imported overlays by resource id (``overlay.NAME``), sorted by name, each with the
        chapter it was imported into (an overlay that names none is the default chapter's); only
        ``chapter``'s if given."""
        ids = work.ids
        if not ids:
            return {}
        out = {}
        for ov in work.corpus(ids[0]).all_overlays:
            cid = ov.chapter or work.default
            if chapter is None or cid == chapter:
                out[OVERLAY_PREFIX + ov.name] = (cid, ov.path)
        return out

    def path(self, work: Any, rid: str) -> Path | None:
        """The TEI of the resource ``rid``, or None if there is no such resource."""
        if rid in work.catalog.teis and rid in work.ids:
            return work.catalog.teis[rid]
        if rid.startswith(OVERLAY_PREFIX):
            found = self.overlays(work).get(rid)
            return found[1] if found else None
        return None

    @staticmethod
    def chapter_of(work: Any, cid: str) -> str | None:
        """The chapter whose collection ``cid`` is (``yili/xiangsheli`` → xiangsheli), or None."""
        if cid.startswith(CHAPTER_PREFIX) and cid[len(CHAPTER_PREFIX):] in work.ids:
            return cid[len(CHAPTER_PREFIX):]
        return None

    def children(self, work: Any, cid: str) -> list[str]:
        """The members of the collection ``cid``."""
        if cid == ROOT_ID:
            return [CHAPTER_PREFIX + c for c in work.ids]
        chapter = self.chapter_of(work, cid)
        if chapter:
            return [chapter, *self.overlays(work, chapter)]
        return []

    def parents(self, work: Any, rid: str) -> list[str]:
        """The collections ``rid`` is a member of."""
        if rid == ROOT_ID:
            return []
        if self.chapter_of(work, rid):
            return [ROOT_ID]
        if rid.startswith(OVERLAY_PREFIX):
            found = self.overlays(work).get(rid)
            return [CHAPTER_PREFIX + found[0]] if found else []
        return [CHAPTER_PREFIX + rid]

    def exists(self, work: Any, rid: str) -> bool:
        """Whether ``rid`` is a collection or resource of the work."""
        return rid == ROOT_ID or self.chapter_of(work, rid) is not None or self.path(work, rid) is not None

    def work_title(self, work: Any) -> str:
        """The work's title (the chapters' headers: ``title type="work"``)."""
        for cid in work.ids:
            t = self.info(work.catalog.teis[cid]).work
            if t:
                return t
        return ROOT_ID

    def obj(self, work: Any, rid: str, base: str = "") -> dict[str, Any]:
        """The Collection or Resource object of ``rid`` (without ``member``); its templates and
        links absolute under ``base``."""
        col, nav, doc = base + COLLECTION, base + NAVIGATION, base + DOCUMENT
        chapter = self.chapter_of(work, rid)
        if rid == ROOT_ID or chapter:
            if chapter:
                info = self.info(work.catalog.teis[chapter])
                title = info.title or chapter
            else:
                title = self.work_title(work)
            out: dict[str, Any] = {"@id": rid, "@type": "Collection", "dtsVersion": VERSION, "title": title,
                                   "totalParents": len(self.parents(work, rid)),
                                   "totalChildren": len(self.children(work, rid)),
                                   "collection": f"{col}?id={ident(rid)}{{&page,nav}}"}
            out["dublinCore"] = {"title": [{"lang": "zh-Hans", "value": title}]}
            if chapter:
                out["description"] = (f"{title}: the corpus's edition (the Resource {chapter}) and the "
                                      "translations and witnesses imported into the chapter (yili import)")
            return out
        path = self.path(work, rid)
        assert path is not None
        info = self.info(path)
        overlay = rid.startswith(OVERLAY_PREFIX)
        # an overlay's chapter bibl names the chapter it was imported into: its own title is the
        # titleStmt's (Overlay NAME (kind) for 仪礼·乡射礼 …)
        title = (info.description if overlay else info.title) or info.description or rid
        out = {"@id": rid, "@type": "Resource", "dtsVersion": VERSION, "title": title,
               "totalParents": len(self.parents(work, rid)), "totalChildren": 0}
        if info.description and not overlay:
            out["description"] = info.description
        dc = dublin_core(info)
        if overlay:
            dc.pop("description", None)
            dc["title"] = [{"lang": "en", "value": title}]
        if dc:
            out["dublinCore"] = dc
        q = ident(rid)
        out.update({
            "collection": f"{col}?id={q}{{&page,nav}}",
            "navigation": f"{nav}?resource={q}{{&ref,down,start,end,tree,page}}",
            "document": f"{doc}?resource={q}{{&ref,start,end,tree,mediaType}}",
            "download": f"{doc}?resource={q}",
            "citationTrees": citation_trees(info),
            "mediaTypes": list(MEDIA_TYPES),
        })
        return out


def _resource_tree(work: Any, catalog: Catalog, trees: Trees, request: Request) -> tuple[str, Path, Tree | None]:
    """The resource a Navigation or Document request names: its id, TEI and citation tree (None
    for a resource without one); no resource 400, an unknown one 404."""
    rid = param(request, "resource")
    if rid is None:
        raise HTTPException(400, "resource is required (a chapter id such as xiangsheli)")
    path = catalog.path(work, rid)
    if path is None:
        hint = (f" ({rid} is a chapter's collection: its edition is the resource {catalog.chapter_of(work, rid)})"
                if catalog.chapter_of(work, rid) else "")
        raise HTTPException(404, f"no resource {rid[:60]!r}{hint}: the resources are the chapters "
                                 f"({', '.join(work.ids)}) and the overlays (overlay.NAME)")
    tree = trees(path) if citation_trees(catalog.info(path)) else None
    tree_name = param(request, "tree")
    if tree_name is not None:
        raise HTTPException(404, f"no citation tree {tree_name[:40]!r}: {rid} has only its default tree (no tree=)")
    return rid, path, tree


def _unit(tree: Tree | None, rid: str, name: str, identifier: str) -> Unit:
    unit = tree.get(identifier) if tree is not None else None
    if unit is None:
        raise HTTPException(404, f"{name}={identifier[:40]!r} is not a citable unit of {rid}")
    return unit


def _range(tree: Tree | None, rid: str, start: str, end: str) -> tuple[Unit, Unit]:
    s, e = _unit(tree, rid, "start", start), _unit(tree, rid, "end", end)
    assert tree is not None
    if tree.index(e) < tree.index(s) and not (tree.index(s) < e.end):
        raise HTTPException(400, f"end={end} comes before start={start}")
    return s, e


def routes(reader: Reader) -> list[BaseRoute]:
    """The API's routes."""
    catalog = Catalog()
    trees = Trees()

    def ld(body: dict[str, Any]) -> JSONResponse:
        return JSONResponse(body, media_type=LD_JSON)

    async def entry(request: Request) -> JSONResponse:
        return ld(entry_point(base_url(request)))

    def collection_job(work: Any, request: Request) -> dict[str, Any]:
        rid = param(request, "id") or ROOT_ID
        nav = param(request, "nav") or "children"
        if nav not in ("children", "parents"):
            raise HTTPException(400, f"nav must be children or parents, not {nav[:40]!r}")
        if not catalog.exists(work, rid):
            raise HTTPException(404, f"no collection or resource {rid[:60]!r}")
        base = base_url(request)
        out: dict[str, Any] = {"@context": CONTEXT, **catalog.obj(work, rid, base)}
        ids = catalog.children(work, rid) if nav == "children" else catalog.parents(work, rid)
        page = paginate(request, ids, COLLECTION_PAGE_SIZE, out)
        if ids or out["@type"] == "Collection" or nav == "parents":
            out["member"] = [catalog.obj(work, m, base) for m in page]
        return out

    async def collection(request: Request) -> JSONResponse:
        return ld(await reader(collection_job, request))

    def navigation_job(work: Any, request: Request) -> dict[str, Any]:
        ref, start, end = range_params(request)
        down = int_param(request, "down", -1)
        rid, _path, tree = _resource_tree(work, catalog, trees, request)
        out: dict[str, Any] = {"@context": CONTEXT, "dtsVersion": VERSION, "@type": "Navigation",
                               "@id": str(request.url)}
        res = catalog.obj(work, rid, base_url(request))
        out["resource"] = {k: res[k] for k in ("@id", "@type", "title", "collection", "navigation", "document",
                                               "citationTrees", "mediaTypes") if k in res}
        if tree is None:  # a resource without a citation tree: an empty member, never an error
            out["member"] = []
            return out
        if ref is None and start is None and down in (None, 0):
            raise HTTPException(400, "say what to navigate: ref, start and end, or down (≥ 1 or -1)"
                                if down is None else "down=0 needs a ref")
        if start is not None and down == 0:
            raise HTTPException(400, "down=0 cannot be used with start and end")
        r = _unit(tree, rid, "ref", ref) if ref is not None else None
        s, e = _range(tree, rid, start, end) if start is not None and end is not None else (None, None)
        if r is not None:
            out["ref"] = r.json()
        if s is not None and e is not None:
            out["start"], out["end"] = s.json(), e.json()
        if down is not None:
            found = members(tree, r, s, e, down)
            out["member"] = [u.json() for u in paginate(request, found, NAVIGATION_PAGE_SIZE, out)]
        return out

    async def navigation(request: Request) -> JSONResponse:
        return ld(await reader(navigation_job, request))

    def document_job(work: Any, request: Request) -> tuple[str, bytes]:
        ref, start, end = range_params(request)
        rid, path, tree = _resource_tree(work, catalog, trees, request)
        media = param(request, "mediaType")
        if media is not None and media not in MEDIA_TYPES:
            raise HTTPException(404, f"mediaType {media[:60]!r} is not offered: {', '.join(MEDIA_TYPES)}")
        if ref is not None:
            return rid, fragment(tree, [_unit(tree, rid, "ref", ref)])  # type: ignore[arg-type]
        if start is not None and end is not None:
            s, e = _range(tree, rid, start, end)
            return rid, fragment(tree, whole_units(tree, s, e))  # type: ignore[arg-type]
        try:
            return rid, path.read_bytes()
        except OSError as exc:
            raise HTTPException(500, f"cannot read the TEI of {rid}: {exc.strerror or exc}") from None

    async def document(request: Request) -> Response:
        rid, body = await reader(document_job, request)
        return Response(body, media_type=TEI_XML,
                        headers={"Link": f'<{base_url(request)}{COLLECTION}?id={ident(rid)}>; rel="collection"'})

    return [Route("/api/dts/", entry), Route("/api/dts", entry),
            Route(COLLECTION, collection), Route(COLLECTION.rstrip("/"), collection),
            Route(NAVIGATION, navigation), Route(NAVIGATION.rstrip("/"), navigation),
            Route(DOCUMENT, document), Route(DOCUMENT.rstrip("/"), document)]
