"""Translation paragraphs of several sources → one set of paragraphs placed on the clauses.

Sources that carry a translation are taken largest first. A paragraph of a later source that
repeats one of an earlier source (:data:`DUPLICATE_RATIO`; a truncated copy counts) is merged into
it, kept as its duplicate; the paragraphs left of each source go to the translation aligner
(:func:`~yili_corpus.align.translation.align_translation`), in the source's order unless the
source is a scrambled page.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from ..model import ParsedSource, SourceUnit
from ..text.clauses import PARA_MARK, Place
from ..text.collate import Collation
from ..text.normalise import Normaliser
from .sentences import split_sentences
from .translation import SentenceLink, align_translation

#: A translation paragraph of one source that repeats one of another source this closely
#: (difflib ratio of the keys) is the same paragraph, merged.
DUPLICATE_RATIO = 0.9
#: The marks of a witness's copy of the text that end a sentence (or start a paragraph).
SENTENCE_MARKS = "。；！？" + PARA_MARK


@dataclass
class TransLink:
    """A translation paragraph placed on a run of clauses (base clause indices), with its
    sentences (offsets in the unit's text) and their links to clauses."""

    unit: SourceUnit
    first: int
    last: int
    confidence: float
    duplicates: list[SourceUnit] = field(default_factory=list)
    sentences: list[tuple[int, int]] = field(default_factory=list)
    links: list[SentenceLink] = field(default_factory=list)


def repeat_of(key: str, earlier: list[str], ratio: float = DUPLICATE_RATIO) -> int | None:
    """The index of the first of ``earlier`` that ``key`` repeats (ratio of the keys, compared
    with the same-length head of the other so that a truncated copy counts), or None."""
    for j, pk in enumerate(earlier):
        sm = difflib.SequenceMatcher(None, key, pk, autojunk=False)
        if sm.real_quick_ratio() < ratio * 0.5:
            continue
        if difflib.SequenceMatcher(None, key, pk[: max(len(key), 1)], autojunk=False).ratio() >= ratio:
            return j
    return None


def split_repeats(
    by_source: dict[str, list[SourceUnit]], keys: dict[int, str]
) -> tuple[list[tuple[str, list[SourceUnit]]], list[tuple[SourceUnit, SourceUnit]]]:
    """Per source, largest first, its own paragraphs (those that repeat no paragraph of a source
    before it); and the pairs (repeat, the paragraph it repeats)."""
    order = sorted((s for s in by_source if by_source[s]), key=lambda s: -len(by_source[s]))
    primary: list[SourceUnit] = []
    primary_keys: list[str] = []
    own_of: list[tuple[str, list[SourceUnit]]] = []
    dup_of: list[tuple[SourceUnit, SourceUnit]] = []
    for sid in order:
        own: list[SourceUnit] = []
        for u in by_source[sid]:
            j = repeat_of(keys[id(u)], primary_keys)
            if j is None:
                own.append(u)
            else:
                dup_of.append((u, primary[j]))
        own_of.append((sid, own))
        primary.extend(own)
        primary_keys.extend(keys[id(u)] for u in own)
    return own_of, dup_of


def place_translations(
    parsed: dict[str, ParsedSource],
    col: Collation,
    norm: Normaliser,
    section_clause_starts: set[int],
    scrambled: dict[str, str],
    stops: dict[str, set[int]] | None = None,
) -> tuple[list[TransLink], list[dict[str, Any]]]:
    """The translation paragraphs of every source placed on the base clauses (repeats merged),
    in text order; and the paragraphs the aligner could not place, for the report.
    ``scrambled`` gives each source's order as the manifest says (``"scrambled"``: a page whose
    paragraphs are not in the order of the text). ``stops`` gives, for a source that holds its own
    copy of the text it translates, the clauses before which that copy ends a sentence
    (:func:`sentence_stops`): its translation's sentences are drawn to end there."""
    clause_keys = [col.base.key[a:b] for a, b, _u in col.base.clauses]
    by_source = {sid: [u for u in p.units if u.kind == "trans"] for sid, p in parsed.items()}
    keys = {id(u): norm.key(u.text) for us in by_source.values() for u in us}
    own_of, dup_of = split_repeats(by_source, keys)
    links: list[TransLink] = []
    unplaced: list[dict[str, Any]] = []
    for sid, own in own_of:
        if not own:
            continue
        in_order = is_ordered(own) and scrambled.get(sid) != "scrambled"
        sents = [split_sentences(u.text) for u in own]
        keyed = [[norm.key(u.text[x:y]) for x, y in ss] for u, ss in zip(own, sents, strict=True)]
        placed = set()
        for ap in align_translation(keyed, clause_keys, section_clause_starts, ordered=in_order,
                                    stops=(stops or {}).get(sid)):
            placed.add(ap.index)
            links.append(TransLink(own[ap.index], ap.first, ap.last, ap.confidence,
                                   sentences=sents[ap.index], links=ap.links))
        for i, u in enumerate(own):
            if i not in placed:
                unplaced.append({"source": u.source, "line": u.line, "reason": "translation paragraph not aligned"})
    by_unit = {id(t.unit): t for t in links}
    for dup, p in dup_of:
        t = by_unit.get(id(p))
        if t is not None:
            t.duplicates.append(dup)
    links.sort(key=lambda t: (t.first, t.last))
    return links, unplaced


def sentence_stops(places: dict[int, Place], clause_starts: list[int], wit: str) -> set[int]:
    """The clauses (indices) before which witness ``wit`` ends a sentence (。；！？) or starts a
    paragraph, from the evidence of the clause division (``ClauseDivision.places``)."""
    return {c for c, a in enumerate(clause_starts)
            if a in places and any(ch in SENTENCE_MARKS for ch in places[a].marks.get(wit, ""))}


def is_ordered(units: list[SourceUnit]) -> bool:
    """Whether the units stand in the order of their lines."""
    return all(units[i].line < units[i + 1].line for i in range(len(units) - 1))
