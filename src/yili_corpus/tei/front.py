"""The front matter of the book (``[[front]]`` of the work manifest: ``KR1d0028_000.txt``, 儀禮疏序,
提要, 原目, 原目考證) as a TEI of its own, ``tei/front.xml`` (docs/encoding.md, "The front matter").

The file is a mandoku text like the 卷 files: ``#+PROPERTY: JUAN NAME`` opens a part (a ``div``
with ``@n`` NAME), ``<pb:…_000-3a>`` is a page break (a ``pb`` pointing to its ``surface`` in the
facsimile), every line ends with ``¶``. Within a part: the opening ``欽定四庫全書`` line is the page's
running header (``fw``), the next indented line its title (``head``, with a following line of at
most four characters, 提要), a last line that repeats the title its closing title (``trailer``), and
every other line with text a ``ab type="line"`` as the file has it (its indentation as
``@rend="indent(N)"``). The mandoku header lines (``#…``) are metadata, noise of the coverage.
Every element with text points to the characters it quotes (``#w005 corpus/FILE#char=A,B``).

The TEI is named outside the chapters' ``tei/yili-*.xml``, so that no reader takes it for a
chapter; it carries no ``bibl type="chapter"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from ..errors import DataError
from ..model import is_text_char
from .core import TEI_NS, XML_ID, XML_LANG, T, indent
from .write import _el, project_statement

if TYPE_CHECKING:  # types only: the tei package reads no manifest
    from ..sources.manifest import Front, Work

PB_RE = re.compile(r"<pb:(?:[^>_]*_)*([^>_]*)>")
PART_RE = re.compile(r"^#\+PROPERTY:\s*JUAN\s+(.+?)\s*$")
INDENT = "　"
#: The witness id of the 四库 edition, as in every chapter (w005).
WITNESS = "w005"
#: The name of the front matter's TEI in tei/ (outside the chapters' yili-*.xml).
FRONT_TEI = "front.xml"


@dataclass
class Line:
    """A line of the file with text: its role (``fw``, ``head``, ``trailer``, ``line``), its text
    (without the indentation and ``¶``), where the text is in the file, its indentation, and the
    page it stands on."""

    role: str
    text: str
    start: int
    end: int
    indent: int
    page: str


@dataclass
class Part:
    """A part of the front matter (``#+PROPERTY: JUAN NAME``): its lines and the pages that start in it."""

    name: str
    lines: list[Line] = field(default_factory=list)
    #: (index of the line the page break comes before, page)
    breaks: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class FrontText:
    """The parsed front matter: its parts, its pages (page → start and end in the file) and the
    count of text characters read, placed in a line and left as noise (the mandoku header)."""

    parts: list[Part]
    pages: dict[str, tuple[int, int]]
    read: int = 0
    placed: int = 0


def parse_front(text: str, path: str) -> FrontText:
    """Divide the front matter's text into parts, lines and pages (see the module doc)."""
    parts: list[Part] = []
    pages: dict[str, tuple[int, int]] = {}
    page, page_start = "", 0
    off = 0
    placed = noise = 0
    for raw in text.splitlines(keepends=True):
        line_off, off = off, off + len(raw)
        ln = raw.rstrip("\n")
        if ln.startswith("#"):
            noise += sum(1 for c in ln if is_text_char(c))
            m = PART_RE.match(ln)
            if m:
                parts.append(Part(m.group(1)))
            continue
        body = ln[:-1] if ln.endswith("¶") else ln
        m = PB_RE.search(body)
        if m:
            if page:
                pages[page] = (page_start, line_off)
            page, page_start = m.group(1), line_off
            if parts:
                parts[-1].breaks.append((len(parts[-1].lines), page))
            body = body[:m.start()] + " " * (m.end() - m.start()) + body[m.end():]
            noise += sum(1 for c in m.group(0) if is_text_char(c))
        a = len(body) - len(body.lstrip())
        b = len(body.rstrip())
        if a >= b:
            continue
        if not parts:
            raise DataError("text before the first #+PROPERTY: JUAN line", path, text.count("\n", 0, line_off) + 1)
        placed += sum(1 for c in body[a:b] if is_text_char(c))
        parts[-1].lines.append(Line("line", body[a:b], line_off + a, line_off + b, a, page))
    if page:
        pages[page] = (page_start, len(text))
    for p in parts:
        _roles(p)
    return FrontText(parts, pages, read=placed + noise, placed=placed)


def _roles(p: Part) -> None:
    """The running header, title and closing title of a part (the module doc)."""
    ls = p.lines
    i = 0
    if ls and ls[0].text.startswith("欽定四庫全書"):
        ls[0].role = "fw"
        i = 1
    if i < len(ls) and ls[i].indent > 0:
        ls[i].role = "head"
        title = ls[i].text.split(INDENT)[0]  # 儀禮疏序 of 儀禮疏序　　　禮類二(…): the title, not its aside
        i += 1
        if i < len(ls) and ls[i].indent > 0 and len(ls[i].text) <= 4:
            ls[i].role = "head"
            i += 1
        if len(ls) > i and ls[-1].text == title:
            ls[-1].role = "trailer"


def front_bytes(work: Work, front: Front, folder: str = "corpus") -> bytes:
    """The TEI of the front matter file ``front`` of ``work`` (UTF-8, indented, ending with a newline)."""
    path = work.corpus_dir / front.file
    text = path.read_text(encoding="utf-8")
    ft = parse_front(text, str(path))
    ptr_file = f"{folder}/{front.file}"
    shared = work.shared.get(front.from_, {})

    def ptr(a: int, b: int) -> str:
        return f"#{WITNESS} {ptr_file}#char={a},{b}"

    root = etree.Element(T + "TEI", nsmap={None: TEI_NS})
    root.set(XML_ID, "yili.front")
    root.set(XML_LANG, "lzh")
    header = _el(root, "teiHeader")
    fd = _el(header, "fileDesc")
    ts = _el(fd, "titleStmt")
    names = "、".join(p.name for p in ft.parts)
    book = str(shared.get("edition_title", work.title))
    _el(ts, "title", {XML_LANG: "zh-Hant"}, f"{book}·卷首：{names}")
    _el(ts, "title", {"type": "sub", XML_LANG: "en"}, f"{work.title} ({book}): the front matter of the book")
    av, _pp = project_statement(ts, fd, "encoding", folder)
    if shared.get("licence"):
        lic = _el(av, "licence", {"target": str(shared.get("licence_url", ""))},
                  f"{WITNESS}: {shared.get('attribution', '')}")
        lic.set("n", str(shared["licence"]))
    sd = _el(fd, "sourceDesc")
    # the work, not a chapter: the front matter is no chapter of it
    wb = _el(sd, "bibl", {"type": "front"})
    _el(wb, "title", {"type": "work"}, work.title)
    _el(wb, "title", {"type": "edition"}, book)
    if shared.get("edition_name"):
        _el(wb, "edition", None, str(shared["edition_name"]))
    _el(wb, "note", {"type": "description"}, front.description)
    lw = _el(sd, "listWit")
    we = _el(lw, "witness", {XML_ID: WITNESS})
    _el(we, "label", None, str(shared.get("edition_name", book)))
    _el(we, "note", {"type": "description"}, front.description).tail = " file "
    _el(we, "ref", {"target": ptr_file}, ptr_file).tail = ", sha256 "
    _el(we, "idno", {"type": "sha256"}, front.sha256)
    if shared.get("repository"):
        src = _el(we, "note", {"type": "source"}, "from ")
        _el(src, "ref", {"target": str(shared["repository"])}, str(shared["repository"])).tail = ", commit "
        _el(src, "idno", {"type": "git-commit"}, str(shared.get("commit", "")))
    prof = _el(header, "profileDesc")
    _el(_el(prof, "langUsage"), "language", {"ident": "lzh"}, "文言")
    fx = _el(root, "facsimile")
    pid = {}
    for page, (a, b) in ft.pages.items():
        pid[page] = f"{WITNESS}.{page}"
        n = page.rsplit("-", 1)[-1]
        sf = _el(fx, "surface", {XML_ID: pid[page], "n": n, "source": ptr(a, b)})
        _el(sf, "label", None, f"葉{n}")
    body = _el(_el(root, "text"), "body")
    for k, p in enumerate(ft.parts, 1):
        div = _el(body, "div", {"type": "front-part", "n": p.name, XML_ID: f"front.{k}"})
        breaks = dict(p.breaks)
        heads = [ln for ln in p.lines if ln.role == "head"]
        for i, ln in enumerate(p.lines):
            if i in breaks:
                _el(div, "pb", {"n": breaks[i].rsplit("-", 1)[-1], "facs": "#" + pid[breaks[i]]})
            attrs = {"source": ptr(ln.start, ln.end), "facs": "#" + pid[ln.page] if ln.page else ""}
            if ln.role == "head":
                if ln is heads[0]:
                    _el(div, "head", attrs, ln.text)
                else:
                    _el(div, "head", {"type": "sub", **attrs}, ln.text)
            elif ln.role == "fw":
                _el(div, "fw", {"type": "header", **attrs}, ln.text)
            elif ln.role == "trailer":
                _el(div, "trailer", attrs, ln.text)
            else:
                _el(div, "ab", {"type": "line", "rend": f"indent({ln.indent})" if ln.indent else "", **attrs}, ln.text)
        if len(p.lines) in breaks:
            page = breaks[len(p.lines)]
            _el(div, "pb", {"n": page.rsplit("-", 1)[-1], "facs": "#" + pid[page]})
    indent(root)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"


def front_coverage(work: Work, front: Front) -> dict[str, object]:
    """The front matter's coverage: text characters read, placed in a line of the TEI, and left as
    noise (the mandoku header lines, the page-break marks)."""
    path = work.corpus_dir / front.file
    ft = parse_front(path.read_text(encoding="utf-8"), str(path))
    return {"read": ft.read, "placed": ft.placed, "noise": ft.read - ft.placed,
            "placed_share": round(ft.placed / ft.read, 5) if ft.read else 1.0,
            "parts": {p.name: sum(1 for ln in p.lines) for p in ft.parts}}


def front_path(tei_dir: Path) -> Path:
    """Where the front matter's TEI goes: ``tei/front.xml``."""
    return tei_dir / FRONT_TEI
