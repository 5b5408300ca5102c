"""Where a 疏 quotes the 注 or the 经 in other words than the text has.

A 疏 names what it explains by quoting it: the 四库 copy as ``云X者`` (``云由便也者``), w003 with
quotation marks (``云“由使也”者``). A quotation that the chapter's 经 or 注 has word for word is
what it seems. One that differs from the words of the 注 the block explains, or of the 经 it
stands on, in a few characters (at most :func:`allowed` of them, the same number of characters)
is a finding: the 疏 read another text, or one of the two was miscopied. It is recorded in the
TEI with the 疏 (``note type="quotation"``) and listed in the build report, never tolerated
silently. A quotation that matches nothing near is a quotation of another book (《大射》云 …) or a
paraphrase, and is not a finding.

This is a comparison of keys (:class:`~yili_corpus.text.normalise.Normaliser`): variant forms
that the variant table folds (於/于) do not count as differences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import SourceUnit
from ..text.collate import Collation
from ..text.normalise import Normaliser, is_text_char
from .commentary import LEMMA_ROLES, PART_MARK, ShuAnchor, layout_skips, unencoded_marks

#: ``云X者`` of the 四库 copy (no punctuation): X without 云, 者 or 曰, 3–24 characters.
SIKU_QUOTE = re.compile(r"云([^云者曰]{3,24}?)者")
#: A quotation in marks, as w003 writes it.
MARKED_QUOTE = re.compile(r"“([^“”]{3,40})”")
#: What stands before a quotation of another book: 彼云 ("that text says"), a title in 《》, or
#: the 疏's names for the other books of the 三禮 (案大射云 …) just before it.
OTHER_BOOK = re.compile(r"(彼|》|[射禮礼記记義义]|[周儀仪]禮|[周仪儀]礼)[云曰]?[“「]?$")
#: How far before a block's 经 span its quotation of the 经 may stand (characters of the key).
JING_BEFORE = 60


def allowed(n: int) -> int:
    """How many characters of a quotation of ``n`` may differ from the text for it to be a
    quotation of that text in other words: one in five, at least one."""
    return max(1, n // 5)


@dataclass
class Finding:
    """A 疏's quotation of the 注 or 经 in other words."""

    witness: str
    block: int
    #: the quotation as the 疏 writes it, and where it stands in its witness's file
    words: str
    start: int
    end: int
    line: int
    #: "zhu" or "jing"; the 注 unit it quotes (for "zhu"); the text's words
    quotes: str
    zhu: SourceUnit | None
    text: str
    differences: int

    def describe(self) -> str:
        """``w003's 疏 (block 2) quotes the 注 as 由使也; the 注 reads 由便也``."""
        what = "注" if self.quotes == "zhu" else "经"
        return (f"{self.witness}'s 疏 (block {self.block}) quotes the {what} as {self.words}; the {what} "
                f"reads {self.text} ({self.differences} character{'s' if self.differences > 1 else ''} differ)")


def find_quotations(shu: list[ShuAnchor], zhu_units: list[SourceUnit], col: Collation, norm: Normaliser,
                    reads: dict[tuple[str, str], str]) -> list[Finding]:
    """Every quotation in every 疏 block (and in the blocks of another witness collated into it)
    that quotes the 注 it explains or the 经 it stands on in other words. Each finding is also
    kept on its block (``ShuAnchor.findings``)."""
    reading_key, _where = col.reading_key_map()
    chapter_keys = [reading_key] + [norm.key(u.text) for u in zhu_units]
    out: list[Finding] = []
    for sa in shu:
        if sa.jing is None:
            continue
        # (kind, 注, key, the text's character for each key character)
        targets: list[tuple[str, SourceUnit | None, str, str]] = []
        for z in sa.zhu:
            k, idx = norm.key_map(z.text, layout_skips(z))
            targets.append(("zhu", z, k, "".join(z.text[i] for i in idx)))
        a = max(0, sa.jing.start - JING_BEFORE)
        jk = "".join(col.base.key[a:sa.jing.end])
        targets.append(("jing", None, jk, jk))
        found: list[Finding] = []
        for block, units, text, offsets in _quoting_texts(sa):
            pattern = SIKU_QUOTE if "parts" in units[0].meta else MARKED_QUOTE
            for m in pattern.finditer(text):
                f = _finding(m, text, block, units, offsets, targets, chapter_keys, norm, reads)
                if f is not None:
                    found.append(f)
        sa.findings = found
        out.extend(found)
    return out


def _quoting_texts(sa: ShuAnchor) -> list[tuple[int, list[SourceUnit], str, list[int]]]:
    """(block, units, text, file offset of each character) of the words of a block and of
    the blocks collated into it (their lemmas left out: a lemma names, it does not quote)."""
    head = sa.units[0]
    out = []
    if "parts" in head.meta:
        text = str(head.meta["text"])
        out.append((sa.block, [head], text, head.reading_offsets()))
    else:
        out.append(_body(sa))
    out += [_body(o) for o in sa.other]
    return out


def _body(sa: ShuAnchor) -> tuple[int, list[SourceUnit], str, list[int]]:
    text, offs = "", []
    for u in sa.units:
        if u.meta.get("role") in LEMMA_ROLES:
            continue
        text += u.text
        offs.extend(u.offset + k for k in range(len(u.text)))
    return sa.block, sa.units, text, offs


def _finding(m: re.Match[str], text: str, block: int, units: list[SourceUnit], offsets: list[int],
             targets: list[tuple[str, SourceUnit | None, str, str]], chapter_keys: list[str],
             norm: Normaliser, reads: dict[tuple[str, str], str]) -> Finding | None:
    unit = units[0]
    a, b = m.start(1), m.end(1)
    while a < b and not is_text_char(text[a]):
        a += 1
    while b > a and not is_text_char(text[b - 1]):
        b -= 1  # 成周宣榭火。: the quotation, not its stop
    words = text[a:b]
    if OTHER_BOOK.search(text[max(0, m.start() - 8):m.start()]):
        return None  # 彼云, 《射义》云: another book's words
    marks = [(x.start(), x.end(), "") for x in PART_MARK.finditer(words)]
    marks += unencoded_marks(words, unit.source, reads, norm)
    key = norm.key_map(words, marks)[0]
    if len(key) < 3:
        return None
    # the chapter has it word for word (a 云X者 of six or more characters: or but for what the
    # pattern took in at an end: a character before, 云…也知…者, or
    # the 疏's own words after a quotation: 云是以…而已引書者, two characters at the end)
    trimmed = (key[:-1], key[:-2], key[1:]) if "parts" in unit.meta and len(key) >= 6 else ()
    if any(k in ck for ck in chapter_keys for k in (key, *trimmed)):
        return None
    best: tuple[int, str, SourceUnit | None, str] | None = None
    for kind, z, tk, tt in targets:
        n = len(key)
        for i in range(len(tk) - n + 1):
            d = sum(a != b for a, b in zip(key, tk[i:i + n], strict=False))
            if d <= allowed(n) and (best is None or d < best[0]):
                best = (d, kind, z, "".join(tt[i:i + n]))
    if best is None:
        return None
    d, kind, z, said = best
    start, end = offsets[a], offsets[b - 1] + 1
    return Finding(unit.source, block, words, start, end, _line(units, start), kind, z, said, d)


def _line(units: list[SourceUnit], off: int) -> int:
    """The line of a file offset: the line of the unit that holds it, plus the line ends (``¶``
    of a mandoku file) before it in that unit."""
    u = next((x for x in units if x.offset <= off < x.end), units[0])
    return u.line + u.text.count("¶", 0, max(0, off - u.offset))
