"""Word boundaries for ``search --word``: jieba with a user dictionary of ritual terms.

jieba is imported only here, so only ``--word`` pays for it. The dictionary is made from the
corpus: the 2–4-character strings of the 经/记 that occur there at least :data:`MIN_COUNT` times
and that the modern translation or notes keep as they are (司射, 释获者, 阼阶 …: a translator keeps
the ritual terms and rewrites the rest), and the lemmas of the notes of that length. It is made
in memory, once per process (≈30 ms, against ≈1 s for jieba to load its own dictionary), so
``--word`` writes nothing of ours to disk and works without a writable cache folder.

Each term's frequency in the dictionary is its count in the 经/记 (times :data:`FREQ_SCALE`): where
two terms overlap, the one the text uses more wins. With one frequency for all, jieba cut 继射释获
as 继/射释/获 (射释, 5 times, a string that crosses two words) and missed 释获 (25 times).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from ..layers import TEXT_KEYS

MIN_COUNT = 3
#: A term's frequency in jieba's dictionary per occurrence in the 经/记 (jieba's own common words
#: have frequencies in the thousands to millions).
FREQ_SCALE = 1000


def ritual_terms(index: Any) -> list[str]:
    """The terms of the user dictionary (see module doc)."""
    return sorted(term_counts(index))


def term_counts(index: Any) -> dict[str, int]:
    """The terms of the user dictionary with their counts in the 经/记 (see module doc)."""
    jing = [r.key for r in index.rows(list(TEXT_KEYS))]
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
    return {t: counts[t] for t in sorted(keep)}


#: Tokenizers kept per process, by index digest: a run uses one; a long-lived program (the API)
#: that reopens after an import needs a second; each holds jieba's dictionary (~75 MB).
MAX_TOKENIZERS = 2
_tokenizers: dict[str, Any] = {}


def _jieba_tokenizer(userdict: bytes) -> Any:
    import io
    import logging
    import tempfile

    import jieba

    # jieba keeps a cache of its own dictionary in the temporary folder; when it cannot write it,
    # it logs a traceback. It works without the cache, so its log stays quiet.
    jieba.setLogLevel(logging.CRITICAL)
    tk = jieba.Tokenizer()
    try:
        tempfile.gettempdir()
    except OSError:  # no usable temporary folder: jieba would fail looking for one
        tk.tmp_dir = os.devnull  # holds no cache and takes none: the dictionary is built in memory
    tk.load_userdict(io.BytesIO(userdict))
    return tk


def tokenizer(index: Any) -> Any:
    """A jieba tokenizer with the corpus's user dictionary (made once per process)."""
    key = index.meta["digest"]
    tk = _tokenizers.get(key)
    if tk is None:
        userdict = "".join(f"{t} {FREQ_SCALE * n}\n" for t, n in term_counts(index).items()).encode("utf-8")
        tk = _jieba_tokenizer(userdict)
        while len(_tokenizers) >= MAX_TOKENIZERS:
            _tokenizers.pop(next(iter(_tokenizers)))
        _tokenizers[key] = tk
    return tk


def word_boundaries(index: Any, key: str) -> set[int]:
    """Offsets in ``key`` where jieba puts a word boundary."""
    tk = tokenizer(index)
    out = {0}
    pos = 0
    for w in tk.cut(key, HMM=False):
        pos += len(w)
        out.add(pos)
    return out
