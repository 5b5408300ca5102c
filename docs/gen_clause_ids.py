"""Write docs/clause-ids.tsv: the clause ids that moved when the clause division from evidence
replaced the base witness's clause marks (old → new), from a real build of corpus/.

    python docs/gen_clause_ids.py          # rewrite docs/clause-ids.tsv
    python docs/gen_clause_ids.py --check  # exit 1 if docs/clause-ids.tsv is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from yili_corpus.build import run_build  # noqa: E402
from yili_corpus.report import moved_ids_tsv  # noqa: E402

OUT = ROOT / "docs" / "clause-ids.tsv"


def render() -> str:
    """The list as the build gives it."""
    return moved_ids_tsv(run_build(ROOT / "corpus"))


if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is out of date: run python docs/gen_clause_ids.py")
            sys.exit(1)
        print(f"up to date: {OUT}")
        sys.exit(0)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
