"""How well the translation of the 记 is aligned, against the 经 (issue 14, item 3).

    python benchmarks/bench_ji_alignment.py

Runs the real build without the override table (the aligner on its own) and prints, for the two
gold lists of tests/data/gold/ (both made by reading the texts):

* the 记 (w004 lines 3 and 7, sections 52–53, 104 sentences, ``ji_trans_links.tsv``): the share of
  sentences linked to exactly the clauses they render (the clauses' reading text compared);
* the 经 (w002 lines 143–159, sections 1–12, 204 sentences, ``trans_links_*.tsv``): the same share,
  and the precision, recall and F1 of the sentence–clause pairs;
* for the 记, the sentences that are wrong (gold and found).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

GOLD = ROOT / "tests" / "data" / "gold"


def _rows(path: Path) -> list[dict[str, str]]:
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def ji_figures(r) -> tuple[int, int, list[str]]:  # noqa: ANN001 (a BuildResult)
    """(sentences right, sentences in the gold list, the wrong ones described) for the 记."""
    from yili_corpus.build import reading_text

    col = r.collation
    found: dict[tuple[int, int], str] = {}
    for t in r.translations:
        if t.unit.source != "w004":
            continue
        for lk in t.links:
            text = "．".join(reading_text(col, *col.base.clauses[c][:2]) for c in lk.clauses)
            for s in lk.sentences:
                found[(t.unit.line, s + 1)] = text
    gold = _rows(GOLD / "ji_trans_links.tsv")
    wrong = [f"{g['line']}:{g['sentence']} gold {g['clauses']} | found {found.get((int(g['line']), int(g['sentence'])))}"
             for g in gold if found.get((int(g["line"]), int(g["sentence"]))) != g["clauses"]]
    return len(gold) - len(wrong), len(gold), wrong


def jing_figures(r) -> tuple[int, int, float, float]:  # noqa: ANN001 (a BuildResult)
    """(sentences right, sentences, precision, recall) of the 经's gold list (w002, 1–12)."""
    gold: dict[tuple[int, int], set[int]] = {}
    for f in sorted(GOLD.glob("trans_links_*.tsv")):
        for row in _rows(f):
            cs: set[int] = set()
            if row["clauses"] != "-":
                for part in row["clauses"].split(","):
                    a, _, b = part.partition("-")
                    cs.update(range(int(a), int(b or a) + 1))
            gold[(int(row["line"]), int(row["sentence"]))] = cs
    found: dict[tuple[int, int], set[int]] = {}
    for t in r.translations:
        if t.unit.source != "w002" or t.unit.line > 159:
            continue
        for lk in t.links:
            for s in lk.sentences:
                found.setdefault((t.unit.line, s + 1), set()).update(
                    r.collation.base.clauses[c][2].meta["clause"] for c in lk.clauses)
    right = sum(1 for k, v in gold.items() if found.get(k, set()) == v)
    gp = {(k, c) for k, v in gold.items() for c in v}
    fp = {(k, c) for k, v in found.items() for c in v}
    return right, len(gold), len(gp & fp) / len(fp), len(gp & fp) / len(gp)


def main() -> None:
    from yili_corpus.build import run_build

    r = run_build(ROOT / "corpus", use_overrides=False)
    ok, n, wrong = ji_figures(r)
    print(f"记 (52–53, w004): {ok}/{n} sentences linked to exactly their clauses = {ok / n:.1%}")
    jok, jn, p, rc = jing_figures(r)
    print(f"经 (1–12, w002): {jok}/{jn} sentences exact = {jok / jn:.1%}; "
          f"pairs precision {p:.3f} recall {rc:.3f} F1 {2 * p * rc / (p + rc):.3f}")
    for w in wrong:
        print("  wrong", w)


if __name__ == "__main__":
    main()
