"""The chapters of the work: which chapters' TEIs there are, their numbers and titles, and which
chapter a reference names (``燕礼第3节``, ``燕禮 3``, ``yanli.3.1``, ``dashe.w005.zhu12``).

A chapter's facts come from its TEI's header (``<bibl type="chapter" n="ID">``: the title, its
variants, the chapter's number), read from the first bytes of the file without parsing it: a
search across the work opens the chapters' indexes, never their TEIs. Where the project's
``corpus/yili-chapters.tsv`` is beside ``tei/`` (a clone, not an installed package), its short
forms (``also``: 大射仪, 乡饮酒) are names of the chapter too. A title is matched in simplified
or traditional characters (each character folded by OpenCC t2s, only when a reference starts
with a title).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError, shown
from .refs import FULLWIDTH

#: The chapter a bare section number (``16``, ``16.2``) means when no --chapter says otherwise
#: (issue 15: 乡射礼's references stay as they were before the work had other chapters).
DEFAULT_CHAPTER = "xiangsheli"

#: How much of a TEI is read for its header's chapter facts (the ``bibl type=chapter`` is in the
#: ``sourceDesc``, some 4 KB into the file; a header is never near this size).
HEAD_BYTES = 1 << 18

_CHAPTER_BIBL = re.compile(rb'<bibl type="chapter" n="([^"]+)">(.*?)</bibl>', re.S)
_TITLE = re.compile(r'<title type="(chapter|variant)"[^>]*>([^<]+)</title>')
_NUMBER = re.compile(r'<biblScope unit="chapter" n="(\d+)"')
_CN_NUM = "〇零一二两兩三四五六七八九十百"


@dataclass(frozen=True)
class ChapterInfo:
    """A chapter of the work: its id, number in the received order, title, and the names a
    reference may use for it (the title first)."""

    id: str
    number: int
    title: str
    names: tuple[str, ...]
    path: Path


def header_info(path: Path, fallback_id: str = "") -> ChapterInfo:
    """The chapter facts of the TEI ``path`` from its header (see module doc); a TEI without a
    ``bibl type=chapter`` (an older build) gets ``fallback_id`` and no title."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    m = _CHAPTER_BIBL.search(head)
    if not m:
        return ChapterInfo(fallback_id, 0, "", (), path)
    body = m.group(2).decode("utf-8", "replace")
    titles = [(k, t.strip()) for k, t in _TITLE.findall(body)]
    title = next((t for k, t in titles if k == "chapter"), "")
    names = tuple(dict.fromkeys([title, *(t for k, t in titles if k == "variant")]))
    num = _NUMBER.search(body)
    return ChapterInfo(m.group(1).decode("utf-8", "replace"), int(num.group(1)) if num else 0, title,
                       tuple(n for n in names if n), path)


def table_names(tei_dir: Path) -> dict[str, list[str]]:
    """The short forms of ``corpus/yili-chapters.tsv`` beside ``tei_dir`` by chapter id (its
    ``title`` and ``also`` columns), or {} where there is no such table (an installed package)."""
    p = tei_dir.parent / "corpus" / "yili-chapters.tsv"
    out: dict[str, list[str]] = {}
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError:
        return out
    head: list[str] = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if not head:
            head = cells
            continue
        row = dict(zip(head, cells, strict=False))
        if row.get("id"):
            out[row["id"]] = [row.get("title", ""), *(a for a in row.get("also", "").split(",") if a)]
    return out


def fold(s: str) -> str:
    """``s`` with each character folded from traditional to simplified (OpenCC t2s)."""
    from ..text.normalise import t2s_char

    return "".join(t2s_char(c) for c in s)


class Catalog:
    """The chapters of the TEIs given (id → file), read on first use, in the received order."""

    def __init__(self, teis: dict[str, Path]) -> None:
        if "" in teis:  # a TEI whose name does not say its chapter (--tei FILE): its header does
            p = teis.pop("")
            teis[header_info(p).id or p.stem] = p
        self.teis = teis
        self._infos: dict[str, ChapterInfo] | None = None

    @property
    def ids(self) -> list[str]:
        """The chapters' ids in the order of the work (by the headers' chapter numbers)."""
        return list(self.infos)

    @property
    def infos(self) -> dict[str, ChapterInfo]:
        """The chapters' :class:`ChapterInfo` by id, in the order of the work."""
        if self._infos is None:
            extra: dict[str, list[str]] = {}
            dirs = {p.parent for p in self.teis.values()}
            for d in dirs:
                extra.update(table_names(d))
            got = []
            for cid, p in self.teis.items():
                info = header_info(p, cid)
                cid = cid or info.id
                names = tuple(dict.fromkeys([*info.names, *extra.get(cid, [])]))
                got.append(ChapterInfo(cid, info.number, info.title, tuple(n for n in names if n), p))
            got.sort(key=lambda i: (i.number or 10**6, i.id))
            self._infos = {i.id: i for i in got}
        return self._infos

    def listing(self) -> str:
        """The chapter ids, for an error message."""
        return ", ".join(self.teis) if len(self.teis) > 0 else "none"

    def resolve(self, name: str) -> str:
        """The id of the chapter ``name`` names: its id or one of its names (simplified or
        traditional); anything else is a usage error listing the ids."""
        s = name.strip()
        if s in self.teis:
            return s
        key = fold(s.replace(" ", "").strip("《》"))
        for cid, info in self.infos.items():
            if key and any(fold(n) == key for n in info.names):
                return cid
        raise UsageError(f"no chapter {shown(s)}: the chapters are {self.listing()}")

    def locate(self, text: str) -> tuple[str | None, str]:
        """The chapter a reference names and the reference to give that chapter: ``(id, rest)``;
        ``(None, text)`` for a reference that names no chapter (a bare ``16``, ``第3节``).
        ``yanli.3.1`` and ``dashe.w005.zhu12`` are given to their chapter whole; ``燕禮第3节``
        as ``第3节``. A reference naming a chapter the work does not have is a usage error."""
        s = text.strip().translate(FULLWIDTH).replace(" ", "").replace("\u3000", "")
        body = s.lstrip("§")
        m = re.match(r"([a-z]+)\.", body)
        if m:
            cid = m.group(1)
            if cid not in self.teis:
                raise UsageError(f"{shown(text.strip())}: no chapter {cid}; the chapters are {self.listing()}")
            return cid, body
        body = re.sub(r"^《?(仪礼|儀禮)[·・]?", "", body)
        if not body or body[0].isdigit() or body[0] in "第@" + _CN_NUM:
            return None, text
        key = fold(body)
        best: tuple[int, str] | None = None
        for cid, info in self.infos.items():
            for n in info.names:
                fn = fold(n)
                if key.startswith(fn) and (best is None or len(fn) > best[0]):
                    best = (len(fn), cid)
        if best is not None:
            rest = body[best[0]:].lstrip("》·・,，")
            return best[1], rest
        named = re.match(rf"^《?([^\x00-\x7f第》]+?)》?第?(?:[0-9]|[{_CN_NUM}])", body)
        if named and named.group(1)[0] not in _CN_NUM:
            raise UsageError(f"{shown(text.strip())}: no chapter {shown(named.group(1))}; the chapters are "
                             f"{self.listing()}")
        return None, text
