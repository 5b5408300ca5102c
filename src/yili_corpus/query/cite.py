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
    """Where a quotation comes from."""

    ref: str
    section: int
    layer: str
    score: float
    match: str
    unit: str
    citation: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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
    seen = set()
    for score, _r, rec, s, e in cands:
        start, end = rec.keymap[s], rec.keymap[e - 1] + 1
        ref = (rec.clause_at(start) if is_text(rec.layer) else rec.ref) or rec.ref
        if (ref, rec.unit) in seen:
            continue
        seen.add((ref, rec.unit))
        out.append(Found(ref, rec.section, rec.layer, score, rec.text[start:end], rec.unit, citation(index, rec, ref)))
        if len(out) == limit:
            break
    return out


def format_citation(index: Index, f: Found, style: str = "zh") -> str:
    """A citation of ``f`` in ``style`` (zh, chicago, bibtex, csl-json)."""
    work, title = index.meta.get("work", "仪礼"), index.meta.get("title", "")
    number = index.meta.get("number", "")
    layer_en = layer_of(f.layer).english
    if style == "zh":
        return f"{f.citation}（{f.ref}）"
    if style == "chicago":
        return (f"{work} 儀禮 [Yili], “{title}” [chapter {number}], sec. {f.section} ({f.ref}), {layer_en}. "
                f"yili-corpus TEI edition, tei/yili-{index.meta.get('chapter', '')}.xml.")
    key = f.ref.replace(".", "-").replace("@", "-")
    if style == "bibtex":
        return (f"@misc{{{key},\n  title = {{{work}·{title}, 第{f.section}节}},\n  note = {{{f.ref}, {layer_en}: "
                f"「{f.match}」}},\n  howpublished = {{yili-corpus TEI edition}}\n}}")
    if style == "csl-json":
        return json.dumps([{
            "id": key, "type": "classic", "title": f"{work}·{title}", "section": str(f.section),
            "locator": f.ref, "note": f"{layer_en}: {f.match}", "publisher": "yili-corpus TEI edition",
        }], ensure_ascii=False)
    raise UsageError(f"unknown citation style {style!r}; styles are {', '.join(STYLES)}")
