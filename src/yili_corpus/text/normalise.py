"""Step 2: the normalised key used for searching, matching and alignment.

The key of a text keeps only its text characters (CJK ideographs and private-use code points,
plus the placeholder mark 〓), folds traditional to simplified with OpenCC (character by
character, so every key character maps back to one offset of the diplomatic text) and folds
variant forms through the table ``corpus/variants.tsv``. The diplomatic text is never changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..errors import DataError, shown
from ..model import GETA, PLACEHOLDER_MARKS, is_text_char


@lru_cache(maxsize=2)
def _opencc(config: str):  # type: ignore[no-untyped-def]
    import opencc

    return opencc.OpenCC(config)


def opencc_convert(text: str, config: str) -> str:
    """``text`` through OpenCC's ``t2s`` or ``s2t`` (character and phrase tables; the converter
    is loaded once, on first use)."""
    return str(_opencc(config).convert(text))


@lru_cache(maxsize=65536)
def t2s_char(ch: str) -> str:
    """Fold one character from traditional to simplified (OpenCC t2s); one character out."""
    out = opencc_convert(ch, "t2s")
    return out if len(out) == 1 else ch


@lru_cache(maxsize=65536)
def s2t_char(ch: str) -> str:
    """One character from simplified to traditional (OpenCC s2t, its first choice); one out."""
    out = opencc_convert(ch, "s2t")
    return out if len(out) == 1 else ch


@dataclass
class VariantTable:
    """Variant forms and their normal form, each with where it was seen."""

    fold: dict[str, str] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | str) -> VariantTable:
        """Read ``form<TAB>normal<TAB>seen`` rows; ``#`` starts a comment line."""
        from ..tables import read_table

        t = cls()
        p = Path(path)
        # line numbers are the file's (the rows were once counted after dropping comment lines,
        # so a bad row on line 20 was reported as line 15)
        for i, row in read_table(p, ["form", "normal", "seen"], "variant table"):
            if len(row) < 3 or len(row[0]) != 1 or len(row[1]) != 1 or not row[2].strip():
                raise DataError(f"bad variant row {shown(chr(9).join(row))}: one character, one character, a note",
                                str(p), i)
            form, normal = row[0], row[1]
            t.fold[form] = normal
            t.seen[form] = row[2].strip()
        return t


class Normaliser:
    """Builds keys: text characters only, OpenCC t2s, then the variant table."""

    def __init__(self, variants: VariantTable | None = None) -> None:
        self.variants = variants or VariantTable()
        #: each character's key character ("" for one the key leaves out), as key_map met them
        self._keys: dict[str, str] = {}

    def char(self, ch: str) -> str:
        """The key of one text character: t2s, the variant table, t2s of the normal form."""
        fold = self.variants.fold
        s = t2s_char(ch)
        normal = fold.get(ch) or fold.get(s)
        return t2s_char(normal) if normal else s

    def key(self, text: str) -> str:
        """The key of ``text``."""
        return self.key_map(text)[0]

    def key_map(
        self, text: str, skips: Iterable[tuple[int, int, str]] = ()
    ) -> tuple[str, list[int]]:
        """The key of ``text`` and, for every key character, its offset in ``text``.

        ``skips`` are ``(start, end, replacement)`` spans of ``text`` to leave out (markers) or
        to replace by one placeholder character (``replacement``).
        """
        keys = self._keys
        if not skips:  # the common case, without a loop in Python over the characters
            for ch in set(text).difference(keys):
                keys[ch] = (GETA if ch == GETA else self.char(ch)) if ch == GETA or is_text_char(ch) else ""
            ks = [keys[ch] for ch in text]
            return "".join(ks), [i for i, kc in enumerate(ks) if kc]
        out: list[str] = []
        idx: list[int] = []
        sk = sorted(skips)
        k = 0
        i = 0
        n = len(text)
        while i < n:
            if k < len(sk) and i >= sk[k][0]:
                a, b, rep = sk[k]
                k += 1
                if rep:
                    out.append(rep)
                    idx.append(a)
                i = max(i, b)
                continue
            ch = text[i]
            kc = keys.get(ch)
            if kc is None:
                kc = keys[ch] = (GETA if ch == GETA else self.char(ch)) if ch == GETA or is_text_char(ch) else ""
            if kc:
                out.append(kc)
                idx.append(i)
            i += 1
        return "".join(out), idx


#: The layout marks of a mandoku file: page breaks, the ``¶`` that ends each physical line, the
#: line break, and the ``/`` that breaks a double column of small print.
LAYOUT_RE = re.compile(r"<pb:[^>]*>|[¶\n\r/]")


def without_layout(s: str) -> str:
    """A slice of a mandoku file as a reader reads it: without page breaks, line ends and column
    breaks (the reading a unit that runs over several lines quotes)."""
    return LAYOUT_RE.sub("", s)


def is_placeholder(ch: str) -> bool:
    """True for a key character that stands for an unknown or unencoded character."""
    from ..model import is_private_use

    return ch in PLACEHOLDER_MARKS or is_private_use(ch)
