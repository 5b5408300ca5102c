"""郑注 and 贾疏 → the 经 words they belong to.

* A 注 follows the 经 words it explains: it is anchored to the span of the 经 pieces before it
  (from the previous 注, or the paragraph start, to the note), in base-key offsets; its point is
  the end of that span. A 注 with no 经 between it and the previous one shares its span.
* A [疏] block names its lemma range ``“X”至“Y”`` (or ``“X”``): it is resolved to the 经 span that
  starts with X and ends with Y, in keys, where the witness's unencoded characters (learned by the
  collation: U+E7A1 = 适 …) are read as what they stand for. Y is looked for in the block's own
  paragraph (the 疏 follows the 经 it comments on), X is the nearest occurrence before it that is
  not before the previous block's start. A range that cannot be matched so is resolved by position
  (the block's paragraph) and reported with the reason, never silently.
* ``注“X”至“Y”`` (a [疏] on the 注 only) and the ``○注“X”至“Y”`` parts are resolved to the 注 units
  of the paragraph whose key starts with X and ends with Y.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import GETA, SourceUnit, is_private_use, is_text_char
from ..text.collate import Alignment, Collation
from ..text.normalise import Normaliser


@dataclass
class Span:
    """A base-key span ``[start, end)`` of the reading text."""

    start: int
    end: int


@dataclass
class ZhuSite:
    """A place where two witnesses of one 注 differ: offsets ``[a, b)`` in each unit's text."""

    a: int
    b: int
    other_a: int
    other_b: int
    rule: str


@dataclass
class ZhuAnchor:
    """A 注 and the 经 words it follows; where a second witness has the same 注, its unit
    (``other``) and the places where the two differ (``sites``, in the words of each)."""

    unit: SourceUnit
    span: Span
    other: SourceUnit | None = None
    sites: list[ZhuSite] = field(default_factory=list)

    @property
    def point(self) -> int:
        """Where the 注 stands: the last 经 character it follows (base-key offset). Its section
        is the one it belongs to, though the 经 since the previous 注 may begin in another."""
        return max(self.span.start, self.span.end - 1)


@dataclass
class ShuAnchor:
    """A 疏 block: its units, the 经 span its lemma names, and the 注 it discusses (if any)."""

    block: int
    units: list[SourceUnit]
    form: str  # “X”至“Y” | “X” | 注“X”至“Y” | 注“X”
    lemma: tuple[str, str | None]
    jing: Span | None
    zhu: list[SourceUnit] = field(default_factory=list)
    zhu_parts: list[tuple[SourceUnit, list[SourceUnit]]] = field(default_factory=list)
    how: str = "exact"
    reason: str = ""
    #: the 疏's own division (``自此至X論Y``): {"verb", "to", "title", "words"} where its 釋曰 part names one
    division: dict[str, str] | None = None
    #: another witness's blocks of the same 疏 (16–22: w003's, merged into the 四库 copy's), the
    #: file offset of each character of their text (lemmas left out), and where the two differ
    other: list[ShuAnchor] = field(default_factory=list)
    other_text: str = ""
    other_offsets: list[int] = field(default_factory=list)
    sites: list[ZhuSite] = field(default_factory=list)
    similarity: float = 1.0
    #: where the block (or a block collated into it) quotes the 注 or 经 in other words
    #: (:mod:`yili_corpus.align.quotations`)
    findings: list[Any] = field(default_factory=list)


class WitnessMap:
    """Witness key index → base key offset, for one aligned stream."""

    def __init__(self, al: Alignment) -> None:
        self.al = al
        n = len(al.stream.key)
        self.to_base = [al.bstart] * n
        for i in range(al.bend - al.bstart):
            for j in range(al.js[i], al.je[i]):
                if j < n:
                    self.to_base[j] = al.bstart + i
        self.index: dict[int, list[int]] = {}
        for j, (u, _o) in enumerate(al.stream.pos):
            self.index.setdefault(id(u), []).append(j)

    def span_of(self, u: SourceUnit) -> Span | None:
        js = self.index.get(id(u))
        if not js:
            return None
        return Span(self.to_base[js[0]], self.to_base[js[-1]] + 1)


def pua_reader(col: Collation, wit: str) -> Callable[[str], str]:
    """A key reader that replaces a witness's unencoded sequences by the characters the
    collation learned for them (U+E7A1 = 适 …), longest first."""
    return _substituter(col, wit)


def _substituter(col: Collation, wit: str):  # type: ignore[no-untyped-def]
    """Replace a witness's learned unencoded sequences by their characters (longest first)."""
    table = sorted(
        ((v["sequence"], v["character"]) for v in col.pua.values() if v["witness"] == wit),
        key=lambda kv: -len(kv[0]),
    )

    def sub(key: str) -> str:
        for seq, ch in table:
            key = key.replace(seq, ch)
        return key

    return sub


def anchor_commentary(
    col: Collation, units: list[SourceUnit], norm: Normaliser, reading_key: str, rmap: list[int]
) -> tuple[list[ZhuAnchor], list[ShuAnchor]]:
    """Anchor the 注 and 疏 units of one 注疏 witness (all ``units`` from one source)."""
    if not units:
        return [], []
    wit = units[0].source
    maps = {al.stream.para: WitnessMap(al) for al in col.witness_alignments(wit)}
    sub = _substituter(col, wit)
    pieces = {(u.meta["para"], u.meta["piece"]): u for u in units if u.kind == "text"}
    zhus: list[ZhuAnchor] = []
    zhu_by_para: dict[int, list[SourceUnit]] = {}
    prev: Span | None = None
    for u in units:
        if u.kind != "zhu":
            continue
        para = u.meta["para"]
        zhu_by_para.setdefault(para, []).append(u)
        # the 经 pieces the 注 follows: one (the 注疏 format), or all since the previous 注 (the
        # 四库 layout, where 音義 may stand inside the 经 a 注 explains); none: a second 注 on
        # the same words
        after = u.meta["after_pieces"] if "after_pieces" in u.meta else [u.meta["after_piece"]]
        spans = [
            sp for k in after if (pc := pieces.get((para, k))) is not None and para in maps
            and (sp := maps[para].span_of(pc)) is not None
        ]
        sp = Span(min(x.start for x in spans), max(x.end for x in spans)) if spans else prev
        if sp is None:
            continue
        prev = sp
        zhus.append(ZhuAnchor(u, sp))
    zhu_keys = {id(u): sub(norm.key(u.text)) for us in zhu_by_para.values() for u in us}
    if any(u.kind == "shu" and "parts" in u.meta for u in units):
        return zhus, _shu_by_position(units, maps, zhus)

    # 疏 blocks
    blocks: dict[int, list[SourceUnit]] = {}
    for u in units:
        if u.kind == "shu":
            blocks.setdefault(u.meta["block"], []).append(u)
    shus: list[ShuAnchor] = []
    prev_start = 0
    prev_end = 0
    para_span = {p: Span(m.al.bstart, m.al.bend) for p, m in maps.items()}
    for b, bu in sorted(blocks.items()):
        head = bu[0]
        para = head.meta["para"]
        x, y = head.meta["lemma_from"], head.meta.get("lemma_to")
        target = head.meta.get("target", "jing")
        form = ("注" if target == "zhu" else "") + (f"“{x}”至“{y}”" if y else f"“{x}”")
        form_name = ("注" if target == "zhu" else "") + ("“X”至“Y”" if y else "“X”")
        sa = ShuAnchor(b, bu, form_name, (x, y), None)
        ps = para_span.get(para)
        if target == "zhu":
            sa.zhu = _zhu_range(zhu_by_para.get(para, []), zhu_keys, sub(norm.key(x)), sub(norm.key(y)) if y else None)
            if sa.zhu:
                sp = [z.span for z in zhus if z.unit in sa.zhu]
                sa.jing = Span(min(s.start for s in sp), max(s.end for s in sp)) if sp else ps
                sa.how = "exact"
            else:
                sa.jing, sa.how = ps, "by position"
                sa.reason = f"no 注 of paragraph {para} matches {form}"
        else:
            sa.jing, sa.how, sa.reason = _resolve_jing(
                col, reading_key, rmap, sub(norm.key(x)), sub(norm.key(y)) if y else None, ps, prev_start, form,
                prev_end,
            )
        for part in bu[1:]:
            if part.meta.get("role") == "zhu_lemma":
                px, py = part.meta["lemma_from"], part.meta.get("lemma_to")
                got = _zhu_range(zhu_by_para.get(para, []), zhu_keys, sub(norm.key(px)), sub(norm.key(py)) if py else None)
                sa.zhu_parts.append((part, got))
                if not sa.zhu:
                    sa.zhu = got
        if sa.jing is not None:
            prev_start = sa.jing.start
            prev_end = max(prev_end, sa.jing.end)
        shus.append(sa)
    return zhus, shus


def _shu_by_position(units: list[SourceUnit], maps: dict[int, WitnessMap],
                     zhus: list[ZhuAnchor]) -> list[ShuAnchor]:
    """Anchor the 疏 blocks of the 四库 layout by where they stand: a block follows the 经 (and 注,
    音義) it comments on, so its 釋曰 part covers the 经 pieces since the previous block and its
    注釋曰 part the 注 units since the previous block. A block with no 经 since the previous one
    (a 疏 on the 注 only) takes the span of the 注 it explains; with neither, the previous block's
    span. The evidence that decided is the anchor's ``reason``."""
    zspan = {id(z.unit): z.span for z in zhus}
    out: list[ShuAnchor] = []
    jing: list[Span] = []
    zs: list[SourceUnit] = []
    prev: Span | None = None
    for u in units:
        if u.kind == "text":
            m = maps.get(u.meta["para"])
            sp = m.span_of(u) if m is not None else None
            if sp is not None:
                jing.append(sp)
        elif u.kind == "zhu":
            zs.append(u)
        elif u.kind == "shu":
            kinds = [str(p["kind"]) for p in u.meta["parts"]]
            zsp = [zspan[id(z)] for z in zs if id(z) in zspan]
            if jing:
                sp = Span(min(x.start for x in jing), max(x.end for x in jing))
                why = f"its place: after the 经 since 疏 {u.meta['n'] - 1}" if u.meta["n"] > 1 else "its place: after the 经 from the start"
            elif zsp:
                sp = Span(min(x.start for x in zsp), max(x.end for x in zsp))
                why = "its place: no 经 since the previous 疏, the span of the 注 it follows"
            else:
                sp = prev
                why = "its place: nothing since the previous 疏, whose span it shares"
            if zs:
                why += f"; 注 {', '.join(str(z.meta['n']) for z in zs)} between the previous 疏 and it"
            div = _division(str(u.meta["text"]), u.meta["parts"])
            sa = ShuAnchor(int(u.meta["n"]), [u], "position", ("", None), sp, zhu=list(zs) if "zhu" in kinds else [],
                           how="position", reason=why)
            if div is not None:
                sa.division = div
                sa.reason += f"; its 釋曰 names the 疏's own section: {div['words']}"
            out.append(sa)
            prev = sp if sp is not None else prev
            jing, zs = [], []
    return out


#: The 疏's own division at the head of a 釋曰 part: 自此至X論Y, 自此盡X論Y, 自此以下至X論Y,
#: 此已下論Y (to the next division).
DIVISION_RE = re.compile(r"(?:自此|此)(?:[以已]下)?(?:(至|盡)(.{1,20}?))?論(.{1,40}?)(?:之事|之法|之義|事)")


def _division(text: str, parts: list[dict[str, object]]) -> dict[str, str] | None:
    """The division a 疏 block's 釋曰 part names at its head, or None."""
    for p in parts:
        if p["kind"] != "jing":
            continue
        a = int(str(p["start"]))
        m = DIVISION_RE.search(text, a, int(str(p["end"])))
        if m and m.start() - a <= 4:
            return {"verb": m.group(1) or "", "to": m.group(2) or "", "title": m.group(3),
                    "words": m.group(0)}
    return None


def _zhu_range(
    zhus: list[SourceUnit], keys: dict[int, str], x: str, y: str | None
) -> list[SourceUnit]:
    """The run of 注 units whose joined key starts with ``x`` (or, failing that, contains it)
    and ends with ``y``; one differing character in ``y`` is tolerated (偃犹什也 for 仆也)."""
    for exact_start in (True, False):
        for i, a in enumerate(zhus):
            k = keys[id(a)]
            if not (k.startswith(x) if exact_start else x in k):
                continue
            if y is None:
                return [a]
            joined = ""
            for j in range(i, len(zhus)):
                joined += keys[id(zhus[j])]
                if joined.endswith(y) or _one_off(joined[-len(y):], y):
                    return zhus[i : j + 1]
    return []


def _one_off(a: str, b: str) -> bool:
    return len(a) == len(b) >= 2 and sum(1 for p, q in zip(a, b, strict=True) if p != q) == 1


def _resolve_jing(
    col: Collation,
    rkey: str,
    rmap: list[int],
    x: str,
    y: str | None,
    para: Span | None,
    prev_start: int,
    form: str,
    prev_end: int = 0,
) -> tuple[Span | None, str, str]:
    """Resolve a 经 lemma range in the reading-text key (see module doc)."""
    if para is None:
        return None, "unresolved", f"{form}: its paragraph is not aligned"
    # reading-key offsets of the paragraph
    # rmap is non-decreasing: the first reading-key offset at or after a base offset is a bisection
    r0 = bisect.bisect_left(rmap, para.start)
    r1 = bisect.bisect_left(rmap, para.end)
    lo = bisect.bisect_left(rmap, prev_start)
    if lo == len(rmap):
        lo = 0
    if y is None:
        # “X”: the whole lemma, in the paragraph (or starting in it)
        i = rkey.find(x, r0, r1 + len(x))
        if i < 0:
            i = rkey.rfind(x, lo, r1)
        if i >= 0:
            return Span(rmap[i], rmap[i + len(x) - 1] + 1), "exact", ""
        return para, "by position", f"{form} not found in its paragraph; the paragraph is taken"
    # “X”至“Y”: Y ends inside the paragraph, X is the nearest before it (not before the previous block)
    best: tuple[int, int] | None = None
    j = rkey.rfind(y, r0, r1)
    if j >= 0:
        i = rkey.rfind(x, lo, j + 1)
        # a range covers its own passage: X is its first occurrence in the paragraph after the
        # previous block's end (“上射”至“并行” on 21.5 from 上射升堂, not the 上射 of 上射揖)
        first = rkey.find(x, max(r0, bisect.bisect_left(rmap, prev_end)), j + 1)
        if i >= 0:
            best = (i, j + len(y))
            if 0 <= first < i:
                best = (first, j + len(y))
                why = (f"{form}: X occurs {rkey.count(x, first, j + 1)} times before Y in the paragraph; "
                       "the first after the previous 疏's end is taken (a range covers its own passage)")
                return Span(rmap[first], rmap[best[1] - 1] + 1), "exact", why
    if best is not None:
        i, e = best
        return Span(rmap[i], rmap[e - 1] + 1), "exact", ""
    # by position: the paragraph, starting at X if it is there
    i = rkey.rfind(x, lo, r1)
    start = rmap[i] if i >= 0 else para.start
    missing = "Y" if j < 0 else "X"
    return (
        Span(min(start, para.start), para.end),
        "by position",
        f"{form}: {missing} does not occur where it should in the 经 (paragraph "
        f"{''.join(col.base.key[para.start:para.end])[:12]}…); resolved to the paragraph",
    )


def collate_shu(shu: list[ShuAnchor], norm: Normaliser, reads: dict[tuple[str, str], str] | None = None,
                ) -> tuple[list[ShuAnchor], list[dict[str, object]]]:
    """One 疏 from two witnesses: each block that names a lemma range (w003) is matched to the
    block of the 四库 copy at the same place (their 经 spans within :data:`SHU_WINDOW` characters)
    that says the same (most of the shorter text inside the longer, at least
    :data:`SHU_MIN_CONTAINED`; best pairs first). Each block of the lower-ranked witness is used
    once; a 四库 block may take several of them where they say different parts of it (w003 gives
    the 释曰 on the 经 and the one on the 注 as two blocks where the 四库 copy has one, 17.1's
    司马堂西 and 揖推之也). The 四库 block's reading stands (it ranks first); the other blocks'
    text, in their order, is collated into it as a 注 is (:func:`collate_zhu`), and their lemmas
    are kept as parts of their own. The part marks (:data:`PART_MARK`) are left out of the
    comparison, and a witness's unencoded sequences are read as the characters ``reads`` gives
    (``{(witness, sequence): character}``). A block without a counterpart stays as it is and is
    reported. Returns the 疏, merged, and the report lines."""
    siku = [s for s in shu if "parts" in s.units[0].meta]
    others = [s for s in shu if "parts" not in s.units[0].meta]
    if not siku or not others:
        return shu, []
    keys5 = {id(b): norm.key_map(str(b.units[0].meta["text"]), _part_marks(b.units[0])) for b in siku}
    # (ratio, contained, i, j, first, last): block i of the other witness in block j of the 四库
    # copy, where it matches [first, last) of its key
    cand: list[tuple[float, float, int, int, int, int]] = []
    bodies: dict[int, tuple[str, list[int], list[tuple[int, int, str]]]] = {}
    for i, a in enumerate(others):
        text, offs, marks = "", [], []
        for u in a.units:
            if u.meta.get("role") in LEMMA_ROLES:
                continue
            m = PART_MARK.match(u.text)
            if m:
                marks.append((len(text), len(text) + m.end(), ""))
            marks += [(len(text) + x, len(text) + y, r) for x, y, r in unencoded_marks(u.text, u.source, reads or {}, norm)]
            text += u.text
            offs.extend(u.offset + k for k in range(len(u.text)))
        bodies[i] = (text, offs, marks)
        k2 = norm.key_map(text, marks)[0]
        if a.jing is None:
            continue
        for j, b in enumerate(siku):
            if b.jing is None or b.jing.end < a.jing.start - SHU_WINDOW or b.jing.start > a.jing.end + SHU_WINDOW:
                continue
            k1 = keys5[id(b)][0]
            sm = difflib.SequenceMatcher(None, k1, k2, autojunk=False)
            blocks = [x for x in sm.get_matching_blocks() if x.size]
            shorter = min(len(k2), len(k1)) or 1
            contained = sum(x.size for x in blocks) / shorter
            if contained >= SHU_MIN_CONTAINED and blocks:
                cand.append((sm.ratio(), contained, i, j, blocks[0].a, blocks[-1].a + blocks[-1].size))
    used_a: set[int] = set()
    taken: dict[int, list[tuple[int, int, int]]] = {}  # j → [(first, last, i)]
    for _r, _c, i, j, x, y in sorted(cand, reverse=True):
        if i in used_a or any(x < q and p < y for p, q, _i in taken.get(j, [])):
            continue
        used_a.add(i)
        taken.setdefault(j, []).append((x, y, i))
    for j, got in taken.items():
        b = siku[j]
        order = sorted((i for _x, _y, i in got), key=lambda i: others[i].block)
        mine = [others[i] for i in order]
        text, offs, marks = "", [], []
        for i in order:
            t, o, mk = bodies[i]
            marks += [(x + len(text), y + len(text), r) for x, y, r in mk]
            text, offs = text + t, offs + o
        k1, i1 = keys5[id(b)]
        k2, i2 = norm.key_map(text, marks)
        b.other, b.other_text, b.other_offsets = mine, text, offs
        b.sites = _zhu_sites(k1, i1, str(b.units[0].meta["text"]), k2, i2, text, b.units[0].source)
        for st in b.sites:
            st.rule = f"two witnesses of the 疏; the higher-ranked ({b.units[0].source}) stands"
        said = []
        for a in mine:
            lemma = "".join(GETA if is_private_use(c) else c for c in "至".join(x for x in a.lemma if x))
            said.append(f"block {a.block} ({a.form} {lemma}, resolved {a.how}"
                        f"{': ' + a.reason if a.reason else ''})")
        b.reason += (f"; {mine[0].units[0].source}'s {' and '.join(said)} "
                     f"{'stands' if len(mine) == 1 else 'stand'} at the same place and "
                     f"{'says' if len(mine) == 1 else 'say'} the same: collated into it")
    report = [{"source": a.units[0].source, "line": a.units[0].line,
               "reason": f"疏 block {a.block} has no counterpart in the 四库 copy at its place"}
              for i, a in enumerate(others) if i not in used_a]
    out = [a for i, a in enumerate(others) if i not in used_a] + siku
    return out, report


def unencoded_marks(text: str, wit: str, reads: dict[tuple[str, str], str], norm: Normaliser,
                    ) -> list[tuple[int, int, str]]:
    """Each unencoded sequence of witness ``wit`` in ``text`` that ``reads`` resolves, as a span
    to read as the key of its character (``Normaliser.key_map``'s skips; longest sequences first,
    a sequence inside one already read is not read again)."""
    out: list[tuple[int, int, str]] = []
    for (w, seq), ch in sorted(reads.items(), key=lambda kv: -len(kv[0][1])):
        if w != wit:
            continue
        for m in re.finditer(re.escape(seq), text):
            if not any(m.start() < y and x < m.end() for x, y, _r in out):
                out.append((m.start(), m.end(), norm.key(ch)[:1]))
    return sorted(out)


#: The units of a lemma-range 疏 block (w003) that name what it explains, not its words: the
#: block's lemma (``[疏]“X”至“Y”``) and the lemma of its part on the 注 (``○注“X”至“Y”``).
LEMMA_ROLES = ("lemma", "zhu_lemma")

#: The mark that opens a part of a 疏 block: 釋曰 (on the 经), 注釋曰 (on the 注), 傳釋曰 (on a
#: 傳) in the 四库 copy; ``○释曰：`` in w003, whose part on the 注 is named by its own lemma. The
#: marks say where a part begins, not what the 疏 says: they are left out when two witnesses'
#: blocks are collated.
PART_MARK = re.compile(r"○?[注傳传]?[釋释]曰[：:]?")


def _part_marks(u: SourceUnit) -> list[tuple[int, int, str]]:
    """The part marks of a 四库 疏 block, as spans of its reading to leave out of its key."""
    text = str(u.meta["text"])
    out = []
    for p in u.meta["parts"]:  # type: ignore[union-attr]
        m = PART_MARK.match(text, int(p["start"]))
        if m:
            out.append((m.start(), m.end(), ""))
    return out


#: How far apart (characters of the 经) two witnesses' spans of one 疏 block may be.
SHU_WINDOW = 40
#: How much of the shorter of two blocks must be found in the longer for them to be one 疏.
SHU_MIN_CONTAINED = 0.8


def collate_zhu(first: list[ZhuAnchor], second: list[ZhuAnchor], norm: Normaliser,
                sub: Callable[[str], str] = lambda k: k,
                learned: dict[tuple[str, str], dict[str, object]] | None = None,
                ) -> tuple[list[ZhuAnchor], list[dict[str, object]]]:
    """One 注 from two witnesses: each 注 of ``second`` (a lower-ranked witness) is matched to the
    注 of ``first`` that stands at the same place of the 经 (its span ends within
    :data:`ZHU_POINT_SLACK` characters of the other's) and says nearly the same (keys at least
    :data:`ZHU_MIN_SIMILARITY` alike, or, at the very same place, the shorter one 80% inside the
    longer: one copy may abridge the 注); the pair is collated character by character in the key
    (script, variant forms and punctuation do not count) and every difference is a site, whose
    reading is the higher-ranked witness's (two witnesses: no majority). ``sub`` reads the second
    witness's unencoded characters. A 注 that only one witness has stays as it is and is reported.

    With ``learned`` (a dict, filled in place), the unencoded sequences of the second witness are
    learned from the pairs first (:func:`learn_unencoded`: one sequence where the other reads one
    character) and read as those characters, so that they are no difference.
    Returns the 注 of both, merged, and the report lines."""
    report: list[dict[str, object]] = []
    taken: set[int] = set()
    out = list(first)
    keys = {id(z): norm.key_map(z.unit.text, layout_skips(z.unit)) for z in first}
    pairs: list[tuple[ZhuAnchor, ZhuAnchor, float]] = []
    for z in second:
        k2, _i2 = _second_key(z.unit, norm, sub)
        best: tuple[float, ZhuAnchor] | None = None
        for f in first:
            if id(f) in taken or abs(f.span.end - z.span.end) > ZHU_POINT_SLACK:
                continue
            sm = difflib.SequenceMatcher(None, keys[id(f)][0], k2, autojunk=False)
            r = sm.ratio()
            # at the very same place, one witness may have a shorter 注 (the 四库 copy often
            # abridges): most of the shorter one within the longer is enough
            shorter = min(len(k2), len(keys[id(f)][0])) or 1
            contained = sum(b.size for b in sm.get_matching_blocks()) / shorter
            alike = r >= ZHU_MIN_SIMILARITY or (f.span.end == z.span.end and contained >= 0.8)
            if alike and (best is None or r > best[0]):
                best = (r, f)
        if best is None:
            out.append(z)
            report.append({"source": z.unit.source, "line": z.unit.line,
                           "reason": f"注 {z.unit.text[:12]}… has no counterpart in the higher-ranked witness"})
            continue
        taken.add(id(best[1]))
        pairs.append((best[1], z, best[0]))
    if learned is not None:
        learned.update(learn_unencoded([(f.unit, z.unit) for f, z, _r in pairs], norm, sub))
        sub = _reading(sub, learned, norm)
    for f, z, r in pairs:
        k1, i1 = keys[id(f)]
        k2, i2 = _second_key(z.unit, norm, sub)
        f.other, f.similarity = z.unit, round(r, 3)
        f.sites = _zhu_sites(k1, i1, f.unit.text, k2, i2, z.unit.text, f.unit.source)
    return sorted(out, key=lambda z: (z.span.end, z.unit.source)), report


def _second_key(u: SourceUnit, norm: Normaliser, sub: Callable[[str], str]) -> tuple[str, list[int]]:
    """The key of the second witness's 注 with its unencoded sequences read (when that keeps
    one key character per offset)."""
    k2, i2 = norm.key_map(u.text, layout_skips(u))
    s = sub(k2)
    return (s if len(s) == len(k2) else k2), i2


def _reading(sub: Callable[[str], str], learned: dict[tuple[str, str], dict[str, object]],
             norm: Normaliser) -> Callable[[str], str]:
    """``sub``, then the learned sequences as the keys of their characters."""
    table = sorted(((seq, norm.key(str(v["character"]))) for (_w, seq), v in learned.items()),
                   key=lambda kv: -len(kv[0]))

    def read(key: str) -> str:
        key = sub(key)
        for seq, ch in table:
            key = key.replace(seq, ch)
        return key

    return read


def learn_unencoded(pairs: list[tuple[SourceUnit, SourceUnit]], norm: Normaliser,
                    sub: Callable[[str], str] = lambda k: k) -> dict[tuple[str, str], dict[str, object]]:
    """What the unencoded sequences of the second unit of each pair stand for, learned where the
    two keys differ only there: a run of private-use code points in the second against exactly
    one character in the first, which is taken in the form the first witness writes it. A
    sequence read as different characters at different places (different keys) is not learned.
    Returns ``{(witness, sequence): {"character", "count", "evidence"}}``."""
    seen: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for a, b in pairs:
        k1, i1 = norm.key_map(a.text, layout_skips(a))
        k2, i2 = _second_key(b, norm, sub)
        sm = difflib.SequenceMatcher(None, k1, k2, autojunk=False)
        for tag, a1, a2, b1, b2 in sm.get_opcodes():
            if tag != "replace" or a2 - a1 != 1 or not all(is_private_use(c) for c in k2[b1:b2]):
                continue
            x, y = i2[b1], i2[b2 - 1] + 1
            seq = b.text[x:y]
            if seq != k2[b1:b2]:
                continue  # not one run in the text (something stands between the code points)
            ch = a.text[i1[a1]]
            where = (f"{b.source} line {_line_at(b, x)} {_context(b.text, x, y)} against "
                     f"{a.source} line {_line_at(a, i1[a1])} {_context(a.text, i1[a1], i1[a1] + 1)}")
            seen.setdefault((b.source, seq), []).append((ch, where))
    out: dict[tuple[str, str], dict[str, object]] = {}
    for k, got in seen.items():
        if len({norm.key(c) for c, _w in got}) != 1:
            continue
        out[k] = {"character": got[0][0], "count": len(got),
                  "evidence": f"{len(got)} place(s) in the 注 where the other witness reads {got[0][0]}: "
                              + "; ".join(w for _c, w in got)}
    return out


def _line_at(u: SourceUnit, off: int) -> int:
    """The file line of offset ``off`` of a unit's text."""
    return u.line + u.text.count("\n", 0, off)


def _context(text: str, i: int, j: int, width: int = 3) -> str:
    """``text[i:j]`` with ``width`` text characters either side, layout marks and punctuation
    dropped, private-use code points as 〓 (for evidence notes)."""
    from ..text.normalise import without_layout

    def chars(s: str) -> str:
        return "".join(GETA if is_private_use(c) else c for c in without_layout(s) if is_text_char(c))

    left = chars(text[max(0, i - 4 * width) : i])[-width:]
    right = chars(text[j : j + 4 * width])[:width]
    mid = "".join(GETA if is_private_use(c) else c for c in text[i:j])
    if all(c == GETA for c in mid):
        mid = GETA
    return left + mid + right


#: How far apart (in characters of the 经) two witnesses' places of one 注 may be.
ZHU_POINT_SLACK = 3
#: How alike (difflib ratio of the keys) two witnesses' texts of one 注 must be.
ZHU_MIN_SIMILARITY = 0.5


def layout_skips(u: SourceUnit) -> list[tuple[int, int, str]]:
    """The layout marks of a unit's text (line ends, page and column breaks) as spans for
    ``Normaliser.key_map`` to leave out."""
    from ..text.normalise import LAYOUT_RE

    return [(m.start(), m.end(), "") for m in LAYOUT_RE.finditer(u.text)]


def _zhu_sites(k1: str, i1: list[int], t1: str, k2: str, i2: list[int], t2: str, wit1: str) -> list[ZhuSite]:
    """The differing places of two keys, in offsets of each unit's text (an addition of the
    second witness is attached to the character before it)."""
    sites: list[ZhuSite] = []
    sm = difflib.SequenceMatcher(None, k1, k2, autojunk=False)
    for tag, a1, a2, b1, b2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if a1 == a2:  # the second witness adds: attach to the character before (or after)
            if a1 > 0:
                a1, b1 = a1 - 1, b1 - 1
            else:
                a2, b2 = a2 + 1, b2 + 1
        x = i1[a1]
        y = i1[a2 - 1] + 1
        ox = i2[b1] if b1 < b2 else (i2[b1 - 1] + 1 if b1 > 0 else 0)
        oy = i2[b2 - 1] + 1 if b1 < b2 else ox
        if sites and x < sites[-1].b:  # overlaps the site before (two additions around one character)
            last = sites[-1]
            last.b, last.other_a, last.other_b = max(last.b, y), min(last.other_a, ox), max(last.other_b, oy)
            continue
        sites.append(ZhuSite(x, y, ox, oy, f"two witnesses of the 注; the higher-ranked ({wit1}) stands"))
    return sites
