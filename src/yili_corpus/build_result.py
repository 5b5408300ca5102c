"""What the build makes: :class:`BuildResult`, passed from the pipeline (:mod:`yili_corpus.build`)
to the reports (:mod:`yili_corpus.report`) and the TEI assembly (:mod:`yili_corpus.tei.assemble`).

It imports nothing at run time, so every consumer can name it without loading the steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the steps are loaded by the pipeline, not by this module
    from .align.commentary import ShuAnchor, ZhuAnchor
    from .align.duplicates import TransLink
    from .align.kaozheng import Edition, KaozhengAnchor
    from .align.notes import NoteAnchor
    from .align.yinyi import YinyiResult
    from .model import ParsedSource, Section, SourceUnit
    from .sources.manifest import Manifest
    from .text.clauses import ClauseDivision
    from .text.collate import Collation
    from .text.normalise import Normaliser
    from .text.traditional import Traditional
    from .text.unencoded import Unencoded


def _yinyi_result() -> YinyiResult:
    from .align.yinyi import YinyiResult

    return YinyiResult()


@dataclass
class BuildResult:
    """Everything the build made."""

    manifest: Manifest
    parsed: dict[str, ParsedSource]
    norm: Normaliser
    collation: Collation
    sections: list[Section]
    translations: list[TransLink]
    notes: list[NoteAnchor]
    coverage: dict[str, dict[str, Any]]
    unplaced: list[dict[str, Any]]
    zhu: list[ZhuAnchor] = field(default_factory=list)
    shu: list[ShuAnchor] = field(default_factory=list)
    stale_overrides: list[dict[str, Any]] = field(default_factory=list)
    #: the traditional forms of the reading text (from the manifest's traditional witness)
    traditional: Traditional | None = None
    #: Every unencoded sequence of the witnesses, by (witness, sequence), with what it stands for.
    unencoded: dict[tuple[str, str], Unencoded] = field(default_factory=dict)
    #: the clause division (:mod:`yili_corpus.text.clauses`): the evidence where it differs from
    #: the base witness's ．
    division: ClauseDivision | None = None
    #: the clause ids of the base witness's division that moved (old, new, change, text)
    moved_ids: list[dict[str, Any]] = field(default_factory=list)
    #: the 四库 editors' 考證 entries, anchored (:mod:`yili_corpus.align.kaozheng`)
    kaozheng: list[KaozhengAnchor] = field(default_factory=list)
    #: the editions the 考證 names (``[tables] kaozheng_editions``)
    kaozheng_editions: list[Edition] = field(default_factory=list)
    #: the 音义 entries, parsed, attached and placed (:mod:`yili_corpus.align.yinyi`)
    yinyi: YinyiResult = field(default_factory=lambda: _yinyi_result())
    #: the edition's headings of each witness file (``heading`` units: 卷 title, byline, chapter title,
    #: 考證 title), placed in the TEI's front and back
    headings: list[SourceUnit] = field(default_factory=list)
