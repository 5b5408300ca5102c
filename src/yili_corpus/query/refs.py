"""Reference parsing: every form docs/design.md ("Citations") accepts, and section ranges.

Canonical: ``xiangsheli.SECTION[.PARAGRAPH[.CLAUSE]][@LAYER]``. Also: ``16``, ``16.2``, ``§16``,
``乡射礼16``, ``乡射礼第十六节``, ``鄉射禮 16``, ``第16节``, ``16@zhu``, in simplified or
traditional characters, with full-width digits. Ranges for ``--section``: ``16-22``, ``16–22``,
``16,18,20-22``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UsageError, shown
from ..layers import help_text as layer_help
from ..layers import resolve as resolve_layer

CN_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
             "七": 7, "八": 8, "九": 9}
FULLWIDTH = str.maketrans("０１２３４５６７８９．＠－，", "0123456789.@-,")

#: Digits a section, paragraph or clause number may have. A chapter has tens of sections; six
#: digits is far beyond any, and it keeps int() away from Python's 4300-digit conversion limit
#: (a reference of 5000 digits raised ValueError, an internal error).
MAX_REF_DIGITS = 6

_CN_DIGIT = "[一二两兩三四五六七八九]"
#: A well-formed Chinese numeral below 1000: 三, 十, 十六, 二十, 二十三, 一百, 一百零二, 一百二十三.
#: Strings of numeral characters that are not numbers (十十十, 一二三, 二百百) do not match.
_CN_NUMERAL = re.compile(
    rf"(?:(?P<h>{_CN_DIGIT})?百(?:[零〇](?P<hu>{_CN_DIGIT})|(?P<ht>{_CN_DIGIT})?十(?P<htu>{_CN_DIGIT})?)?"
    rf"|(?P<t>{_CN_DIGIT})?十(?P<tu>{_CN_DIGIT})?"
    rf"|(?P<u>{_CN_DIGIT})|(?P<z>[〇零]))"
)


@dataclass(frozen=True)
class Address:
    """A parsed reference: section, optional paragraph and clause, optional layer."""

    chapter: str
    section: int
    paragraph: int | None = None
    clause: int | None = None
    layer: str | None = None
    #: the last paragraph of a range of paragraphs in the section (16.2-16.4), :data:`LAST` for
    #: "to the section's end"; None for one paragraph, clause or section
    paragraph_to: int | None = None

    @property
    def id(self) -> str:
        """The xml:id of the addressed element (section, paragraph or clause)."""
        parts = [self.chapter, str(self.section)]
        if self.paragraph is not None:
            parts.append(str(self.paragraph))
            if self.clause is not None:
                parts.append(str(self.clause))
        return ".".join(parts)

    def __str__(self) -> str:
        at = f"@{self.layer}" if self.layer else ""
        if self.paragraph_to is not None:  # a range that show accepts back: 16.2-16.4, 16.2-16
            end = f"{self.section}" + ("" if self.paragraph_to == LAST else f".{self.paragraph_to}")
            return f"{self.id}-{end}{at}"
        return self.id + at


#: ``paragraph_to`` of a range that runs to the end of its section.
LAST = 10**6
#: What separates the two ends of a range of references (16-17, 16.2–16.4).
RANGE_SEP = re.compile(r"[-–—~]")


def expand_range(a: Address, b: Address) -> list[Address]:
    """The passages from reference ``a`` to ``b`` (sections or paragraphs, not clauses): whole
    sections between them, the paragraphs of the first and last from or to the ones named."""
    if a.clause is not None or b.clause is not None:
        raise UsageError(f"a range runs from a section or paragraph to another, not from a clause ({a}–{b})")
    if (a.section, a.paragraph or 0) > (b.section, b.paragraph if b.paragraph is not None else LAST):
        raise UsageError(f"the range {a}–{b} runs backwards")
    layer = a.layer or b.layer
    out = []
    for sec in range(a.section, b.section + 1):
        lo = a.paragraph if sec == a.section else None
        hi = b.paragraph if sec == b.section else None
        if lo is None and hi is None:
            out.append(Address(a.chapter, sec, layer=layer))
        else:
            out.append(Address(a.chapter, sec, lo or 1, None, layer, paragraph_to=LAST if hi is None else hi))
    return out


def cn_number(s: str) -> int | None:
    """A well-formed Chinese numeral below 1000 (十六, 二十, 五十三, 一百零二) or None (also for
    strings of numeral characters that are not a number: 十十十, 一二三)."""
    m = _CN_NUMERAL.fullmatch(s)
    if not m:
        return None
    g = {k: (CN_DIGITS[v] if v else None) for k, v in m.groupdict().items()}
    if m.group("z"):
        return 0
    if g["u"] is not None:
        return g["u"]
    if "百" in s:
        tens = 0 if g["hu"] is not None or "十" not in s else (g["ht"] or 1)
        return (g["h"] or 1) * 100 + tens * 10 + (g["hu"] or g["htu"] or 0)
    return (g["t"] or 1) * 10 + (g["tu"] or 0)


def _number(digits: str, raw: str) -> int:
    """``int(digits)``, refusing more than :data:`MAX_REF_DIGITS` digits."""
    if len(digits) > MAX_REF_DIGITS:
        raise UsageError(f"not a reference: {shown(raw)} (a number of {len(digits)} digits; "
                         f"at most {MAX_REF_DIGITS} are read)")
    return int(digits)


def layer_name(s: str) -> str:
    """A layer key from a key or an alias (经, 郑注, translation …; see :mod:`yili_corpus.layers`)."""
    key = resolve_layer(s)
    if key is None:
        raise UsageError(f"unknown layer {shown(s.strip())}; layers are {layer_help()}")
    return key


def check_overlay_layers(layers: list[str], known: list[str]) -> None:
    """Refuse an overlay layer (``trans:NAME``, ``zhu:NAME``) that no overlay has, naming those
    that exist: a misspelt name must not read as "no hits"."""
    for lay in layers:
        if ":" in lay and lay not in known:
            have = f"the overlays' layers are {', '.join(known)}" if known else "there are no overlays (yili import makes one)"
            raise UsageError(f"unknown layer {shown(lay)}: no such overlay; {have}")


def parse_ref(text: str, chapter: str = "xiangsheli", titles: tuple[str, ...] = ("乡射礼", "鄉射禮", "乡射", "鄉射"),
              max_section: int | None = None) -> Address:
    """Parse a reference in any accepted form (see module doc). ``chapter`` and ``titles`` are the
    chapter loaded (its id, its title and the title's variants, from the TEI header): a reference
    that names another chapter is refused."""
    raw = text
    s = text.strip().translate(FULLWIDTH).replace(" ", "").replace("\u3000", "")
    if not s:
        raise UsageError("empty reference")
    layer = None
    if "@" in s:
        s, _, lay = s.partition("@")
        layer = layer_name(lay)
    s = s.lstrip("§")
    for pre in (chapter + ".", chapter):
        if s.startswith(pre):
            s = s[len(pre):]
            break
    s = re.sub(r"^《?(仪礼|儀禮)[·・]?", "", s)
    for t in sorted(titles, key=len, reverse=True):
        if t and s.startswith(t):
            s = s[len(t):].lstrip("》·・,，")
            break
    m = re.fullmatch(r"第?([0-9]+|[〇零一二两兩三四五六七八九十百]+)[节節]?(?:[.．]([0-9]+))?(?:[.．]([0-9]+))?", s)
    if not m:
        # a reference to another chapter (xiangyinjiu.3, 乡饮酒礼第三节) is refused as such
        other = re.match(r"^([a-z]+)\.[0-9]|^《?([^\x00-\x7f第》]+?)》?第?(?:[0-9]+|[〇零一二两兩三四五六七八九十百]+)[节節]?$", s)
        if other:
            name = other.group(1) or other.group(2)
            raise UsageError(f"{shown(raw)} names another chapter ({shown(name)}); the chapter loaded is {chapter}"
                             f"{' (' + titles[0] + ')' if titles else ''}")
        raise UsageError(f"not a reference: {shown(raw)} (try 16, 16.2, §16, 乡射礼第十六节, xiangsheli.16.2@zhu)")
    sec = _number(m.group(1), raw) if m.group(1).isdigit() else cn_number(m.group(1))
    if sec is None:
        raise UsageError(f"not a reference: {shown(raw)} ({m.group(1)[:20]} is not a Chinese numeral such as 十六, "
                         "二十三, 一百零二)")
    if max_section is not None and not 1 <= sec <= max_section:
        raise UsageError(f"no section {sec}: the chapter {chapter} has sections 1–{max_section}")
    para = _number(m.group(2), raw) if m.group(2) else None
    clause = _number(m.group(3), raw) if m.group(3) else None
    return Address(chapter, sec, para, clause, layer)


def parse_range(text: str, max_section: int) -> list[int]:
    """Section numbers from ``16-22``, ``16–22``, ``16,18,20-22`` or a single ``16``."""
    s = text.strip().translate(FULLWIDTH).replace("–", "-").replace("—", "-").replace("~", "-")
    out: list[int] = []
    for part in s.split(","):
        part = part.strip()
        if not part:
            continue
        a, sep, b = part.partition("-")
        try:
            lo = parse_ref(a, max_section=None).section
            hi = parse_ref(b, max_section=None).section if sep else lo
        except UsageError:
            raise UsageError(f"not a section range: {shown(text)} (try 16-22)") from None
        if lo > hi:
            raise UsageError(f"section range {shown(text)} runs backwards")
        if lo < 1 or hi > max_section:
            raise UsageError(f"section range {shown(text)} is out of bounds: the chapter has sections 1–{max_section}")
        out.extend(range(lo, hi + 1))
    if not out:
        raise UsageError(f"empty section range {shown(text)}")
    return sorted(set(out))
