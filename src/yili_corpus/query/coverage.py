"""Which sections have which layers: the coverage table of ``yili stats`` and of the README.

In the terminal, a grid of sections × layers (sections with the same layers in one row: ``4–6``);
in the README, a row a layer with the sections that have it (``1–39, 41, 43–53``), which a test
checks against the corpus (``python docs/gen_coverage.py`` writes it).
"""

from __future__ import annotations

from typing import Any

from ..layers import name, ordered, short

#: The marks of the table: the layer is there, or not.
HAVE, LACK = "●", "·"


def section_label(a: int, b: int) -> str:
    """``17`` or ``2–13``."""
    return str(a) if a == b else f"{a}–{b}"


def coverage(stats: dict[str, Any]) -> dict[str, Any]:
    """The coverage of :meth:`Corpus.stats`'s sections: ``{layers: [KEY…], rows: [{from, to,
    sections, layers: [KEY…]}]}``, consecutive sections with the same layers in one row."""
    layers = ordered({k for row in stats["sections"] for k in row["layers"]})
    rows: list[dict[str, Any]] = []
    for row in stats["sections"]:
        have = [k for k in layers if k in row["layers"]]
        n = row["section"]
        if rows and rows[-1]["layers"] == have and rows[-1]["to"] == n - 1:
            rows[-1]["to"] = n
        else:
            rows.append({"from": n, "to": n, "layers": have})
    for r in rows:
        r["sections"] = section_label(r["from"], r["to"])
    by_layer = {}
    for k in layers:
        have = [row["section"] for row in stats["sections"] if k in row["layers"]]
        by_layer[k] = {"count": len(have), "sections": ranges(have)}
    return {"layers": layers, "rows": rows, "by_layer": by_layer, "total": len(stats["sections"])}


def ranges(ns: list[int]) -> str:
    """``1–39, 41, 43–53`` for a sorted list of section numbers."""
    out: list[list[int]] = []
    for n in ns:
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(section_label(a, b) for a, b in out)


def coverage_markdown(cov: dict[str, Any]) -> str:
    """The coverage as a Markdown table, a row a layer: the sections that have it, and how many
    (the same facts as the section × layer grid of ``yili stats``, short enough for the README)."""
    out = ["| layer | sections | of " + str(cov["total"]) + " |", "|---|---|---|"]
    for k in cov["layers"]:
        b = cov["by_layer"][k]
        out.append(f"| {name(k)} | {b['sections']} | {b['count']} |")
    return "\n".join(out) + "\n"


def coverage_text(cov: dict[str, Any]) -> str:
    """The coverage as the terminal shows it: aligned columns, ● where a layer is."""
    cols = cov["layers"]
    width = max([len(r["sections"]) for r in cov["rows"]] + [5])
    heads = [short(k) for k in cols]
    cw = [max(2, len(h) * 2 if not h.isascii() else len(h)) + 1 for h in heads]  # CJK: two columns

    def cell(text: str, w: int) -> str:
        vis = sum(2 if ord(c) > 0x2E7F else 1 for c in text)
        return " " * max(1, w - vis) + text

    out = ["coverage: which sections have which layers (● there, · absent)",
           "§".rjust(width) + "".join(cell(h, w) for h, w in zip(heads, cw, strict=True))]
    for r in cov["rows"]:
        out.append(r["sections"].rjust(width) + "".join(
            cell(HAVE if k in r["layers"] else LACK, w) for k, w in zip(cols, cw, strict=True)))
    return "\n".join(out)
