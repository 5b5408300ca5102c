"""Parser for the mixed web-page format (source 000).

Paragraphs, one a line, of two kinds in any order: 经/记 text with modern punctuation and modern
translation; a ``<b>译文</b>`` heading is followed by translation only. The kind of a paragraph
before the heading is told by its modern function words (the ``modern`` rows of the genre table,
:meth:`Genre.modern_score <yili_corpus.genre.Genre.modern_score>`); the
collation later checks every ``text`` paragraph against the base text. A short first line without
punctuation is the page title (reported as noise; the reason says if it is damaged).
"""

from __future__ import annotations

import re

from ..model import ParsedSource, SourceUnit
from .common import NAVIGATION_RE, PAGE_HEADER_RE, genre_option
from .reader import LineText, strip_span

HEADING_RE = re.compile(r"^<(b|h\d|strong)>\s*(译文|原文|注释)\s*</\1>$")


def parse(source_id: str, text: str, path: str, **options: object) -> ParsedSource:
    """Parse a mixed page into ``text`` and ``trans`` paragraphs."""
    lt = LineText(source_id, text, path)
    chapter = str(options.get("chapter_title", ""))
    genre = genre_option(options)
    units: list[SourceUnit] = []
    noise = []
    heading: str | None = None
    para = 0
    first = True
    for lineno, _off, ln in lt:
        if not ln.strip():
            continue
        c0, c1 = strip_span(ln, 0, len(ln))
        s = ln[c0:c1]
        if first and len(s) <= 20 and not re.search(r"[。，：；]", s):
            first = False
            reason = "page title"
            if chapter and s != chapter:
                reason += f" (damaged: {s!r} for {chapter!r})"
            noise.append(lt.noise(lineno, c0, c1, reason))
            continue
        first = False
        if NAVIGATION_RE.search(s) or PAGE_HEADER_RE.search(s):
            noise.append(lt.noise(lineno, c0, c1, "navigation text of the web page"))
            continue
        m = HEADING_RE.match(s)
        if m:
            heading = m.group(2)
            noise.append(lt.noise(lineno, c0, c1, f"heading {heading} (HTML markup)"))
            continue
        if "<" in s and ">" in s:
            raise lt.error(f"unexpected markup in {s[:20]!r}", lineno)
        para += 1
        score = genre.modern_score(s)
        kind = "trans" if heading == "译文" or genre.is_modern(s) else "text"
        units.append(lt.unit(kind, lineno, c0, c1, para=para, modern_score=round(score, 2)))
    if not units:
        raise lt.error("no paragraph found", 1)
    return ParsedSource(source_id, path, text, units, noise)
