"""From a quotation to its passage, and formatted citations (``yili cite``).

The quotation is compared through the normalised key (script, variant forms and punctuation do
not matter). An exact occurrence scores 1. Otherwise candidates are found by voting of the
quotation's character bigrams on the offset where they occur, and each candidate window is scored
by edit distance: score = 1 − edits / length, so a few wrong or missing characters still find the
passage. Below :data:`MIN_SCORE` nothing is found.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from ..document import LEAF, SCRIPTS, page_label
from ..errors import UsageError
from ..layers import KEYS, base_key, is_text
from ..layers import layer as layer_of
from ..text.distance import edit_distance
from .index import Index, Record
from .search import citation, make_normaliser

MIN_SCORE = 0.6


def layer_rank(key: str) -> int:
    """Which of equally close matches comes first: the 经 and 记, then the layers in reading order."""
    return 0 if is_text(key) else KEYS.index(base_key(key))
STYLES = ("zh", "chicago", "bibtex", "csl-json")




@dataclass
class Found:
    """Where a quotation comes from; ``page``: (start, end) in the cited printed edition."""

    ref: str
    section: int
    layer: str
    score: float
    match: str
    unit: str
    citation: str
    page: tuple[str, str] | None = None
    #: the witness (or witnesses, ``w000, w006``) that read the quotation so, where the reading
    #: text reads otherwise (its ``match`` is the witness's words)
    witness: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["page"] = {"start": self.page[0], "end": self.page[1]} if self.page else None
        if self.witness is None:
            del d["witness"]
        return d


def to_script(text: str, script: str | None) -> str:
    """``text`` in simplified (``hans``) or traditional (``hant``) characters (OpenCC, character
    and phrase tables); unchanged for None."""
    if script is None:
        return text
    if script not in SCRIPTS:
        raise UsageError(f"unknown script {script!r}; scripts are {', '.join(SCRIPTS)}")
    from ..text.normalise import opencc_convert

    return opencc_convert(text, "t2s" if script == "hans" else "s2t")


def _best_window(key: str, q: str, centre: int) -> tuple[int, int, int]:
    """The window of ``key`` near ``centre`` closest to ``q``: (start, end, edits)."""
    n = len(q)
    slack = max(2, n // 4)
    best = (0, 0, n + 1)
    for s in range(max(0, centre - slack), min(len(key), centre + slack) + 1):
        for ln in range(max(1, n - slack), n + slack + 1):
            if s + ln > len(key):
                break
            d = edit_distance(q, key[s : s + ln])
            if d < best[2] or (d == best[2] and abs(ln - n) < abs(best[1] - best[0] - n)):
                best = (s, s + ln, d)
    return best


def find_quotation(index: Index, text: str, limit: int = 5) -> list[Found]:
    """The passages ``text`` most likely comes from, best first."""
    norm = make_normaliser(index)
    q = norm.key(text)
    if len(q) < 2:
        raise UsageError("the quotation needs at least two Chinese characters")
    cands: list[tuple[float, int, Record, int, int]] = []
    for rec in index.rows(contains=q):
        i = rec.key.find(q)
        while i >= 0:
            cands.append((1.0, layer_rank(rec.layer), rec, i, i + len(q)))
            i = rec.key.find(q, i + 1)
    # as a witness reads the 经/记 where it differs from the reading text (search does the same)
    wit_of: dict[int, str] = {}
    for rd in index.readings():
        i = rd.rec.key.find(q)
        while i >= 0:
            if rd.differs(rd.rec.keymap[i], rd.rec.keymap[i + len(q) - 1] + 1):
                wit_of[id(rd.rec)] = rd.witness
                cands.append((1.0, layer_rank(rd.rec.layer), rd.rec, i, i + len(q)))
            i = rd.rec.key.find(q, i + 1)
    if not cands:
        # candidates: the units that hold most of the quotation's character pairs (inverted index)
        grams = {q[i : i + 2]: i for i in range(len(q) - 1)}
        holders: Counter[int] = Counter()
        for g in grams:
            for (uid,) in index.con.execute("SELECT unit FROM grams WHERE gram = ?", (g,)):
                holders[uid] += 1
        need = max(1, (len(q) - 1) // 3)
        top = [uid for uid, n in holders.most_common(30) if n >= need]
        rows = index.rows_by_id(top)
        votes: Counter[tuple[int, int]] = Counter()
        for ri, rec in enumerate(rows):
            for g, qi in grams.items():
                j = rec.key.find(g)
                while j >= 0:
                    votes[(ri, j - qi)] += 1
                    j = rec.key.find(g, j + 1)
        for (ri, off), v in votes.most_common(40):
            if v < need:
                break
            rec = rows[ri]
            s, e, d = _best_window(rec.key, q, max(0, off))
            score = round(1 - d / len(q), 3)
            if score >= MIN_SCORE:
                cands.append((score, layer_rank(rec.layer), rec, s, e))
    cands.sort(key=lambda c: (-c[0], c[1], c[2].section))
    out: list[Found] = []
    seen: dict[tuple[str, str, str], Found] = {}  # (ref, unit, words) → its result
    places: set[tuple[str, str]] = set()  # one result a place
    for score, _r, rec, s, e in cands:
        start, end = rec.keymap[s], rec.keymap[e - 1] + 1
        ref = (rec.clause_at(start) if is_text(rec.layer) else rec.ref) or rec.ref
        words = rec.text[start:end]
        same = seen.get((ref, rec.unit, words))
        if same is not None:  # another witness that reads the place alike: named too
            wit = wit_of.get(id(rec))
            if wit and same.witness and wit not in same.witness.split(", "):
                same.witness += f", {wit}"
            continue
        if (ref, rec.unit) in places:
            continue
        places.add((ref, rec.unit))
        f = Found(ref, rec.section, rec.layer, score, words, rec.unit, citation(index, rec, ref),
                  rec.page_of(start, end), wit_of.get(id(rec)))
        seen[(ref, rec.unit, words)] = f
        out.append(f)
        if len(out) == limit:
            break
        if len(out) == limit:
            break
    return out


def edition_citation(index: Index, f: Found, script: str | None = None) -> str:
    """``《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉12b`` for ``f`` (``葉12b–13a`` across a
    page break), or empty without a cited edition or a page. The edition's own (traditional)
    characters, simplified with ``script="hans"``."""
    ed = index.edition
    return _edition_script(ed.citation(f.page), script) if ed is not None and f.page else ""


def _edition_script(text: str, script: str | None) -> str:
    """The edition's words as it writes them; only ``hans`` changes them (a traditional
    conversion of traditional text could only corrupt it: OpenCC writes 註疏 for 注疏)."""
    return to_script(text, script) if script == "hans" else text


def layer_authors(index: Index) -> dict[str, str]:
    """Who made each layer, as the TEI header's ``respStmt`` says (corpus/commentators.tsv:
    郑玄 for 注, 贾公彦 for 疏, 陆德明 for 音义, 四库馆臣 for 考證, 佚名 for the modern layers):
    layer key → name. Read once per index."""
    cached = getattr(index, "_layer_authors", None)
    if cached is not None:
        return cached
    from lxml import etree

    from ..layers import resolve
    from ..tei.core import TEI_NS

    NS = {"t": TEI_NS}  # noqa: N806

    out: dict[str, str] = {}
    header = index.meta.get("header") or ""
    if header:
        try:
            root = etree.fromstring(header.encode("utf-8"))
        except etree.XMLSyntaxError:
            root = None
        for rs in root.iterfind(".//t:titleStmt/t:respStmt", NS) if root is not None else ():
            key = resolve(rs.findtext("t:resp", "", NS).strip())
            name = rs.findtext("t:persName", "", NS).strip()
            if key and name and key not in out:
                out[key] = name
    index._layer_authors = out  # type: ignore[attr-defined]
    return out


def author_of(index: Index, layer: str) -> str:
    """The author of ``layer`` (郑玄 for ``zhu``), the overlay's name for an imported layer
    (``trans:mine`` → ``mine``), empty for the 经 and 记."""
    if ":" in layer:
        return layer.split(":", 1)[1]
    return layer_authors(index).get(layer, "")


def _bib(value: str) -> str:
    """A BibTeX field value that cannot break its braces."""
    return value.replace("{", "（").replace("}", "）").replace("\\", "＼")


def format_citation(index: Index, f: Found, style: str = "zh", script: str | None = None) -> str:
    """A citation of ``f`` in ``style`` (zh, chicago, bibtex, csl-json); with a page in the cited
    printed edition, the edition and the page are part of it. ``script`` (hans, hant) writes it in
    simplified or traditional characters (the edition's words are already traditional: only hans
    changes them)."""
    work, title = index.meta.get("work", "仪礼"), index.meta.get("title", "")
    number = index.meta.get("number", "")
    layer_en = layer_of(f.layer).english
    ed = index.edition if f.page else None
    pages = page_label(f.page) if f.page else ""

    def cs(text: str) -> str:  # the corpus's words
        return to_script(text, script)

    def es(text: str) -> str:  # the edition's words
        return _edition_script(text, script)

    if style == "zh":
        return cs(f"{f.citation}（{f.ref}）") + (f"；{edition_citation(index, f, script)}" if ed else "")
    author = author_of(index, f.layer)
    date = ed.date if ed is not None else ""
    if style == "chicago":
        out = cs((f"{author}. " if author else "")
                 + f"{work} 儀禮 [Yili], “{title}” [chapter {number}], sec. {f.section} ({f.ref}), {layer_en}. "
                 f"yili-corpus TEI edition, tei/yili-{index.meta.get('chapter', '')}.xml.")
        if ed is not None:
            out += es(f" In {ed.title}, {ed.juan}, {ed.chapter}, {ed.name or ed.series}"
                      + (f" ({ed.date_text}, {ed.date})" if ed.date else "") + f", {LEAF}{pages}"
                      + "".join(f", {x}" for x in (ed.publisher, ed.url) if x)
                      + (f" ({ed.licence})" if ed.licence else "") + ".")
        return out
    key = f.ref.replace(".", "-").replace("@", "-")
    if style == "bibtex":
        fields = [("author", cs(author)), ("title", cs(f"{work}·{title}, 第{f.section}节")),
                  ("note", cs(f"{f.ref}, {layer_en}: 「{f.match}」")), ("howpublished", "yili-corpus TEI edition"),
                  ("work", cs(work)), ("part", cs(title)), ("number", str(number)), ("section", str(f.section)),
                  ("layer", f.layer), ("type", cs(layer_of(f.layer).name))]
        if ed is not None:
            fields += [("booktitle", es(ed.title)), ("chapter", es(f"{ed.juan}《{ed.chapter}》")),
                       ("edition", es(ed.name)), ("series", es(ed.series)), ("year", date),
                       ("date", date), ("origdate", es(ed.date_text)), ("pages", pages.replace("–", "--")),
                       ("publisher", es(ed.publisher)), ("url", ed.url),
                       ("addendum", ", ".join(x for x in (ed.licence, ed.licence_url) if x))]
        body = ",\n".join(f"  {k} = {{{_bib(v)}}}" for k, v in fields if v)
        return f"@misc{{{key},\n{body}\n}}"
    if style == "csl-json":
        item: dict[str, Any] = {
            "id": key, "type": "classic", "title": cs(f"{work}·{title}"), "section": str(f.section),
            "locator": f.ref, "note": cs(f"{layer_en}: {f.match}"), "publisher": "yili-corpus TEI edition",
            "chapter-number": str(number), "genre": cs(layer_of(f.layer).name), "dimensions": f.layer,
        }
        if author:
            item["author"] = [{"literal": cs(author)}]
        if ed is not None:
            item.update({"container-title": es(ed.title), "volume": es(ed.juan), "part-title": es(ed.chapter),
                         "collection-title": es(ed.series), "edition": es(ed.name), "page": pages,
                         "publisher": es(ed.publisher), "URL": ed.url, "version": ed.commit,
                         "source": "yili-corpus TEI edition"})
            if ed.date:
                item["issued"] = {"date-parts": [[int(ed.date[:4])]]} if ed.date[:4].isdigit() else {"literal": ed.date}
            if ed.licence:
                item["custom"] = {"license": ed.licence, "license-url": ed.licence_url}
            item = {k: v for k, v in item.items() if v}
        return json.dumps([item], ensure_ascii=False)
    raise UsageError(f"unknown citation style {style!r}; styles are {', '.join(STYLES)}")


def found_at(index: Index, ref: str) -> Found | None:
    """The :class:`Found` of a place named by its id, with no quotation search: a clause
    (``xiangsheli.16.1.3``: its words), a paragraph (``xiangsheli.16.1``: its 经/记), a section
    (``xiangsheli.16``: its 经/记 from the first paragraph to the last) or a unit of a commentary,
    note or translation (``xiangsheli.w005.shu86``). None if the index has no such place."""
    parts = ref.split(".")
    if len(parts) < 2:
        return None
    if parts[1].isdigit():
        section = int(parts[1])
        recs = [r for r in index.rows(sections=[section]) if is_text(r.layer)]
        if len(parts) == 2:
            if not recs:
                return None
            first, last = recs[0], recs[-1]
            a = first.page_of(0, 1) if first.text else None
            b = last.page_of(len(last.text) - 1, len(last.text)) if last.text else None
            page = (a[0], b[1]) if a and b else None
            return Found(ref, section, first.layer, 1.0, first.text, first.unit, citation(index, first, ref), page)
        para = ".".join(parts[:3])
        rec = next((r for r in recs if r.ref == para), None)
        if rec is None:
            return None
        if len(parts) == 3:
            return Found(ref, section, rec.layer, 1.0, rec.text, rec.unit, citation(index, rec, ref),
                         rec.page_of(0, max(len(rec.text), 1)))
        offs = [off for off, _c in rec.clauses] + [len(rec.text)]
        at = next((i for i, (_o, c) in enumerate(rec.clauses) if c == ref), None)
        if at is None:
            return None
        start, end = offs[at], offs[at + 1]
        return Found(ref, section, rec.layer, 1.0, rec.text[start:end].strip("\u3000 "), rec.unit, citation(index, rec, ref),
                     rec.page_of(start, max(end, start + 1)))
    row = index.con.execute("SELECT section FROM units WHERE unit = ? LIMIT 1", (ref,)).fetchone()
    if row is None:
        return None
    for r in index.rows(sections=[row[0]]):
        if r.unit == ref and not is_text(r.layer):
            return Found(r.ref, r.section, r.layer, 1.0, r.text, r.unit, citation(index, r, r.ref), r.page_of(0, 1))
    return None
