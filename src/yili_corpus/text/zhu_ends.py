"""Step 3a: where each full-size 注 of a 注疏 witness ends, found by collating with the 经.

In the 四库 layout (:mod:`yili_corpus.sources.siku`) a 注 is written full size like the 经 and
often runs straight on into the next 经 words with no mark: ``注阼階東階尊於賓席之東兩壺…`` is
the 注 阼階東階, then the 经 resumes at 尊. The parser leaves such a ``zhu_run`` whole; this step
splits it, before the collation, by the 经 of the base witness:

1. every ``text`` unit of the witness (a run of 经 between two marks, which is 经 for certain) is
   located in the base key, in order (exact, near where the previous one ended; else by 4-gram
   voting; else the most similar window);
2. between two located 经 runs the base has a *gap* ``base[p:q]``: the 经 that the 注 runs in
   between must supply. It is split among those runs so that each run *ends with* its share
   (a 注 follows the 经 words it explains, so the 经 that resumes after a 注 is the rest of the
   gap). An exact split in the normalised key is taken first; else the split with the fewest
   differing characters (the witness or the base may have a slip there), at most one in six;
3. each run becomes a ``zhu`` unit (the 注, without its mark) and, if it has one, a ``text`` unit
   (the 经 that resumes), both exact slices of the file with line, column, offsets and page.

The units of the witness are numbered for the rest of the build: a paragraph (``meta["para"]``)
is the 经 between two 疏 blocks, its pieces (``meta["piece"]``) are its 经 runs, and each 注 names
the pieces it follows (``meta["after_pieces"]``: the 经 since the previous 注). How every 注 end
was found is in ``meta["zhu_end"]`` (``mark``: the next mark ends it; ``exact``; ``close`` with
the number of differing characters) and a run that could not be split is reported.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from ..model import GETA, ParsedSource, SourceUnit, is_text_char
from ..sources.siku import PB_RE
from .normalise import Normaliser, is_placeholder, without_layout

LEAD_RE = re.compile(r"(?:<pb:[^>]*>|[¶\n\s])+")
TRAIL_RE = re.compile(r"(?:<pb:[^>]*>|[¶\n\s])+$")
#: A split may differ from the base in at most one character of this many.
MAX_DIFF_RATE = 6
#: How far (in key characters) after the previous 经 run the next one is looked for: the 经 that
#: 注 runs carry between two 经 runs is rarely longer than 100 characters.
WINDOW = 400


@dataclass
class Split:
    """How one 注 run was divided: the 注's key length and the 经 tail's."""

    unit: SourceUnit
    zhu_len: int
    tail_len: int
    how: str  # mark | exact | close:N | unsplit


def _skips(u: SourceUnit) -> list[tuple[int, int, str]]:
    """Spans of a unit's text to leave out of the key: the 注 mark, and small print or a character
    described by its parts (``(目/木)``, ``[孑*…]``), which stands for one character the copy
    could not write (a placeholder, restored by the collation)."""
    sk: list[tuple[int, int, str]] = []
    if u.kind == "zhu_run":
        sk.append((0, 1, ""))
    for m in re.finditer(r"\([^()]*\)|\[[^\[\]]*\]", u.text):
        sk.append((m.start(), m.end(), GETA))
    for m in PB_RE.finditer(u.text):
        sk.append((m.start(), m.end(), ""))
    return sk


class _Keyed:
    def __init__(self, u: SourceUnit, norm: Normaliser) -> None:
        self.u = u
        self.key, self.idx = norm.key_map(u.text, _skips(u))


def _hamming(a: str, b: str) -> int:
    """Differing characters of two keys of one length; a placeholder (〓 of a character in parts,
    a private-use code point, the base's ``{曰鼎}`` read as 〓) differs from nothing."""
    return sum(1 for x, y in zip(a, b, strict=True) if x != y and not is_placeholder(x) and not is_placeholder(y))


def _split_gap(gap: str, runs: list[str]) -> tuple[list[int], int] | None:
    """Tail lengths for ``runs`` so that run i ends with its share of ``gap`` and the shares
    concatenate to the gap; exact if possible, else with the fewest differing characters (equal
    lengths only, at most one in :data:`MAX_DIFF_RATE`). Returns (tails, differences)."""
    best: dict[tuple[int, int], tuple[int, list[int]] | None] = {}

    def go(j: int, pos: int) -> tuple[int, list[int]] | None:
        if (j, pos) in best:
            return best[(j, pos)]
        rest = gap[pos:]
        out: tuple[int, list[int]] | None = None
        if j == len(runs):
            out = (0, []) if not rest else None
        else:
            z = runs[j]
            top = min(len(rest), len(z) - 1) if j + 1 < len(runs) or rest else 0
            if j + 1 == len(runs):
                cands = [len(rest)] if len(rest) <= len(z) - 1 else []
            else:
                cands = list(range(top, -1, -1))
            for n in cands:
                d = _hamming(z[len(z) - n:], rest[:n]) if n else 0
                if d * MAX_DIFF_RATE > max(n, 1) and d:
                    continue
                sub = go(j + 1, pos + n)
                if sub is not None and (out is None or d + sub[0] < out[0]):
                    out = (d + sub[0], [n, *sub[1]])
                    if out[0] == 0:
                        break
        best[(j, pos)] = out
        return out

    r = go(0, 0)
    return None if r is None else (r[1], r[0])


def _locate(base: str, key: str, p: int) -> tuple[int, int, int]:
    """Where a 经 run ``key`` stands in ``base``, looking from ``p``: (start, end, differences)."""
    n = len(key)
    at = base.find(key, max(0, p - 4), p + WINDOW + n)
    if at >= 0:
        return at, at + n, 0
    best = (n + 1, p)
    for s in range(max(0, p - 4), min(len(base) - n, p + WINDOW) + 1):
        d = _hamming(base[s:s + n], key)
        if d < best[0]:
            best = (d, s)
    ham = (best[1], best[1] + n, best[0])
    if best[0] == 1:
        return ham
    # a run with an insertion or omission: align it to the window after its longest match
    lo = max(0, p - 4)
    sm = SequenceMatcher(None, base[lo:p + WINDOW + n], key, autojunk=False)
    m = sm.find_longest_match(0, len(sm.a), 0, n)
    a = max(0, lo + m.a - m.b)
    sm = SequenceMatcher(None, base[a:a + n + 12], key, autojunk=False)
    blocks = [b for b in sm.get_matching_blocks() if b.size]
    if not blocks:
        return ham
    w0 = a
    if blocks[0].b == 0:
        a = w0 + blocks[0].a
    last = blocks[-1]
    end = w0 + last.a + last.size + (n - last.b - last.size)
    same = sum(b.size for b in blocks)
    aligned = (a, min(end, len(base)), max(n, end - a) - same)
    return min(ham, aligned, key=lambda x: x[2])


def split_runs(parsed: ParsedSource, base_key: str, norm: Normaliser,
               against: str = "the base") -> tuple[ParsedSource, list[dict[str, object]]]:
    """The witness with every ``zhu_run`` divided into its 注 and the 经 that resumes (see the
    module docstring); returns the new parsed source and the problems found (runs that could not
    be split, 经 runs found only approximately). ``against`` names the witness whose key
    ``base_key`` is, in the problems."""
    text = parsed.text
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    pages = [(m.start(), m.group(1)) for m in PB_RE.finditer(text)]
    page_offs = [a for a, _ in pages]
    problems: list[dict[str, object]] = []

    def page_at(off: int) -> str | None:
        k = bisect.bisect_right(page_offs, off) - 1
        return pages[k][1] if k >= 0 else None

    def sub_unit(u: SourceUnit, kind: str, a: int, b: int, **meta: object) -> SourceUnit:
        """The slice ``u.text[a:b]`` as a unit of its own, without layout marks at either end."""
        while a < b and (m := LEAD_RE.match(u.text, a)) and m.end() > a:
            a = m.end()
        while b > a and (m := TRAIL_RE.search(u.text[a:b])) and m.start() < b - a:
            b = a + m.start()
        off, end = u.offset + a, u.offset + b
        ln = bisect.bisect_right(line_starts, off)
        ln_end = bisect.bisect_right(line_starts, end - 1)
        m = {k: v for k, v in u.meta.items() if k not in ("text", "zhu_end", "bare_shu", "page_end", "line_end")}
        m.update(line_end=ln_end, page=page_at(off))
        if page_at(end - 1) != m["page"]:
            m["page_end"] = page_at(end - 1)
        m["text"] = without_layout(u.text[a:b]).strip()
        m.update(meta)
        new = replace(u, kind=kind, text=u.text[a:b], line=ln, col=off - line_starts[ln - 1],
                      end_col=end - line_starts[ln_end - 1], offset=off, end=end, meta=m)
        if kind == "text":  # the collation keys the 经 as this step does (a character in parts: 〓)
            m["skips"] = _skips(new)
        return new

    units = _bare_marks(parsed.units, base_key, norm, sub_unit, problems)
    keyed = {id(u): _Keyed(u, norm) for u in units if u.kind in ("text", "zhu_run")}
    # 1. locate the 经 runs
    where: dict[int, tuple[int, int]] = {}
    p = 0
    for u in units:
        if u.kind != "text":
            continue
        k = keyed[id(u)].key
        at, end, d = _locate(base_key, k, p)
        if d * 3 > len(k):
            problems.append({"source": u.source, "line": u.line,
                             "reason": f"经 run {u.meta['text'][:12]}… found in {against} with {d} differing character(s)"})
        where[id(u)] = (at, end)
        p = end
    # 2. split the 注 runs between two 经 runs
    tails: dict[int, int] = {}
    how: dict[int, str] = {}
    pending: list[SourceUnit] = []
    p = 0

    def settle(q: int) -> None:
        runs = [u for u in pending if u.kind == "zhu_run"]
        if not runs:
            return
        gap = base_key[p:q] if q >= p else ""
        res = _split_gap(gap, [keyed[id(u)].key for u in runs])
        if res is None:
            for u in runs:
                tails[id(u)] = 0
                how[id(u)] = "unsplit"
            problems.append({"source": runs[0].source, "line": runs[0].line,
                             "reason": f"注 run(s) not split: {against} has {gap[:16]}{'…' if len(gap) > 16 else ''} "
                                       f"({len(gap)} characters) between the 经 runs around them"})
            return
        ns, diff = res
        for u, n in zip(runs, ns, strict=True):
            tails[id(u)] = n
            how[id(u)] = "mark" if n == 0 else ("exact" if diff == 0 else f"close:{diff}")

    for u in units:
        if u.kind == "text":
            a, b = where[id(u)]
            settle(a)
            pending = []
            p = b
        elif u.kind == "zhu_run":
            pending.append(u)
    settle(len(base_key))
    # 3. the new units, numbered: a paragraph starts at a ○ (the edition's own paragraph mark,
    # ``para_start``) and, as a run of the collation only, after a 疏 block
    out: list[SourceUnit] = []
    state = {"para": 0, "piece": 0}
    since: list[int] = []
    fresh = True

    def new_para(real: bool) -> None:
        state["para"] += 1
        state["piece"] = 0
        since.clear()
        state["real"] = real

    def emit_text(u: SourceUnit, a: int, b: int, **meta: object) -> None:
        """The 经 slice ``[a, b)`` of ``u``, divided at each ○ (which opens a paragraph)."""
        nonlocal fresh
        cuts = [k for k in range(a, b) if u.text[k] == "○"]
        for x, y in zip([a, *cuts], [*cuts, b], strict=True):
            opens = x in cuts
            if not any(is_text_char(c) for c in u.text[x:y]):
                if opens:
                    new_para(True)
                    fresh = False
                continue
            if opens or fresh:
                new_para(opens)
                fresh = False
            state["piece"] += 1
            since.append(state["piece"])
            out.append(sub_unit(u, "text", x, y, para=state["para"], piece=state["piece"],
                                para_start=bool(opens and state["piece"] == 1), **meta))

    for u in units:
        if u.kind == "shu":
            if state["piece"]:
                fresh = True
            out.append(u)
            continue
        if u.kind not in ("text", "zhu_run"):
            out.append(u)
            continue
        if u.kind == "text":
            emit_text(u, 0, len(u.text))
            continue
        kd = keyed[id(u)]
        n = tails.get(id(u), 0)
        zk = len(kd.key) - n
        if zk <= 0:
            problems.append({"source": u.source, "line": u.line, "reason": "注 run with no 注 text"})
            continue
        z_end = kd.idx[zk - 1] + 1
        # the 注 ends after its last character (and a closing mark of small print, if any)
        while z_end < len(u.text) and u.text[z_end] == ")":
            z_end += 1
        zn = sum(1 for x in out if x.kind == "zhu") + 1
        if fresh:  # a 注 right after a 疏 block (no 经 between): it stays with the paragraph before
            fresh = False
        out.append(sub_unit(u, "zhu", 1, z_end, para=state["para"], n=zn, after_pieces=list(since),
                            zhu_end=how.get(id(u), "mark")))
        since.clear()
        if n:
            t0 = kd.idx[zk]
            ring = u.text.rfind("○", z_end, t0)
            emit_text(u, ring if ring >= 0 else t0, len(u.text.rstrip("¶\n ")), after_zhu=zn)
    ps = ParsedSource(parsed.id, parsed.path, parsed.text, out, parsed.noise)
    return ps, problems


def _bare_marks(units: list[SourceUnit], base_key: str, norm: Normaliser, sub_unit, problems) -> list[SourceUnit]:  # type: ignore[no-untyped-def]
    """A 经 run holding 疏 with no ``(`` after it, where the base has no 疏 (the copy wrote 疏 for
    the 注 mark: ``席於尊東疏尊東明與賓夾尊也``, 005 line 245), divided there into the 经 run and a
    注 run."""
    out: list[SourceUnit] = []
    shu = norm.char("疏")
    for u in units:
        if u.kind != "text" or not u.meta.get("bare_shu") or shu in base_key:
            out.append(u)
            continue
        cut = u.text.index("疏")
        head = sub_unit(u, "text", 0, len(u.text[:cut].rstrip("¶\n ")))
        run = sub_unit(u, "zhu_run", cut, len(u.text), mark="疏")
        problems.append({"source": u.source, "line": run.line,
                         "reason": "the copy writes 疏 where the 注 mark stands (no 疏 in the base 经): read as 注"})
        out.extend([head, run])
    return out


def end_counts(parsed: ParsedSource) -> dict[str, int]:
    """How the ends of a witness's 注 were found: ``mark``, ``exact``, ``close``, ``unsplit``."""
    c: dict[str, int] = defaultdict(int)
    for u in parsed.units:
        if u.kind == "zhu" and "zhu_end" in u.meta:
            c[str(u.meta["zhu_end"]).split(":")[0]] += 1
    return dict(c)


def split_witnesses(parsed: dict[str, ParsedSource], base_id: str,
                    norm: Normaliser) -> tuple[dict[str, ParsedSource], str, list[dict[str, object]]]:
    """Every witness with ``zhu_run`` units split (:func:`split_runs`), and the base key.

    With a punctuated base (w001, w006) the base key is the base's own and every 注疏 witness is
    split by it. With a 注疏 base (the 四库 經, ``base = "w005"``: the punctuated witness lacks
    丧服's 传 or 士冠礼's 记) the base's own runs are first split by the longest witness that has
    no runs of its own (its 經 is all ``text``), and the base key is then the split base's: the 經
    that resumes after a 注 is in it. Returns the parsed sources, the base key and the problems.
    """
    from .collate import build_base

    out = dict(parsed)
    problems: list[dict[str, object]] = []
    has_runs = {sid for sid, p in parsed.items() if any(u.kind == "zhu_run" for u in p.units)}
    if base_id in has_runs:
        refs = [sid for sid in parsed if sid not in has_runs]
        if refs:
            ref = max(refs, key=lambda sid: len(build_base(parsed[sid], norm).key))
            out[base_id], found = split_runs(parsed[base_id], build_base(parsed[ref], norm).key, norm,
                                             f"the 經 of {ref}")
            problems.extend(found)
        has_runs.discard(base_id)
    base_key = build_base(out[base_id], norm).key
    for sid in sorted(has_runs):
        out[sid], found = split_runs(out[sid], base_key, norm)
        problems.extend(found)
    return out, base_key, problems
