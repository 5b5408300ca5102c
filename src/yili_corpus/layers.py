"""The layers of the corpus: one vocabulary, defined here and nowhere else.

Every step that names a layer — the build, the TEI writer and reader, the index, search, show,
cite, export, stats and the command line — takes its key, its names and its encoding from
:data:`LAYERS`. Adding a layer is one entry here, plus its parser and its aligner.

A layer has

* ``key`` — the id used in references (``xiangsheli.16.2@zhu``), the TEI's ``@type`` and JSON;
* ``short`` — the one- or two-character label of tables and of ``show`` (经, 注, 今注);
* ``name`` — the Chinese name of headings and summaries (郑注, 贾疏, 今译);
* ``english`` — its name in English;
* ``cite`` — how a citation names it after the section (``《仪礼·乡射礼》第16节，郑玄注``);
  empty for the 经, which needs no name;
* ``tei`` — its encoding: ``clauses`` (an ``ab`` of ``seg type="clause"``: 经, 记), ``note``
  (``note @type=KEY @target``: 注, 疏, notes), ``sentences`` (an ``ab`` of ``seg type="sentence"``
  with ``@corresp``: translation);
* ``lang`` — its language (``lzh`` classical, ``zh-Hans`` modern), which also says whether a
  traditional-script view must be converted (modern) or is the witness's own (classical);
* ``aliases`` — other names a user may type (经, 經, 郑注, translation …).

An overlay made by ``yili import`` adds a layer ``BASE:NAME`` (``trans:mine``, ``zhu:kanripo``)
whose base is one of the layers here.

The order of :data:`LAYERS` is the reading order: 经, 记, then the commentaries by age (注, 疏, the
四库 editors' 考證), then the modern layers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Layer:
    """One layer of the corpus (see the module doc)."""

    key: str
    short: str
    name: str
    english: str
    cite: str
    tei: str
    lang: str
    aliases: tuple[str, ...] = ()

    @property
    def is_text(self) -> bool:
        """A layer of the base text (经, 记): clauses, the reading text, the apparatus."""
        return self.tei == "clauses"

    @property
    def is_modern(self) -> bool:
        """A layer in modern Chinese (no traditional witness: its 繁体 view is converted)."""
        return self.lang != "lzh"


LAYERS: tuple[Layer, ...] = (
    Layer("jing", "经", "经", "jing (canonical text)", "", "clauses", "lzh", ("经", "經", "text")),
    Layer("ji", "记", "记", "ji (appended records)", "（记）", "clauses", "lzh", ("记", "記", "records")),
    Layer("zhu", "注", "郑注", "Zheng Xuan's commentary", "郑玄注", "note", "lzh",
          ("注", "郑注", "鄭注", "郑玄注", "鄭玄注", "commentary")),
    Layer("yinyi", "音义", "陆氏音义", "Lu Deming's glosses on readings (Jingdian shiwen)", "陆德明音义", "note", "lzh",
          ("音义", "音義", "陆氏音义", "陸氏音義", "释文", "釋文", "经典释文", "經典釋文", "陆德明音义", "陸德明音義")),
    Layer("shu", "疏", "贾疏", "Jia Gongyan's subcommentary", "贾公彦疏", "note", "lzh",
          ("疏", "贾疏", "賈疏", "贾公彦疏", "賈公彥疏", "subcommentary")),
    Layer("kaozheng", "考证", "四库考证", "the Siku editors' textual notes (考證)", "四库馆臣考证", "note", "lzh",
          ("考證", "考证", "四库考证", "四庫考證", "kz", "textual notes")),
    Layer("note", "今注", "今注", "modern note", "今注", "note", "zh-Hans",
          ("今注", "注释", "註釋", "notes")),
    Layer("trans", "今译", "今译", "modern translation", "今译", "sentences", "zh-Hans",
          ("译", "譯", "今译", "今譯", "译文", "譯文", "translation")),
)

#: The layer keys in reading order.
KEYS: tuple[str, ...] = tuple(x.key for x in LAYERS)
#: The keys of the base-text layers (经, 记).
TEXT_KEYS: tuple[str, ...] = tuple(x.key for x in LAYERS if x.is_text)
#: The key of the 四库 editors' 考證 (entries of a lemma and a note, naming other editions).
KAOZHENG = "kaozheng"
#: The keys of the layers an overlay may add to (``trans:NAME``, ``zhu:NAME``).
OVERLAY_BASES: tuple[str, ...] = ("zhu", "trans")

_BY_KEY = {x.key: x for x in LAYERS}
_ALIASES = {a: x.key for x in LAYERS for a in x.aliases}
_OVERLAY_RE = re.compile(rf"({'|'.join(OVERLAY_BASES)}):([A-Za-z][A-Za-z0-9_-]*)")


def layer(key: str) -> Layer:
    """The layer of ``key``; an overlay's layer (``trans:NAME``) is its base layer."""
    return _BY_KEY[base_key(key)]


def base_key(key: str) -> str:
    """``trans`` for ``trans:NAME``; a plain key as it is."""
    return key.split(":", 1)[0]


def is_text(key: str) -> bool:
    """Whether ``key`` is a base-text layer (经, 记)."""
    return key in TEXT_KEYS


def is_overlay(key: str) -> bool:
    """Whether ``key`` names a layer of an overlay (``trans:NAME``, ``zhu:NAME``)."""
    return _OVERLAY_RE.fullmatch(key) is not None


def resolve(name: str) -> str | None:
    """The key a user's name stands for (a key, an alias, or an overlay's ``BASE:NAME``), else None."""
    s = name.strip()
    if s in _BY_KEY or is_overlay(s):
        return s
    return _ALIASES.get(s)


def short(key: str) -> str:
    """The short label (注, 今注); an overlay's layer: its base's label and its name (今译:mine)."""
    if is_overlay(key):
        b, n = key.split(":", 1)
        return f"{_BY_KEY[b].short}:{n}"
    return _BY_KEY[key].short if key in _BY_KEY else key


def name(key: str) -> str:
    """The Chinese name (郑注, 今译); an overlay's layer: its base's name and its name."""
    if is_overlay(key):
        b, n = key.split(":", 1)
        return f"{_BY_KEY[b].name}:{n}"
    return _BY_KEY[key].name if key in _BY_KEY else key


def ordered(keys: set[str] | list[str] | tuple[str, ...]) -> list[str]:
    """``keys`` in reading order: the layers of :data:`LAYERS` first, then overlays' by name."""
    have = set(keys)
    return [k for k in KEYS if k in have] + sorted(k for k in have if k not in _BY_KEY)


def help_text() -> str:
    """The layers as the command line's ``--layer`` help lists them."""
    return ", ".join(KEYS) + " (" + ", ".join(x.short for x in LAYERS) + " also work), or trans:NAME / zhu:NAME of an overlay"
