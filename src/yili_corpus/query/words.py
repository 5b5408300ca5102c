"""Word boundaries for ``search --word``: jieba with a user dictionary of ritual terms.

jieba is imported only here, so only ``--word`` pays for it. The dictionary is made from the
corpus: the 2–4-character strings of the 经/记 that occur there at least :data:`MIN_COUNT` times
and that the modern translation or notes keep as they are (司射, 释获者, 阼阶 …: a translator keeps
the ritual terms and rewrites the rest), and the lemmas of the notes of that length. It is cached
beside the index.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

MIN_COUNT = 3


def ritual_terms(index: Any) -> list[str]:
    """The terms of the user dictionary (see module doc)."""
    jing = [r.key for r in index.rows(["jing", "ji"])]
    modern = "\n".join(r.key for r in index.rows(["trans", "note"]))
    counts: Counter[str] = Counter()
    for k in jing:
        for n in (2, 3, 4):
            for i in range(len(k) - n + 1):
                counts[k[i : i + n]] += 1
    terms = {g for g, c in counts.items() if c >= MIN_COUNT and g in modern}
    # drop a shorter term that only ever occurs inside one longer term
    longer = sorted(terms, key=len, reverse=True)
    keep = set(terms)
    for t in terms:
        if any(t != u and t in u and counts[t] == counts[u] for u in longer):
            keep.discard(t)
    return sorted(keep)


@lru_cache(maxsize=4)
def _tokenizer(path: str) -> Any:
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    tk = jieba.Tokenizer()
    tk.load_userdict(path)
    return tk


def tokenizer(index: Any) -> Any:
    """A jieba tokenizer with the corpus's user dictionary (built once, cached on disk)."""
    from .index import index_path

    dict_path = index_path(index.meta["digest"]).with_suffix(".userdict.txt")
    if not dict_path.exists():
        tmp = dict_path.with_suffix(".part")
        tmp.write_text("".join(f"{t} 1000\n" for t in ritual_terms(index)), encoding="utf-8")
        tmp.replace(dict_path)
    return _tokenizer(str(dict_path))


def word_boundaries(index: Any, key: str) -> set[int]:
    """Offsets in ``key`` where jieba puts a word boundary."""
    tk = tokenizer(index)
    out = {0}
    pos = 0
    for w in tk.cut(key, HMM=False):
        pos += len(w)
        out.add(pos)
    return out
