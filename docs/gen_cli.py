"""Write docs/cli.md from real runs of the commands (so the page shows their real output).

    python docs/gen_cli.py          # rewrite docs/cli.md
    python docs/gen_cli.py --check  # exit 1 if docs/cli.md is out of date
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from yili_corpus.cli import main  # noqa: E402

INTRO = """# The `yili` command line

Every command has `--help` with an example, and the reading commands have `--json`. Exit codes:
0 found/ok, 1 nothing found, 2 bad usage or bad input (one line, no traceback), 3 damaged data
(names the file and place). The reading commands read the TEIs (`tei/yili-*.xml` of the project,
one a chapter; or `$YILI_TEI`, `yili --tei FILE …` for one), never the sources. `search`, `cite`
and `stats` read every chapter; `--chapter ID` (before or after the command) keeps them to one and
says which chapter a bare reference (`16`) and `--section` mean (default: xiangsheli); a reference
may name its chapter (`燕礼第3节`, `yanli.3.1`). The first search builds an index a chapter in the
user cache folder (`~/.cache/yili-corpus`, or `$YILI_CACHE_DIR`), rebuilt when the TEI changes.

This page is made by `python docs/gen_cli.py` from real runs; long outputs are cut (…).
"""

SECTIONS: list[tuple[str, str, list[str], int]] = [
    ("search", "Find every place a term occurs, in every layer. Script, variant forms and punctuation "
     "do not matter (釋獲 = 释获 = 释 获; 於堂西 finds 于堂西). `--layer` (repeatable), `--section 16-22`, "
     "`--regex` (on the normalised text, stopped after 1 s), `--word` (whole words: jieba with a "
     "dictionary of ritual terms made from the corpus; jieba is loaded only then), `--context N`. "
     "JSON: `{query, total, counts, chapters: [{chapter, title, total}], hits: [{ref, chapter, section, "
     "layer, text, start, end, before, match, after, citation, unit}]}` — `text[start:end] == match`; `ref` is the clause for 经/记, "
     "`PARAGRAPH@LAYER` for the others; `unit` is the unit's xml:id.",
     ["search 獲者 --context 6", "search 比三耦 --limit 3", "search 司射 --layer trans", "search 释获 --word --section 26-27",
      "search 获者 --layer zhu --json"], 30),
    ("show", "A passage with its layers in reading order: the 经/记 (clauses joined by ．), each 注 with "
     "the number of the clause it follows, 疏 and notes with the clauses they attach to, translation. "
     "REF: `16`, `16.2`, `16.2.3`, `§16`, `乡射礼16`, `乡射礼第十六节`, `鄉射禮 16`, `xiangsheli.16.2@zhu`; "
     "another chapter's: `燕礼第3节`, `燕禮 3`, `yanli.3.1`, `dashe.w005.zhu12`, or `--chapter yanli show 3`. "
     "JSON: `{ref, section, title, layers: {LAYER: [UNIT…]}}`; a 经/记 UNIT is `{ref, text}`, the "
     "others `{ref, text, attach: {ref, to, quote}}` (and `n`, `sentences` for translation).",
     ["show 乡射礼第十七节", "show 17.2 --layer jing --layer zhu --script hant", "show xiangsheli.17.2.2 --json"], 40),
    ("cite", "Where a quotation comes from, as a citation. Exact matches score 1; a few wrong or missing "
     "characters lower the score (below 0.6: nothing found, exit 1). `--style zh|chicago|bibtex|csl-json`.",
     ["cite 司正为司马", "cite 司馬命張侯，弟子說東，遂繫右下綱", "cite 司正为司马 --style bibtex"], 20),
    ("xref", "Cross-references: 记 clauses that speak of a 经 section (or, for the 记, the sections it "
     "speaks of), 疏 blocks, notes and what they point to, works cited in 注 and 疏 with normalised "
     "titles, clauses repeated elsewhere.",
     ["xref 52", "xref 17"], 25),
    ("export", "A section range and layers as parallel text: `tsv`, `csv`, `md`, `html` (one standalone "
     "page), `json`, `tei` (a valid TEI subset), `latex` (an 注疏 edition for XeLaTeX, docs/export.md). "
     "`-o FILE` is written atomically and refused if it exists, unless `--force`.",
     ["export --section 17 --layer jing --layer zhu --format md", "export --section 17 --layer jing --format tsv"], 14),
    ("stats", "The chapters with their sections and units/characters per layer (with one chapter, or "
     "`--chapter ID`: per section and layer).", ["stats"], 12),
    ("build", "Build the TEI of every chapter (or of one, `--chapter ID`) from `corpus/` and print the coverage "
     "report; `--check` fails (exit 3) if `tei/` is stale. See docs/collation.md, docs/alignment.md, "
     "docs/extending.md.", ["build --check --chapter xiangsheli"], 5),
    ("validate", "Validate TEI against TEI P5 `tei_all` (fetched from the package registry at first use "
     "and cached; `--schema PATH`, `--no-schema`) and the project's rules. See docs/encoding.md.",
     ["validate --no-schema"], 5),
    ("align-report", "Per section: aligned layers, units, 疏 resolved by position, approximate note "
     "lemmas, translation sentences, low-confidence links.", ["align-report"], 14),
    ("import translation", "Align your own translation into an overlay (layer `trans:NAME`); see docs/import.md.",
     [], 0),
    ("import witness", "Collate your own edition into an overlay (apparatus, layer `zhu:NAME`); see docs/import.md.",
     [], 0),
    ("overlays", "List the overlays; `yili overlays remove NAME` removes one.", [], 0),
    ("serve", "The reading room in the browser and the corpus as a DTS 1.0 API, on this machine "
     "(read-only, offline); see docs/serve.md and docs/dts.md.", [], 0),
]


def run(args: list[str]) -> tuple[str, int]:
    r = CliRunner().invoke(main, args, prog_name="yili")
    # paths as a reader of the page has them: relative to the project folder
    return r.output.replace(str(ROOT) + "/", ""), r.exit_code


def render() -> str:
    out = [INTRO]
    for name, what, examples, keep in SECTIONS:
        out.append(f"## `yili {name}`\n")
        out.append(what + "\n")
        helptext, _ = run([*name.split(), "--help"])
        out.append("```text\n$ yili " + name + " --help\n" + helptext.rstrip() + "\n```\n")
        for ex in examples:
            text, code = run(shlex.split(ex))
            lines = text.rstrip("\n").splitlines()
            if len(lines) > keep:
                lines = lines[:keep] + ["…"]
            out.append(f"```text\n$ yili {ex}\n" + "\n".join(lines) + f"\n```\n(exit {code})\n")
    return "\n".join(out)


if __name__ == "__main__":
    target = ROOT / "docs" / "cli.md"
    text = render()
    if "--check" in sys.argv:
        sys.exit(0 if target.exists() and target.read_text(encoding="utf-8") == text else 1)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
