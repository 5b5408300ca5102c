"""Helpers shared by the parsers."""

from __future__ import annotations

import re

#: Function words of modern written Chinese that the classical text does not use. A paragraph
#: with several of them per hundred characters is modern prose (translation), not 经/记.
MODERN_MARKERS = frozenset("的了们把这着呢吗")

#: Lines that are web-page furniture rather than text.
NAVIGATION_RE = re.compile(r"请点击|下一页|上一页|继续阅读|本章未完")
PAGE_HEADER_RE = re.compile(r"[(（]第\s*\d+\s*/\s*\d+\s*页[)）]")
#: A placeholder a transcription put where it could not type a character.
PLACEHOLDER_RE = re.compile(r"\[生僻字[^\]]*\]")
#: The mark the build puts in a key where a placeholder stood (U+3013 GETA MARK).
GETA = "\u3013"


def modern_score(text: str) -> float:
    """Modern function words per 100 characters of ``text``."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    return 100.0 * sum(1 for c in chars if c in MODERN_MARKERS) / len(chars)


def is_modern(text: str, threshold: float = 0.5) -> bool:
    """True if ``text`` reads as modern prose (see :data:`MODERN_MARKERS`)."""
    return modern_score(text) >= threshold


def placeholder_skips(text: str) -> list[tuple[int, int, str]]:
    """Skip spans (start, end, replacement) for placeholders such as ``[生僻字详见原文]``."""
    return [(m.start(), m.end(), GETA) for m in PLACEHOLDER_RE.finditer(text)]
