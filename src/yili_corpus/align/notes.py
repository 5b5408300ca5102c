"""Modern notes → their lemma in the reading text (first pass: section placement).

A note's lemma is the text before its first ``：``. Its key is looked for in the reading text's
key, in order: from where the previous note of the same series was found, then (if not found)
anywhere in the text. A lemma like ``“司射既袒”至“遂命倚旌”`` is looked for by its first part;
bracketed pronunciations (``楅（f＊）``) are dropped. ■ in a lemma stands for any one character.
Notes without a lemma (fragments, section openers without one) go with the next note placed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import SourceUnit
from ..text.normalise import Normaliser

BRACKETS_RE = re.compile(r"[（(][^）)]*[）)]")
RANGE_RE = re.compile(r"^“([^”]+)”至“([^”]+)”$")


@dataclass
class NoteAnchor:
    """Where a note's lemma was found (base-key offsets), or why not."""

    unit: SourceUnit
    start: int | None
    end: int | None
    how: str


def lemma_key(lemma: str, norm: Normaliser) -> str:
    """The search key of a note lemma."""
    lemma = BRACKETS_RE.sub("", lemma)
    m = RANGE_RE.match(lemma.strip())
    if m:
        lemma = m.group(1)
    # a lemma listing several words ("熊侯、麋侯、画以虎豹") is found by its first
    lemma = lemma.split("、")[0]
    return norm.key(lemma.replace("■", "\u3013"))


def _find(key: str, pat: str, at: int) -> int:
    if "\u3013" not in pat:
        return key.find(pat, at)
    rx = re.compile("".join("." if c == "\u3013" else re.escape(c) for c in pat))
    m = rx.search(key, at)
    return m.start() if m else -1


def anchor_notes(notes: list[SourceUnit], key: str, norm: Normaliser) -> list[NoteAnchor]:
    """Anchor each note (in source order) to its lemma in ``key`` (the reading-text key)."""
    out: list[NoteAnchor] = []
    at = 0
    pending: list[SourceUnit] = []
    for u in notes:
        lem = u.meta.get("lemma")
        if not lem:
            pending.append(u)
            continue
        k = lemma_key(str(lem), norm)
        if not k:
            pending.append(u)
            continue
        i = _find(key, k, at)
        how = "in order"
        if i < 0:
            i = _find(key, k, 0)
            how = "out of order"
        if i < 0:
            out.append(NoteAnchor(u, None, None, f"lemma {lem!r} not found in the reading text"))
            continue
        for p in pending:
            out.append(NoteAnchor(p, i, i, "with the next note (no lemma of its own)"))
        pending = []
        out.append(NoteAnchor(u, i, i + len(k), how))
        if how == "in order":
            at = i
    for p in pending:
        prev = next((a for a in reversed(out) if a.start is not None), None)
        out.append(
            NoteAnchor(p, prev.start if prev else None, prev.start if prev else None,
                       "with the previous note (no lemma of its own)" if prev else "no lemma, nothing to attach to")
        )
    return out
