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
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field


def _beads() -> dict[tuple[int, int], float]:
    return {
        **{(1, n): max(0.0, 0.2 * (n - 3)) for n in range(1, 13)},
        (2, 1): 1.0, (3, 1): 2.0, (2, 2): 1.5, (1, 0): 3.0, (0, 1): 1.2,
    }


@dataclass(frozen=True)
class AlignerParams:
    """The translation aligner's tuning, in one place (the values measured on the gold list of
    sections 1–12, docs/alignment.md). The build and ``yili import`` use :data:`PARAMS`; every
    function of this module takes ``params`` to try others."""

    # -- paragraphs: :func:`evidence`, :func:`align_paragraphs`, :func:`_refine` ------------------
    #: Characters of modern translation per character of 经/记, when it cannot be estimated
    #: (fewer than ``min_paras_for_rho`` paragraphs): the median of w002's 18 paragraphs is 1.8.
    default_rho: float = 1.8
    min_paras_for_rho: int = 8
    #: With fewer paragraphs than that, the ratio of the totals is taken when the paragraphs
    #: were placed on at least this many characters (one translator's own rate: w004 renders the
    #: 记 at about 4 characters a character, twice w002's rate for the 经).
    min_chars_for_rho: int = 200
    #: Evidence of a clause in a paragraph: each bigram they share counts this much, and each
    #: character its idf times ``char_weight``.
    bigram_weight: float = 2.0
    char_weight: float = 0.5
    #: The paragraph program: the cost of each clause given to a paragraph, of each clause left
    #: between two paragraphs, and of a run that crosses a section start.
    assign_cost: float = 0.5
    gap_cost: float = 1.0
    cross_cost: float = 6.0
    #: Refining the ends of the runs: the weight of the length prior (absolute log-deviation from
    #: rho), the cost of crossing a section start, the bonus for opening or closing a section,
    #: and the cost of each clause given.
    refine_weight: float = 8.0
    refine_cross_cost: float = 6.0
    edge_bonus: float = 3.0
    refine_assign_cost: float = 0.0
    # -- sentences: :func:`align_sentences` ---------------------------------------------------------
    #: Beads: (sentences, clauses) taken together, with their cost. A sentence usually renders one
    #: to a few clauses; a clause rendered by two or three sentences, a sentence that renders
    #: nothing (an addition) and a clause left untranslated are allowed at a cost.
    beads: dict[tuple[int, int], float] = field(default_factory=_beads)
    #: The search keeps to each paragraph's run widened by ``band`` clauses, and near its
    #: diagonal: at least ``band``, at least ``band_share`` of the run either side.
    band: int = 12
    band_share: float = 0.15
    #: The weight of the length prior (squared log-deviation from rho) and the cost of a bead
    #: whose clauses run across a section start.
    len_weight: float = 1.5
    sentence_cross_cost: float = 3.0
    #: The bonus of a bead that ends where the translator's own copy of the text ends a sentence
    #: (``stops``: the source of the translation punctuates the 经/记 it renders, as w004 does
    #: the 记): a translation sentence mostly ends where the sentence it renders ends.
    stop_bonus: float = 1.5
    # -- paragraphs in no order: :func:`place_unordered`, :func:`_fill_gaps` -------------------------
    #: Candidate windows tried for each paragraph.
    candidates: int = 4
    #: The widest band in which a paragraph is tried on a candidate window. The work grows with
    #: it; a paragraph of up to 270 characters (nearly all) gets the band it always had (half its
    #: window, at least ``min_place_band``), a longer one this much, which is still wider than the
    #: drift of a real translation from its diagonal.
    place_band: int = 16
    min_place_band: int = 6
    #: Gap filling: a paragraph with no other within ``gap_near`` clauses is tried in the gaps the
    #: others leave (band ``gap_band``); one of at most ``gap_max_sentences`` sentences moves there
    #: if it scores positive, a longer one if it scores at least ``gap_share`` of where it is.
    gap_near: int = 8
    gap_max_sentences: int = 3
    gap_band: int = 2
    gap_share: float = 0.8

    @property
    def max_bead_sentences(self) -> int:
        return max(k for k, _l in self.beads)

    @property
    def max_bead_clauses(self) -> int:
        return max(n for _k, n in self.beads)

    def place_band_for(self, width: int) -> int:
        """The band for trying a paragraph on a window of ``width`` clauses."""
        return min(self.place_band, max(self.min_place_band, width // 2))

    def rho_of(self, ratios: list[float], pooled: tuple[int, int] | None = None) -> float:
        """The median of ``ratios`` (sorted); with too few of them, the ratio of the totals
        ``pooled`` (translation characters, 经/记 characters of the runs the paragraphs were
        placed on) when they hold at least ``min_chars_for_rho`` 经/记 characters, else
        :attr:`default_rho`."""
        if len(ratios) >= self.min_paras_for_rho:
            return ratios[len(ratios) // 2]
        if pooled is not None and pooled[1] >= self.min_chars_for_rho:
            return pooled[0] / pooled[1]
        return self.default_rho


#: The aligner's parameters as the build and ``yili import`` use them.
PARAMS = AlignerParams()


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


def clause_idf(clause_keys: list[str]) -> dict[str, float]:
    """Inverse document frequency of characters over the clauses (rare ritual terms weigh more)."""
    df: Counter[str] = Counter()
    for k in clause_keys:
        df.update(set(k))
    n = len(clause_keys)
    return {ch: math.log((n + 1) / (c + 0.5)) for ch, c in df.items()}


def evidence(
    para_keys: list[str], clause_keys: list[str], idf: dict[str, float] | None = None,
    params: AlignerParams = PARAMS,
) -> list[list[float]]:
    """``s[i][c]``: evidence that clause ``c`` belongs to paragraph ``i`` (see module doc).

    Character weights are the idf over the translation paragraphs given, or ``idf`` (for a
    paragraph placed on its own, :func:`clause_idf`).
    """
    P = len(para_keys)
    pg = [_grams(k) for k in para_keys]
    if idf is None:
        df: Counter[str] = Counter()
        for uni, _bi in pg:
            df.update(uni)
        idf = {ch: math.log((P + 1) / (n + 0.5)) for ch, n in df.items()}
    raw = [[0.0] * len(clause_keys) for _ in range(P)]
    for c, ck in enumerate(clause_keys):
        cu, cb = _grams(ck)
        for i, (uni, bi) in enumerate(pg):
            h = params.bigram_weight * len(cb & bi) + sum(idf.get(ch, 0.0) for ch in cu & uni) * params.char_weight
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
    rho: float | None = None,
    params: AlignerParams = PARAMS,
) -> float:
    """Move the boundary between adjacent runs to where evidence and a length prior agree.

    The prior: a translation paragraph is about ``rho`` times as long as the text it renders,
    ``rho`` being the median ratio of the first pass; a run pays ``params.refine_weight`` times
    the absolute log-deviation from it.
    """
    weight, cross_cost = params.refine_weight, params.refine_cross_cost
    edge_bonus, assign_cost = params.edge_bonus, params.refine_assign_cost
    ratios = sorted(
        para_len[lk.index] / max(1, sum(clause_len[lk.first : lk.last + 1])) for lk in links
    )
    if not ratios:
        return rho or params.default_rho
    if rho is None:
        # with few paragraphs the first pass is no basis for an estimate
        rho = params.rho_of(ratios)
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
        ev = spre[i][b] - spre[i][a] - assign_cost * (b - a)
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
    rho: float | None = None,
    scores: list[list[float]] | None = None,
    params: AlignerParams = PARAMS,
) -> list[ParagraphLink]:
    """Assign each translation paragraph, in order, a run of clauses (see module doc).

    ``section_starts`` are the clause indices that open a section: a paragraph that runs across
    one pays ``params.cross_cost`` (translations are made section by section).
    """
    P, N = len(para_keys), len(clause_keys)
    if P == 0 or N == 0:
        return []
    assign_cost, gap_cost, cross_cost = params.assign_cost, params.gap_cost, params.cross_cost
    s = scores if scores is not None else evidence(para_keys, clause_keys, params=params)
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
            section_starts or set(), rho=rho, params=params)
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


# -- sentences ------------------------------------------------------------------------------------

@dataclass
class SentenceLink:
    """Sentences ``sentences`` of paragraph ``para`` render clauses ``clauses`` (indices)."""

    para: int
    sentences: list[int]
    clauses: list[int]
    confidence: float
    override: int | None = None  # the row of corpus/alignment-overrides.tsv that set it


class _Lex:
    """Lexical evidence between clauses and (groups of) sentences."""

    def __init__(self, clause_keys: list[str], params: AlignerParams = PARAMS) -> None:
        self.params = params
        n = len(clause_keys)
        df: Counter[str] = Counter()
        for k in clause_keys:
            df.update(set(k))
        self.w = {ch: math.log((n + 1) / (c + 0.5)) for ch, c in df.items()}
        self.cuni = [set(k) for k in clause_keys]
        self.cbi = [{k[i : i + 2] for i in range(len(k) - 1)} for k in clause_keys]
        self.cw = [sum(self.w.get(ch, 0.0) for ch in set(k)) or 1.0 for k in clause_keys]
        # per clause, the weight of each of its characters and bigrams (match's inner loop)
        w = self.w
        self.uw = [{ch: w.get(ch, 0.0) for ch in u} for u in self.cuni]
        self.bw = [{g: w.get(g[0], 0.0) + w.get(g[1], 0.0) for g in b} for b in self.cbi]
        #: clause characters before each clause (the length prior of the sentence aligner)
        self.cpre = [0]
        for k in clause_keys:
            self.cpre.append(self.cpre[-1] + max(1, len(k)))
        self._spre: tuple[frozenset[int], list[int]] | None = None
        self._post: tuple[dict[str, list[int]], dict[str, list[int]]] | None = None

    def evidence_row(self, para_key: str) -> list[float]:
        """:func:`evidence` of one paragraph, with the clauses' idf as character weights (as
        :func:`place_unordered` uses it), its matches found through the clauses that hold each
        of its characters and bigrams rather than by intersecting it with every clause: the
        work grows with its matches, and a short paragraph costs little more than the one pass
        that normalises the row (finding 8)."""
        up, bp = self._postings()
        n = len(self.cuni)
        raw = [0.0] * n
        uni, bi = _grams(para_key)
        for g in bi:
            for c in bp.get(g, ()):
                raw[c] += self.params.bigram_weight
        for ch in uni:
            wv = self.w.get(ch, 0.0) * self.params.char_weight
            for c in up.get(ch, ()):
                raw[c] += wv
        mean = sum(raw) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in raw) / n) or 1.0
        return [(x - mean) / sd for x in raw]

    def _postings(self) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """For every character and bigram, the clauses that hold it, in order."""
        if self._post is None:
            up: dict[str, list[int]] = {}
            bp: dict[str, list[int]] = {}
            for c, (u, b) in enumerate(zip(self.cuni, self.cbi, strict=True)):
                for ch in u:
                    up.setdefault(ch, []).append(c)
                for g in b:
                    bp.setdefault(g, []).append(c)
            self._post = (up, bp)
        return self._post

    def match_range(self, uni: set[str], bi: set[str], c0: int, c1: int) -> list[float]:
        """:meth:`match` of the sentence(s) ``uni``/``bi`` with each clause of ``[c0, c1)``, found
        through the clauses that hold each of its characters and bigrams: the work grows with the
        sentence's matches in the range, not with the range times the clause (finding 8)."""
        up, bp = self._postings()
        m = [0.0] * (c1 - c0)
        w = self.w
        for ch in uni:
            post = up.get(ch)
            if post:
                wv = w[ch]
                for c in post[bisect_left(post, c0) : bisect_left(post, c1)]:
                    m[c - c0] += wv
        for g in bi:
            post = bp.get(g)
            if post:
                wv = w[g[0]] + w[g[1]]
                for c in post[bisect_left(post, c0) : bisect_left(post, c1)]:
                    m[c - c0] += wv
        cw = self.cw
        return [x / cw[c] for c, x in enumerate(m, c0)]

    def section_prefix(self, starts: set[int]) -> list[int]:
        """How many of ``starts`` (section-opening clauses) lie before each clause."""
        key = frozenset(starts)
        if self._spre is None or self._spre[0] != key:
            spre = [0]
            for c in range(len(self.cuni)):
                spre.append(spre[-1] + (1 if c in starts else 0))
            self._spre = (key, spre)
        return self._spre[1]

    def mean_match(self, keys: list[str]) -> list[float]:
        """For every clause, its mean :meth:`match` over the sentences ``keys`` (a background).

        Computed from how many sentences hold each character and bigram, so it costs one pass
        over the sentences and one over the clauses (the sum of the matches sentence by sentence,
        for every clause, grew with clauses × sentences: finding 8 of issue 10)."""
        n = len(keys)
        dfu: Counter[str] = Counter()
        dfb: Counter[str] = Counter()
        for k in keys:
            dfu.update(set(k))
            dfb.update({k[i : i + 2] for i in range(len(k) - 1)})
        w = self.w
        out = []
        for cu, cb, cw in zip(self.cuni, self.cbi, self.cw, strict=True):
            m = sum(w.get(ch, 0.0) * dfu[ch] for ch in cu if ch in dfu)
            m += sum((w.get(g[0], 0.0) + w.get(g[1], 0.0)) * dfb[g] for g in cb if g in dfb)
            out.append(m / cw / n if n else 0.0)
        return out

    def match(self, c: int, uni: set[str], bi: set[str]) -> float:
        """Share of clause ``c``'s weighted characters (and bigrams, doubled) found in a sentence."""
        m = sum(map(self.uw[c].__getitem__, self.cuni[c] & uni))
        m += sum(map(self.bw[c].__getitem__, self.cbi[c] & bi))  # each bigram: both its characters
        return m / self.cw[c]


def align_sentences(
    paras: list[list[str]],
    clause_keys: list[str],
    runs: list[tuple[int, int]],
    rho: float | None = None,
    band: int | None = None,
    section_starts: set[int] | None = None,
    lex: _Lex | None = None,
    stops: set[int] | None = None,
    score_out: list[float] | None = None,
    background: list[str] | None = None,
    bg_base: list[float] | None = None,
    max_half: int | None = None,
    fast: bool = False,
    params: AlignerParams = PARAMS,
) -> list[SentenceLink]:
    """Align the sentences of consecutive translation paragraphs to clauses, monotonically.

    ``paras`` holds the sentence keys of each paragraph, ``runs`` the clause run (first, last)
    that paragraph-level placement gave each: the search keeps to those runs widened by ``band``
    clauses (default ``params.band``), so that it can move a paragraph boundary. Beads are those of
    ``params.beads``; a bead's score is the lexical evidence of its clauses in its sentences (above
    what the clause finds in an average sentence of the same paragraph) less a length prior
    (squared log-deviation from ``rho`` translation characters per 经 character, default
    ``params.default_rho``) and the bead's cost; with ``background``
    (sentence keys of the whole translation) the average is over those instead, which a single
    short paragraph needs (``bg_base``, :meth:`_Lex.mean_match` of the background, saves
    computing it again on every call; ``max_half`` caps the half-width of the search band;
    ``fast`` finds the lexical evidence of a row through :meth:`_Lex.match_range`, equal to
    :meth:`_Lex.match` but for the order of its additions, so not for the build, whose output
    must not move by a rounding).
    A group of sentences
    never spans two paragraphs, and a bead whose clauses run across a section start pays
    ``params.sentence_cross_cost``; a bead that ends before a clause of ``stops`` (where the
    translator's own copy of the text ends a sentence) earns ``params.stop_bonus``.
    """
    rho = params.default_rho if rho is None else rho
    band = params.band if band is None else band
    len_weight, cross_cost, beads_all = params.len_weight, params.sentence_cross_cost, params.beads
    starts = section_starts or set()
    stops_ = stops or set()
    stop_bonus = params.stop_bonus
    lex = lex or _Lex(clause_keys, params)
    sents: list[tuple[int, int, str]] = []  # (para, index in para, key)
    for p, ss in enumerate(paras):
        for i, k in enumerate(ss):
            sents.append((p, i, k))
    S = len(sents)
    if S == 0:
        return []
    suni = [set(k) for _p, _i, k in sents]
    sbi = [{k[i : i + 2] for i in range(len(k) - 1)} for _p, _i, k in sents]
    slen = [max(1, len(k)) for _p, _i, k in sents]
    # baseline per (paragraph, clause): the clause's mean match over that paragraph's sentences
    base_cache: dict[tuple[int, int], float] = {}
    members: dict[int, list[int]] = {}
    for t in range(S):
        members.setdefault(sents[t][0], []).append(t)

    if bg_base is None and background:
        bg_base = lex.mean_match(background)

    def baseline(p: int, c: int) -> float:
        if bg_base is not None:
            return bg_base[c]
        key = (p, c)
        if key not in base_cache:
            idx = members[p]
            base_cache[key] = sum(lex.match(c, suni[t], sbi[t]) for t in idx) / len(idx)
        return base_cache[key]

    # the search keeps near the diagonal of each paragraph's run: sentence t, a share f of the
    # way through its paragraph's characters, is looked for about f of the way through the run
    lo_band: list[int] = []
    hi_band: list[int] = []
    done: dict[int, int] = {}
    total = {p: sum(slen[t] for t in members[p]) for p in members}
    for t in range(S):
        p = sents[t][0]
        a, b = runs[p]
        width = b - a + 1
        f = done.get(p, 0) / total[p]
        done[p] = done.get(p, 0) + slen[t]
        centre = a + f * width
        half = max(band, params.band_share * width)
        if max_half is not None:
            half = min(half, max_half)
        lo_band.append(max(0, a - band, int(centre - half)))
        hi_band.append(min(len(clause_keys), b + 1 + band, int(centre + half) + 1))
    NEG = -1e18
    nC = len(clause_keys)
    # best[i][j]: the best score of a state that has used sentences < i and clauses < j; back[i][j]
    # the state it came from (one dict per row: cheaper than one keyed by (i, j))
    best: list[dict[int, float]] = [{} for _ in range(S + 1)]
    back: list[dict[int, int]] = [{} for _ in range(S + 1)]  # the state i, j as i * W + j
    W = nC + 1
    rows: list[list[int]] = [[] for _ in range(S + 1)]  # the j of the states reached in each row
    for j in range(lo_band[0], hi_band[0] + 1):
        best[0][j] = 0.0  # clauses before the first sentence are not this text's concern
        rows[0].append(j)

    def group_sets(t0: int, t1: int) -> tuple[set[str], set[str], int]:
        # made when needed, not kept: each group is needed once in the search (and again only
        # for the links found), and keeping them all held memory in proportion to the input
        if t1 == t0 + 1:
            return suni[t0], sbi[t0], slen[t0]
        u: set[str] = set()
        b: set[str] = set()
        n = 0
        for t in range(t0, t1):
            u |= suni[t]
            b |= sbi[t]
            n += slen[t]
        return u, b, n

    cpre = lex.cpre
    spre = lex.section_prefix(starts)
    # the beads by number of sentences, each list by number of clauses (so a band check can stop)
    beads_of: dict[int, list[tuple[int, float]]] = {}
    for (k, l_), cost in beads_all.items():
        beads_of.setdefault(k, []).append((l_, cost))
    for v_ in beads_of.values():
        v_.sort()
    len_cache: dict[tuple[int, int], float] = {}
    para_start = {t for t in range(1, S) if sents[t][0] != sents[t - 1][0]}
    # the row where each paragraph's successor starts (S after the last)
    first_rows = sorted(para_start | {0})
    next_start = dict(zip(first_rows, [*first_rows[1:], S], strict=True))
    skip_cost = beads_all[(1, 0)]
    last_start = 0

    def skip(i: int, j: int) -> None:
        # paragraph starting at row i left out whole (its sentences as 1:0 beads), staying at j
        i2 = next_start[i]
        v = best[i][j] - skip_cost * (i2 - i)
        if v > best[i2].get(j, NEG):
            if j not in best[i2]:
                rows[i2].append(j)
            best[i2][j] = v
            back[i2][j] = i * W + j

    for i in range(S + 1):
        lo = lo_band[min(i, S - 1)] if i < S else lo_band[S - 1]
        hi = hi_band[min(i, S - 1)] if i < S else nC
        row = best[i]
        if (i in para_start or i == S) and i > 0:
            if not rows[i]:
                # no state reached this paragraph (the one before could not be aligned in its
                # band): leave that one out rather than lose every paragraph after it
                for j in list(rows[last_start]):
                    skip(last_start, j)
            last_start = i
        if i in para_start and rows[i] and min(rows[i]) > hi:
            # every state is beyond this paragraph's band (its run lies before text already
            # taken: a repeated paragraph, two placed on the same clauses): it is left out
            for j in list(rows[i]):
                skip(i, j)
        if i in para_start and rows[i]:
            # between two paragraphs, clauses that no sentence renders are skipped freely (the
            # paragraphs may lie apart: a paragraph missing, a scrambled page): carry the best
            # state reached so far forward over the band
            run_v, run_j = NEG, -1
            for j in range(min(min(rows[i]), lo), hi + 1):
                v = row.get(j, NEG)
                if v > run_v:
                    run_v, run_j = v, j
                elif run_v > NEG and j >= lo:
                    if j not in row:
                        rows[i].append(j)
                    row[j] = run_v
                    back[i][j] = i * W + run_j
        if i == S:
            break  # all sentences used: the clauses after them are free
        reached = sorted(j for j in set(rows[i]) if lo <= j <= hi)
        if not reached:
            continue
        # prefix sums of the clauses' evidence for the sentence groups starting at i
        c0, c1 = reached[0], min(nC, reached[-1] + params.max_bead_clauses)
        prefix: dict[int, list[float]] = {}
        glen: dict[int, int] = {}
        p = sents[i][0]
        for k in range(1, params.max_bead_sentences + 1):
            if i + k > S or sents[i][0] != sents[i + k - 1][0]:
                break
            u, b, glen[k] = group_sets(i, i + k)
            acc = [0.0]
            if fast and bg_base is not None:
                for c, m in enumerate(lex.match_range(u, b, c0, c1), c0):
                    acc.append(acc[-1] + (m - bg_base[c]))
            else:
                for c in range(c0, c1):
                    acc.append(acc[-1] + (lex.match(c, u, b) - baseline(p, c)))
            prefix[k] = acc
        # the bead 0:1 (a clause left untranslated) leads to a state of this same row: first,
        # in order, so that the states it improves are read after it, as they would be in one pass
        for l_, cost in beads_of.get(0, []):
            free = i in para_start
            for j in reached:
                cur = row[j]
                j2 = j + l_
                if j2 > nC or (not (lo_band[i] <= j2 <= hi_band[i]) and not free):
                    continue
                v = cur - cost
                if v > row.get(j2, NEG):
                    if j2 not in row:
                        rows[i].append(j2)
                    row[j2] = v
                    back[i][j2] = i * W + j
        for k, beads_k in beads_of.items():
            if k == 0 or k not in prefix:
                continue
            i2 = i + k
            banded = i2 < S
            blo, bhi = (lo_band[i2], hi_band[i2]) if banded else (0, nC)
            free = i2 in para_start
            target, tback, trow = best[i2], back[i2], rows[i2]
            acc = prefix[k]
            n = glen[k]
            for j in reached:
                cur = row[j]
                aj = acc[j - c0]
                sj = spre[j + 1] if j < nC else 0  # read only by beads with clauses (j < nC)
                for l_, cost in beads_k:
                    j2 = j + l_
                    if j2 > nC:
                        break
                    if banded and not (blo <= j2 <= bhi):
                        # a paragraph's first sentence may be reached before its band (then
                        # carried forward, above), or beyond it (then that paragraph is left out)
                        if not free:
                            if j2 > bhi:
                                break
                            continue
                    sc = -cost
                    if l_:
                        sc += acc[j2 - c0] - aj
                        chars = cpre[j2] - cpre[j]
                        pen = len_cache.get((n, chars))
                        if pen is None:
                            pen = len_cache[(n, chars)] = len_weight * math.log(n / (rho * chars)) ** 2
                        sc -= pen
                        sc -= cross_cost * (spre[j2] - sj)
                        if j2 in stops_:
                            sc += stop_bonus
                    v = cur + sc
                    if v > target.get(j2, NEG):
                        if j2 not in target:
                            trow.append(j2)
                        target[j2] = v
                        tback[j2] = i * W + j
    # end: all sentences used; the clauses after them are free
    ends = [(v, j) for j, v in best[S].items()]
    if not ends:
        if score_out is not None:
            score_out.append(NEG)
        return []
    _v, j = max(ends)
    if score_out is not None:
        score_out.append(_v)
    state = (S, j)
    beads: list[tuple[int, int, int, int]] = []
    while state[1] in back[state[0]]:
        prev = divmod(back[state[0]][state[1]], W)
        beads.append((prev[0], state[0], prev[1], state[1]))
        state = prev
    beads.reverse()
    links: list[SentenceLink] = []
    for i0, i1, j0, j1 in beads:
        if i1 == i0 or j1 == j0:
            continue
        u, b, _n = group_sets(i0, i1)
        p = sents[i0][0]
        ev = [lex.match(c, u, b) - baseline(p, c) for c in range(j0, j1)]
        conf = sum(1 for e in ev if e > 0) / len(ev)
        links.append(SentenceLink(p, [sents[t][1] for t in range(i0, i1)], list(range(j0, j1)), round(conf, 3)))
    return links


def place_unordered(
    keyed: list[list[str]],
    clause_keys: list[str],
    section_starts: set[int] | None = None,
    rho: float | None = None,
    params: AlignerParams = PARAMS,
) -> list[ParagraphLink]:
    """Place paragraphs whose order is unknown (a scrambled page, a user's file).

    For each paragraph (given as its sentence keys) the windows of the text where its evidence
    (:func:`evidence`, character weights by clause idf) is strongest are candidates, a window being
    as long as the paragraph's expected 经 length in characters (the clauses whose lengths add up
    nearest to it); the sentence aligner is run on each candidate,
    and its score (sentence order counts, not only shared characters) ranks them. Each paragraph
    goes to its best candidate; overlaps are left to the joint alignment that follows. Returns the
    links in text order (``index`` into ``keyed``).
    """
    P, N = len(keyed), len(clause_keys)
    if P == 0 or N == 0:
        return []
    r = rho or params.default_rho
    paras = ["".join(ss) for ss in keyed]
    lex = _Lex(clause_keys, params)
    background = [k for ss in keyed for k in ss]
    bg_base = lex.mean_match(background)
    # a window is as long as the paragraph's expected 经 length in characters (not in clauses,
    # whose length varies: a stretch the clause division cuts finely has more of them)
    cum = [0]
    for k in clause_keys:
        cum.append(cum[-1] + len(k))
    options: dict[int, list[tuple[float, int, int]]] = {}
    for p in range(P):
        target = len(paras[p]) / r
        ends = [_window_end(cum, a, target) for a in range(N)]
        z = lex.evidence_row(paras[p])
        pre = [0.0]
        for v in z:
            pre.append(pre[-1] + v)
        sums = [pre[ends[a]] - pre[a] for a in range(N)]
        chosen: list[int] = []
        for a in sorted(range(N), key=sums.__getitem__, reverse=True):
            if all(ends[a] <= b or ends[b] <= a for b in chosen):
                chosen.append(a)
            if len(chosen) == params.candidates:
                break
        opts = []
        for a in chosen:
            out: list[float] = []
            width = ends[a] - a
            links = align_sentences([keyed[p]], clause_keys, [(a, ends[a] - 1)], rho=r,
                                    band=params.place_band_for(width), section_starts=section_starts,
                                    lex=lex, score_out=out, bg_base=bg_base, max_half=params.place_band,
                                    fast=True, params=params)
            cl = [c for lk in links for c in lk.clauses]
            if cl:
                opts.append((out[0] / max(1, len(keyed[p])), min(cl), max(cl)))
        options[p] = sorted(opts, reverse=True)
    # each paragraph on its best candidate; where two claim the same clauses, the joint,
    # monotonic sentence alignment that follows decides between them
    placed: list[ParagraphLink] = []
    for p in range(P):
        if options[p]:
            sc, a, e = options[p][0]
            placed.append(ParagraphLink(p, a, e, round(sc, 3), 0.0))
    placed.sort(key=lambda lk: lk.first)
    placed = _fill_gaps(placed, keyed, clause_keys, section_starts, r, lex, bg_base, params)
    for lk in placed:
        cs = range(lk.first, lk.last + 1)
        z = lex.evidence_row(paras[lk.index])
        pos = sum(max(0.0, z[c]) for c in cs)
        neg = sum(max(0.0, -z[c]) for c in cs)
        lk.confidence = round(pos / (pos + neg) if pos + neg else 0.0, 3)
    return placed


def _window_end(cum: list[int], a: int, target: float) -> int:
    """The end (exclusive) of the window of clauses from ``a`` whose length in characters is
    nearest ``target`` (``cum``: the clauses' cumulative lengths); at least one clause."""
    n = len(cum) - 1
    e = min(n, bisect_left(cum, cum[a] + target))
    if e - 1 > a and (cum[a] + target) - cum[e - 1] < cum[e] - (cum[a] + target):
        e -= 1
    return max(a + 1, e)


def _fill_gaps(
    placed: list[ParagraphLink],
    keyed: list[list[str]],
    clause_keys: list[str],
    section_starts: set[int] | None,
    rho: float,
    lex: _Lex,
    bg_base: list[float],
    params: AlignerParams = PARAMS,
) -> list[ParagraphLink]:
    """Move isolated paragraphs into the gaps the others leave.

    A translation covers its text without holes, so a stretch of clauses that no paragraph takes,
    between two that are placed, is where a paragraph placed far from every other one most likely
    belongs (主人揖宾，下堂 fits the end of 主人酬宾 as well as a place in 旅酬; 一人举觯 reads much
    like 二人举觯). A paragraph with no other within ``params.gap_near`` clauses is moved to the gap
    where the sentence aligner scores it best: a short one (at most ``params.gap_max_sentences``
    sentences) if that score is positive, a longer one if it is at least ``params.gap_share`` of
    its score where it is.
    """
    near, band = params.gap_near, params.gap_band
    if len(placed) < 3:
        return placed
    for lk in list(placed):
        short = len(keyed[lk.index]) <= params.gap_max_sentences
        others = [o for o in placed if o is not lk]
        if any(o.first - near <= lk.last and lk.first <= o.last + near for o in others):
            continue
        spans = sorted((o.first, o.last) for o in others)
        gaps = [(a[1] + 1, b[0] - 1) for a, b in zip(spans, spans[1:], strict=False) if b[0] - a[1] > 1]
        best: tuple[float, int, int] | None = None
        for g0, g1 in gaps:
            out: list[float] = []
            links = align_sentences([keyed[lk.index]], clause_keys, [(g0, g1)], rho=rho, band=band,
                                    section_starts=section_starts, lex=lex, score_out=out,
                                    bg_base=bg_base, fast=True, params=params)
            cl = [c for x in links for c in x.clauses]
            if cl and out[0] > 0 and (best is None or out[0] > best[0]):
                best = (out[0], min(cl), max(cl))
        if best is None:
            continue
        if not short:
            here: list[float] = []
            align_sentences([keyed[lk.index]], clause_keys, [(lk.first, lk.last)], rho=rho, band=band,
                            section_starts=section_starts, lex=lex, score_out=here, bg_base=bg_base,
                            fast=True, params=params)
            if not here or best[0] < params.gap_share * here[0]:
                continue
        lk.first, lk.last = best[1], best[2]
    placed.sort(key=lambda lk: lk.first)
    return placed


def _paragraph(i: int, lk: ParagraphLink, mine: list[SentenceLink], n_sentences: int) -> AlignedParagraph:
    """Paragraph ``i`` placed by ``lk`` with its sentence links ``mine`` (stragglers attached):
    its clause span is that of its links, else the placement's."""
    for sl in mine:
        sl.para = i
    mine = _attach_stragglers(mine, n_sentences, i)
    cl = [c for sl in mine for c in sl.clauses]
    first, last = (min(cl), max(cl)) if cl else (lk.first, lk.last)
    return AlignedParagraph(i, first, last, lk.confidence, [], mine)


def _attach_stragglers(links: list[SentenceLink], n: int, para: int) -> list[SentenceLink]:
    """Give a sentence the aligner left without clauses (a bead 1:0) the clause next to its
    neighbour's: the last clause of the sentence before it, else the first of the one after.
    Such links have confidence 0 and are listed as low-confidence."""
    if not links:
        return links
    by_sentence = {s: lk for lk in links for s in lk.sentences}
    out = list(links)
    for j in range(n):
        if j in by_sentence:
            continue
        before = next((by_sentence[k] for k in range(j - 1, -1, -1) if k in by_sentence), None)
        after = next((by_sentence[k] for k in range(j + 1, n) if k in by_sentence), None)
        if before is not None:
            out.append(SentenceLink(para, [j], [before.clauses[-1]], 0.0))
        elif after is not None:
            out.append(SentenceLink(para, [j], [after.clauses[0]], 0.0))
    out.sort(key=lambda lk: lk.sentences[0])
    return out


# -- the whole job ----------------------------------------------------------------------------------

@dataclass
class AlignedParagraph:
    """One translation paragraph: its clause run, its sentences and their links."""

    index: int
    first: int
    last: int
    confidence: float
    sentences: list[tuple[int, int]]
    links: list[SentenceLink]


def align_translation(
    keyed: list[list[str]],
    clause_keys: list[str],
    section_starts: set[int] | None = None,
    ordered: bool = True,
    rho: float | None = None,
    params: AlignerParams = PARAMS,
    stops: set[int] | None = None,
) -> list[AlignedParagraph]:
    """Align translation paragraphs, given as lists of sentence keys, to the clauses.

    With ``ordered`` the paragraphs are taken to follow the text; otherwise (a scrambled page)
    each is first placed on its own, the paragraphs are put in the order of their places, and the
    joint, monotonic alignment runs on that order. Paragraph runs come from the sentence links.
    ``stops``: the clauses before which the source's own copy of the text ends a sentence
    (:func:`align_sentences`). ``rho``, when not given, is the median rate of the paragraphs, or
    with few of them their pooled rate (:meth:`AlignerParams.rho_of`).
    Returns one entry per placed paragraph (``index`` into ``keyed``), in text order.
    """
    paras = ["".join(ss) for ss in keyed]
    repeats: list[ParagraphLink] = []
    if ordered:
        plinks = align_paragraphs(paras, clause_keys, section_starts, rho=rho, params=params)
        placed = [lk.index for lk in plinks]
    else:
        plinks, repeats = _repeats(place_unordered(keyed, clause_keys, section_starts, rho=rho, params=params))
        placed = [lk.index for lk in plinks]
    if not plinks:
        return []
    runs = [(lk.first, lk.last) for lk in plinks]
    r = rho
    if r is None:
        spans = [(len(paras[i]), max(1, sum(len(clause_keys[c]) for c in range(a, b + 1))))
                 for i, (a, b) in zip(placed, runs, strict=True)]
        r = params.rho_of(sorted(t / k for t, k in spans), pooled=(sum(t for t, _k in spans), sum(k for _t, k in spans)))
    background = [k for ss in keyed for k in ss]
    if ordered:
        slinks = align_sentences([keyed[i] for i in placed], clause_keys, runs, rho=r,
                                 section_starts=section_starts, background=background, params=params,
                                 stops=stops)
    else:
        lex = _Lex(clause_keys, params)
        bg_base = lex.mean_match(background)
        slinks = align_sentences([keyed[i] for i in placed], clause_keys, runs, rho=r,
                                 section_starts=section_starts, lex=lex, bg_base=bg_base, fast=True,
                                 params=params, stops=stops)
    out: list[AlignedParagraph] = []
    groups: dict[int, list[SentenceLink]] = {}
    for sl in slinks:
        groups.setdefault(sl.para, []).append(sl)
    for pi, (i, lk) in enumerate(zip(placed, plinks, strict=True)):
        out.append(_paragraph(i, lk, groups.get(pi, []), len(keyed[i])))
    # a paragraph placed on the clauses of another (a repeat, a second rendering) is aligned on
    # its own there: the joint alignment is monotonic and could only squeeze it beside the other
    for lk in repeats:
        i = lk.index
        width = lk.last - lk.first + 1
        mine = align_sentences([keyed[i]], clause_keys, [(lk.first, lk.last)], rho=r,
                               band=params.place_band_for(width), section_starts=section_starts,
                               lex=lex, bg_base=bg_base, max_half=params.place_band, fast=True, params=params)
        out.append(_paragraph(i, lk, mine, len(keyed[i])))
    if repeats:
        out.sort(key=lambda ap: (ap.first, ap.index))
    return out


def _repeats(links: list[ParagraphLink]) -> tuple[list[ParagraphLink], list[ParagraphLink]]:
    """Of paragraphs placed (in text order) on mostly the same clauses, more than half of the
    shorter run, the one that scored best there stays for the joint alignment; the others are
    returned apart. A translation renders each clause once; a file that repeats a paragraph (or
    holds two renderings of one) otherwise lets the copy take the clauses of the paragraphs after
    it, which then have nowhere to go."""
    keep: list[ParagraphLink] = []
    extra: list[ParagraphLink] = []
    for lk in links:
        if keep:
            prev = keep[-1]
            overlap = min(prev.last, lk.last) - max(prev.first, lk.first) + 1
            shorter = min(prev.last - prev.first, lk.last - lk.first) + 1
            if 2 * overlap > shorter:
                if lk.score > prev.score:
                    keep[-1] = lk
                    extra.append(prev)
                else:
                    extra.append(lk)
                continue
        keep.append(lk)
    return keep, extra
