"""Sentences of a translation paragraph: split after 。！？； (a closing quote stays with its
sentence). Offsets are into the paragraph's text."""

from __future__ import annotations

import re

SENT_END_RE = re.compile(r"[。！？；]+[”’」』）]*")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the sentences of ``text`` (white space trimmed)."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in SENT_END_RE.finditer(text):
        out.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text)))
    res = []
    for a, b in out:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            res.append((a, b))
    return res
