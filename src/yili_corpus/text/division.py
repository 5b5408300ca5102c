"""Sections of a chapter from the 疏's own division (issue 15), written as a section table.

THE RULE. 贾公彦's 疏 divides each chapter itself: the 釋曰 that opens a 疏 block on a stretch of
经 often says where a passage starts and ends and what it is about. Read from a 四库 卷 through
:mod:`yili_corpus.sources.siku` (its ``shu`` and ``text`` units, with their file lines):

1. **A division** is the first statement of one of these forms in a 疏 block (in its 釋曰 part, or
   in a 注釋曰/傳釋曰 part that opens with it), layout marks and line breaks already removed by
   the parser:

   * ``自此至X論Y``, ``自此盡X論Y``, with ``以下`` / ``已下`` / ``下`` after 自此 and ``一節`` after
     X (``自此以下至賓拜送一節論…``), and ``從此(下)至X…``, ``此下至X…`` — a span from the
     block's 经 to X. The verb before Y may be 論, 説 or 陳; where none stands
     (``此下至送于門外再拜主人禮賔之事``, ``自此盡斂旜為…之事``), X is the longest head of the words
     that the chapter's 经 has from the section's start on, and Y the rest.
   * ``此Y章`` / ``此是Y章`` at the head of the 釋曰 (丧服: 此齊衰三年章以輕於斬故次斬後) — a 章
     opens at the block's 经; Y章 is the title, and it runs to the next division.
   * ``此一經論Y``, ``此經論Y``, ``此經及下經論Y``, ``此一經Y之節`` at the head of the 釋曰 —
     the block's own 经; it runs to the next division (the 疏 blocks on its 注 follow it).

   Y ends at its first ``之事``, ``之節`` (dropped) or ``之儀``, ``之法``, ``之禮``, ``之等`` (kept),
   or at a 也 that comes before them; ``此一經Y`` without 論 needs such an end; a
   statement whose Y has no such end within 40 characters is a division without a title (its row
   is titled by its incipit and says so). A statement farther into the part (``上文已陳衣冠器物自此
   以下至…``) counts only when it has the full ``自此…至/盡X論Y…之事`` form.
2. **Where it starts**: the first 经 after the previous 疏 block (the block's place in the 经
   sequence), found in the chapter's 经 key (:meth:`Normaliser.key`; the niutrans file, or the
   四库 经 where the niutrans file is incomplete: 士冠礼, 丧服).
   If that head lies before the X of the division before it while its own X lies after that X
   (its 经 resumed inside a 注 run, without a ○), it starts at the end of that X.
3. **Where it ends** is checked, not assumed: X is looked for in the 经 key from the start on. If
   it ends where the next section starts, the division is exact; if it ends earlier, the 经 from X
   to the next section is a stretch **with no 疏 division**, given its own row; if X lies past the
   next start, the next division is nested in this one (each is still a section of the flat table).
4. The 经 before the first division and any other stretch the 疏 does not divide is a row titled
   by its incipit with ``how`` = ``no 疏 division`` — never an invented title.
5. **The 记** (a paragraph of the 经 opening with 記 / 记) starts a ``ji`` section; every row after
   it is ``ji``. A 疏 division that starts there gives its title, else the row is titled 记.

Titles (Y) are converted to simplified characters with OpenCC t2s, as the other tables are.
Incipits are taken from the 经 key's own text (simplified) and are the shortest (from 6
characters) that :func:`yili_corpus.text.segment.find_sections` finds at the section's start.

Usage: ``python -m yili_corpus.text.division KR1d0028_0NN.txt [--niutrans NN.txt] > table.tsv``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import YiliError
from ..model import GETA, SourceUnit
from ..sources import punctuated, siku
from .normalise import Normaliser, VariantTable, t2s_char

#: A span division anywhere in a 疏 part: 自此(以下)至X … (the verb and Y are split afterwards).
SPAN_RE = re.compile(r"(?:自此|從此|此)(?:[以已]?下)?(至|盡)(.{1,60})")
#: A division of the block's own 经, at the head of the 釋曰: 此一經論Y, 此經論Y, 此經及下經論Y.
SINGLE_RE = re.compile(r"此(?:一經|經(?:及下經)?(?=論))(論|明)?(.{1,60})")
#: A 章 of 丧服 named at the head of the 釋曰: 此齊衰三年章…, 此是小功成人章… (the block's 经 opens it).
ZHANG_RE = re.compile(r"此(?:是)?(?!則)([^此章]{2,6}?)章")  # not 此則期章 (a reference)
#: Where Y ends: dropped (之事, 之節) or kept (之儀, 之法, 之禮, 之等).
Y_END_RE = re.compile(r"之事|之節|之莭|之儀|之法|之禮|之等")
VERBS = "論説陳"
#: The chapters whose niutrans file lacks part of the 经: their 经 key is the 四库 copy's.
SIKU_KEY_CHAPTERS = {1, 11}
MIN_INCIPIT = 6
#: How far from the previous head a head of 2 or 3 characters may be found (in key characters).
NEAR = 300
HEADER = ["n", "kind", "title", "incipit", "how", "shu_line", "shu", "note"]


@dataclass
class Division:
    """One division statement of the 疏: its block, the file line, its words, X and Y."""

    block: int
    line: int
    part: str
    words: str
    to: str  # X, "" for a division of the block's own 经
    title: str  # Y as written (traditional), "" when the statement gives none
    single: bool
    jing: str  # the head of the block's stretch of 经 (as written)
    moved: bool = False  # its start moved to the end of the X before it


@dataclass
class Row:
    """One row of the generated section table."""

    kind: str
    title: str
    incipit: str
    how: str
    start: int
    shu_line: int | None = None
    shu: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def _split_y(rest: str) -> str:
    """Y from the words after the verb: up to its first end (之事, 之節 dropped; 之儀, 之法, 之禮
    kept) within 42 characters, unless a 也 within 24 comes first; else up to a bare 事 or 也 within 24 (論三番射事); else up to the next
    part (注釋曰) or the end of the words within 30 (論三耦爲第一番射法注釋曰)."""
    m = Y_END_RE.search(rest, 0, 42)
    also = rest.find("也", 0, 24)
    if m and 0 < also < m.start():  # 論衰冠升數多少也以其…緦麻之等: the statement ended first
        return rest[:also]
    if m:
        keep = m.group(0) in ("之儀", "之法", "之禮", "之等")
        return rest[: m.end()] if keep else rest[: m.start()]
    for end in ("事", "也"):
        k = rest.find(end, 0, 24)
        if k > 0:
            return rest[:k]
    k = rest.find("注釋曰")
    k = k if k >= 0 else len(rest)
    return rest[:k] if 0 < k <= 30 else ""


def find_division(text: str, parts: list[dict[str, object]]) -> tuple[str, str, str, str, bool] | None:
    """The division a 疏 block names: (part kind, words, X, Y, single) or None (see the rule)."""
    for p in parts:
        kind = str(p["kind"])
        a, b = int(str(p["start"])), int(str(p["end"]))
        head = a + (len("釋曰") if kind == "jing" else len("注釋曰"))
        if kind == "unmarked":
            continue
        if kind == "jing":
            zm = ZHANG_RE.match(text, head, b)
            if zm:
                return kind, zm.group(0), "", zm.group(1) + "章", True
            sm = SINGLE_RE.match(text, head, b)
            if sm:  # without 論 only with an end of Y (此一經獻庶子以下之節)
                y = _split_y(sm.group(2)) if sm.group(1) or Y_END_RE.search(sm.group(2), 0, 42) else ""
                if y:
                    return kind, text[sm.start():sm.start(2) + len(y) + 2], "", y, True
        for m in SPAN_RE.finditer(text, head, b):
            at_head = m.start() == head
            if not at_head and kind != "jing":
                break
            rest = m.group(2)
            vm = re.search(f"[{VERBS}]", rest)
            end = Y_END_RE.search(rest)
            if not at_head and not (vm and vm.start() <= 30 and rest[vm.start()] == "論"
                                    and Y_END_RE.search(rest, vm.start())):
                continue
            if vm and vm.start() <= 30:  # X may itself end in 之禮 (自此盡于卿之禮論…)
                x = rest[: vm.start()]
                x = x[:-2] if x.endswith("一節") else x.removesuffix("皆")
                y = _split_y(rest[vm.start() + 1:])
                tail = rest[vm.start() + 1 + len(y):]
                words = text[m.start():m.start(2) + vm.start() + 1 + len(y) + (2 if Y_END_RE.match(tail) else 0)]
                return kind, words, x, y, False
            if at_head:  # no verb: X and Y are told apart by the 经 (see _end_of_x)
                if end is not None and end.start() <= 45:
                    return kind, text[m.start():m.start(2) + end.end()], rest[:end.start()], "", False
                return kind, text[m.start():m.end()], rest[:30], "", False
        if kind == "jing":
            break
    return None


@dataclass
class Key:
    """A chapter's 经 key, the character of the text each key character comes from, and the
    offsets where a paragraph opening with 記/记 starts."""

    key: str
    chars: str
    ji: list[int]
    source: str


def niutrans_key(path: Path, norm: Normaliser) -> Key:
    """The 经 key of a niutrans file (the punctuated parser's units)."""
    ps = punctuated.parse("w006", path.read_text(encoding="utf-8"), str(path))
    key: list[str] = []
    chars: list[str] = []
    ji: list[int] = []
    para = None
    for u in ps.units:
        k, idx = norm.key_map(u.text, u.meta.get("skips", []))
        if u.meta["para"] != para:
            para = u.meta["para"]
            if k.startswith("记"):
                ji.append(len(key))
        key.extend(k)
        chars.extend(u.text[i] for i in idx)
    m = re.fullmatch(r"(?:niutrans-yili-)?(\d\d)\.txt", path.name)
    return Key("".join(key), "".join(chars), ji, f"niutrans-yili-{m.group(1)}.txt" if m else path.name)


def siku_key(units: list[SourceUnit], norm: Normaliser, name: str) -> tuple[Key, dict[int, int]]:
    """The 经 key of the 四库 copy's ``text`` units, and each unit's offset in it."""
    key: list[str] = []
    chars: list[str] = []
    ji: list[int] = []
    at: dict[int, int] = {}
    for u in units:
        if u.kind != "text":
            continue
        t = str(u.meta["text"])
        k, idx = norm.key_map(t)
        at[id(u)] = len(key)
        if t.startswith("記"):
            ji.append(len(key))
        key.extend(k)
        chars.extend(t2s_char(t[i]) for i in idx)
    return Key("".join(key), "".join(chars), ji, name), at


def divisions(units: list[SourceUnit]) -> list[tuple[SourceUnit, str | None, Division | None]]:
    """Each 疏 block with the head of its stretch of 经 (None when no 经 stands between the previous
    block and it) and the division it names. The head is the 经 after the first ``○`` (the 四库
    copy's paragraph mark) in the stretch, in a ``text`` unit or where the 经 resumes inside a
    ``zhu_run``; without a ○, the first ``text`` unit of the stretch; for the first block, the 经
    from the start (the title's ○, 鄉射之禮○主人戒賓, does not count)."""
    out: list[tuple[SourceUnit, str | None, Division | None]] = []
    first: str | None = None
    circle: str | None = None
    opening = next((u for u in units if u.kind == "text"), None)
    for u in units:
        if u.kind in ("text", "zhu_run"):
            t = str(u.meta["text"])
            if circle is None and "○" in t and u is not opening:  # not the ○ after the title
                circle = t[t.index("○") + 1:].split("○")[0]
            if u.kind == "text" and first is None:
                first = t
        elif u.kind == "shu":
            head = circle if circle else first
            if not out and opening is not None:  # the first block: the 经 from the start
                head = str(opening.meta["text"])
            d = find_division(str(u.meta["text"]), u.meta["parts"])
            div = None
            if d is not None and head is not None:
                part, words, x, y, single = d
                div = Division(int(u.meta["n"]), u.line, part, words, x, y, single, head)
            out.append((u, head, div))
            first = circle = None
    return out


def _locate(k: str, key: str, at: int) -> int:
    """Where the 经 key ``k`` of the head of a 疏 block's 经 stands in ``key`` from ``at`` on, or
    -1: the nearest place where 6 to 10 of its characters stand (anywhere in the head: the
    transcriptions differ in places), else the nearest with 5 or 4 (a long probe that fails nearby
    may match far away, in the 记); a head of 2 or 3 characters only within :data:`NEAR`."""
    for lengths in ((10, 8, 6), (5, 4)):
        found = []
        for n in lengths:
            for skip in range(max(1, len(k) - n + 1)):
                probe = k[skip:skip + n]
                if len(probe) < n:
                    continue
                i = key.find(probe, at + skip)
                if i >= 0:
                    found.append(i - skip)
        if found:
            return min(found)
    if 2 <= len(k) < 4:  # a short 经 unit (羹定) before a 注 run: near the previous head only
        i = key.find(k, at)
        if 0 <= i - at <= NEAR:
            return i
    return -1


def _incipit(key: Key, start: int, after: int, end: int) -> str:
    """The shortest head of the 经 from ``start`` (from 6 characters) that is first found at
    ``start`` when looked for from ``after``. A character the transcription could not type (□,
    〓 in the key) ends it if a head before it (from 2 characters) is found so; else it stands as
    〓."""
    k = key.key
    g = k.find(GETA, start, end)
    if g >= 0 and g - start < MIN_INCIPIT + 4:
        for n in range(2, g - start + 1):
            if k.find(k[start:start + n], after) == start:
                return key.chars[start:start + n]
    n = MIN_INCIPIT
    while start + n <= len(k):
        if k.find(k[start:start + n], after) == start or start + n >= end:
            break
        n += 1
    return "".join(GETA if c == GETA else ch for c, ch in zip(k[start:start + n], key.chars[start:start + n],
                                                              strict=True))


def generate(siku_path: Path, niutrans_path: Path | None, norm: Normaliser,
             use_siku_key: bool = False) -> tuple[list[Row], Key]:
    """The rows of the section table of one chapter, by the rule of this module."""
    ps = siku.parse("w005", siku_path.read_text(encoding="utf-8"), str(siku_path))
    units = ps.units
    sk, sk_at = siku_key(units, norm, siku_path.name)
    key = sk if use_siku_key or niutrans_path is None else niutrans_key(niutrans_path, norm)
    # 1. the 疏 blocks' 经, placed in the key, in order
    placed: list[tuple[int, SourceUnit, Division | None]] = []
    cursor = 0
    for blk, head, div in divisions(units):
        if head is None:
            continue
        pos = 0 if not placed else _locate(norm.key(head)[:16], key.key, cursor)
        if pos < 0:
            continue
        placed.append((pos, blk, div))
        cursor = pos
    # the chapter's title (士冠禮, 喪服: a 经 unit of its own, or 鄉射之禮 before its ○) belongs to
    # the first section: a first division that starts right after it starts at 0
    opening = next((str(u.meta["text"]) for u in units if u.kind == "text"), "")
    title_len = len(norm.key(opening.split("○")[0]))
    placed = [(0 if p <= title_len and title_len <= 8 and d is not None and all(
        q >= p for q, _b, e in placed if e is not None) else p, b, d) for p, b, d in placed]
    ji_start = next((j for j in key.ji if j > 0), None)
    # 2. division starts
    starts: dict[int, Division] = {}
    for pos, _blk, div in placed:
        if div is not None and pos not in starts:
            starts[pos] = div
    _after_previous_x(starts, key.key, norm)
    bounds = sorted(set(starts) | {0} | ({ji_start} if ji_start is not None else set()))
    # 3. X checked against the next start; gaps become rows with no division
    gaps: dict[int, str] = {}
    hows: dict[int, str] = {}
    for i, b in enumerate(bounds):
        d = starts.get(b)
        if d is None:
            continue
        nxt = bounds[i + 1] if i + 1 < len(bounds) else len(key.key)
        if d.single:  # the block's own 经: what follows it up to the next division is its too
            e = None
            how = "疏 division of its own 经 (此經)"
        else:
            x = norm.key(d.to)
            e, how = _end_of_x(x, key.key, b, nxt, d)
        if e is not None and e < nxt - 3:
            gaps[e] = "no 疏 division (after X of the division before)"
            how += ", ends before the next section"
        elif e is not None and e > nxt:
            how += ", runs past the next section (nested)"
        elif e is not None:
            how += ", ends where the next section starts"
        hows[b] = how + ("; starts after X of the division before" if d.moved else "")
    all_starts = sorted(set(bounds) | set(gaps))
    rows: list[Row] = []
    prev_end = 0
    for i, b in enumerate(all_starts):
        end = all_starts[i + 1] if i + 1 < len(all_starts) else len(key.key)
        kind = "ji" if ji_start is not None and b >= ji_start else "jing"
        inc = _incipit(key, b, prev_end, end)
        prev_end = b + len(norm.key(inc))
        d = starts.get(b)
        if d is not None:
            title = _t2s(d.title) if d.title else inc
            how = hows[b] if d.title else hows[b] + "; no title (論Y) in the statement"
            rows.append(Row(kind, title, inc, how, b, d.line, d.words))
        elif b == ji_start:
            rows.append(Row(kind, "记", inc, "记 starts (no 疏 division)", b))
        else:
            rows.append(Row(kind, inc, inc, gaps.get(b, "no 疏 division"), b))
    return rows, key


def _after_previous_x(starts: dict[int, Division], key: str, norm: Normaliser) -> None:
    """Move a division that starts before the X of the division before it, and whose own X lies
    after that X, to start there: its block's 经 resumed inside a 注 run, after X (not nested)."""
    order = sorted(starts)
    for i in range(len(order) - 1):
        b, f = order[i], order[i + 1]
        d, d2 = starts[b], starts[f]
        if d.single or d2.single:
            continue
        e, _how = _end_of_x(norm.key(d.to), key, b, f, d)
        if e is None or not f < e < len(key) or (i + 2 < len(order) and e >= order[i + 2]):
            continue
        e2, _how = _end_of_x(norm.key(d2.to), key, e, order[i + 2] if i + 2 < len(order) else len(key), d2)
        if e2 is not None and e2 > e and e not in starts:
            del starts[f]
            starts[e] = d2
            order[i + 1] = e
            d2.moved = True


def _end_of_x(x: str, key: str, start: int, nxt: int, d: Division) -> tuple[int | None, str]:
    """Where X ends in the 经 from ``start`` and how it was read: the occurrence ending at the next
    start, else the last one before it, else the first one after it."""
    if d.to in ("經末", "篇末", "篇終"):
        return len(key), f"疏 division to the end ({d.to})"
    if not x:
        return None, "疏 division, X not named"
    if not d.title:  # no verb: X is the longest head of the words found in the 经, Y the rest
        for n in range(len(x), 1, -1):
            j = key.find(x[:n], start)
            if j >= 0:
                d.title = d.to[n:] if Y_END_RE.search(d.words) else ""
                d.to = d.to[:n]
                x = x[:n]
                break
    if key[max(start, nxt - len(x)):nxt] == x:
        return nxt, f"疏 division to {_t2s(d.to)}"
    j = key.rfind(x, start, nxt)
    if j >= 0:
        return j + len(x), f"疏 division to {_t2s(d.to)}"
    j = key.find(x, nxt)
    if j >= 0:
        return j + len(x), f"疏 division to {_t2s(d.to)}"
    # one character differing (羮定 for 羹定, a variant the table does not fold); a two-character
    # X only within 4 characters of the next start
    hits = [i + len(x) for i in range(start, len(key) - len(x) + 1)
            if sum(a != b for a, b in zip(key[i:i + len(x)], x, strict=True)) == 1]
    if len(x) < 3:
        hits = [h for h in hits if abs(h - nxt) <= 4]
    if hits:
        if True:
            e = nxt if nxt in hits else max([h for h in hits if h <= nxt], default=hits[0])
            return e, f"疏 division to {_t2s(d.to)} (X with one character differing)"
    return None, f"疏 division to {_t2s(d.to)}, X not found in the 经"


def _t2s(s: str) -> str:
    from .normalise import opencc_convert

    return opencc_convert(s, "t2s")


def format_table(rows: list[Row], siku_name: str, key: Key, command: str) -> str:
    """The section table as TSV, with the header comment that says how it was made."""
    out = [
        f"# Sections generated from the 疏's own division (釋曰自此至X論Y …) of {siku_name}, by",
        f"#   {command}",
        "# with the rule of src/yili_corpus/text/division.py (docs/alignment.md, \"Sections from the",
        "# 疏's division\"). Incipits are found in the 经 key (Normaliser.key with corpus/variants.tsv) of",
        f"# {key.source}. Generated: it may be corrected by hand; a corrected row says so in its note",
        "# column (tests/test_division.py keeps such rows).",
        "# how: how the row was made; shu_line: the file line of the 疏 block; shu: its words.",
        "\t".join(HEADER),
    ]
    for n, r in enumerate(rows, start=1):
        out.append("\t".join([str(n), r.kind, r.title, r.incipit, r.how,
                              str(r.shu_line) if r.shu_line else "", r.shu, ""]))
    return "\n".join(out) + "\n"


def summary_table(corpus: Path) -> str:
    """Per chapter (``yili-chapters.tsv``), the counts of its generated table in
    ``corpus/sections/``, as the Markdown table of docs/alignment.md ("Sections from the 疏's
    division")."""
    from ..tables import read_table

    out = ["| chapter | table | sections | 疏 divisions | no 疏 division | 记 sections | X past the next start "
           "| X not found |", "|---|---|---|---|---|---|---|---|"]
    for _i, c in read_table(corpus / "yili-chapters.tsv", ["n", "title", "also", "id"], "chapter table"):
        name = "xiangsheli-shu.tsv" if c[3].strip() == "xiangsheli" else f"{c[3].strip()}.tsv"
        lines = (corpus / "sections" / name).read_text(encoding="utf-8").splitlines()
        rows = [ln.split("\t") for ln in lines if ln and not ln.startswith("#")][1:]
        counts = [len(rows), sum(1 for r in rows if r[5]), sum(1 for r in rows if "no 疏 division" in r[4]),
                  sum(1 for r in rows if r[1] == "ji"), sum(1 for r in rows if "runs past" in r[4]),
                  sum(1 for r in rows if "not found" in r[4])]
        out.append(f"| {c[0]} {c[1]} | {name} | " + " | ".join(map(str, counts)) + " |")
    return "\n".join(out)


def chapter_number(siku_path: Path) -> int:
    """The chapter number of a 四库 卷 file name (``KR1d0028_005.txt`` → 5)."""
    m = re.search(r"_(\d{3})\.txt$", siku_path.name)
    if not m:
        raise ValueError(f"not a 四库 卷 file name: {siku_path.name}")
    return int(m.group(1))


def table(siku_path: Path, niutrans_path: Path | None, variants: Path | None) -> str:
    """The generated section table of the chapter of ``siku_path`` (its number in the file name),
    as the generator writes it."""
    n = chapter_number(siku_path)
    norm = Normaliser(VariantTable.load(variants) if variants is not None and variants.exists() else None)
    rows, key = generate(siku_path, niutrans_path, norm, use_siku_key=n in SIKU_KEY_CHAPTERS)
    return format_table(rows, siku_path.name, key, f"python -m yili_corpus.text.division corpus/{siku_path.name}")


def main(argv: list[str] | None = None) -> int:
    """The generator: ``python -m yili_corpus.text.division KR1d0028_0NN.txt [--niutrans F]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m yili_corpus.text.division",
                                 description="Write the section table of a chapter from the 疏's division.")
    ap.add_argument("siku", type=Path, help="a 四库 卷 file (KR1d0028_0NN.txt)")
    ap.add_argument("--niutrans", type=Path, help="the chapter's niutrans file (default: "
                    "niutrans-yili-NN.txt beside the 四库 file, else ../niutrans-yili/NN.txt of the witness collection)")
    ap.add_argument("--variants", type=Path, help="the variant table (default: variants.tsv beside the file, else ./corpus/variants.tsv)")
    a = ap.parse_args(argv)
    try:
        n = chapter_number(a.siku)
        nt = a.niutrans or a.siku.with_name(f"niutrans-yili-{n:02d}.txt")
        if not nt.exists():  # the witness collection: KR1d0028/ beside niutrans-yili/
            nt = a.siku.resolve().parent.parent / "niutrans-yili" / f"{n:02d}.txt"
        var = a.variants or a.siku.with_name("variants.tsv")
        if not var.exists():
            var = Path("corpus") / "variants.tsv"
        if not var.exists():
            raise ValueError("no variant table: give --variants corpus/variants.tsv")
        out = table(a.siku, nt, var)
    except YiliError as exc:
        print(f"yili: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except (OSError, ValueError) as exc:  # no such file, not a 四库 卷 file name
        print(f"yili: error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
