"""Step 1 of the build: one parser per source format, and the manifest that names the sources.

Each parser is a function ``parse(source_id, text, path, **options) -> ParsedSource`` whose units
keep source id, line and character offsets, and whose noise records say why characters are not
text.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import ParsedSource
from . import (
    annotated_translation,
    ji_translation,
    mixed_page,
    plain_clauses,
    punctuated,
    siku,
    zhushu,
)

Parser = Callable[..., ParsedSource]

#: Source formats by the name the manifest gives them.
PARSERS: dict[str, Parser] = {
    "plain-clauses": plain_clauses.parse,
    "zhushu": zhushu.parse,
    "annotated-translation": annotated_translation.parse,
    "mixed-page": mixed_page.parse,
    "ji-translation": ji_translation.parse,
    "siku-zhushu": siku.parse,
    "punctuated": punctuated.parse,
}

__all__ = ["PARSERS", "Parser"]
