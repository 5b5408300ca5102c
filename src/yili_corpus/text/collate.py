"""Step 3: collate the witnesses of the 经/记 and choose the reading text.

The base witness (the manifest's ``base``, w001) is the only complete one: its key is the
coordinate system. Every paragraph of every other witness is located in the base key (4-gram
offset voting), aligned to it (difflib), and every place where a witness differs becomes part of a
collation *site*. At each site each witness's reading is classified:

* ``placeholder`` — it contains a private-use code point, 〓 or ■
  (:data:`~yili_corpus.model.PLACEHOLDER_MARKS`): the witness has a character there that it could not encode. Not a vote; the character is restored from the others and the
  code point's meaning is learned (U+E270 = 搢).
* ``lacuna`` — it is another witness's reading with characters removed that this witness never
  writes anywhere (a character lost in transcription). Not a vote; restored from the others.
* ``reading`` — a real reading, which votes.

The reading is chosen by these rules, in order (``docs/collation.md``):

1. **majority** of the voting witnesses of the passage;
2. on a tie between unrelated readings (a passage one witness lacks or has elsewhere), the rank;
3. on a tie, **attestation**: the reading whose words, with their neighbours in the text, occur
   more often elsewhere in the corpus (commentary, notes, translation and the rest of the 经/记,
   the site itself left out) — first with two characters of context, then with one;
4. on a tie still, the witness **rank** of the manifest (the printed 注疏 edition first).

Where no witness has the right reading, ``corpus/emendations.tsv`` gives it with its evidence;
the original stays as ``sic``.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DataError
from ..model import ParsedSource, Reading, Site, SourceUnit, is_text_char
from ..tables import read_table
from .clauses import char_end
from .normalise import Normaliser, is_placeholder, t2s_char, without_layout


def _line_col(u: SourceUnit, o: int) -> tuple[int, int]:
    """(line, col) in the file of offset ``o`` of unit ``u``, which may run over several lines
    (a 经 run of the 四库 layout)."""
    nl = u.text.rfind("\n", 0, o)
    if nl < 0:
        return u.line, u.col + o
    return u.line + u.text.count("\n", 0, o), o - nl - 1


def key_char_text(u: SourceUnit, o: int) -> str:
    """The text the key character at ``o`` of unit ``u`` stands for: one character, or the whole
    placeholder (``{曰鼎}``) of a skip that the key reads as one."""
    return u.text[o:char_end(u, o) - u.offset]


def key_spans(pos: list[tuple[SourceUnit, int]], text: str | None = None) -> list[tuple[int, int]]:
    """The file spans of the key characters ``pos`` (each ``(unit, offset in unit.text)``): one
    span per run of characters with nothing between them in the file, a placeholder taking all the
    characters it stands for. With ``text`` (the file), a run also goes on over marks (punctuation,
    line ends) — never over a text character that is not in ``pos`` (a 注 between two 经 units)."""
    out: list[tuple[int, int]] = []
    for u, o in pos:
        x = u.offset + o
        if out and (out[-1][1] == x or (text is not None and out[-1][1] < x
                                         and not any(is_text_char(c) for c in without_layout(text[out[-1][1]:x])))):
            out[-1] = (out[-1][0], char_end(u, o))
        else:
            out.append((x, char_end(u, o)))
    return out


@dataclass
class Stream:
    """A run of 经/记 text of one witness (a paragraph), as a key with a map back to the source."""

    wit: str
    para: int
    key: str
    pos: list[tuple[SourceUnit, int]]  # for each key char: (unit, offset in unit.text)
    units: list[SourceUnit]

    def loc(self, j: int) -> tuple[int, int]:
        """(line, col) of key character ``j`` (or of the end, for j == len)."""
        if not self.pos:
            return (0, 0)
        if j >= len(self.pos):
            u, o = self.pos[-1]
            line, col = _line_col(u, o)
            return (line, col + 1)
        return _line_col(*self.pos[j])

    def spans(self, j1: int, j2: int, text: str) -> list[tuple[int, int]]:
        """The file offsets of key chars ``j1`` to ``j2 - 1``: one span where nothing but marks
        (punctuation, line ends) stands between its units, else one span per unit part (a 注
        between two 经 units is not part of a 经 reading)."""
        if j2 <= j1:
            return []
        return key_spans(self.pos[j1:j2], text)

    def diplomatic(self, j1: int, j2: int) -> str:
        """The source text from key char ``j1`` to key char ``j2 - 1``, punctuation inside kept."""
        if j2 <= j1:
            return ""
        u1, o1 = self.pos[j1]
        u2, o2 = self.pos[j2 - 1]
        end2 = o2 + 1
        for a, b, rep in u2.meta.get("skips", ()):
            if a == o2 and rep:
                end2 = b
        if u1 is u2:
            return u1.text[o1:end2]
        parts = [u1.text[o1:]]
        inside = False
        for u in self.units:
            if u is u1:
                inside = True
                continue
            if u is u2:
                break
            if inside:
                parts.append(u.text)
        parts.append(u2.text[:end2])
        return "".join(parts)


@dataclass
class Alignment:
    """One witness stream aligned to the base key."""

    stream: Stream
    bstart: int
    bend: int
    # non-equal ops in base coordinates: (i1, i2, j1, j2) with i2 > i1
    ops: list[tuple[int, int, int, int]]
    # for each base position in [bstart, bend): the witness key span aligned to it
    js: list[int] = field(default_factory=list)
    je: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = self.bend - self.bstart
        js = list(range(n))
        je = list(range(1, n + 1))
        # equal runs shift by the ops before them
        shift = 0
        k = 0
        ops = sorted(self.ops)
        i = 0
        while i < n:
            b = self.bstart + i
            if k < len(ops) and ops[k][0] == b:
                i1, i2, j1, j2 = ops[k]
                js[i], je[i] = j1, j2
                for t in range(i + 1, i2 - self.bstart):
                    js[t] = je[t] = j2
                shift = j2 - (i2 - self.bstart)
                i = i2 - self.bstart
                k += 1
                continue
            js[i], je[i] = i + shift, i + shift + 1
            i += 1
        self.js, self.je = js, je


@dataclass
class Base:
    """The base witness: key, map back to its clause units, clause ranges in the key (the base
    witness's units until the clause division, :mod:`.clauses`, replaces them)."""

    wit: str
    key: str
    pos: list[tuple[SourceUnit, int]]
    clauses: list[tuple[int, int, SourceUnit]]


#: A clause division: (base, alignments, site ranges) → clauses (start, end, base unit of the start).
Divide = Callable[[Base, list[Alignment], list[tuple[int, int]]], list[tuple[int, int, SourceUnit]]]


@dataclass
class Collation:
    """The result: base, alignments, sites and the learned private-use code points."""

    base: Base
    alignments: list[Alignment]
    sites: list[Site]
    pua: dict[str, dict[str, object]] = field(default_factory=dict)
    coverage: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    superseded: list[dict[str, object]] = field(default_factory=list)
    #: witness paragraphs not found in the base (source, line, reason), left out and reported
    unlocated: list[dict[str, object]] = field(default_factory=list)

    def pieces(self, a: int, b: int) -> Iterator[str | Site]:
        """The reading text of base-key range ``[a, b)``: runs of base characters, and the sites
        (whose chosen reading stands there). A site belongs to the range where it starts, so that
        ranges that tile the text give pieces that concatenate to the whole reading text."""
        buf: list[str] = []
        for _i, x in self.walk(a, b):
            if isinstance(x, str):
                buf.append(x)
                continue
            if buf:
                yield "".join(buf)
                buf = []
            yield x
        if buf:
            yield "".join(buf)

    def walk(self, a: int, b: int) -> Iterator[tuple[int, str | Site]]:
        """The reading text of ``[a, b)`` one step at a time: ``(offset, base character)`` or
        ``(offset, site)`` (see :meth:`pieces` for which range a site belongs to)."""
        sites = self.sites
        k = bisect.bisect_left([s.start for s in sites], a)
        i = a
        if k > 0 and sites[k - 1].end > a:  # given to the range before
            i = max(i, sites[k - 1].end)
        while i < b:
            if k < len(sites) and sites[k].start == i:
                yield i, sites[k]
                i = max(i + 1, sites[k].end)
                k += 1
                continue
            if k < len(sites) and sites[k].start < i:
                k += 1
                continue
            u, o = self.base.pos[i]
            yield i, key_char_text(u, o)
            i += 1

    def witness_alignments(self, wit: str) -> list[Alignment]:
        """The alignments of ``wit``'s paragraphs to the base key; for the base witness itself
        (a 注疏 base, whose 注 and 疏 are anchored by its own 經) one identity alignment per
        paragraph (``meta["para"]``) of its units."""
        if wit != self.base.wit:
            return [al for al in self.alignments if al.stream.wit == wit]
        out: list[Alignment] = []
        pos = self.base.pos
        a = 0
        while a < len(pos):
            para = pos[a][0].meta.get("para", 0)
            b = a
            while b < len(pos) and pos[b][0].meta.get("para", 0) == para:
                b += 1
            units = _distinct([u for u, _o in pos[a:b]])
            out.append(Alignment(Stream(wit, int(para), self.base.key[a:b], pos[a:b], units), a, b, []))
            a = b
        return out

    def reading_key_map(self, wit: str | None = None) -> tuple[str, list[int]]:
        """The key of the reading text, and for each of its characters the base-key offset. With
        ``wit``, the text as that witness reads it: its own reading at each site where it has
        one, the reading text elsewhere."""
        out: list[str] = []
        where: list[int] = []
        i = 0
        for s in self.sites:
            out.append(self.base.key[i : s.start])
            where.extend(range(i, s.start))
            k = s.lem_key
            if wit is not None:
                k = next((r.key for r in s.readings if r.wit == wit and r.status == "reading"), k)
            out.append(k)
            where.extend([s.start] * len(k))
            i = max(i, s.end)
        out.append(self.base.key[i:])
        where.extend(range(i, len(self.base.key)))
        return "".join(out), where


def _distinct(units: list[SourceUnit]) -> list[SourceUnit]:
    """``units`` without repeats (by identity), in order."""
    seen: set[int] = set()
    out = []
    for u in units:
        if id(u) not in seen:
            seen.add(id(u))
            out.append(u)
    return out


#: A tie between readings is one of unrelated passages when the longer has at least this many
#: characters and the two share at most a third of them (:func:`_unrelated`).
UNRELATED_MIN = 8


def _unrelated(keys: list[str]) -> bool:
    """Whether tied readings are not variants of one passage: the longest has
    :data:`UNRELATED_MIN` characters or more and shares at most a third of them with each other
    reading (an omission of a whole passage shares none)."""
    longest = max(keys, key=len)
    if len(longest) < UNRELATED_MIN:
        return False
    for k in keys:
        if k is longest:
            continue
        same = sum(b.size for b in difflib.SequenceMatcher(None, longest, k, autojunk=False).get_matching_blocks())
        if same * 3 > len(longest):
            return False
    return True


def _unit_key(norm: Normaliser, u: SourceUnit) -> tuple[str, list[int]]:
    return norm.key_map(u.text, u.meta.get("skips", ()))


def build_base(parsed: ParsedSource, norm: Normaliser) -> Base:
    """The base key from the clause units of the base witness."""
    key: list[str] = []
    pos: list[tuple[SourceUnit, int]] = []
    clauses = []
    for u in parsed.units:
        if u.kind != "text":
            continue
        k, idx = _unit_key(norm, u)
        a = len(key)
        key.extend(k)
        pos.extend((u, i) for i in idx)
        clauses.append((a, len(key), u))
    return Base(parsed.id, "".join(key), pos, clauses)


def witness_streams(parsed: ParsedSource, norm: Normaliser) -> list[Stream]:
    """The 经/记 paragraphs of a witness as key streams (units grouped by ``meta['para']``)."""
    groups: dict[int, list[SourceUnit]] = defaultdict(list)
    order: list[int] = []
    for u in parsed.units:
        if u.kind != "text":
            continue
        p = int(u.meta.get("para", 0))
        if p not in groups:
            order.append(p)
        groups[p].append(u)
    streams = []
    for p in order:
        key: list[str] = []
        pos: list[tuple[SourceUnit, int]] = []
        for u in groups[p]:
            k, idx = _unit_key(norm, u)
            key.extend(k)
            pos.extend((u, i) for i in idx)
        streams.append(Stream(parsed.id, p, "".join(key), pos, groups[p]))
    return streams


def _locate(
    base_key: str, grams: dict[str, list[int]], key: str, hint: int = 0, n: int = 4
) -> int | None:
    """Offset of ``key`` in ``base_key`` by 4-gram offset voting.

    Among offsets with nearly the best vote, the one nearest after ``hint`` (where the witness's
    previous paragraph ended) wins, so that a short paragraph repeating words of its neighbour is
    put in its place.
    """
    votes: Counter[int] = Counter()
    for j in range(len(key) - n + 1):
        for i in grams.get(key[j : j + n], ()):
            votes[i - j] += 1
    if not votes:
        return None
    top = max(votes.values())
    if top < max(2, (len(key) - n + 1) // 5):
        return None
    good = [o for o, c in votes.items() if c >= top * 0.6]
    after = [o for o in good if o >= hint - 8]
    return min(after or good, key=lambda o: (abs(o - hint), -votes[o]))


def _near(base_key: str, key: str, hint: int, window: int = 400) -> int | None:
    """Where a short ``key`` stands near ``hint`` with at most one differing character (a
    placeholder matches any character): the nearest such place after ``hint``."""
    n = len(key)
    for s in range(max(0, hint - 8), min(len(base_key) - n, hint + window) + 1):
        d = sum(1 for a, b in zip(base_key[s:s + n], key, strict=True)
                if a != b and not is_placeholder(a) and not is_placeholder(b))
        if d <= 1 and n >= 3:
            return s
    return None


def align_stream(
    base: Base, grams: dict[str, list[int]], st: Stream, hint: int = 0
) -> Alignment | None:
    """Align one witness stream to the base key, or None if it is not found there.

    ``hint`` is where the witness's previous paragraph ended: a short paragraph (fewer than
    eight characters) is looked for from there on.
    """
    if len(st.key) < 8:
        at = base.key.find(st.key, max(0, hint - 8))
        off = at if at >= 0 else _near(base.key, st.key, hint)
    else:
        off = _locate(base.key, grams, st.key, hint)
    if off is None:
        return None
    bstart = off
    bend = off + len(st.key)
    if len(st.key) >= 16:
        # the end may have drifted by the witness's insertions and omissions: vote on the tail
        tail = st.key[-12:]
        d_end = _locate(base.key, grams, tail, off + len(st.key) - 12)
        if d_end is not None and abs(d_end + 12 - bend) <= max(8, len(st.key) // 20):
            bend = d_end + 12
    # a little room either side; base characters the witness lacks at the edges are trimmed
    bstart, bend = max(0, bstart - 6), min(len(base.key), bend + 6)
    sm = difflib.SequenceMatcher(None, base.key[bstart:bend], st.key, autojunk=False)
    codes = sm.get_opcodes()
    # trim base characters at either edge that the witness does not have (window too wide)
    if codes and codes[0][0] == "delete":
        bstart += codes[0][2]
    elif codes and codes[0][0] == "replace" and len(codes) > 1:
        _t, i1, i2, j1, j2 = codes[0]
        want = _span_len(st.key[j1:j2])
        if i2 - i1 > want:  # the window's extra characters before the paragraph are not its reading
            bstart += (i2 - i1) - want
    if codes and codes[-1][0] == "delete" and len(codes) > 1:
        bend -= codes[-1][2] - codes[-1][1]
    elif codes and codes[-1][0] == "replace" and len(codes) > 1:
        _t, i1, i2, j1, j2 = codes[-1]
        want = _span_len(st.key[j1:j2])
        if i2 - i1 > want:
            bend -= (i2 - i1) - want
    sm = difflib.SequenceMatcher(None, base.key[bstart:bend], st.key, autojunk=False)
    ops = []
    n = bend - bstart
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2:  # insertion: attach to the base character before (or after, at the start)
            if i1 > 0:
                i1 -= 1
                j1 -= 1
            elif i2 < n:
                i2 += 1
                j2 += 1
            else:
                continue
        ops.append((bstart + i1, bstart + i2, j1, j2))
    ops = _merge_touching(ops)
    return Alignment(st, bstart, bend, ops)


def _span_len(wkey: str) -> int:
    """How many base characters a witness key span stands for: a run of placeholders is one."""
    n = 0
    prev_ph = False
    for c in wkey:
        ph = is_placeholder(c)
        if not (ph and prev_ph):
            n += 1
        prev_ph = ph
    return n


def _merge_touching(ops: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    ops.sort()
    out: list[tuple[int, int, int, int]] = []
    for op in ops:
        if out and op[0] < out[-1][1]:
            a = out[-1]
            out[-1] = (a[0], max(a[1], op[1]), min(a[2], op[2]), max(a[3], op[3]))
        else:
            out.append(op)
    return out


def _reading(al: Alignment, s: int, e: int) -> tuple[str, int, int]:
    """The witness's key reading for base range [s, e), with its key span (j1, j2)."""
    j1 = al.js[s - al.bstart]
    j2 = al.je[e - 1 - al.bstart]
    return al.stream.key[j1:j2], j1, j2


class Collator:
    """Collates the witnesses; see the module docstring for the rules."""

    def __init__(
        self,
        parsed: dict[str, ParsedSource],
        base_id: str,
        rank: dict[str, int],
        norm: Normaliser,
        emendations: list[dict[str, str]] | None = None,
    ) -> None:
        self.parsed = parsed
        self.norm = norm
        self.rank = rank
        self.base = build_base(parsed[base_id], norm)
        self.emendations = emendations or []
        #: emendation rows that a witness now attests (the collation decides there instead)
        self.superseded: list[dict[str, object]] = []
        #: witness paragraphs not found in the base (reported, left out)
        self.unlocated: list[dict[str, object]] = []
        self.repertoire = {
            sid: set(norm.key(p.text)) for sid, p in parsed.items()
        }
        self._attest: list[str] | None = None

    # -- attestation --------------------------------------------------------------------------
    def _attestation_texts(self) -> list[str]:
        if self._attest is None:
            texts = []
            for p in self.parsed.values():
                for u in p.units:
                    if u.kind != "text":
                        texts.append(_unit_key(self.norm, u)[0])
            self._attest = texts
        return self._attest

    def _count(self, pattern: str, masked: list[str]) -> int:
        if not pattern:
            return 0
        return sum(t.count(pattern) for t in self._attestation_texts()) + sum(
            t.count(pattern) for t in masked
        )

    def attestation(self, s: int, e: int, cands: list[str], als: list[Alignment]) -> list[tuple[int, ...]]:
        """Per candidate: attestation counts at context 2 and context 1."""
        K = self.base.key
        masked = [K[: max(0, s - 3)] + "|" + K[e + 3 :]]
        for al in als:
            _r, j1, j2 = _reading(al, max(s, al.bstart), min(e, al.bend))
            k = al.stream.key
            masked.append(k[: max(0, j1 - 3)] + "|" + k[j2 + 3 :])
        # context: up to two characters either side, not beyond the base clause
        c0, c1 = self._clause_bounds(s, e)
        L, R = K[max(c0, s - 2) : s], K[e : min(c1, e + 2)]
        scores = []
        for r in cands:
            t1 = [L[-2:] + r, L[-1:] + r + R[:1], r + R[:2]]
            t2 = [L[-1:] + r, r + R[:1]] if r else [L[-1:] + R[:1]]
            scores.append(
                (sum(self._count(p, masked) for p in t1 if len(p) >= 2),
                 sum(self._count(p, masked) for p in t2 if len(p) >= 2))
            )
        return scores

    def _clause_bounds(self, s: int, e: int) -> tuple[int, int]:
        lo, hi = 0, len(self.base.key)
        for a, b, _u in self.base.clauses:
            if a <= s < b or (s == b and e == b):
                lo = a
            if a < e <= b:
                hi = b
                break
        return lo, hi

    # -- collation ------------------------------------------------------------------------------
    def run(self, divide: Divide | None = None) -> Collation:
        """Align every witness to the base, then collate: the sites, their readings and choices.

        ``divide`` (:meth:`.clauses.ClauseDivider.divide`), given the base, the alignments and the
        ranges where witnesses differ, returns the clauses of the reading text, which then replace
        the base witness's own (sites are cut at clause starts).
        """
        K = self.base.key
        grams: dict[str, list[int]] = defaultdict(list)
        for i in range(len(K) - 3):
            grams[K[i : i + 4]].append(i)
        alignments: list[Alignment] = []
        for sid, p in self.parsed.items():
            if sid == self.base.wit:
                continue
            hint = 0
            for st in witness_streams(p, self.norm):
                al = align_stream(self.base, grams, st, hint)
                if al is None:
                    # reported and left out of the collation (its characters stay unplaced), not
                    # a stop: one paragraph of another witness the base lacks, or writes in forms
                    # the variant table does not fold yet (斂旜, 㝛 in other chapters)
                    u = st.units[0]
                    self.unlocated.append({
                        "source": sid, "line": u.line,
                        "reason": f"witness paragraph {st.para} ({st.key[:12]}…) is not found in the base "
                                  f"text {self.base.wit}: left out of the collation"})
                    continue
                alignments.append(al)
                hint = al.bend
        # sites: union of the ranges where some witness differs
        ranges = sorted(
            (i1, i2, id(al)) for al in alignments for (i1, i2, _j1, _j2) in al.ops
        )
        merged: list[list[int]] = []
        owners: list[set[int]] = []
        for a, b, who in ranges:
            # overlapping ranges are one site; so are two changes of one witness one character
            # apart (a transposition: 皆降 for 降阶)
            if merged and (a < merged[-1][1] or (a - merged[-1][1] <= 1 and who in owners[-1])):
                merged[-1][1] = max(merged[-1][1], b)
                owners[-1].add(who)
            else:
                merged.append([a, b])
                owners.append({who})
        if divide is not None:
            self.base.clauses = divide(self.base, alignments, [(a, b) for a, b in merged])
        # a site never crosses a clause boundary of the base (each clause holds its own readings;
        # a witness's omission of several clauses is an empty reading in each)
        starts = [a for a, _b, _u in self.base.clauses]
        sites = []
        for a, b in merged:
            cuts = starts[bisect.bisect_right(starts, a):bisect.bisect_left(starts, b)]
            for x, y in zip([a, *cuts], [*cuts, b], strict=True):
                st = self._site(x, y, alignments)
                if len({r.key for r in st.readings}) > 1:
                    sites.append(st)
        sites = self._apply_emendations(sites, alignments)
        col = Collation(self.base, alignments, sites, superseded=self.superseded, unlocated=self.unlocated)
        col.pua = self._learn_placeholders(sites)
        for al in alignments:
            col.coverage.setdefault(al.stream.wit, []).append((al.bstart, al.bend))
        return col

    def _site(self, s: int, e: int, alignments: list[Alignment]) -> Site:
        base_u = self.base.pos[s][0]
        K = self.base.key
        covering = [al for al in alignments if al.bstart <= s and e <= al.bend]
        readings = [
            Reading(self.base.wit, K[s:e], self._base_dip(s, e), *_line_col(*self.base.pos[s]),
                    spans=self._base_spans(s, e))
        ]
        for al in covering:
            k, j1, j2 = _reading(al, s, e)
            line, colno = al.stream.loc(j1)
            src = self.parsed[al.stream.wit].text
            spans = al.stream.spans(j1, j2, src)
            dip = "".join(without_layout(src[a:b]) for a, b in spans) if spans else ""
            readings.append(Reading(al.stream.wit, k, dip, line, colno, spans=spans))
        for r in readings:
            r.status = self._status(r, readings)
        voting = [r for r in readings if r.status == "reading"]
        groups: dict[str, list[Reading]] = defaultdict(list)
        for r in voting:
            groups[r.key].append(r)
        if not groups:
            raise DataError(f"no witness has a readable text at base offset {s}", self.parsed[self.base.wit].path, base_u.line)
        kind = "variant" if len(groups) > 1 else "restored"
        if len(groups) == 1:
            chosen = next(iter(groups))
            silent = [r for r in readings if r.status != "reading"]
            why = ", ".join(
                f"{r.wit} has {'an unencoded character' if r.status == 'placeholder' else 'lost the character'}"
                for r in silent
            )
            rule = f"restored from {'+'.join(r.wit for r in groups[chosen])} ({why})"
        else:
            chosen, rule = self._choose(s, e, groups, covering)
        wits = groups[chosen]
        lemma = self._lemma_text(chosen, wits)
        return Site(s, e, kind, lemma, chosen, [r.wit for r in wits], readings, rule)

    def _base_spans(self, s: int, e: int) -> list[tuple[int, int]]:
        """The file offsets of base key chars ``s`` to ``e - 1``: one span per run of adjacent
        characters (a site over a clause mark of the base that the clause division overruled
        quotes the characters either side)."""
        return key_spans(self.base.pos[s:e])

    def _base_dip(self, s: int, e: int) -> str:
        """The base witness's text of key chars ``s`` to ``e - 1``: what its spans quote."""
        src = self.parsed[self.base.wit].text
        return "".join(without_layout(src[a:b]) for a, b in self._base_spans(s, e))

    def _status(self, r: Reading, readings: list[Reading]) -> str:
        if any(is_placeholder(c) for c in r.key):
            return "placeholder"
        rep = self.repertoire.get(r.wit, set())
        for other in readings:
            if other is r or other.key == r.key:
                continue
            if any(is_placeholder(c) for c in other.key):
                continue
            missing = [c for c in other.key if c not in rep]
            if missing and "".join(c for c in other.key if c in rep) == r.key:
                return "lacuna"
        return "reading"

    def _choose(
        self, s: int, e: int, groups: dict[str, list[Reading]], covering: list[Alignment]
    ) -> tuple[str, str]:
        total = sum(len(v) for v in groups.values())
        ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        top = len(ranked[0][1])
        tied = [k for k, v in ranked if len(v) == top]
        if len(tied) == 1:
            return tied[0], f"majority ({top} of {total} witnesses)"
        if _unrelated(tied):
            # not two readings of one passage: a passage one witness lacks (丧服's 传 in niutrans
            # 11) or has elsewhere, which the alignment set against it; attestation would count
            # words of another place, so the rank decides
            best = min(tied, key=lambda k: min(self.rank.get(r.wit, 99) for r in groups[k]))
            w = min(groups[best], key=lambda r: self.rank.get(r.wit, 99)).wit
            return best, (f"tie {top}:{top} between unrelated readings (a passage one witness lacks or has "
                          f"elsewhere); witness rank ({w} ranks highest)")
        scores = self.attestation(s, e, tied, covering)
        for tier, ctx in ((0, 2), (1, 1)):
            vals = [sc[tier] for sc in scores]
            best = max(vals)
            if vals.count(best) == 1:
                k = tied[vals.index(best)]
                detail = ", ".join(f"{c or '∅'} {v}" for c, v in zip(tied, vals, strict=True))
                return k, f"tie {top}:{top}; attestation elsewhere in the corpus with {ctx} character(s) of context ({detail})"
        best_rank = min(tied, key=lambda k: min(self.rank.get(r.wit, 99) for r in groups[k]))
        w = min(groups[best_rank], key=lambda r: self.rank.get(r.wit, 99)).wit
        return best_rank, f"tie {top}:{top}, no attestation decides; witness rank ({w} ranks highest)"

    def _lemma_text(self, key: str, wits: list[Reading]) -> str:
        """The reading-text form of the chosen reading: the base's if it has it, else the
        highest-ranked witness's, without punctuation and folded to simplified script."""
        for r in wits:
            if r.wit == self.base.wit:
                return "".join(c for c in r.text if is_text_char(c))
        best = min(wits, key=lambda r: self.rank.get(r.wit, 99))
        return "".join(t2s_char(c) for c in best.text if is_text_char(c))

    # -- emendations ----------------------------------------------------------------------------
    def _apply_emendations(self, sites: list[Site], alignments: list[Alignment]) -> list[Site]:
        K = self.base.key
        for row in self.emendations:
            ctx, sic, corr = self.norm.key(row["context"]), self.norm.key(row["sic"]), row["corr"]
            at = K.find(ctx)
            if at < 0 or K.find(ctx, at + 1) >= 0:
                raise DataError(
                    f"emendation context {row['context']!r} must occur exactly once in the base text "
                    f"({'not found' if at < 0 else 'found more than once'})", row["_file"], int(row["_line"]),
                )
            k = ctx.find(sic)
            if k < 0:
                raise DataError(f"emendation: sic {row['sic']!r} is not in its context", row["_file"], int(row["_line"]))
            s, e = at + k, at + k + len(sic)
            existing = [st for st in sites if st.start < e and s < st.end]
            site = self._site(min([s] + [x.start for x in existing]), max([e] + [x.end for x in existing]), alignments)
            before = K[site.start : s]
            after = K[e : site.end]
            want = before + self.norm.key(corr) + after
            having = [r.wit for r in site.readings if r.status == "reading" and r.key == want]
            if having:  # a witness has the reading: the collation decides, the row is no longer needed
                self.superseded.append({"file": row["_file"], "line": int(row["_line"]), "corr": corr,
                                        "witnesses": having})
                continue
            for st in existing:
                sites.remove(st)
            site.kind = "emendation"
            site.sic = site.lem
            site.lem = before + corr + after
            site.lem_key = self.norm.key(site.lem)
            site.lem_wits = []
            table = Path(row["_file"]).resolve()  # FOLDER/emendations.tsv: the corpus folder's own name
            site.rule = f"emendation ({table.parent.name}/{table.name}): no witness has the right reading"
            site.evidence = row["evidence"]
            sites.append(site)
        sites.sort(key=lambda x: x.start)
        return sites

    # -- private-use code points ----------------------------------------------------------------
    def _learn_placeholders(self, sites: list[Site]) -> dict[str, dict[str, object]]:
        learned: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        where: dict[tuple[str, str], list[str]] = defaultdict(list)
        for st in sites:
            for r in st.readings:
                if r.status != "placeholder":
                    continue
                # the placeholder stands for the chosen characters the witness lacks
                rest = [c for c in r.key if not is_placeholder(c)]
                target = list(st.lem_key)
                for c in rest:
                    if c in target:
                        target.remove(c)
                learned[(r.wit, r.key)][
                    "".join(target) if len(target) <= 2 else st.lem_key
                ] += 1
                where[(r.wit, r.key)].append(f"{r.line}:{r.col}")
        out: dict[str, dict[str, object]] = {}
        for (wit, seq), cnt in sorted(learned.items()):
            ch, n = cnt.most_common(1)[0]
            out[f"{wit}:{seq}"] = {
                "witness": wit,
                "sequence": seq,
                "codepoints": " ".join(f"U+{ord(c):04X}" if is_placeholder(c) else c for c in seq),
                "character": ch,
                "count": n,
                "consistent": len(cnt) == 1,
                "where": where[(wit, seq)],
            }
        return out


def load_emendations(path: Path | str) -> list[dict[str, str]]:
    """Read ``corpus/emendations.tsv``: context, sic, corr, evidence (``#`` comments)."""
    p = Path(path)
    rows = []
    header = ["context", "sic", "corr", "evidence"]
    for i, cells in read_table(p, header, "emendation table"):
        if len(cells) < 4 or not all(c.strip() for c in cells[:4]):
            raise DataError("emendation row needs context, sic, corr and evidence", str(p), i)
        row = dict(zip(header, cells, strict=False))
        row["_file"] = str(p)
        row["_line"] = str(i)
        rows.append(row)
    return rows
