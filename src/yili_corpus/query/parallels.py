"""Parallel passages between chapters (``yili xref``): the same text in two chapters of 《仪礼》.

Whole passages of the rite recur from chapter to chapter (比三耦 in 乡射礼 and 大射, the drinking
rounds of 乡饮酒礼 and 乡射礼). They are found by the text itself, on the search indexes' keys of
the 经 and 记 (normalised: simplified, variants folded, no punctuation), never by a list:

* **seeds** — every stretch of at least :data:`SEED` characters that the passage's key and the
  other chapter's key have in common, extended as far as both go (maximal common runs);
* **chains** — runs that follow each other in the same order in both texts, the text between two
  of them at most :data:`GAP` characters on either side (a word added, left out or changed);
* a chain is a **parallel** when its runs hold at least :data:`MIN_COMMON` characters in all
  (which a stock phrase such as 主人答拜 or 升自西阶 alone does not reach).

Each parallel comes with the refs of its two ends in the other chapter (clause ids,
``dashe.1.25.12`` … ``dashe.1.25.22``), its text there, and the differences: an alignment of the
two keys (:func:`key_diff`) whose non-equal steps say what one has where the other has something
else (or nothing).

Only the indexes are read (:meth:`~yili_corpus.query.index.Index.keys` for every 经/记 unit's key,
:meth:`~yili_corpus.query.index.Index.rows_by_id` for the few units a parallel touches): no TEI is
parsed. The chapters to compare with are the TEIs beside the current one (:func:`sibling_teis`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..layers import KEYS
from .index import Index, Record

#: The layers a parallel is looked for in: the text of the rite (经, and 记), not the commentary.
TEXT_LAYERS = [k for k in ("jing", "ji") if k in KEYS]
#: Characters a common run must have to count (a seed).
SEED = 3
#: Characters that may stand between two runs of a chain on either side (a difference).
GAP = 12
#: Characters in common that make a chain a parallel.
MIN_COMMON = 14
#: Characters the longest run of a parallel must have (not a chain of short stock words alone).
LONG_RUN = 6
#: The share of a parallel's longer side that its runs must cover (the rest: differences).
MIN_SHARE = 0.5


@dataclass
class _Span:
    """A text made of units' keys in order: the key, and where each unit starts in it."""

    key: str
    starts: list[int]
    units: list[Any]  # Records (the passage) or row ids (another chapter)

    def unit_at(self, offset: int) -> int:
        """The index (into ``units``) of the unit holding key offset ``offset``."""
        import bisect

        return max(0, bisect.bisect_right(self.starts, offset) - 1)


def _span(keys: Iterable[tuple[Any, str]]) -> _Span:
    parts: list[str] = []
    starts: list[int] = []
    units: list[Any] = []
    n = 0
    for unit, key in keys:
        starts.append(n)
        units.append(unit)
        parts.append(key)
        n += len(key)
    return _Span("".join(parts), starts, units)


def common_runs(a: str, b: str, seed: int = SEED) -> list[tuple[int, int, int]]:
    """The maximal common runs of at least ``seed`` characters of ``a`` and ``b``: (start in
    ``a``, start in ``b``, length), ordered by their start in ``b``."""
    grams: dict[str, list[int]] = {}
    for i in range(len(a) - seed + 1):
        grams.setdefault(a[i : i + seed], []).append(i)
    out = []
    for j in range(len(b) - seed + 1):
        for i in grams.get(b[j : j + seed], ()):
            if i > 0 and j > 0 and a[i - 1] == b[j - 1]:
                continue  # inside a longer run found from its start
            n = seed
            while i + n < len(a) and j + n < len(b) and a[i + n] == b[j + n]:
                n += 1
            out.append((i, j, n))
    return out


def chains(runs: list[tuple[int, int, int]], gap: int = GAP) -> list[list[tuple[int, int, int]]]:
    """The runs joined into chains: a run continues the chain whose last run ends before it in
    both texts by at most ``gap`` characters (the nearest such chain), else starts one."""
    out: list[list[tuple[int, int, int]]] = []
    for run in sorted(runs, key=lambda r: (r[1], r[0])):
        i, j, _n = run
        best: tuple[int, list[tuple[int, int, int]]] | None = None
        for ch in out:
            li, lj, ln = ch[-1]
            da, db = i - (li + ln), j - (lj + ln)
            if 0 <= da <= gap and 0 <= db <= gap and (best is None or da + db < best[0]):
                best = (da + db, ch)
        if best is not None:
            best[1].append(run)
        else:
            out.append([run])
    return out


def chain_diff(a: str, b: str, chain: list[tuple[int, int, int]]) -> list[dict[str, str]]:
    """The alignment of a chain's stretch of two keys, as steps ``{"op": "equal"|"replace"|
    "delete"|"insert", "here": …, "there": …}`` (``here`` from ``a``, ``there`` from ``b``; one
    of them empty for a deletion or an insertion): the chain's runs are the equal steps, the text
    between two runs the difference (the short stretch between runs, if it is unequal on both
    sides, is aligned by difflib so that a character in common inside it is not lost)."""
    out: list[dict[str, str]] = []
    for k, (i, j, n) in enumerate(chain):
        if k:
            pi, pj, pn = chain[k - 1]
            here, there = a[pi + pn : i], b[pj + pn : j]
            sm = difflib.SequenceMatcher(None, here, there, autojunk=False)
            out.extend({"op": op, "here": here[i1:i2], "there": there[j1:j2]}
                       for op, i1, i2, j1, j2 in sm.get_opcodes())
        out.append({"op": "equal", "here": a[i : i + n], "there": b[j : j + n]})
    merged: list[dict[str, str]] = []
    for s in out:  # equal steps next to each other (a run and a common character after it) as one
        if merged and s["op"] == "equal" and merged[-1]["op"] == "equal":
            merged[-1] = {"op": "equal", "here": merged[-1]["here"] + s["here"],
                          "there": merged[-1]["there"] + s["there"]}
        else:
            merged.append(s)
    return merged


def diff_line(steps: list[dict[str, str]]) -> str:
    """The alignment as one line: equal text as it is, a difference as ``[here|there]`` (∅ for
    nothing): 遂[以|]比三耦…"""
    return "".join(s["here"] if s["op"] == "equal" else f"[{s['here'] or '∅'}|{s['there'] or '∅'}]" for s in steps)


def _clause_at(rec: Record, key_offset: int) -> str:
    """The clause id of a 经/记 unit at a key offset (the unit's own id if it has no clauses)."""
    if not rec.keymap:
        return rec.unit
    off = rec.keymap[min(max(key_offset, 0), len(rec.keymap) - 1)]
    return rec.clause_at(off) or rec.unit


def _text_of(span: _Span, a: int, b: int, index_of: dict[Any, Record]) -> str:
    """The text (as the unit shows it, clause breaks included) of key offsets ``[a, b)``."""
    out = []
    k = span.unit_at(a)
    while k < len(span.units) and span.starts[k] < b:
        rec = index_of[span.units[k]]
        lo, hi = max(a, span.starts[k]) - span.starts[k], min(b, span.starts[k] + len(rec.key)) - span.starts[k]
        if hi > lo and rec.keymap:
            out.append(rec.text[rec.keymap[lo] : rec.keymap[hi - 1] + 1])
        k += 1
    return "\u3000".join(out)


def passage_records(index: Index, section: int, paragraph: int | None = None,
                    clause: int | None = None) -> list[Record]:
    """The 经/记 units of a passage from the index (a clause: its paragraph's unit cut to the
    clause)."""
    recs = index.rows(layers=TEXT_LAYERS, sections=[section])
    if paragraph is None:
        return recs
    pid = f"{index.meta.get('chapter', '')}.{section}.{paragraph}"
    recs = [r for r in recs if r.paragraph == pid]
    if clause is None or not recs:
        return recs
    cid = f"{pid}.{clause}"
    rec = recs[0]
    offs = [(off, c) for off, c in rec.clauses]
    at = next((k for k, (_o, c) in enumerate(offs) if c == cid), None)
    if at is None:
        return []
    t0 = offs[at][0]
    t1 = offs[at + 1][0] if at + 1 < len(offs) else len(rec.text)
    keep = [k for k, t in enumerate(rec.keymap) if t0 <= t < t1]
    if not keep:
        return []
    a, b = keep[0], keep[-1] + 1
    return [Record(rec.ref, rec.unit, rec.section, rec.paragraph, rec.layer, rec.text, rec.key[a:b],
                   list(rec.keymap[a:b]), rec.clauses, rec.label, rec.pages)]


def find_parallels(passage: list[Record], others: Iterable[tuple[str, Index]],
                   min_common: int = MIN_COMMON) -> list[dict[str, Any]]:
    """The parallels of a passage (its 经/记 units, :func:`passage_records`) in other chapters,
    each an ``(chapter id, Index)`` pair: per parallel the chapter, the refs of both ends on both
    sides, the two texts, the characters in common and the differences (see module doc)."""
    mine = _span((k, r.key) for k, r in enumerate(passage))
    if len(mine.key) < SEED:
        return []
    found: list[dict[str, Any]] = []
    for chapter, ix in others:
        rows = ix.keys(TEXT_LAYERS)
        theirs = _span((rid, key) for rid, _layer, key in rows)
        runs = common_runs(mine.key, theirs.key)
        good = []
        for ch in chains(runs):
            common = sum(n for _i, _j, n in ch)
            extent = max(max(i + n for i, _j, n in ch) - ch[0][0], ch[-1][1] + ch[-1][2] - ch[0][1])
            if common >= min_common and max(n for _i, _j, n in ch) >= LONG_RUN and common >= MIN_SHARE * extent:
                good.append((ch, common))
        if not good:
            continue
        need = sorted({theirs.units[k] for ch, _c in good for _i, j, n in ch
                       for k in range(theirs.unit_at(j), theirs.unit_at(j + n - 1) + 1)})
        recs = {r_id: rec for r_id, rec in zip(need, ix.rows_by_id(need), strict=True)}
        # the units between two runs of a chain too (a chain may pass over a short unit)
        for ch, _c in good:
            lo, hi = theirs.unit_at(ch[0][1]), theirs.unit_at(ch[-1][1] + ch[-1][2] - 1)
            missing = [theirs.units[k] for k in range(lo, hi + 1) if theirs.units[k] not in recs]
            recs.update(zip(missing, ix.rows_by_id(missing), strict=True))
        mine_of = dict(enumerate(passage))
        for ch, _runs in good:
            a0, b0 = ch[0][0], ch[0][1]
            a1, b1 = max(i + n for i, _j, n in ch), ch[-1][1] + ch[-1][2]
            here, there = mine.key[a0:a1], theirs.key[b0:b1]
            ra, rz = passage[mine.unit_at(a0)], passage[mine.unit_at(a1 - 1)]
            ta, tz = recs[theirs.units[theirs.unit_at(b0)]], recs[theirs.units[theirs.unit_at(b1 - 1)]]
            steps = chain_diff(mine.key, theirs.key, ch)
            common = sum(len(s["here"]) for s in steps if s["op"] == "equal")
            found.append({
                "chapter": chapter,
                "ref": _clause_at(ta, b0 - theirs.starts[theirs.unit_at(b0)]),
                "to": _clause_at(tz, b1 - 1 - theirs.starts[theirs.unit_at(b1 - 1)]),
                "section": ta.section,
                "here": {"ref": _clause_at(ra, a0 - mine.starts[mine.unit_at(a0)]),
                         "to": _clause_at(rz, a1 - 1 - mine.starts[mine.unit_at(a1 - 1)]),
                         "text": _text_of(mine, a0, a1, mine_of)},
                "text": _text_of(theirs, b0, b1, recs),
                "common": common, "length": [len(here), len(there)],  # characters: equal, each side
                "differences": [s for s in steps if s["op"] != "equal"],
                "aligned": diff_line(steps),
            })
    found.sort(key=lambda p: (-p["common"], p["chapter"], p["ref"]))
    return found


def sibling_teis(tei: Path) -> list[tuple[str, Path]]:
    """The other chapters' TEIs beside ``tei`` (``yili-ID.xml`` in the same folder), as
    (chapter id, path), in name order."""
    out = []
    for p in sorted(Path(tei).parent.glob("yili-*.xml")):
        if p.resolve() != Path(tei).resolve():
            out.append((p.stem.removeprefix("yili-"), p))
    return out


def open_indexes(chapters: list[tuple[str, Path]], overlays: Path | None = None) -> list[tuple[str, Index]]:
    """The search indexes of these chapters' TEIs, opened (built where missing: a line on stderr
    first says how many, since that takes ~1 s a chapter). ``overlays``: the overlay folder the
    work's search uses, so that the same index serves both (each chapter's index is kept under a
    digest of its TEI and its own overlays, :func:`~yili_corpus.query.index.index_digest`)."""
    import sys

    from ..errors import UsageError
    from .index import index_digest, index_path

    try:
        missing = sum(not index_path(index_digest(p, overlays)).is_file() for _c, p in chapters)
    except UsageError:  # no cache folder: the indexes are built in memory (Index.open says so)
        missing = len(chapters)
    if missing:
        print(f"yili: building the search index of {missing} other chapter(s) for their parallels …",
              file=sys.stderr, flush=True)
    return [(cid, Index.open(p, overlays)) for cid, p in chapters]
