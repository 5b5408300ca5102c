"""Write the README's coverage table (which sections have which layers) from the corpus, as
``yili stats --coverage`` prints it, between the markers ``<!-- coverage -->`` and
``<!-- /coverage -->``.

    python docs/gen_coverage.py          # rewrite the table in README.md
    python docs/gen_coverage.py --check  # exit 1 if the README's table is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from yili_corpus.api import Corpus  # noqa: E402
from yili_corpus.query.coverage import coverage_markdown  # noqa: E402

README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- coverage[^>]*-->\n)(.*?)(<!-- /coverage -->)", re.S)


def table() -> str:
    """The coverage table of the project's TEI, without overlays."""
    c = Corpus(ROOT / "tei" / "yili-xiangsheli.xml", None)
    return coverage_markdown(c.stats()["coverage"])


def render(readme: str) -> str:
    """``readme`` with the table between the markers made anew."""
    if not BLOCK.search(readme):
        raise SystemExit("README.md has no <!-- coverage --> … <!-- /coverage --> block")
    return BLOCK.sub(lambda m: m.group(1) + table() + m.group(3), readme, count=1)


if __name__ == "__main__":
    old = README.read_text(encoding="utf-8")
    new = render(old)
    if "--check" in sys.argv:
        sys.exit(0 if new == old else 1)
    README.write_text(new, encoding="utf-8")
    print(f"wrote {README}")
