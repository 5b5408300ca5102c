"""The reading room's html: the page around everything (header, search box, script switch), the
contents, a chapter, a section, search results, a place the chapter lacks.

Every page works without JavaScript (links and a form); ``static/room.js`` adds the layer
toggles, the clause panel and the copy buttons. No inline style or script (the CSP forbids them):
the look is ``static/room.css``.
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import urlencode

_e = html.escape

SCRIPTS = {"hans": "简体", "hant": "繁體"}


def q(script: str, **params: str) -> str:
    """The query string of a room URL: ``script`` only when traditional, then ``params``."""
    items = ([("script", script)] if script == "hant" else []) + [(k, v) for k, v in params.items() if v]
    return "?" + urlencode(items) if items else ""


def shell(title: str, body: str, script: str = "hans", here: str = "/", params: dict[str, str] | None = None,
          crumbs: list[tuple[str, str]] | None = None, body_class: str = "", data: dict[str, str] | None = None,
          query: str = "") -> str:
    """A room page: ``body`` under the header (the contents link, ``crumbs``, the search box and
    the script switch, whose links keep ``here`` and ``params``)."""
    params = params or {}
    lang = "zh-Hant" if script == "hant" else "zh-Hans"
    switch = "".join(
        f'<a href="{_e(here)}?{_e(urlencode([*params.items(), ("script", k)]))}" data-script="{k}"'
        + (' class="on" aria-current="true"' if k == script else "") + f">{v}</a>"
        for k, v in SCRIPTS.items())
    trail = "".join(f'<span class="sep">›</span><a href="{_e(h)}">{_e(t)}</a>' if h else
                    f'<span class="sep">›</span><span>{_e(t)}</span>' for h, t in crumbs or [])
    hidden = '<input type="hidden" name="script" value="hant">' if script == "hant" else ""
    attrs = "".join(f' data-{k}="{_e(v)}"' for k, v in (data or {}).items())
    return (
        f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title>"
        '<link rel="stylesheet" href="/static/room.css"><script src="/static/room.js" defer></script>'
        f'</head><body class="script-{script} {body_class}" data-script="{script}"{attrs}>'
        '<header class="top"><nav class="crumbs"><a class="home" href="/' + q(script) + '">仪礼</a>'
        f"{trail}</nav>"
        '<form class="find" action="/search" method="get" role="search">'
        f'<input type="search" name="q" value="{_e(query)}" placeholder="检索 简/繁/异体" maxlength="100" '
        f'aria-label="search">{hidden}<button type="submit">检索</button></form>'
        f'<nav class="script" aria-label="script">{switch}</nav></header>\n'
        f"{body}\n"
        '<footer class="foot"><a href="/">目录</a> · <a href="/search">检索</a> · '
        '<a href="/api/dts/">DTS API</a></footer></body></html>\n'
    )


def contents(work: str, chapters: list[dict[str, Any]]) -> str:
    """The contents: the work's title and its chapters, each with its number of sections."""
    rows = "".join(
        f'<li><a href="/{_e(c["id"])}"><span class="num">{c["number"]}</span>'
        f'<span class="ttl">{_e(c["title"])}</span><span class="count">{c["sections"]}节</span></a></li>'
        for c in chapters)
    body = (f'<main class="contents"><h1>《{_e(work)}》</h1><p class="sub">{len(chapters)}篇 · '
            "经、记与郑注、陆氏音义、贾疏、四库考证</p>"
            f'<ol class="chapters">{rows}</ol></main>')
    return shell(f"《{work}》", body, data={"page": "contents"})


def chapter(work: str, cid: str, title: str, number: Any, sections: list[dict[str, Any]], script: str) -> str:
    """A chapter: its sections (number, title, first words), each a link to its page."""
    rows = "".join(
        f'<li><a href="/{_e(cid)}/{s["n"]}{q(script)}"><span class="num">{s["n"]}</span>'
        f'<span class="ttl">{_e(s["title"])}</span><span class="first">{_e(s["first"])}…</span></a></li>'
        for s in sections)
    body = (f'<main class="chapter"><h1>《{_e(work)}·{_e(title)}》</h1>'
            f'<p class="sub">第{_e(str(number))}篇 · {len(sections)}节</p><ol class="sections">{rows}</ol></main>')
    return shell(f"《{work}·{title}》", body, script, here=f"/{cid}", crumbs=[("", title)],
                 data={"page": "chapter", "chapter": cid})


def section(*, work: str, cid: str, chapter: str, n: int, title: str, toc: list[tuple[int, str]],
            prev: int | None, next: int | None, body: str, layers: list[tuple[str, str]], side: list[str],
            share: float, script: str, source: str, licence: str) -> str:
    """A section's page: the section list at hand, the layer toggles, the section as an 注疏
    edition, the previous and next sections, the clause panel (filled by room.js)."""
    sq = q(script)
    items = "".join(
        f'<li><a href="/{_e(cid)}/{k}{sq}"' + (' aria-current="page"' if k == n else "")
        + f'><span class="num">{k}</span>{_e(t)}</a></li>' for k, t in toc)
    toc_html = (f'<nav class="toc" aria-label="sections"><details open><summary>{_e(chapter)} · '
                f'{len(toc)}节</summary><ol>{items}</ol></details></nav>')
    boxes = "".join(f'<label><input type="checkbox" data-layer="{k}" checked> {_e(v)}</label>' for k, v in layers)
    bar = f'<details class="layers" open><summary>层次 layers</summary><div class="boxes">{boxes}</div></details>'
    pager = '<nav class="pager">'
    if prev is not None:
        pager += f'<a rel="prev" href="/{_e(cid)}/{prev}{sq}">← 第{prev}节 {_e(dict(toc)[prev])}</a>'
    if next is not None:
        pager += f'<a rel="next" href="/{_e(cid)}/{next}{sq}">第{next}节 {_e(dict(toc)[next])} →</a>'
    pager += "</nav>"
    src = f'<p class="source">页码（葉）据{_e(source)}。{_e(licence)}</p>' if source else ""
    panel = ('<aside id="panel" class="panel" hidden aria-live="polite"><button type="button" class="close" '
             'aria-label="close">×</button><p class="pref"></p><p class="pwords"></p><ol class="papps"></ol>'
             '<div class="pcite"><button type="button" data-style="zh">复制 中文</button>'
             '<button type="button" data-style="chicago">Chicago</button>'
             '<button type="button" data-style="bibtex">BibTeX</button>'
             '<span class="done" hidden>已复制</span></div>'
             '<textarea class="pbuf" readonly rows="3" aria-label="citation" hidden></textarea>'
             '<a class="plink" href="">本句链接</a></aside>')
    main = (f'<div class="room">{toc_html}<article class="book{"" if side else " no-side"}">'
            f'<p class="work">《{_e(work)}·{_e(chapter)}》</p>{bar}<main>{body}</main>{pager}{src}</article>'
            f"</div>{panel}")
    return shell(f"《{work}·{chapter}》第{n}节 {title}", main, script, here=f"/{cid}/{n}",
                 crumbs=[(f"/{cid}{sq}", chapter), ("", f"第{n}节 {title}")],
                 data={"page": "section", "chapter": cid, "side": " ".join(side), "share": f"{share:.3f}",
                       "prev": f"/{cid}/{prev}{sq}" if prev is not None else "",
                       "next": f"/{cid}/{next}{sq}" if next is not None else ""})


def mark_target(page: str, target: str) -> str:
    """``page`` with the element ``target`` (a clause, paragraph or unit id) marked ``target``
    (highlighted, and scrolled to by room.js); a section's page stays as it is."""
    marked, n = re.subn(rf'class="([^"]*)" id="{re.escape(target)}"',
                        lambda m: f'class="{m.group(1)} target" id="{_e(target)}"', page, count=1)
    if not n:
        return page
    return marked.replace('data-page="section"', f'data-page="section" data-target="{_e(target)}"', 1)


def search(query: str | None, *, script: str, layer: str = "", chapter: str = "", total: int = 0,
           hits: list[dict[str, Any]] | None = None, by_layer: list[tuple[str, str, int]] | None = None,
           by_chapter: list[tuple[str, str, int]] | None = None) -> str:
    """The search page: the counts per layer and per chapter as filter links, the hits in KWIC
    (each a link to its passage), a note when more were found than are listed."""
    if query is None:
        body = ('<main class="search"><h1>检索</h1><p class="sub">简体、繁體或异体字皆可；'
                "结果按层次与篇筛选。</p></main>")
        return shell("检索", body, script, here="/search", crumbs=[("", "检索")], data={"page": "search"})
    hits = hits or []

    def link(lay: str, ch: str) -> str:
        return "/search" + q(script, q=query, layer=lay, chapter=ch)

    lay_links = [f'<a href="{_e(link("", chapter))}"' + ("" if layer else ' class="on"') + ">全部层次</a>"]
    lay_links += [f'<a href="{_e(link(k, chapter))}"' + (' class="on"' if k == layer else "")
                  + f">{_e(t)} <span class=\"n\">{c}</span></a>" for k, t, c in by_layer or []]
    ch_links = [f'<a href="{_e(link(layer, ""))}"' + ("" if chapter else ' class="on"') + ">全部篇</a>"]
    ch_links += [f'<a href="{_e(link(layer, k))}"' + (' class="on"' if k == chapter else "")
                 + f">{_e(t)} <span class=\"n\">{c}</span></a>" for k, t, c in by_chapter or []]
    rows = "".join(
        f'<li><a class="kwic" href="{_e(h["href"])}"><span class="b">{_e(h["before"])}</span>'
        f'<mark>{_e(h["match"])}</mark><span class="a">{_e(h["after"])}</span></a>'
        f'<span class="where">{_e(h["chapter"])} 第{h["section"]}节 · {_e(h["layer"])}'
        + (f" · {_e(h['witness'])}" if h.get("witness") else "") + "</span></li>"
        for h in hits)
    note = (f'<p class="note">共{total}处，列出前{len(hits)}处；按层次或篇筛选可见其余。</p>'
            if total > len(hits) else f'<p class="note">共{total}处。</p>')
    body = (f'<main class="search"><h1>检索「{_e(query)}」</h1>'
            f'<nav class="facets" aria-label="layers">{"".join(lay_links)}</nav>'
            f'<nav class="facets" aria-label="chapters">{"".join(ch_links)}</nav>'
            f'{note}<ol class="hits">{rows}</ol></main>')
    params = {k: v for k, v in (("q", query), ("layer", layer), ("chapter", chapter)) if v}
    return shell(f"检索 {query}", body, script, here="/search", params=params, crumbs=[("", "检索")],
                 data={"page": "search"}, query=query)


def error(status: int, message: str, links: list[tuple[str, str]] | None = None, script: str = "hans") -> str:
    """An error page: the status, the one-line reason, ``links`` (href, label) to what exists and
    the contents."""
    more = "".join(f'<a href="{_e(h)}">{_e(t)}</a> · ' for h, t in links or [])
    body = (f'<main class="error-page"><h1>{status}</h1><p class="message">{_e(message)}</p>'
            f'<p>{more}<a href="/">目录 · the contents</a></p></main>')
    return shell(str(status), body, script)


def missing(message: str, href: str, label: str, script: str) -> str:
    """A place the chapter lacks: the reason and a link to what exists (a 404 page)."""
    return error(404, message, [(href, label)], script)
