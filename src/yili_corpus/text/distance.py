"""Edit distance, for approximate matching (note lemmas, quotations)."""

from __future__ import annotations


def edit_distance(a: str, b: str, limit: int | None = None, wildcard: str | None = None) -> int:
    """Levenshtein distance of ``a`` and ``b``. A ``wildcard`` character in ``a`` matches any
    character. With ``limit``, stop early and return ``limit + 1`` once the distance must exceed it."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j - 1] + (0 if ca == cb or ca == wildcard else 1), prev[j] + 1, cur[j - 1] + 1)
        if limit is not None and min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]
