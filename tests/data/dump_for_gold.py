"""Print w002's translation sentences and w001's clauses side by side, for making the gold list.

Usage: python tests/data/dump_for_gold.py FIRST_LINE LAST_LINE
Prints, for each translation paragraph (w002 line), its sentences numbered from 1, and the w001
clauses of the sections it renders (found by the section table), numbered as w001 numbers them.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from yili_corpus.align.sentences import split_sentences  # noqa: E402
from yili_corpus.sources import annotated_translation, plain_clauses  # noqa: E402
from yili_corpus.sources.reader import read_source  # noqa: E402

first, last = int(sys.argv[1]), int(sys.argv[2])
w002 = annotated_translation.parse("w002", read_source(ROOT / "corpus/002_f61d8bf8bcd3beb8.txt"), "002")
w001 = plain_clauses.parse("w001", read_source(ROOT / "corpus/001_2a8121061e9dfe52.txt"), "001")
for u in w002.units:
    if u.kind == "trans" and first <= u.line <= last:
        print(f"== w002 line {u.line}")
        for i, (a, b) in enumerate(split_sentences(u.text), 1):
            print(f"  S{i}\t{u.text[a:b]}")
print("== w001 clauses")
for u in w001.units:
    n = u.meta["clause"]
    if n <= 420:
        print(f"  C{n}\t{u.text}")
