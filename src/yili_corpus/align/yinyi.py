"""陆德明《经典释文》 音义 → the character each entry glosses.

A 音義 block of the 四库 witness runs several entries together (``長丁大反警音景語魚據反爲于僞反``).
:func:`parse_block` splits it by this grammar, designed from the 145 blocks of 卷五:

* an entry is a **head** and one or more **items**;
* the head is one character (``長``), or ``AB之C`` where C is in AB (``無射之射``: the 射 of 無射),
  or, when no one-character head can be followed by an item, two characters (``射與音餘``: the 與
  of 射與);
* an item is a 反切 ``XY反``; ``音X``; ``如字``; another reading (又音) ``又音X`` / ``一音X`` /
  ``劉音X`` / ``又XY反`` / ``劉XY反`` / ``李XY反`` …; or a gloss (释): ``下同`` / ``注同`` /
  ``後皆放此`` / ``下X同`` (up to 12 characters ending in 同 or 此, no 反 or 音 in them), ``出注``,
  ``又作X`` / ``亦作X`` / ``或作X`` / ``字又作X``, ``…之H`` (``閒側之閒``: as in 閒側) and ``H下字``.

An entry's kind is the kind of its first item, its reading that item's reading (``丁大反``, ``景``).
A block splits cleanly when the whole block is consumed; what is left over is reported.

:func:`attach` finds the glossed character: the first occurrence of the head looking back from the
block's mark over the 经 and 注 units before it in file order. The entries of a block are taken
last to first, each looking back from the place of the entry after it (the entries follow the text
in order); one whose head is not found there is looked for from the mark, and said so.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model import SourceUnit
from ..text.normalise import LAYOUT_RE, Normaliser

if TYPE_CHECKING:
    from ..text.collate import Collation
    from .commentary import ZhuAnchor

#: The kinds of an item, in Chinese as the layer shows them.
KINDS = ("反切", "音", "如字", "又音", "释")

_ALT = r"(?:又音|一音|劉音|李音|又|一|劉|李)"
_ITEMS: list[tuple[str, re.Pattern[str]]] = [
    ("又音", re.compile(_ALT + r"(?:(?P<r>..)反|音(?P<y>.))")),
    ("反切", re.compile(r"(?P<r>..)反")),
    ("音", re.compile(r"音(?P<y>.)")),
    ("如字", re.compile(r"如字")),
    ("释", re.compile(r"字?[又亦或]作.同?")),
    ("释", re.compile(r"出注")),
    ("释", re.compile(r"[下注後除][^反音]{0,12}?[同此]")),
]


@dataclass
class Item:
    """One item of an entry: its kind (:data:`KINDS`), its text and the reading it gives."""

    kind: str
    text: str
    reading: str


@dataclass
class Entry:
    """One 音义 entry: its head as written, the character it glosses, the context the head names
    (``無射`` for ``無射之射``), its items and its place ``[start, end)`` in the block's text."""

    head: str
    char: str
    context: str
    items: list[Item]
    start: int
    end: int

    @property
    def kind(self) -> str:
        """The kind of its first item."""
        return self.items[0].kind

    @property
    def reading(self) -> str:
        """The reading of its first item (``丁大反``, ``景``, ``如字``)."""
        return self.items[0].reading

    @property
    def text(self) -> str:
        """The entry as written (head and items)."""
        return self.head + "".join(i.text for i in self.items)


def _item(text: str, i: int, char: str) -> Item | None:
    """The item at ``text[i:]`` for an entry glossing ``char``, else None."""
    for kind, rx in _ITEMS:
        m = rx.match(text, i)
        if m:
            g = m.groupdict()
            if kind == "反切" or (kind == "又音" and g.get("r")):
                reading = g["r"] + "反"
            elif g.get("y"):
                reading = g["y"]
            else:
                reading = m.group(0)
            return Item(kind, m.group(0), reading)
    # glosses naming the head: 閒側之閒 (as in 閒側), 樂下字 (the lower 樂)
    m = re.compile(r".{1,3}?之" + re.escape(char)).match(text, i)
    if m:
        return Item("释", m.group(0), m.group(0))
    if text.startswith(char + "下字", i):
        return Item("释", char + "下字", char + "下字")
    return None


def _items(text: str, i: int, char: str) -> tuple[list[Item], int]:
    out: list[Item] = []
    while i < len(text):
        it = _item(text, i, char)
        if it is None:
            break
        out.append(it)
        i += len(it.text)
    return out, i


def parse_block(text: str) -> tuple[list[Entry], str]:
    """Split a 音義 block's text into entries; returns them and what is left unparsed ("" when
    the block splits cleanly)."""
    entries: list[Entry] = []
    i = 0
    while i < len(text):
        got: Entry | None = None
        m = re.compile(r"(..)之(.)").match(text, i)
        if m and m.group(2) in m.group(1):
            items, j = _items(text, m.end(), m.group(2))
            if items:
                got = Entry(m.group(0), m.group(2), m.group(1), items, i, j)
        for n in (1, 2):
            if got is None and i + n < len(text):
                head = text[i:i + n]
                items, j = _items(text, i + n, head[-1])
                if items:
                    got = Entry(head, head[-1], head, items, i, j)
        if got is None:
            return entries, text[i:]
        entries.append(got)
        i = got.end
    return entries, ""


@dataclass
class Attached:
    """An entry and where it is attached: the unit (经 ``text`` or ``zhu``) and the offset of the
    glossed character in the unit's text; ``how`` says how it was found (``in order``, ``from the
    mark``) or why not (``not found``); ``equal`` whether the character is the head's."""

    block: SourceUnit
    n: int  # the entry's number in the block (1-based)
    entry: Entry
    unit: SourceUnit | None = None
    offset: int = -1
    how: str = "not found"
    equal: bool = False
    found: str = ""
    #: where it stands (:func:`place`): the 经 character's base-key offset, or the 注 it is in
    jing: int | None = None
    zhu: ZhuAnchor | None = None
    point: int | None = None

    @property
    def file_offset(self) -> int:
        """The glossed character's offset in the file (-1 when not attached)."""
        return self.unit.offset + self.offset if self.unit is not None else -1


@dataclass
class YinyiResult:
    """The parsed and attached entries of a witness, and the blocks that did not split cleanly."""

    entries: list[Attached] = field(default_factory=list)
    unsplit: list[tuple[SourceUnit, str]] = field(default_factory=list)
    placed: list[Attached] = field(default_factory=list)


def attach(units: list[SourceUnit], norm: Normaliser) -> YinyiResult:
    """Parse every ``yinyi`` unit of one witness and attach its entries to the 经 (``text``) and
    注 (``zhu``) characters before it (see the module doc)."""
    chars: list[str] = []
    where: list[tuple[SourceUnit, int]] = []
    for u in sorted((u for u in units if u.kind in ("text", "zhu")), key=lambda u: u.offset):
        skip = {k for m in LAYOUT_RE.finditer(u.text) for k in range(m.start(), m.end())}
        for o, c in enumerate(u.text):
            if o not in skip:
                chars.append(c)
                where.append((u, o))
    text = "".join(chars)
    keys = [norm.key(c) or c for c in chars]
    offsets = [u.offset + o for u, o in where]
    res = YinyiResult()
    prev_mark = 0
    for b in (u for u in units if u.kind == "yinyi"):
        entries, rest = parse_block(str(b.meta["text"]))
        if rest:
            res.unsplit.append((b, rest))
        mark = bisect.bisect_left(offsets, b.offset)
        got: list[Attached] = []
        limit = mark
        for n, e in reversed(list(enumerate(entries, 1))):
            a = Attached(b, n, e)
            for lo_limit, how in ((limit, "in order"), (mark, "from the mark")):
                k = _find(text, keys, e, lo_limit, norm)
                if k >= 0:
                    a.unit, a.offset = where[k]
                    a.how, a.found = how, chars[k]
                    a.equal = keys[k] == (norm.key(e.char) or e.char)
                    limit = k + 1 if how == "in order" else limit
                    break
            if a.unit is None:
                gap = text.rfind("□", prev_mark, mark)
                a.how = (f"not found: the head is not in the 经 or 注 before the block; the witness has □ "
                         f"(a lost character) at line {_line_at(*where[gap])}, where it may stand"
                         if gap >= 0 else "not found: the head is not in the 经 or 注 before the block")
            got.append(a)
        res.entries.extend(reversed(got))
        prev_mark = mark
    return res


def _line_at(u: SourceUnit, off: int) -> int:
    return u.line + u.text.count("\n", 0, off)


def entry_span(a: Attached) -> tuple[int, int]:
    """The file offsets ``[start, end)`` of an entry in its block (the block's text without its
    mark, parentheses and layout maps one for one onto the entry text), else the block's."""
    b = a.block
    skip = {k for m in LAYOUT_RE.finditer(b.text) for k in range(m.start(), m.end())}
    mark = b.text.find("(") + 1  # after the mark 音義( (which may run over a line end)
    offs = [i for i, c in enumerate(b.text) if i not in skip and c not in "()" and i >= mark]
    if "".join(b.text[i] for i in offs) != b.meta["text"]:
        return b.offset, b.end
    return b.offset + offs[a.entry.start], b.offset + offs[a.entry.end - 1] + 1


def _find(text: str, keys: list[str], e: Entry, before: int, norm: Normaliser) -> int:
    """The index of the glossed character of the last occurrence of the entry's context that
    ends before ``before``, matching by key (variant forms fold), else -1."""
    ctx = [norm.key(c) or c for c in e.context]
    at = e.context.rfind(e.char) if e.context != e.head or len(e.context) == 1 else len(e.context) - 1
    n = len(ctx)
    for s in range(before - n, -1, -1):
        if keys[s:s + n] == ctx:
            return s + at
    return -1


def place(res: YinyiResult, col: Collation, zhu: list[ZhuAnchor]) -> None:
    """Give each attached entry its place in the reading text: a 经 character's base-key offset
    (``jing``), or the 注 it stands in (``zhu``, whose point is then its place)."""
    from .commentary import WitnessMap

    at_base: dict[tuple[int, int], int] = {}
    # every witness's paragraphs, the base's own too (a 注疏 base: its 音義 stand in its 經)
    for al in col.alignments + col.witness_alignments(col.base.wit):
        wm = WitnessMap(al)
        for j, (u, o) in enumerate(al.stream.pos):
            if j < len(wm.to_base) and al.bstart <= wm.to_base[j] < max(al.bend, al.bstart + 1):
                at_base[(id(u), o)] = wm.to_base[j]
    by_unit = {id(z.unit): z for z in zhu} | {id(z.other): z for z in zhu if z.other is not None}
    for a in res.entries:
        if a.unit is None:
            continue
        if a.unit.kind == "zhu":
            a.zhu = by_unit.get(id(a.unit))
            if a.zhu is None:
                a.how = "its 注 is not placed"
            else:
                a.point = a.zhu.point
        else:
            a.jing = at_base.get((id(a.unit), a.offset))
            if a.jing is None:
                a.how = "its 经 character is not in the collation"
            else:
                a.point = a.jing

    res.placed = [a for a in res.entries if a.point is not None]
