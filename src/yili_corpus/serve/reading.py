"""The reading room's jobs on the work, each run by the reader thread (``await reader(fn, ...)``):
the contents, a chapter's sections, a section page (kept in an LRU cache), search, a citation.

They return html (from :mod:`.pages`) or text; a missing chapter or place is an
:class:`~starlette.exceptions.HTTPException` with a one-line reason, or a :class:`Missing` when
the page should say what exists instead.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

from starlette.exceptions import HTTPException

from ..errors import UsageError
from ..export import present
from ..export.html import render_sections, slug
from ..layers import KEYS, is_overlay, is_text, ordered
from ..layers import name as layer_name
from ..query.cite import STYLES, format_citation, found_at, to_script
from . import pages

#: How many rendered section pages the room keeps (chapter, section, script).
CACHE_PAGES = 128

#: The most hits a search page lists (the total is always given).
MAX_HITS = 200

#: The longest query the search box takes (characters).
MAX_QUERY = 100

#: The citation styles the room offers (one click each).
ROOM_STYLES = ("zh", "chicago", "bibtex")


class Missing(Exception):
    """A place the chapter lacks: the one-line reason and a link to what exists."""

    def __init__(self, message: str, href: str, label: str) -> None:
        super().__init__(message)
        self.message, self.href, self.label = message, href, label


def chapter_id(work: Any, name: str) -> str:
    """The chapter id ``name`` names (an id or a title), else a 404."""
    try:
        return str(work.catalog.resolve(name))
    except UsageError as e:
        raise HTTPException(404, str(e)) from None


def _span(ns: list[int]) -> str:
    return f"{ns[0]}–{ns[-1]}" if ns else "none"


class Room:
    """The room's jobs (methods taking the work first, as the reader calls them) and its cache
    of rendered section pages."""

    def __init__(self, size: int = CACHE_PAGES) -> None:
        self.size = size
        self._pages: OrderedDict[tuple[str, int, str], str] = OrderedDict()
        self._sections: dict[str, int] | None = None

    # -- the contents and a chapter ----------------------------------------------------------------
    def contents(self, work: Any) -> str:
        """The contents page: the work's title and its chapters (title, number of sections)."""
        # the sections counted in the TEIs' bytes (a few ms for the work), not in their indexes:
        # with an empty cache, opening all seventeen would build seventeen indexes first
        if self._sections is None:
            self._sections = {cid: path.read_bytes().count(b'<div type="section"')
                              for cid, path in work.catalog.teis.items()}
        rows = [{"id": cid, "number": info.number, "title": info.title, "sections": self._sections[cid]}
                for cid, info in work.catalog.infos.items()]
        title = work.corpus().index.meta.get("work", "")
        return pages.contents(title, rows)

    def chapter(self, work: Any, name: str, script: str) -> str:
        """A chapter's page: its sections (number, title, first words)."""
        cid = chapter_id(work, name)
        index = work.corpus(cid).index
        first: dict[int, str] = {}
        for rec in index.rows(layers=[k for k in KEYS if is_text(k)]):
            first.setdefault(rec.section, rec.text)
        rows = [{"n": n, "title": t, "first": to_script(first.get(n, "")[:18].replace("\u3000", "，"),
                                                          script if script == "hant" else None)}
                for n, t in sorted(index.sections.items())]
        return pages.chapter(index.meta.get("work", ""), cid, index.meta.get("title", ""),
                             index.meta.get("number", ""), rows, script)

    # -- a section page ----------------------------------------------------------------------------
    def passage(self, work: Any, name: str, ref: str, script: str) -> str:
        """The page of the section holding ``ref`` (``16``, ``16.1``, ``16.1.3``, a unit's id, the
        forms ``yili show`` reads), the place it names highlighted."""
        cid = chapter_id(work, name)
        corpus = work.corpus(cid)
        given = ref if ref.startswith(cid + ".") else f"{cid}.{ref}" if re.match(r"^\d", ref) else ref
        try:
            addr = corpus.ref(given)
        except UsageError as e:
            raise Missing(str(e), f"/{cid}" + pages.q(script), "the chapter's sections") from None
        n = addr.section
        html = self._section(work, cid, n, script)
        target = addr.id
        if addr.paragraph is not None:
            paras = re.findall(rf'<div class="para[^"]*" id="{re.escape(cid)}\.{n}\.(\d+)"', html)
            have = sorted(int(x) for x in paras)
            if addr.paragraph not in have:
                raise Missing(f"section {n} has no paragraph {addr.paragraph} (it has {_span(have)})",
                              f"/{cid}/{n}" + pages.q(script), f"section {n}")
            if addr.clause is not None:
                pid = f"{cid}.{n}.{addr.paragraph}"
                have = sorted(int(x) for x in re.findall(rf'<span class="clause" id="{re.escape(pid)}\.(\d+)"', html))
                if addr.clause not in have:
                    raise Missing(f"paragraph {n}.{addr.paragraph} has no clause {addr.clause} "
                                  f"(it has {_span(have)})", f"/{cid}/{n}.{addr.paragraph}" + pages.q(script),
                                  f"paragraph {n}.{addr.paragraph}")
        unit = ref if "." in ref and not ref[0].isdigit() else ""
        if unit and f'id="{unit}"' in html:  # a unit's id (xiangsheli.w005.shu86): that block
            target = unit
        return pages.mark_target(html, target)

    def _section(self, work: Any, cid: str, n: int, script: str) -> str:
        key = (cid, n, script)
        html = self._pages.get(key)
        if html is not None:
            self._pages.move_to_end(key)
            return html
        corpus = work.corpus(cid)
        index = corpus.index
        doc = corpus.range_document([n])
        have = present(doc, [n])
        lays = ordered(set(KEYS) | {x for x in have if is_overlay(x)})
        r = render_sections(doc, [n], lays, script)
        numbers = sorted(index.sections)
        i = numbers.index(n)
        ed = index.edition
        html = pages.section(
            work=index.meta.get("work", ""), cid=cid, chapter=index.meta.get("title", ""), n=n,
            title=index.sections[n], toc=sorted(index.sections.items()),
            prev=numbers[i - 1] if i > 0 else None, next=numbers[i + 1] if i + 1 < len(numbers) else None,
            body="\n".join(r.sections), layers=[(slug(k), layer_name(k)) for k in r.layers],
            side=[slug(k) for k in r.side], share=r.share, script=script,
            source=ed.citation() if ed is not None else "", licence=ed.attribution if ed is not None else "")
        self._pages[key] = html
        while len(self._pages) > self.size:
            self._pages.popitem(last=False)
        return html

    # -- search ----------------------------------------------------------------------------------
    def search(self, work: Any, q: str, layer: str, chapter: str, script: str) -> str:
        """The search page: KWIC hits (at most :data:`MAX_HITS`), the counts per layer and per
        chapter as filter links."""
        if q is None:
            return pages.search(None, script=script)
        q = q.strip()
        if not q or len(q) > MAX_QUERY:
            raise HTTPException(400, f"a query is 1 to {MAX_QUERY} characters; this one has {len(q)}")
        cid = ""
        if chapter:
            try:
                cid = work.catalog.resolve(chapter)
            except UsageError as e:
                raise HTTPException(400, str(e)) from None
        layers = [layer] if layer else None
        if layer and layer not in KEYS and not is_overlay(layer):
            raise HTTPException(400, f"no layer {layer!r}; the layers are {', '.join(KEYS)}")
        res = work.search(q, chapter=cid or None, layers=layers, context=12, limit=MAX_HITS)
        by_layer = work.search(q, chapter=cid or None, limit=0)["counts"] if layer else res["counts"]
        by_chapter = work.search(q, layers=layers, limit=0)["chapters"] if cid else res["chapters"]
        hits = []
        titles = {c: i.title for c, i in work.catalog.infos.items()}
        for h in res["hits"]:
            hits.append({"href": hit_href(h), "chapter": titles.get(h["chapter"], h["chapter"]),
                         "section": h["section"], "layer": layer_name(h["layer"]), "label": h["citation"],
                         "before": h["before"], "match": h["match"], "after": h["after"],
                         "witness": h.get("witness", "")})
        return pages.search(
            q, script=script, layer=layer, chapter=cid, total=res["total"], hits=hits,
            by_layer=[(k, layer_name(k), by_layer[k]) for k in ordered(set(by_layer))],
            by_chapter=[(c["chapter"], c["title"], c["total"]) for c in by_chapter])

    # -- a citation ---------------------------------------------------------------------------------
    def cite(self, work: Any, ref: str, style: str, script: str | None) -> str:
        """The citation of the place ``ref`` names (``xiangsheli.16.1.3``) in ``style``."""
        if style not in ROOM_STYLES and style not in STYLES:
            raise HTTPException(400, f"no citation style {style!r}; the styles are {', '.join(ROOM_STYLES)}")
        cid = chapter_id(work, ref.split(".", 1)[0])
        index = work.corpus(cid).index
        f = found_at(index, ref.split("@", 1)[0])
        if f is None:
            raise HTTPException(404, f"no place {ref!r} in {cid}")
        return format_citation(index, f, style, script)


def hit_href(h: dict[str, Any]) -> str:
    """The room's URL of a search hit: its clause or paragraph, and the unit's anchor for a hit in
    a commentary, note or translation."""
    cid = h["chapter"]
    ref = h["ref"].split("@", 1)[0]
    path = ref[len(cid) + 1:] if ref.startswith(cid + ".") else ref
    if is_text(h["layer"]):
        return f"/{cid}/{path}"
    return f"/{cid}/{path}#{h['unit']}"
