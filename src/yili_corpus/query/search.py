"""Search: every place a term occurs, in any layer, on the normalised key.

Simplified, traditional and variant forms and punctuation do not matter: the query and every
unit are compared through the same key (OpenCC t2s, then the variant table the TEI header carries).
``regex`` runs a regular expression on the keys: the pattern is checked against size bounds
before it is compiled (:func:`check_regex`) and the search has a time limit; ``word`` keeps only matches
that are whole words for jieba, with a user dictionary of ritual terms made from the corpus.
"""

from __future__ import annotations

import re
import time
from typing import Any

from ..errors import UsageError, shown
from ..layers import is_text
from ..layers import layer as layer_of
from .index import Index, Record

#: Seconds a regular expression may take over the whole corpus, compiling included.
REGEX_BUDGET = 1.0

# Bounds checked before a pattern is compiled. Compiling is not interruptible (it runs in C), so
# what it may cost is bounded by what it is given: the regex module writes a counted repeat out
# in full, and repeats inside repeats multiply ('a{1000000000}', 14 bytes, grew to 9 GB).

#: Characters a pattern may have: a long paragraph's worth; a longer pattern is a paste error,
#: and the length bounds the scan below and the compile.
MAX_REGEX_CHARS = 1000
#: The largest count a repeat ({n}, {n,}, {n,m}, {,m}) may ask for: half the longest unit of the
#: chapter (a translation paragraph of 2,005 characters), where a search needs counts of a few.
MAX_REGEX_REPEAT = 1000
#: How deep groups (and, under (?V1), nested character sets) may nest. The regex module parses
#: recursively in Python and ran out of stack near 200 levels (an internal error); 32 is far
#: from that and far beyond what a search needs.
MAX_REGEX_DEPTH = 32
#: Items of the pattern with every counted repeat written out (repeats inside repeats multiply).
#: At this size the worst pattern measured ('(?fi)(ß{100}){200}', full case folding) compiles in
#: 0.05 s, the process at 45 MB; at 1,000,000 ('(a{1000}){1000}') it took 0.5 s and 280 MB.
MAX_REGEX_SIZE = 20_000

_QUANTIFIER = re.compile(r"\{(?:(\d*),(\d*)|(\d+))\}")
# an inline flag group, (?flags) or (?flags:...; group 1 holds the flags it turns on (the regex
# module's flag letters; (?R) and (?1) are calls, not flags)
_FLAG_GROUP = re.compile(r"\(\?((?:[Labefimprsuwx]|V[01])*)(?:-(?:[Labefimprsuwx]|V[01])+)?[:)]")
# a POSIX class inside a set, exactly as the regex module reads one ([:alpha:], [:^Script=Han:])
_POSIX = re.compile(r"\[:\^?[A-Za-z0-9 &_.-]*(?:[:=][A-Za-z0-9 &_./-]*[A-Za-z0-9&_./-][A-Za-z0-9 &_./-]*)?:\]")
_SET_OPS = ("||", "~~", "&&", "--")
# the opening of a group up to its content
_GROUP_OPEN = re.compile(r"\((?:\?(?:P?<[A-Za-z_][A-Za-z0-9_]*>|<[=!]|[:=!>|]))?")


def _escape_end(p: str, i: int) -> int:
    """The end of the escape starting at ``p[i] == '\\'``: the backslash and one character. The
    name of ``\\p{…}``, ``\\N{…}`` or ``\\g<…>`` is read on as ordinary characters (more items,
    never fewer): when it is not a valid name, the regex module reads it so too, as pattern."""
    return i + 2


def _set_end(p: str, i: int, v1: bool) -> tuple[int, int]:
    """The end of the character set starting at ``p[i] == '['`` and how deep its sets nest
    (nested sets exist only under VERSION1)."""
    j, depth, deepest, first = i + 1, 1, 1, True
    if p[j : j + 1] == "^":
        j += 1
    while j < len(p):
        c = p[j]
        if c == "\\":
            j, first = _escape_end(p, j), False
        elif c == "[" and (m := _POSIX.match(p, j)):
            j, first = m.end(), False
        elif c == "[" and v1:
            depth += 1
            deepest = max(deepest, depth)
            j += 1
            if p[j : j + 1] == "^":
                j += 1
            first = True
        elif c == "]" and not first:
            depth -= 1
            j += 1
            if depth == 0:
                return j, deepest
        elif v1 and p.startswith(_SET_OPS, j):
            j, first = j + 2, True
        else:
            j, first = j + 1, False
    return len(p), deepest


def _refuse(pattern: str, why: str) -> UsageError:
    return UsageError(f"the regular expression {shown(pattern)} is refused: {why}")


def _regex_cost(p: str, v1: bool, shown_as: str) -> tuple[int, int]:
    """(size, depth) of a pattern as the regex module would read it in VERSION0 or VERSION1:
    its items with counted repeats written out, and how deep its groups nest. Raises a
    :class:`UsageError` for a repeat count over the bound or the verbose flag (whose comments
    this scan does not follow)."""
    stack = [[0, 0]]  # per open group: [size so far, size of its last item]
    deepest = 0
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        item = 1
        if c == "\\":
            i = _escape_end(p, i)
        elif c == "[":
            i, d = _set_end(p, i, v1)
            deepest = max(deepest, len(stack) - 1 + d - 1)  # a set nested in a set is a level
        elif c == "(" and p.startswith("(?#", i):  # a comment: up to the first ) not escaped
            j = i + 3
            while j < n and p[j] != ")":
                j += 2 if p[j] == "\\" else 1
            i = j + 1
            continue
        elif c == "(":
            m = _FLAG_GROUP.match(p, i)
            if m and "x" in m.group(1):
                raise _refuse(shown_as, "the x (verbose) flag is not supported in a search pattern")
            if m and m.group(0).endswith(")"):  # flags only: no item
                i = m.end()
                continue
            stack.append([0, 0])
            deepest = max(deepest, len(stack) - 1)
            i = _GROUP_OPEN.match(p, i).end()  # (, (?:, (?P<name>, (?<=, … : the opening is no item
            continue
        elif c == ")":
            if len(stack) > 1:
                item = stack.pop()[0]
            i += 1
        elif c in "*+?":  # unbounded or optional: not written out
            i += 1
            continue
        elif c == "|":
            stack[-1][1] = 0
            i += 1
            continue
        elif c == "{" and (m := _QUANTIFIER.match(p, i)):
            counts = [x for x in m.groups() if x]
            for x in counts:
                if len(x.lstrip("0")) > len(str(MAX_REGEX_REPEAT)) or int(x) > MAX_REGEX_REPEAT:
                    q = m.group(0) if len(m.group(0)) <= 20 else m.group(0)[:16] + "…}"
                    raise _refuse(shown_as, f"the repeat {q} is more than the {MAX_REGEX_REPEAT} repeats allowed")
            times = max([int(x) for x in counts] or [1])
            top = stack[-1]
            top[0] += top[1] * (times - 1)
            top[1] *= times
            i = m.end()
            continue
        else:
            i += 1
        top = stack[-1]
        top[0] += item
        top[1] = item
    return sum(f[0] for f in stack), deepest


def check_regex(pattern: str, shown_as: str | None = None) -> None:
    """Refuse a pattern whose compiling could run away, saying which bound it passes: its length,
    a repeat count, how deep its groups nest, or its size with repeats written out. Messages
    quote ``shown_as`` (the user's query, before normalising) if given."""
    shown_as = pattern if shown_as is None else shown_as
    if len(pattern) > MAX_REGEX_CHARS:
        raise _refuse(shown_as, f"it has {len(pattern)} characters (at most {MAX_REGEX_CHARS})")
    # (?V1) switches the whole pattern to VERSION1 (nested sets): count both readings then
    for v1 in (False, True) if "V1" in pattern else (False,):
        size, depth = _regex_cost(pattern, v1, shown_as)
        if depth > MAX_REGEX_DEPTH:
            raise _refuse(shown_as, f"its groups nest {depth} deep (at most {MAX_REGEX_DEPTH})")
        if size > MAX_REGEX_SIZE:
            raise _refuse(shown_as, f"its repeats, written out, make about {size} items (at most {MAX_REGEX_SIZE}; "
                                    "repeats inside repeats multiply)")


class QueryNormaliser:
    """The key of a query, as the build's normaliser would make it, from the fold table stored in
    the index (no OpenCC needed at search time)."""

    def __init__(self, folds: dict[str, str]) -> None:
        self.folds = folds
        self._keys: dict[str, str] = {}

    def char(self, c: str) -> str:
        return self.folds.get(c, c)

    def key(self, text: str) -> str:
        """The key of ``text`` (remembered: a search of the work folds its query once, not once
        per chapter and layer)."""
        got = self._keys.get(text)
        if got is None:
            from ..model import GETA, is_text_char

            got = "".join(self.folds.get(c, c) for c in text if c == GETA or is_text_char(c))
            if len(self._keys) >= 1024:
                self._keys.clear()
            self._keys[text] = got
        return got


#: The query normalisers by fold table (as stored in an index's meta): the chapters of the work
#: share one table, so one normaliser, and a query is folded once for all of them.
_NORMALISERS: dict[str, QueryNormaliser] = {}


def make_normaliser(index: Index) -> QueryNormaliser:
    """The query normaliser of the index's TEI (the one of every index with the same fold table)."""
    norm = index.normaliser
    if norm is None:
        table = index.meta.get("folds", "{}")
        norm = _NORMALISERS.get(table)
        if norm is None:
            if len(_NORMALISERS) >= 32:
                _NORMALISERS.clear()
            norm = _NORMALISERS[table] = QueryNormaliser(index.folds)
        index.normaliser = norm
    return norm


def citation(index: Index, rec: Record, ref: str) -> str:
    """The Chinese scholarly citation of a unit."""
    work, title = index.meta.get("work", "仪礼"), index.meta.get("title", "")
    base = f"《{work}·{title}》第{rec.section}节"
    if is_text(rec.layer):
        return base + layer_of(rec.layer).cite
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
    """Search the index; returns the search JSON of docs/design.md ("The command-line contract"),
    with counts by layer.

    ``total`` and ``counts`` always count every occurrence; with ``limit`` only the first
    ``limit`` hits (in text order) are returned, which keeps a first page fast on a large corpus.
    Occurrences do not overlap.

    A query (not a regular expression) is also looked for in the 经/记 as each witness reads it
    where it differs from the reading text: a match that takes in a witness's own reading is a hit
    with ``"witness"`` (旃 finds 龙旜, which w001 reads 龙旃).
    """
    res = _search(index, query, layers, sections, regex, word, context, limit)
    if not regex:
        _add_witness_hits(res, index, query, layers, sections, word, context, limit)
    return res


def _add_witness_hits(res: dict[str, Any], index: Index, query: str, layers: list[str] | None,
                      sections: list[int] | None, word: bool, context: int, limit: int | None) -> None:
    """Add to ``res`` the hits in the 经/记 as a witness reads it (a match that takes in the
    witness's own reading), one for a place that several witnesses read alike."""
    key = make_normaliser(index).key(query)
    if not key:
        return
    # no witness reading holds the key at all (most chapters, for most queries): the readings
    # are not read (a search of the whole work asks every chapter's index)
    if index.con.execute("SELECT 1 FROM readings WHERE instr(key, ?) > 0 LIMIT 1", (key,)).fetchone() is None:
        return
    spans: list[tuple[Record, int, int]] = []
    whose: dict[tuple[int, int], tuple[str, list[str]]] = {}
    for rd in index.readings(layers, sections, contains=key):
        rec = rd.rec
        i = rec.key.find(key)
        while i >= 0:
            lemmas = rd.differs(rec.keymap[i], rec.keymap[i + len(key) - 1] + 1)
            if lemmas:
                spans.append((rec, i, i + len(key)))
                whose[(id(rec), i)] = (rd.witness, lemmas)
            i = rec.key.find(key, i + len(key))
    if word:
        spans = _on_word_bounds(index, spans)
    extra: list[dict[str, Any]] = []
    at: dict[tuple[str, str, str], dict[str, Any]] = {}
    for h, (rec, i, _e) in zip(_hits(index, spans, context, query)["hits"], spans, strict=True):
        wit, lemmas = whose[(id(rec), i)]
        same = at.get((h["ref"], h["before"], h["match"]))
        if same is not None:
            same["witnesses"].append(wit)
            continue
        h.update(witness=wit, witnesses=[wit], lemma="".join(lemmas))
        at[(h["ref"], h["before"], h["match"])] = h
        extra.append(h)
    if not extra:
        return
    for h in extra:
        res["counts"][h["layer"]] = res["counts"].get(h["layer"], 0) + 1
    res["total"] += len(extra)
    if limit is None or len(res["hits"]) < limit:
        hits = res["hits"] + extra
        hits.sort(key=lambda h: h["section"])  # stable: a witness's hit after the text's of its section
        res["hits"] = hits if limit is None else hits[:limit]


def _on_word_bounds(index: Index, spans: list[tuple[Record, int, int]]) -> list[tuple[Record, int, int]]:
    """The spans that begin and end where jieba puts a word boundary (``--word``); each key is
    cut once."""
    from .words import word_boundaries

    bounds: dict[str, set[int]] = {}
    kept = []
    for rec, a, b in spans:
        if rec.key not in bounds:
            bounds[rec.key] = word_boundaries(index, rec.key)
        if a in bounds[rec.key] and b in bounds[rec.key]:
            kept.append((rec, a, b))
    return kept


def _search(index: Index, query: str, layers: list[str] | None, sections: list[int] | None, regex: bool,
            word: bool, context: int, limit: int | None) -> dict[str, Any]:
    """:func:`search` in the reading text and the other layers (not in the witnesses' readings)."""
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

        deadline = time.monotonic() + REGEX_BUDGET
        pattern = _regex_key(query, norm)
        check_regex(pattern, query)
        try:
            rx = re2.compile(pattern)
        except re2.error as exc:
            raise UsageError(f"invalid regular expression {shown(query)}: {exc}") from None
        except (RecursionError, MemoryError, OverflowError) as exc:  # past the checks all the same
            raise _refuse(query, f"too complex to compile ({type(exc).__name__})") from None
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
                    f"the regular expression {shown(query)} ran over {REGEX_BUDGET:g} s and was stopped; simplify it"
                ) from None
    else:
        key = norm.key(query)
        if not key:
            raise UsageError(f"the query {shown(query)} has no Chinese characters to search for")
        if not index.may_hold(key):
            # a character or pair of the key is in no unit: no hits, whole counts of nothing (most
            # chapters of the work, for most queries longer than a character)
            return {"query": query, "total": 0, "counts": {}, "hits": []}
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
        spans = _on_word_bounds(index, spans)
    res = _hits(index, spans, context, query)
    if limit is not None:
        res["hits"] = res["hits"][:limit]
    return res


def _hits(index: Index, spans: list[tuple[Record, int, int]], context: int, query: str) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    cites: dict[tuple[str, int, str], str] = {}
    for rec, a, b in spans:
        start, end = rec.keymap[a], rec.keymap[b - 1] + 1
        ref = (rec.clause_at(start) if is_text(rec.layer) else rec.ref) or rec.ref
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
