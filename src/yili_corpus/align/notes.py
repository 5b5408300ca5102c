"""Modern notes → their lemma in the reading text; section summaries; cross-references.

A note's lemma is the text before its first ``：``. Its key is looked for in the reading text's
key, in order: first exactly, from where the previous note of the same series was found; then
approximately (a lemma of 4–7 characters may differ in one character, a longer one in two: the
notes have slips such as 小巨 for 小臣, 左执箫 for 右执箫) within the next stretch of text; then
exactly anywhere. A lemma like ``“司射既袒”至“遂命倚旌”`` is a range; bracketed pronunciations
(``楅（f＊）``) are dropped; ``■`` stands for any one character; a lemma listing several words
(``熊侯、麋侯、画以虎豹``) is found by its first. A section-opening note (``此节述…之仪``, the
genre table's summary phrase) is the summary of the section whose title it names. Notes without a lemma (fragments) go with the next
note placed.

A note stands among its neighbours: the notes of a series follow the text. A short lemma (fewer
than :data:`SHORT_LEMMA` characters: 答, 射, 物) occurs in many places, so once every note is
placed, each short lemma is checked against its nearest neighbours in the series whose lemmas are
long enough to be sure of: if it lies outside the stretch from the one before to the one after (or
no sure note comes before it), it is looked for in that stretch (the last occurrence before the next
neighbour: a note's lemma comes just before the next note's) and moved there (``exact, in order, among its neighbours``); if the
stretch does not hold it, it stays where it was found with a low confidence (``far from its
neighbours``). A short lemma found in order but more than :data:`FUZZY_WINDOW` characters after the
note before it is not sure either (``exact, far ahead``: medium).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..genre import Genre
from ..model import BLACK_SQUARE, GETA, SourceUnit
from ..text.distance import edit_distance
from ..text.normalise import Normaliser
from .xrefs import Chapters, XRef, parse_xrefs

BRACKETS_RE = re.compile(r"[（(][^）)]*[）)]")
RANGE_RE = re.compile(r"^“([^”]+)”至“([^”]+)”$")
#: How far after the previous note an approximate match is looked for (key characters).
FUZZY_WINDOW = 1500
#: A lemma key shorter than this is short: it may match far from its place (答 of 〔1〕 答：对。, on
#: §53's 答君而俟, occurs in 主人荅再拜 of §1), and is checked against its neighbours.
SHORT_LEMMA = 3


@dataclass
class NoteAnchor:
    """Where a note's lemma was found (reading-key offsets, later base-key), or why not."""

    unit: SourceUnit
    start: int | None
    end: int | None
    how: str
    section: int | None = None  # for a section summary: the section it sums up
    xrefs: list[XRef] = field(default_factory=list)
    matched: str = ""


def lemma_keys(lemma: str, norm: Normaliser) -> tuple[str, str | None]:
    """The search key of a note lemma, and of the end of its range if it names one."""
    lemma = BRACKETS_RE.sub("", lemma).strip()
    m = RANGE_RE.match(lemma)
    if m:
        return norm.key(m.group(1)), norm.key(m.group(2))
    lemma = lemma.split("、")[0]
    return norm.key(lemma.replace(BLACK_SQUARE, GETA)), None


def _find(key: str, pat: str, at: int, end: int | None = None) -> int:
    end = len(key) if end is None else end
    if GETA not in pat:
        return key.find(pat, at, end)
    rx = re.compile("".join("." if c == GETA else re.escape(c) for c in pat))
    m = rx.search(key, at, end)
    return m.start() if m else -1


def approx_find(text: str, pat: str, at: int, end: int, k: int) -> tuple[int, int, int] | None:
    """The first best occurrence of ``pat`` in ``text[at:end]`` within ``k`` edits.

    Returns (start, end, edits), or None. Candidates must share the first or the last character
    with the pattern (a slip is rarely at both ends), which keeps the search fast.
    """
    m = len(pat)
    if m == 0 or k == 0:
        return None
    best: tuple[int, int, int] | None = None
    for s in range(at, max(at, end - m + k + 1)):
        for ln in range(max(1, m - k), m + k + 1):
            e = s + ln
            if e > len(text):
                break
            if text[s] != pat[0] and text[e - 1] != pat[-1]:
                continue
            d = edit_distance(pat, text[s:e], k, GETA)
            if d <= k and (best is None or d < best[2]):
                best = (s, e, d)
        if best is not None and best[2] == 0:
            break
    return best


def _allowed_edits(n: int) -> int:
    return 0 if n < 4 else 1 if n < 8 else 2


def anchor_notes(
    notes: list[SourceUnit],
    key: str,
    norm: Normaliser,
    chapters: Chapters | None = None,
    sections: list[tuple[int, str, int]] | None = None,
    *,
    genre: Genre,
) -> list[NoteAnchor]:
    """Anchor each note (in source order) to its lemma in ``key`` (the reading-text key).

    ``sections`` lists (number, title, start offset in ``key``) for section summaries; ``genre``
    gives the phrasing of summaries and cross-references (the manifest's genre table).
    """
    out: list[NoteAnchor] = []
    at_series: dict[str, int] = {}
    pending: list[NoteAnchor] = []
    for u in notes:
        series = str(u.meta.get("series", ""))
        at = at_series.get(series, 0)
        xr = parse_xrefs(u.text, chapters, genre) if chapters else []
        anchor = NoteAnchor(u, None, None, "", xrefs=xr)
        sec_start = None
        if u.meta.get("opener") and sections:
            anchor.section = _summary_section(str(u.meta.get("summary", "")), sections, at, norm, genre)
            if anchor.section is not None:
                sec_start = next(st for n, _t, st in sections if n == anchor.section)
                at = max(at, sec_start)  # the notes of that section follow
                at_series[series] = at
        lem = u.meta.get("lemma")
        if not lem and sec_start is not None:
            anchor.start = anchor.end = sec_start
            anchor.how = f"section summary of section {anchor.section}"
            out.append(anchor)
            continue
        if not lem:
            pending.append(anchor)
            continue
        k, k_end = lemma_keys(str(lem), norm)
        if not k:
            pending.append(anchor)
            continue
        i = _find(key, k, at)
        e = i + len(k)
        how = "exact, in order"
        if i >= 0 and i - at > FUZZY_WINDOW:
            # found, but far ahead: an approximate match nearby is likelier the lemma
            near = approx_find(key, k, at, min(len(key), at + FUZZY_WINDOW), _allowed_edits(len(k)))
            if near is not None:
                i, e, d = near
                how = f"approximate ({d} edit{'s' if d > 1 else ''}), in order"
        if i < 0:
            near = approx_find(key, k, at, min(len(key), at + FUZZY_WINDOW), _allowed_edits(len(k)))
            if near is not None:
                i, e, d = near
                how = f"approximate ({d} edit{'s' if d > 1 else ''}), in order"
        if i < 0:
            i = _find(key, k, 0)
            e = i + len(k)
            how = "exact, out of order"
        if i < 0:
            anchor.how = f"lemma {lem!r} not found in the reading text"
            out.append(anchor)
            continue
        if k_end:
            j = key.find(k_end, e)
            if j >= 0 and j - e < 400:
                e = j + len(k_end)
        if how == "exact, in order" and len(k) < SHORT_LEMMA and i - at > FUZZY_WINDOW:
            how = f"exact, far ahead ({i - at} characters after the note before it; short lemma)"
        anchor.start, anchor.end, anchor.how, anchor.matched = i, e, how, key[i:e]
        for p in pending:
            p.start, p.end, p.how = i, i, "with the next note (no lemma of its own)"
            out.append(p)
        pending = []
        out.append(anchor)
        if "in order" in how:
            at_series[series] = i
    for p in pending:
        prev = next((a for a in reversed(out) if a.start is not None), None)
        if prev:
            p.start, p.end, p.how = prev.start, prev.start, "with the previous note (no lemma of its own)"
        else:
            p.how = "no lemma, nothing to attach to"
        out.append(p)
    _among_neighbours(out, key, norm)
    return out


def _sure(a: NoteAnchor, norm: Normaliser) -> bool:
    """Whether a placed note's lemma is long enough, and found in order, to place its neighbours."""
    lem = a.unit.meta.get("lemma")
    return (a.start is not None and bool(lem) and "in order" in a.how and "neighbours" not in a.how
            and len(lemma_keys(str(lem), norm)[0]) >= SHORT_LEMMA)


def _among_neighbours(out: list[NoteAnchor], key: str, norm: Normaliser) -> None:
    """Move a short lemma found outside the stretch between its sure neighbours of the same series
    into that stretch, or lower its confidence (module docstring)."""
    by_series: dict[str, list[NoteAnchor]] = {}
    for a in sorted(out, key=lambda a: (a.unit.line, a.unit.col)):
        if a.unit.meta.get("lemma") and a.start is not None:
            by_series.setdefault(str(a.unit.meta.get("series", "")), []).append(a)
    for notes in by_series.values():
        sure = [norm_ok for norm_ok in (_sure(a, norm) for a in notes)]
        for i, a in enumerate(notes):
            k, k_end = lemma_keys(str(a.unit.meta.get("lemma")), norm)
            if sure[i] or k_end or not k or a.start is None:
                continue
            before = next((notes[j] for j in range(i - 1, -1, -1) if sure[j]), None)
            after = next((notes[j] for j in range(i + 1, len(notes)) if sure[j]), None)
            lo = before.start if before is not None and before.start is not None else 0
            hi = after.end if after is not None and after.end is not None else len(key)
            if lo <= a.start < hi and before is not None:
                continue  # between its neighbours
            # outside the stretch, or the first sure note of its series after it: the occurrence
            # nearest the neighbour after it (the first one from the neighbour before, if none)
            j = _rfind(key, k, lo, hi) if after is not None else _find(key, k, lo, hi)
            if j == a.start:
                continue
            names = (f"between {_name(before)} and {_name(after)}" if before is not None and after is not None
                     else f"before {_name(after)}" if after is not None else f"after {_name(before)}" if before
                     else "")
            if j >= 0:
                a.start, a.end, a.matched = j, j + len(k), key[j:j + len(k)]
                a.how = f"exact, in order, among its neighbours ({names}); not the {k} it first matched"
            else:
                a.how = f"far from its neighbours ({names}): short lemma {k} found only elsewhere"


def _rfind(key: str, pat: str, lo: int, hi: int) -> int:
    """The last occurrence of ``pat`` in ``key[lo:hi]`` (``■`` any one character), or -1."""
    j, found = lo, -1
    while True:
        j = _find(key, pat, j, hi)
        if j < 0:
            return found
        found, j = j, j + 1


def _name(a: NoteAnchor) -> str:
    n = a.unit.meta.get("n")
    return f"note {n}" if n is not None else f"the note on {a.unit.meta.get('lemma')}"


def _summary_section(summary: str, sections: list[tuple[int, str, int]], at: int, norm: Normaliser,
                     genre: Genre) -> int | None:
    """The section whose title the summary names (此节述X之仪: X against the titles), at or after
    the reading position ``at``. A title matches if most of its characters are in X (撤 for 彻 and
    an added 、 do not stop it)."""
    m = genre.summary_re.search(summary)
    core = set(norm.key(m.group(1) if m else summary))
    cur = max((n for n, _t, st in sections if st <= at), default=1)
    best: tuple[float, int] | None = None
    for n, title, _st in sections:
        tk = norm.key(title)
        if not tk or n < cur:
            continue
        score = len(set(tk) & core) / len(set(tk))
        if score >= 0.75 and (best is None or score > best[0] + 1e-9):
            best = (score, n)
    return best[1] if best else None
