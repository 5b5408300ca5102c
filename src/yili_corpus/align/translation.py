"""Translation paragraphs → clause ranges of the reading text (paragraph level).

A monotonic dynamic program over lexical anchors. Every clause ``c`` and translation paragraph
``i`` get an evidence score ``s(i, c)``: the clause's character bigrams and (idf-weighted)
characters found in the paragraph's normalised key — the ritual terms a translation keeps (司射,
觯, 阼阶 …) — minus the clause's mean score over all paragraphs, so that a clause counts only for
the paragraphs it fits better than the others. The program then gives each paragraph, in order,
one contiguous run of clauses, maximising the summed evidence less a cost per assigned clause;
clauses before the first and after the last paragraph are free, a clause skipped between two
paragraphs costs more than one assigned with weak evidence.

This is the paragraph layer of the aligner; sentence-to-clause links come in the alignment step
proper (issue #3).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

#: Characters of modern translation per character of 经/记, when it cannot be estimated
#: (fewer than MIN_PARAS_FOR_RHO paragraphs): the median of w002's 18 paragraphs is 1.8.
DEFAULT_RHO = 1.8
MIN_PARAS_FOR_RHO = 8


@dataclass
class ParagraphLink:
    """Translation paragraph ``index`` renders clauses ``[first, last]`` (indices), with a score."""

    index: int
    first: int
    last: int
    score: float
    confidence: float


def _grams(key: str) -> tuple[set[str], set[str]]:
    return set(key), {key[i : i + 2] for i in range(len(key) - 1)}


def evidence(para_keys: list[str], clause_keys: list[str]) -> list[list[float]]:
    """``s[i][c]``: evidence that clause ``c`` belongs to paragraph ``i`` (see module doc)."""
    P = len(para_keys)
    pg = [_grams(k) for k in para_keys]
    df: Counter[str] = Counter()
    for uni, _bi in pg:
        df.update(uni)
    idf = {ch: math.log((P + 1) / (n + 0.5)) for ch, n in df.items()}
    raw = [[0.0] * len(clause_keys) for _ in range(P)]
    for c, ck in enumerate(clause_keys):
        cu, cb = _grams(ck)
        for i, (uni, bi) in enumerate(pg):
            h = 2.0 * len(cb & bi) + sum(idf.get(ch, 0.0) for ch in cu & uni) * 0.5
            raw[i][c] = h
    # chance level: how well the paragraph matches a clause picked at random from the whole text
    # (a paragraph renders a small part of it), as a z-score per paragraph
    n = len(clause_keys)
    for i in range(P):
        mean = sum(raw[i]) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in raw[i]) / n) or 1.0
        raw[i] = [(x - mean) / sd for x in raw[i]]
    return raw


def _refine(
    links: list[ParagraphLink],
    s: list[list[float]],
    para_len: list[int],
    clause_len: list[int],
    section_starts: set[int],
    weight: float = 8.0,
    cross_cost: float = 6.0,
    rho: float | None = None,
    edge_bonus: float = 3.0,
) -> float:
    """Move the boundary between adjacent runs to where evidence and a length prior agree.

    The prior: a translation paragraph is about ``rho`` times as long as the text it renders,
    ``rho`` being the median ratio of the first pass; a run pays ``weight`` times the absolute
    log-deviation from it.
    """
    ratios = sorted(
        para_len[lk.index] / max(1, sum(clause_len[lk.first : lk.last + 1])) for lk in links
    )
    if not ratios:
        return rho or DEFAULT_RHO
    if rho is None:
        # with few paragraphs the first pass is no basis for an estimate
        rho = ratios[len(ratios) // 2] if len(ratios) >= MIN_PARAS_FOR_RHO else DEFAULT_RHO
    pre = [0]
    for n in clause_len:
        pre.append(pre[-1] + n)

    sec_pre = [0]
    for c in range(len(clause_len)):
        sec_pre.append(sec_pre[-1] + (1 if c in section_starts else 0))
    spre = []
    for row in s:
        acc = [0.0]
        for x in row:
            acc.append(acc[-1] + x)
        spre.append(acc)

    def cost(i: int, a: int, b: int) -> float:  # run [a, b) for paragraph i
        chars = pre[b] - pre[a]
        if b <= a or not chars:
            return -1e9
        ev = spre[i][b] - spre[i][a]
        prior = weight * abs(math.log(para_len[i] / (rho * chars)))
        crossing = cross_cost * (sec_pre[b] - sec_pre[a + 1])
        # translations are made section by section: a run that opens or closes one is favoured
        edges = edge_bonus * ((a in section_starts) + (b in section_starts or b == N))
        return ev - prior - crossing + edges

    N = len(clause_len)
    for _ in range(3):
        # the boundary between two adjacent runs
        for k in range(len(links) - 1):
            x, y = links[k], links[k + 1]
            if x.last + 1 != y.first:
                continue
            best = max(
                range(x.first + 1, y.last + 1),
                key=lambda b: (cost(x.index, x.first, b) + cost(y.index, b, y.last + 1), -abs(b - y.first)),
            )
            x.last, y.first = best - 1, best
        # the free ends of runs (next to unassigned text)
        for k, x in enumerate(links):
            lo = links[k - 1].last + 1 if k > 0 else 0
            hi = links[k + 1].first if k + 1 < len(links) else N
            if x.first != lo or k == 0:
                x.first = max(range(lo, x.last + 1), key=lambda a: (cost(x.index, a, x.last + 1), -abs(a - x.first)))
            if x.last + 1 != hi or k + 1 == len(links):
                end = max(range(x.first + 1, hi + 1), key=lambda b: (cost(x.index, x.first, b), -abs(b - x.last - 1)))
                x.last = end - 1
    return rho


def align_paragraphs(
    para_keys: list[str],
    clause_keys: list[str],
    section_starts: set[int] | None = None,
    assign_cost: float = 0.5,
    gap_cost: float = 1.0,
    cross_cost: float = 6.0,
    rho: float | None = None,
) -> list[ParagraphLink]:
    """Assign each translation paragraph, in order, a run of clauses (see module doc).

    ``section_starts`` are the clause indices that open a section: a paragraph that runs across
    one pays ``cross_cost`` (translations are made section by section).
    """
    P, N = len(para_keys), len(clause_keys)
    if P == 0 or N == 0:
        return []
    s = evidence(para_keys, clause_keys)
    NEG = -1e18
    # A[i]: paragraph i open and holds the current clause; G[i]: paragraphs ..i closed, current
    # clause unassigned (G[-1] is "before the first paragraph", stored at index 0 of G with shift)
    A = [NEG] * P
    G = [NEG] * (P + 1)
    G[0] = 0.0
    backA: list[list[int]] = []  # per clause, per paragraph: 0 continue, 1 from gap, 2 from A(i-1)
    backG: list[list[int]] = []  # per clause, per gap state: 0 stay, 1 from A
    for c in range(N):
        nA = [NEG] * P
        nG = [NEG] * (P + 1)
        bA = [0] * P
        bG = [0] * (P + 1)
        cross = cross_cost if section_starts and c in section_starts else 0.0
        for i in range(P):
            opts = (A[i] - cross, G[i], A[i - 1] if i > 0 else NEG)
            k = max(range(3), key=lambda t: opts[t])
            if opts[k] > NEG:
                nA[i] = opts[k] + s[i][c] - assign_cost
                bA[i] = k
        for g in range(P + 1):
            cost = 0.0 if g in (0, P) else gap_cost
            stay = G[g] - cost
            from_a = (A[g - 1] - cost) if g > 0 else NEG
            if from_a > stay:
                nG[g], bG[g] = from_a, 1
            else:
                nG[g], bG[g] = stay, 0
        A, G = nA, nG
        backA.append(bA)
        backG.append(bG)
    # end: the last paragraph open, or closed with the rest unassigned
    state = ("A", P - 1) if A[P - 1] >= G[P] else ("G", P)
    owner = [-1] * N
    for c in range(N - 1, -1, -1):
        kind, i = state
        if kind == "A":
            owner[c] = i
            k = backA[c][i]
            state = ("A", i) if k == 0 else ("G", i) if k == 1 else ("A", i - 1)
        else:
            k = backG[c][i]
            state = ("G", i) if k == 0 else ("A", i - 1)
    links = []
    for i in range(P):
        cs = [c for c in range(N) if owner[c] == i]
        if cs:
            links.append(ParagraphLink(i, cs[0], cs[-1], 0.0, 0.0))
    _refine(links, s, [len(k) for k in para_keys], [len(k) for k in clause_keys],
            section_starts or set(), rho=rho)
    for lk in links:
        i = lk.index
        cs = list(range(lk.first, lk.last + 1))
        sc = sum(s[i][c] for c in cs)
        # confidence: the share of the run's evidence that is positive, squashed to 0..1
        pos = sum(max(0.0, s[i][c]) for c in cs)
        neg = sum(max(0.0, -s[i][c]) for c in cs)
        lk.score = round(sc, 3)
        lk.confidence = round(pos / (pos + neg) if pos + neg else 0.0, 3)
    return links
