"""Cross-references of a passage (``yili xref``).

For a section, paragraph or clause:

* ``ji`` — for 经: the 记 clauses that speak of it; for 记: the 经 sections its clauses speak of.
  A 记 clause speaks of a 经 section when they share a distinctive string (found in at most
  :data:`MAX_SECTIONS` sections of the 经) of at least :data:`MIN_LONG` characters
  (取诱射之矢 → section 24), or when it is close to one of that section's clauses (difflib ratio
  ≥ :data:`MIN_RATIO`: 司马阶前命张侯 ↔ 司马命张侯, section 17). Notes that point from the 记 to a
  section (（第14节）) count too.
* ``shu`` — the 疏 blocks on it, with the range their lemma names.
* ``notes`` — the notes on it, with the notes, sections, chapters and works they point to.
* ``works`` — other works its 注 and 疏 cite, with normalised titles (the TEI header's list).
* ``repeats`` — its clauses that recur elsewhere in the chapter word for word; ``chain`` when the
  clause repeats an earlier rite (如初, 亦如之 …: the ``repeat`` markers, :data:`~yili_corpus.genre.READ_WING`).
* ``parallels`` — the same text in other chapters (:mod:`yili_corpus.query.parallels`), given
  by the caller (:meth:`yili_corpus.api.Corpus.xref` compares with the chapters' TEIs beside this one).
* ``targets`` — the sections of this chapter all of that points to, in order.

A chapter of 《仪礼》 cited by the 注, the 疏 (《大射》, 如燕礼, 大射云) or the notes is a link to that
chapter's id (``dashe``, from ``corpus/yili-chapters.tsv`` and the chapters' TEIs:
:func:`chapter_list`), which ``yili --chapter dashe show 1`` follows. A note's 见彼第24节 names a
section of the other chapter in the modern book's numbering, which this corpus does not have: it
links to the chapter only, and says so (``numbering``); it never becomes a section of ours or of
that chapter.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..document import Document, Ref, in_script, readable
from ..genre import READ_WING
from .clauses import ClauseTable
from .refs import Address
from .show import Passage

MIN_SHARED = 3
MIN_LONG = 4
MIN_RATIO = 0.7
MAX_SECTIONS = 2
TITLE_RE = re.compile(r"《([^》]+)》")
#: How an unpunctuated 注 or 疏 (the 四库 copy's) cites a work it names without 《》: 案X, 決X,
#: 與X同, 彼X, 引X, 如X before the title; X云, X曰, X注 after it.
CITE_BEFORE = "案按引決决與与彼如"
CITE_AFTER = "云曰注"
#: What follows a chapter's title where the 疏 names the chapter by its rite (乡饮酒之礼).
CHAPTER_RITE = ("之礼", "之禮")
#: A chapter's title with this in it names that chapter (or its rite, which the chapter is)
#: wherever it stands in a 注 or 疏 (燕礼大射…, 與燕禮不同): no citing word needed. Other titles
#: and short names (大射, 丧服, 有司, 特牲) are words of the text too and need one.
RITE_TITLE = "礼"
#: The file of the chapter list, in the corpus folder beside ``tei/`` (``corpus/yili-chapters.tsv``).
CHAPTER_TABLE = "yili-chapters.tsv"
#: How a note's reference into another chapter names a section of the modern book (见彼第24节),
#: and a note of it (《士昏礼》注（21）).
OTHER_SECTION_RE = re.compile(r"第\s*(\d+)\s*节")
OTHER_NOTE_RE = re.compile(r"注\s*[（(]\s*(\d+)\s*[）)]")


class Chapters:
    """The chapters of 《仪礼》 as the read side knows them: names (titles and short names) →
    number, number → id and title. (The build side's :class:`yili_corpus.align.xrefs.Chapters`
    reads the same table; the read side does not reach the build side.)"""

    def __init__(self, this: int) -> None:
        self.this = this
        self.names: dict[str, int] = {}
        #: chapter number → its stable id (the table's ``id`` column: ``7`` → ``dashe``)
        self.ids: dict[int, str] = {}
        #: chapter number → its title (the table's ``title`` column)
        self.titles: dict[int, str] = {}

    @classmethod
    def load(cls, path: Path, this: int) -> Chapters:
        """The chapter list of ``corpus/yili-chapters.tsv`` (n, title, also, id)."""
        from ..errors import DataError
        from ..tables import read_table

        ch = cls(this)
        for i, cells in read_table(path, ["n", "title", "also", "id"], "chapter list"):
            cells = [c.strip() for c in cells] + ["", "", "", ""]
            try:
                n = int(cells[0])
            except ValueError:
                raise DataError(f"bad chapter row {cells[:4]!r:.200}", str(path), i) from None
            ch.titles[n] = cells[1]
            if cells[3]:
                ch.ids[n] = cells[3]
            for name in [cells[1], *cells[2].split(",")]:
                if name.strip():
                    ch.names[name.strip()] = n
        return ch

    def chapter(self, title: str) -> int | None:
        """The chapter number of a title such as 士昏礼 or 乡饮酒礼·记, or None."""
        return self.names.get(title.split("·")[0].strip())

    def chapter_id(self, title: str) -> str | None:
        """The id of the chapter a title names (大射, 大射礼, 乡饮酒礼·记 → its chapter's id), or None."""
        n = self.chapter(title)
        return self.ids.get(n) if n is not None else None


def chapter_list(tei: Path, corpus: str, number: int,
                 siblings: Iterable[tuple[str, dict[str, str]]] = ()) -> Chapters:
    """The chapters of 《仪礼》 with their ids: ``corpus/yili-chapters.tsv`` of the project the TEI
    is in (``tei/../CORPUS/``), if there; and the chapters' TEIs beside it (``siblings``: (id,
    index meta) pairs, whose ``number`` and ``titles`` say which chapter each is)."""
    table = Path(tei).resolve().parent.parent / corpus / CHAPTER_TABLE
    ch = Chapters.load(table, number) if table.is_file() else Chapters(number)
    for cid, meta in siblings:
        try:
            n = int(meta.get("number", ""))
        except ValueError:
            continue
        ch.ids.setdefault(n, cid)
        for t in json.loads(meta.get("titles") or "[]") or [meta.get("title", "")]:
            if t:
                ch.names.setdefault(t, n)
                ch.titles.setdefault(n, t)
    return ch


def follow(chapter_id: str) -> str:
    """The command that opens a chapter a link names."""
    return f"yili --chapter {chapter_id} show 1"


def _chapter_link(chapters: Chapters | None, title: str) -> dict[str, Any]:
    """The link fields of a chapter of 《仪礼》 cited as ``title``: its id and the command that
    follows it; nothing if the chapter list does not know it."""
    cid = chapters.chapter_id(title) if chapters else None
    return {"chapter": cid, "follow": follow(cid)} if cid else {}


def cited_titles(doc: Document, text: str, chapters: Chapters | None = None) -> list[str]:
    """The titles of the works table that a text cites: in 《》 where it has them; else (an
    unpunctuated text) each title where a citing word stands before or after it (longest
    titles first, each place once). With ``chapters``, the titles of the other chapters of
    《仪礼》 count too: a title with 礼 in it (:data:`RITE_TITLE`) wherever it stands."""
    if "《" in text:
        return [m.group(1) for m in TITLE_RE.finditer(text)]
    found: list[tuple[int, str]] = []
    taken = [False] * len(text)
    kinds = {w[0]: w[2] for w in doc.works}
    anywhere: set[str] = set()
    if chapters is not None:
        for t, n in chapters.names.items():
            if n == chapters.this or t in kinds:
                continue
            kinds[t] = "chapter"
            if RITE_TITLE in t and t == chapters.titles.get(n):
                anywhere.add(t)
    for t in sorted(kinds, key=len, reverse=True):
        for m in re.finditer(re.escape(t), text):
            a, b = m.start(), m.end()
            if any(taken[a:b]):
                continue
            # a chapter of 《仪礼》 is also named by its rite: 鄉飲酒之禮
            rite = kinds[t] == "chapter" and text.startswith(CHAPTER_RITE, b)
            # a title of one character (诗, 书) is a word too (射御與書數): only 书云, 诗曰 cite it
            before = len(t) > 1 and a > 0 and text[a - 1] in CITE_BEFORE
            if t in anywhere or rite or before or (b < len(text) and text[b] in CITE_AFTER):
                found.append((a, t))
                taken[a:b] = [True] * (b - a)
    return [t for _a, t in sorted(found)]


class XrefIndex:
    """What xref needs of the whole document, computed once."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        t = ClauseTable(doc)
        # (clause id, section, layer, key)
        self.clauses: list[tuple[str, int, str, str]] = list(zip(t.ids, t.section_of, t.layer_of, t.keys, strict=True))
        self.text = dict(zip(t.ids, t.texts, strict=True))
        # where each 3–6-gram of the 经 occurs (sections)
        self.jing_sections: dict[str, set[int]] = defaultdict(set)
        for _cid, sec, layer, key in self.clauses:
            if layer != "jing":
                continue
            for n in range(MIN_SHARED, 7):
                for i in range(len(key) - n + 1):
                    self.jing_sections[key[i : i + n]].add(sec)
        self.by_key: dict[str, list[str]] = defaultdict(list)
        for cid, _sec, _layer, key in self.clauses:
            self.by_key[key].append(cid)

    def shared(self, key: str) -> dict[int, str]:
        """The 经 sections a 记 clause ``key`` speaks of, with the evidence (see module doc)."""
        import difflib

        out: dict[int, str] = {}
        cands: set[int] = set()
        for n in range(min(6, len(key)), MIN_SHARED - 1, -1):
            for i in range(len(key) - n + 1):
                g = key[i : i + n]
                secs = self.jing_sections.get(g, set())
                if 0 < len(secs) <= MAX_SECTIONS:
                    cands |= secs
                    if n >= MIN_LONG:
                        for s in secs:
                            if s not in out or len(out[s]) < len(g):
                                out[s] = g
        if len(key) >= MIN_LONG:
            for cid, sec, layer, k in self.clauses:
                if layer == "jing" and sec in cands and sec not in out and len(k) >= MIN_SHARED:
                    if difflib.SequenceMatcher(None, key, k, autojunk=False).ratio() >= MIN_RATIO:
                        out[sec] = f"≈{self.text[cid]}"
        return out


def xref(doc: Document, ref: Address, ix: XrefIndex | None = None, chapters: Chapters | None = None,
         parallels: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The cross-references of the passage ``ref`` (see module doc); ``chapters`` resolves the
    chapters of 《仪礼》 cited to their ids, ``parallels`` are the passage's parallels in other
    chapters (:func:`yili_corpus.query.parallels.find_parallels`)."""
    ix = ix or XrefIndex(doc)
    ps = Passage(doc, ref)
    sec = ps.section
    chars = doc.char_map
    clause_ids = [c.id for p in ps.paragraphs for c in p.clauses if not ps.clause or c.id == ps.clause]
    keyed = {cid: key for cid, _s, _l, key in ix.clauses}
    targets: set[int] = set()
    ji: list[dict[str, Any]] = []
    if sec.layer == "ji":
        for cid in clause_ids:
            for s, g in sorted(ix.shared(keyed[cid]).items()):
                if s != sec.n:
                    ji.append({"clause": cid, "text": ix.text[cid], "shares": g, "section": s,
                               "title": doc.section(s).title if doc.section(s) else ""})
                    targets.add(s)
    else:
        mine = {sec.n}
        for cid, s, layer, key in ix.clauses:
            if layer != "ji":
                continue
            for t, g in ix.shared(key).items():
                if t in mine and (ps.clause is None or g in keyed[ps.clause]):
                    ji.append({"clause": cid, "text": ix.text[cid], "shares": g, "section": s})
        # 记 notes that point here
        for s in doc.sections:
            if s.layer != "ji":
                continue
            for p in s.paragraphs:
                for u in p.units:
                    for x in u.content:
                        if isinstance(x, Ref) and x.type == "section" and x.target == f"#{sec.id}":
                            ji.append({"note": u.id, "text": readable(u.content, chars), "ref": x.text, "section": s.n})
    shu = []
    for u in ps.units("shu"):
        first, last, quote = ps.quote(u)
        head = _shu_head(ps, u)
        shu.append({"ref": u.id, "lemma": head, "attach": {"ref": first, "to": last, "quote": quote},
                    "resolved": u.attrs.get("how", "")})
    notes = []
    for u in ps.units("note"):
        links = []
        for x in u.content:
            if not isinstance(x, Ref):
                continue
            d = {"type": x.type, "text": x.text}
            if x.target:
                d["target"] = x.target.lstrip("#")
            if x.cref:
                d["cref"] = x.cref
            if x.type == "section" and x.target:
                n = int(x.target.rsplit(".", 1)[-1])
                d["section"] = n
                targets.add(n)
            if x.type in ("other-chapter", "other-work"):
                title = x.cref.split(".")[0] if x.type == "other-chapter" else x.cref
                norm = doc.work_title(title)
                if norm:
                    d["work"] = norm[0]
            if x.type == "other-chapter":
                d.update(_chapter_link(chapters, x.cref.split(".")[0]))
                d.update(_other_numbering(x.text))
            links.append(d)
        first, last, quote = ps.quote(u)
        notes.append({"ref": u.id, "n": u.n, "text": readable(u.content, chars),
                      "attach": {"ref": first, "to": last, "quote": quote}, "links": links})
    works: dict[tuple[str, str], dict[str, Any]] = {}
    for lay in ("zhu", "shu"):
        for u in ps.units(lay):
            text = ps.unit_text(u)
            for title in cited_titles(doc, text, chapters):
                norm = doc.work_title(title)
                if norm is None and chapters is not None and chapters.chapter(title) is not None:
                    n = chapters.chapter(title)
                    norm = (f"{doc.work}·{chapters.titles.get(n, title)}", "chapter")
                if norm is None:
                    continue
                k = (norm[0], lay)
                w = works.setdefault(k, {"work": norm[0], "kind": norm[1], "as_cited": [], "in": []})
                if norm[1] == "chapter" and "chapter" not in w:
                    w.update(_chapter_link(chapters, title))
                if title not in w["as_cited"]:
                    w["as_cited"].append(title)
                if u.id not in w["in"]:
                    w["in"].append(u.id)
    yinyi = _yinyi(doc, ps)
    kaozheng = []
    for u in ps.units("kaozheng"):
        first, last, quote = ps.quote(u)
        lemma = in_script(next((readable(c, chars) for r, c, _s in u.parts if r == "lemma"), ""), u.lang, ps.script)
        eds = [{"edition": x.text, "id": x.target.lstrip("#")} for _r, c, _s in u.parts for x in c
               if isinstance(x, Ref) and x.type == "edition"]
        kaozheng.append({"ref": u.id, "lemma": lemma, "quotes": u.attrs.get("quotes", ""),
                         "attach": {"ref": first, "to": last, "quote": quote}, "editions": eds})
    repeats = []
    for cid in clause_ids:
        key = keyed[cid]
        others = [c for c in ix.by_key.get(key, []) if c != cid]
        if len(key) >= MIN_SHARED and others:
            repeats.append({"clause": cid, "text": ix.text[cid], "also": others,
                            "chain": READ_WING.repeats(key)})
    for j in ji:
        if "section" in j and sec.layer == "ji":
            targets.add(j["section"])
    targets.discard(sec.n)
    return {
        "ref": str(ref), "section": sec.n, "title": sec.title,
        "ji": ji, "shu": shu, "notes": notes, "works": list(works.values()), "yinyi": yinyi,
        "kaozheng": kaozheng, "repeats": repeats, "parallels": parallels or [],
        "targets": sorted(targets),
    }


def _other_numbering(text: str) -> dict[str, Any]:
    """What a note's reference into another chapter names there that this corpus cannot resolve:
    a section (见彼第24节) or a note (注（21）) of the modern book's numbering."""
    m = OTHER_SECTION_RE.search(text)
    if m:
        n = int(m.group(1))
        return {"other_section": n,
                "numbering": f"彼第{n}节: section {n} in the modern book's numbering of that chapter, "
                             "not this corpus's; linked to the chapter only, not resolved"}
    m = OTHER_NOTE_RE.search(text)
    if m:
        n = int(m.group(1))
        return {"other_note": n,
                "numbering": f"注（{n}）: note {n} of the modern book on that chapter, not in this corpus; "
                             "linked to the chapter only"}
    return {}


#: How many characters of a 四库 疏 block stand for it in xref (it names no lemma).
SHU_HEAD = 16


def _shu_head(ps: Passage, u: Any) -> str:
    """What a 疏 block is called in xref: its lemma (w003's ``[疏]“X”至“Y”``, also where it is
    collated into the 四库 copy's block), else the first words of the block."""
    lemma = next((p for p in u.parts if p[0] == "lemma"), None)
    if lemma is not None:
        return readable(lemma[1], ps.chars)
    text = ps.unit_text(u)
    return text[:SHU_HEAD] + ("…" if len(text) > SHU_HEAD else "")


def _yinyi(doc: Document, ps: Passage) -> list[dict[str, Any]]:
    """The 音义 entries on the passage, each with the other entries of the chapter on the same
    head character (陆德明 glosses a character where it first matters and often again: 長丁大反
    here, 長丁丈反 there)."""
    by_head: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    for s in doc.sections:
        for p in s.paragraphs:
            for u in p.units:
                if u.layer == "yinyi" and u.parts:
                    head = readable(u.parts[0][1], ps.chars)
                    by_head[head].append((u.id, s.n, ps.unit_text(u)))
    out = []
    for u in ps.units("yinyi"):
        first, last, quote = ps.quote(u)
        head = readable(u.parts[0][1], ps.chars) if u.parts else ""
        out.append({"ref": u.id, "head": in_script(head, u.lang, ps.script), "text": ps.unit_text(u), "kind": u.attrs.get("kind", ""),
                    "attach": {"ref": first, "to": last, "quote": quote},
                    "same_head": [{"ref": r, "section": n, "text": t} for r, n, t in by_head.get(head, [])
                                  if r != u.id]})
    return out
