"""Helpers shared by the parsers."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..genre import Genre
from ..model import GETA

#: Lines that are web-page furniture rather than text.
NAVIGATION_RE = re.compile(r"请点击|下一页|上一页|继续阅读|本章未完")
PAGE_HEADER_RE = re.compile(r"[(（]第\s*\d+\s*/\s*\d+\s*页[)）]")
#: A placeholder a transcription put where it could not type a character.
PLACEHOLDER_RE = re.compile(r"\[生僻字[^\]]*\]")


def genre_option(options: Mapping[str, object]) -> Genre:
    """The ``genre`` a parser was given (the manifest's genre table, :attr:`Manifest.genre`); an
    empty :class:`Genre` without one: then no paragraph reads as modern, no note opens a section."""
    g = options.get("genre")
    if g is None:
        return Genre()
    if not isinstance(g, Genre):
        raise TypeError(f"genre must be a Genre, not {type(g).__name__}")
    return g


def placeholder_skips(text: str) -> list[tuple[int, int, str]]:
    """Skip spans (start, end, replacement) for placeholders such as ``[生僻字详见原文]``."""
    return [(m.start(), m.end(), GETA) for m in PLACEHOLDER_RE.finditer(text)]
