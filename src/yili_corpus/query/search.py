"""Search: every place a term occurs, in any layer, on the normalised key.

Simplified, traditional and variant forms and punctuation do not matter: the query and every
unit are compared through the same key (OpenCC t2s, then the variant table the TEI header carries).
``regex`` runs a regular expression on the keys, with a time limit; ``word`` keeps only matches
that are whole words for jieba, with a user dictionary of ritual terms made from the corpus.
"""

from __future__ import annotations

import time
from typing import Any

from ..errors import UsageError
from .index import Index, Record

#: Seconds a regular expression may run over the whole corpus.
REGEX_BUDGET = 1.0


class QueryNormaliser:
    """The key of a query, as the build's normaliser would make it, from the fold table stored in
    the index (no OpenCC needed at search time)."""

    def __init__(self, folds: dict[str, str]) -> None:
        self.folds = folds

    def char(self, c: str) -> str:
        return self.folds.get(c, c)

    def key(self, text: str) -> str:
        from ..model import is_text_char

        return "".join(self.folds.get(c, c) for c in text if c == "\u3013" or is_text_char(c))


def make_normaliser(index: Index) -> QueryNormaliser:
    """The query normaliser of the index's TEI."""
    import json

    return QueryNormaliser(json.loads(index.meta.get("folds", "{}")))


def citation(index: Index, rec: Record, ref: str) -> str:
    """The Chinese scholarly citation of a unit."""
    work, title = index.meta.get("work", "仪礼"), index.meta.get("title", "")
    base = f"《{work}·{title}》第{rec.section}节"
    if rec.layer == "jing":
        return base
    if rec.layer == "ji":
        return base + "（记）"
    return base + "，" + rec.label


def _regex_key(pattern: str, norm: Any) -> str:
    """Normalise the CJK characters of a pattern, leave its syntax alone."""
    from ..model import is_text_char

    return "".join(norm.char(c) if is_text_char(c) else c for c in pattern)


def search(
    index: Index,
    query: str,
    layers: list[str] | None = None,
    sections: list[int] | None = None,
    regex: bool = False,
    word: bool = False,
    context: int = 10,
    limit: int | None = None,
) -> dict[str, Any]:
    """Search the index; returns the JSON of DESIGN.md §7 plus counts by layer.

    ``total`` and ``counts`` always count every occurrence; with ``limit`` only the first
    ``limit`` hits (in text order) are returned, which keeps a first page fast on a large corpus.
    Occurrences do not overlap.
    """
    if limit is not None and limit < 0:
        raise UsageError("--limit must be 0 or more")
    if not query or not query.strip():
        raise UsageError("empty query")
    if context < 0:
        raise UsageError("--context must be 0 or more")
    norm = make_normaliser(index)
    spans: list[tuple[Record, int, int]] = []
    if regex:
        import regex as re2

        try:
            rx = re2.compile(_regex_key(query, norm))
        except re2.error as exc:
            raise UsageError(f"invalid regular expression {query!r}: {exc}") from None
        deadline = time.monotonic() + REGEX_BUDGET
        for rec in index.rows(layers, sections):
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                for m in rx.finditer(rec.key, timeout=left):
                    if m.end() > m.start():
                        spans.append((rec, m.start(), m.end()))
            except TimeoutError:
                raise UsageError(
                    f"the regular expression {query!r} ran over {REGEX_BUDGET:g} s and was stopped; simplify it"
                ) from None
    else:
        key = norm.key(query)
        if not key:
            raise UsageError(f"the query {query!r} has no Chinese characters to search for")
        if not word:
            # count everything without building hits; build hits only for the page wanted
            counts: dict[str, int] = {}
            total = 0
            need: list[int] = []
            if len(key) <= 2:
                # a character or a pair is a term of the inverted index, which has its counts
                counts, need = index.gram_counts(key, layers, sections, limit)
                total = sum(counts.values())
            else:
                for rid, layer, k in index.keys(layers, sections, contains=key):
                    n = k.count(key)
                    if n:
                        counts[layer] = counts.get(layer, 0) + n
                        if limit is None or total < limit:
                            need.append(rid)
                        total += n
            for rec in index.rows_by_id(need):
                i = rec.key.find(key)
                while i >= 0:
                    spans.append((rec, i, i + len(key)))
                    i = rec.key.find(key, i + len(key))
            res = _hits(index, spans[:limit] if limit is not None else spans, context, query)
            res["total"], res["counts"] = total, counts
            return res
        for rec in index.rows(layers, sections, contains=key):
            i = rec.key.find(key)
            while i >= 0:
                spans.append((rec, i, i + len(key)))
                i = rec.key.find(key, i + len(key))
    if word and spans:
        from .words import word_boundaries

        bounds: dict[str, set[int]] = {}
        kept = []
        for rec, a, b in spans:
            if rec.unit not in bounds:
                bounds[rec.unit] = word_boundaries(index, rec.key)
            if a in bounds[rec.unit] and b in bounds[rec.unit]:
                kept.append((rec, a, b))
        spans = kept
    res = _hits(index, spans, context, query)
    if limit is not None:
        res["hits"] = res["hits"][:limit]
    return res


def _hits(index: Index, spans: list[tuple[Record, int, int]], context: int, query: str) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    cites: dict[tuple[str, int, str], str] = {}
    for rec, a, b in spans:
        start, end = rec.keymap[a], rec.keymap[b - 1] + 1
        ref = (rec.clause_at(start) if rec.layer in ("jing", "ji") else rec.ref) or rec.ref
        ck = (rec.layer, rec.section, rec.label)
        if ck not in cites:
            cites[ck] = citation(index, rec, ref)
        text = rec.text
        out.append({
            "ref": ref, "section": rec.section, "layer": rec.layer, "text": text, "start": start, "end": end,
            "before": text[max(0, start - context):start], "match": text[start:end],
            "after": text[end:end + context], "citation": cites[ck], "unit": rec.unit,
        })
    counts: dict[str, int] = {}
    for h in out:
        counts[h["layer"]] = counts.get(h["layer"], 0) + 1
    return {"query": query, "total": len(out), "counts": counts, "hits": out}
