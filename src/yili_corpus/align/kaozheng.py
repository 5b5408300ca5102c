"""The 四库 editors' 考證: each entry anchored to the lemma it quotes, and the editions it names.

An entry (``司射適階西○適敖本作西``) quotes its lemma before the ``○``: the words of the 经 (or
记), often followed by ``注`` and the words of the 注 it discusses (``主人坐取爵興注致潔敬也``), or
by ``疏`` and the words of the 疏 (``乃張侯疏上綱與下綱…``). The entries follow the chapter's order,
so each lemma is looked for in the key of the reading text from where the previous one was found:

* the whole lemma, as the 经's words;
* else the words before a ``注`` or ``疏`` of the lemma as the 经's words, and the words after a
  ``注`` in the first 注 that stands at or after them (within the next few) — the entry quotes the
  注; after a ``疏`` the entry quotes the 疏, and is anchored to the 经 words the 疏 explains;
* an entry whose words the reading text reads otherwise (a collation site where the witness's
  reading was not chosen) is looked for in the witness's own readings;
* an entry whose 经 words are found only before the previous entry's place is anchored there too
  (``out of order``); one whose 经 words are not in the reading text at all is anchored to the
  words with one character in another form (``near``), or to the longest start of them that is
  (``partial``), or not anchored.

The editions an entry names (石經, 監本, 敖本 …) are those of the table ``[tables]
kaozheng_editions`` (``corpus/kaozheng-editions.tsv``) whose name its note writes.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..model import SourceUnit
from ..tables import read_table
from ..text.collate import Collation
from ..text.normalise import Normaliser

#: How many 注 after the 经 words an entry's 注 quotation is looked for in.
ZHU_WINDOW = 3
#: The shortest start of a lemma's 经 words that anchors an entry whose whole words are not found.
MIN_PARTIAL = 3
#: The shortest start of a 注 quotation that identifies the 注.
MIN_ZHU_START = 4
EDITION_HEADER = ["id", "name", "description", "lines"]


@dataclass(frozen=True)
class Edition:
    """An edition the 考證 names: its id (the TEI's xml:id), name, what it is, where it is seen."""

    id: str
    name: str
    description: str
    lines: str


@dataclass
class KaozhengAnchor:
    """One 考證 entry and where it stands: ``quotes`` is what its lemma quotes after the 经 words
    (``jing``, ``zhu`` or ``shu``); ``start``/``end`` the 经 words in base-key offsets (None if
    not anchored); ``zhu`` the 注 (an anchor of :mod:`.commentary`) it quotes; ``how`` exact, out of
    order, near (one character differs), partial or unanchored; ``editions`` the editions its note names, as (edition, offset
    in the note)."""

    unit: SourceUnit
    quotes: str
    jing: str
    rest: str
    start: int | None = None
    end: int | None = None
    zhu: Any = None
    how: str = "unanchored"
    reason: str = ""
    editions: list[tuple[Edition, int]] = field(default_factory=list)
    #: where the 经 words start in the reading text's key
    at: int = 0

    @property
    def matched(self) -> bool:
        """Whether the entry is anchored to words that match its whole quotation of the 经
        (and of the 注, where it quotes one)."""
        return self.how in ("exact", "out of order") and (self.quotes != "zhu" or self.zhu is not None)


def load_editions(path: Path | str) -> list[Edition]:
    """Read ``corpus/kaozheng-editions.tsv``; a bad row is damaged data naming the file and line."""
    out: list[Edition] = []
    for i, cells in read_table(path, EDITION_HEADER, "kaozheng editions table"):
        c = [x.strip() for x in cells] + [""] * 4
        if not all(c[:4]) or any(e.id == c[0] or e.name == c[1] for e in out):
            raise DataError(f"bad or repeated kaozheng edition row: {chr(9).join(cells)[:200]!r}", str(path), i)
        out.append(Edition(*c[:4]))
    return out


def _splits(lemma: str) -> list[tuple[str, str, str]]:
    """The readings of a lemma: (经 words, what follows: jing | zhu | shu, the words after)."""
    out = [(lemma, "jing", "")]
    for i, ch in enumerate(lemma):
        if ch in "注疏" and i > 0:
            out.append((lemma[:i], "zhu" if ch == "注" else "shu", lemma[i + 1:]))
    return out


def anchor_kaozheng(units: list[SourceUnit], zhu: list[Any], norm: Normaliser, col: Collation,
                    editions: list[Edition]) -> list[KaozhengAnchor]:
    """Anchor each 考證 entry of ``units`` (in file order) on the reading text of ``col`` and
    the 注 anchors ``zhu``; see the module doc. An entry quotes its own witness's text: where the
    reading text has another reading there, its words are looked for in the witness's readings."""
    rkey, rmap = col.reading_key_map()
    wkeys = {u.source: col.reading_key_map(u.source) for u in units}
    zkeys = [(z, norm.key(str(z.unit.meta.get("text", z.unit.text)))) for z in zhu]
    zkeys.sort(key=lambda x: x[0].point)
    out: list[KaozhengAnchor] = []
    cursor = 0  # where the previous entry stands (base offset)
    for u in units:
        lemma = str(u.meta.get("lemma", ""))
        note = str(u.meta.get("note", ""))
        a = _anchor(u, lemma, rkey, rmap, norm, zkeys, cursor)
        if a.how != "exact":  # the witness's own readings (賓之席前 where the reading text has 賓席之前)
            wkey, wmap = wkeys[u.source]
            w = _anchor(u, lemma, wkey, wmap, norm, zkeys, cursor)
            if w.how == "exact" or (w.how == "out of order" and a.how != "out of order"):
                w.reason = (w.reason + "; " if w.reason else "") + f"in {u.source}'s own reading (the reading text differs)"
                a = w
            elif a.how == "unanchored":
                a = w
        if a.how == "exact":
            cursor = a.start or 0
        a.editions = sorted(((e, i) for e in editions for i in _find_all(note, e.name)), key=lambda x: x[1])
        out.append(a)
    return out


def _find_all(s: str, sub: str) -> list[int]:
    out, i = [], s.find(sub)
    while i >= 0:
        out.append(i)
        i = s.find(sub, i + len(sub))
    return out


def _anchor(u: SourceUnit, lemma: str, rkey: str, rmap: list[int], norm: Normaliser,
            zkeys: list[tuple[Any, str]], base_cursor: int) -> KaozhengAnchor:
    if not lemma:
        return KaozhengAnchor(u, "", "", "", reason="the entry quotes no lemma before its ○")
    best: KaozhengAnchor | None = None
    for order in ("in order", "out of order"):
        for jing, quotes, rest in _splits(lemma):
            k = norm.key(jing)
            if not k:
                continue
            if order == "in order":
                i = rkey.find(k, bisect.bisect_left(rmap, base_cursor))
            else:
                i = rkey.find(k)
            if i < 0:
                continue
            a = KaozhengAnchor(u, quotes, jing, rest, rmap[i], rmap[i + len(k) - 1] + 1,
                               how="exact" if order == "in order" else "out of order", at=i)
            if quotes == "zhu":
                a.zhu, n = _find_zhu(zkeys, norm.key(rest), a.end - 1)
                if a.zhu is not None and n < len(norm.key(rest)):
                    a.reason = (f"the 注 quoted by its first {n} characters; the rest of the lemma "
                                f"({rest[n:]}) is the editors' own words")
                if a.zhu is None:
                    a.reason = f"the 注 words {rest} are not in the 注 after the 经 words {jing}"
                    best = best or a
                    continue
            if quotes == "shu":
                a.reason = "quotes the 疏, anchored to the 经 words the 疏 explains"
            return a
        if best is not None:
            return best
    # not found: the longest start of the 经 words found after the cursor
    jing, quotes, rest = _splits(lemma)[-1] if len(_splits(lemma)) > 1 else _splits(lemma)[0]
    k = norm.key(jing)
    c0 = bisect.bisect_left(rmap, base_cursor)
    for i in range(c0, len(rkey) - len(k) + 1):  # one character in another form (脇 for 脅)
        if sum(x != y for x, y in zip(rkey[i:i + len(k)], k, strict=True)) == 1 and len(k) >= 5:
            d = next(j for j in range(len(k)) if rkey[i + j] != k[j])
            return KaozhengAnchor(u, quotes, jing, rest, rmap[i], rmap[i + len(k) - 1] + 1, how="near", at=i,
                                  reason=f"the words match but one character: the reading text has {rkey[i + d]} for "
                                         f"{k[d]}")
    for n in range(len(k) - 1, MIN_PARTIAL - 1, -1):
        i = rkey.find(k[:n], c0)
        if i >= 0:
            return KaozhengAnchor(u, quotes, jing, rest, rmap[i], rmap[i + n - 1] + 1, how="partial", at=i,
                                  reason=f"only {n} of the {len(k)} characters of {jing} are in the reading text")
    return KaozhengAnchor(u, quotes, jing, rest, reason=f"the words {jing} are not in the reading text")


def _find_zhu(zkeys: list[tuple[Any, str]], k: str, after: int) -> tuple[Any, int]:
    """The first 注 standing at or after base offset ``after`` (within :data:`ZHU_WINDOW`) whose
    key holds ``k``, and how many characters of ``k`` it holds: all of them, else the longest
    start of at least :data:`MIN_ZHU_START` (a lemma that goes on in the editors' words,
    ``注今文無執觶以下共二十字``)."""
    if not k:
        return None, 0
    near = [(z, zk) for z, zk in zkeys if z.point >= after][:ZHU_WINDOW]
    for n in range(len(k), min(len(k), MIN_ZHU_START) - 1, -1):
        z = next((z for z, zk in near if k[:n] in zk), None)
        if z is not None:
            return z, n
    return None, 0
