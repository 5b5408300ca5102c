"""The build: sources → parse → normalise → collate (clause division) → align (paragraph level) →
segment → output.

``run_build`` runs the steps in order and returns everything they made (a
:class:`~yili_corpus.build_result.BuildResult`); ``tei_bytes`` gives its TEI and ``write_outputs``
writes the TEI and the report as JSON (both or neither). The steps live in their modules; the
reports in :mod:`yili_corpus.report` (``format_report``, ``report_json``, ``alignment_report``,
``format_alignment``, importable from here too).
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

from .align.commentary import (
    ShuAnchor,
    ZhuAnchor,
    anchor_commentary,
    collate_shu,
    collate_zhu,
    pua_reader,
)
from .align.duplicates import TransLink, place_translations, sentence_stops
from .align.kaozheng import KaozhengAnchor, anchor_kaozheng, load_editions
from .align.notes import NoteAnchor, anchor_notes
from .align.overrides import apply_note_overrides, apply_trans_overrides, load_overrides
from .align.quotations import find_quotations
from .align.xrefs import Chapters
from .align.yinyi import YinyiResult, attach
from .align.yinyi import place as place_yinyi
from .build_result import BuildResult
from .errors import DataError, YiliError
from .files import write_all
from .report import (
    alignment_report,
    coverage_of,
    dumps,
    format_alignment,
    format_report,
    report_json,
    section_layers,
)
from .sources.manifest import load_manifest, load_work, parse_all, sha256_file
from .tei.assemble import to_document
from .tei.write import to_bytes
from .text.clauses import ClauseDivider, moved_ids
from .text.collate import Collator, load_emendations
from .text.normalise import Normaliser, VariantTable
from .text.segment import Locator, find_sections, load_sections, reading_text, segment
from .text.traditional import traditional_forms
from .text.unencoded import load_pua_table, resolve_unencoded
from .text.zhu_ends import split_witnesses


def run_build(corpus_dir: Path | str, use_overrides: bool = True, chapter: str | None = None) -> BuildResult:
    """Run every step of the build on one chapter (default: the work's default chapter) of the
    corpus in ``corpus_dir``.

    ``use_overrides=False`` leaves out ``corpus/alignment-overrides.tsv`` (to measure the aligner).
    """
    manifest = load_manifest(corpus_dir, chapter)
    # 1. parse
    parsed = parse_all(manifest)
    coverage = {sid: coverage_of(p) for sid, p in parsed.items()}
    # the edition's headings (卷 title, byline, chapter title …): placed in the TEI's front and back,
    # out of every later step
    headings = [u for p in parsed.values() for u in p.units if u.kind == "heading"]
    if headings:
        parsed = {sid: type(p)(p.id, p.path, p.text, [u for u in p.units if u.kind != "heading"], p.noise)
                  for sid, p in parsed.items()}
    # 2–3. normalise; divide full-size 注 runs from the 经 by the base's 经; collate
    norm = Normaliser(VariantTable.load(manifest.table("variants")))
    problems: list[dict[str, object]] = []
    parsed, _base_key, found = split_witnesses(parsed, manifest.base, norm)
    problems.extend(found)
    # 音义: parsed and attached to the 经 and 注 characters before each block (file order), then
    # out of the later steps (placed on the reading text once the 注 are anchored)
    yinyi = YinyiResult()
    for w in manifest.witnesses_of("yinyi"):
        got = attach(parsed[w].units, norm)
        yinyi.entries += got.entries
        yinyi.unsplit += got.unsplit
        p = parsed[w]
        parsed[w] = type(p)(p.id, p.path, p.text, [u for u in p.units if u.kind != "yinyi"], p.noise)
    # the layers the build does not take yet stay out of every later step
    for s in manifest.sources:
        if s.held:
            p = parsed[s.id]
            coverage[s.id]["held"] = {k: sum(1 for u in p.units if u.kind == k) for k in s.held}
            parsed[s.id] = type(p)(p.id, p.path, p.text, [u for u in p.units if u.kind not in s.held], p.noise)
    # a chapter with no emendations has no table of them
    emend = load_emendations(manifest.table("emendations")) if "emendations" in manifest.tables else []
    # 3b. the clause division from the evidence of every witness, before the sites are cut
    fragmentary = frozenset(s.id for s in manifest.sources if s.id != manifest.base)
    divider = ClauseDivider(parsed, fragmentary)
    col = Collator(parsed, manifest.base, manifest.rank, norm, emend).run(divider.divide)
    problems.extend(col.unlocated)  # witness paragraphs the base lacks: reported, not a stop
    rows = load_sections(manifest.table("sections"))
    rk, rm = col.reading_key_map(manifest.incipits or None)
    starts = find_sections(rows, rk, norm, str(manifest.table("sections")), rm)
    start_set = set(starts)
    section_clauses = {i for i, (a, _b, _u) in enumerate(col.base.clauses) if a in start_set}
    # 4. align the translation (it gives paragraph breaks), then segment
    # the witnesses of each role are those whose manifest layers name it
    division = divider.result
    assert division is not None
    trans_wits = manifest.witnesses_of("trans")
    clause_starts = [a for a, _b, _u in col.base.clauses]
    stops = {w: sentence_stops(division.places, clause_starts, w) for w in trans_wits}
    translations, unplaced = place_translations({w: parsed[w] for w in trans_wits}, col, norm, section_clauses,
                                                {s.id: s.order for s in manifest.sources}, stops)
    overrides = (
        load_overrides(manifest.table("overrides")) if use_overrides and "overrides" in manifest.tables else []
    )
    stale = apply_trans_overrides(overrides, translations, col, norm)
    breaks: dict[int, list[str]] = {}
    for t in translations:
        breaks.setdefault(col.base.clauses[t.first][0], []).append(f"{t.unit.source}:trans")
    # the ids the base witness's own clauses would have, to list those that moved
    base_col = replace(col, base=replace(col.base, clauses=division.base_clauses))
    base_sections = segment(base_col, rows, norm, manifest.chapter_id, str(manifest.table("sections")),
                            breaks, fragmentary, manifest.incipits or None)
    sections = segment(col, rows, norm, manifest.chapter_id, str(manifest.table("sections")),
                       breaks, fragmentary, manifest.incipits or None)
    moved = moved_ids(base_sections, sections)
    # 5. anchor 注, 疏 and notes on the reading text
    rkey, rmap = col.reading_key_map()
    zhu: list[ZhuAnchor] = []
    shu: list[ShuAnchor] = []
    from_zhu: dict[tuple[str, str], dict[str, object]] = {}
    # the 注 of each witness, merged into one 注 in rank order (the highest-ranked witness's
    # reading stands; the other's differences are its apparatus); on the way, the lower-ranked
    # witness's unencoded characters are learned from the other's 注 (from_zhu)
    for w in sorted(manifest.witnesses_of("zhu"), key=lambda w: manifest.rank.get(w, 99)):
        if any(u.kind == "zhu" for u in parsed[w].units):
            z, s = anchor_commentary(col, parsed[w].units, norm, rkey, rmap)
            if zhu:
                zhu, found = collate_zhu(zhu, z, norm, pua_reader(col, w), from_zhu)
                problems.extend(found)
            else:
                zhu = z
            shu.extend(s)
    # what every unencoded sequence stands for: the collations, then corpus/pua.tsv
    table = (load_pua_table(manifest.table("pua"), {w: p.text for w, p in parsed.items()}, norm)
             if "pua" in manifest.tables else [])
    unencoded = resolve_unencoded(parsed, col.pua, from_zhu, table, norm)
    # the 疏 of two witnesses, one 疏 with an apparatus (their unencoded characters read)
    reads = {(w, seq): v.character for (w, seq), v in unencoded.items() if v.character}
    shu, found = collate_shu(shu, norm, reads)
    problems.extend(found)
    # where a 疏 quotes the 注 or 经 in other words than the text has: a finding (kept on its
    # block, listed in the report)
    find_quotations(shu, [z.unit for z in zhu], col, norm, reads)
    chapters = Chapters.load(manifest.table("chapters"), manifest.chapter_number)
    sec_info = [(s.n, s.title, _to_reading(rmap, s.start)) for s in sections]
    notes: list[NoteAnchor] = []
    for w in manifest.witnesses_of("note"):
        nu = [u for u in parsed[w].units if u.kind == "note"]
        for a in anchor_notes(nu, rkey, norm, chapters, sec_info, genre=manifest.genre):
            if a.start is not None:
                a.start, a.end = _to_base(rmap, a.start, a.end)
            notes.append(a)
    stale += apply_note_overrides(overrides, notes, col, norm)
    # the 四库 editors' 考證: each entry on the 经 (and 注) words its lemma quotes
    editions = load_editions(manifest.table("kaozheng_editions")) if "kaozheng_editions" in manifest.tables else []
    kaozheng: list[KaozhengAnchor] = []
    for w in manifest.witnesses_of("kaozheng"):
        kaozheng.extend(anchor_kaozheng([u for u in parsed[w].units if u.kind == "kaozheng"], zhu, norm,
                                        col, editions))
    for ka in kaozheng:
        if not ka.matched:
            unplaced.append({"source": ka.unit.source, "line": ka.unit.line,
                             "reason": f"考證 entry {ka.unit.meta.get('lemma', '')} anchored {ka.how}: {ka.reason}"})
    for a in notes:
        if a.start is None:
            unplaced.append({"source": a.unit.source, "line": a.unit.line, "reason": a.how})
    unplaced.extend(problems)
    for sa in shu:
        if sa.how not in ("exact", "position"):
            unplaced.append({"source": sa.units[0].source, "line": sa.units[0].line,
                             "reason": f"疏 block {sa.block} resolved {sa.how}: {sa.reason}"})
    place_yinyi(yinyi, col, zhu)
    for ya in yinyi.entries:
        if ya.point is None or not ya.equal:
            unplaced.append({"source": ya.block.source, "line": ya.block.line,
                             "reason": f"音义 {ya.entry.text} (entry {ya.n}): {ya.how}"
                                       + ("" if ya.equal or ya.unit is None else f", found {ya.found}")})
    for b, rest in yinyi.unsplit:
        unplaced.append({"source": b.source, "line": b.line, "reason": f"音义 block not split: {rest}"})
    hant = manifest.traditional
    trad = traditional_forms(col, parsed, hant, norm) if hant else None
    if trad is not None:
        trad.fill(col, sections, norm)
    result = BuildResult(manifest, parsed, norm, col, sections, translations, notes, coverage, unplaced,
                         zhu, shu, stale, trad, unencoded, division, moved, kaozheng, editions, yinyi)
    result.headings = headings
    section_layers(result)
    return result


def _to_reading(rmap: list[int], base_off: int) -> int:
    return bisect.bisect_left(rmap, base_off)


def _to_base(rmap: list[int], start: int, end: int | None) -> tuple[int, int]:
    s = rmap[min(start, len(rmap) - 1)]
    if end is None or end <= start:
        return s, s
    return s, rmap[min(end, len(rmap)) - 1] + 1


def tei_bytes(r: BuildResult) -> bytes:
    """The TEI document of the build."""
    return to_bytes(to_document(r))


def tei_path(r: BuildResult, tei_dir: Path) -> Path:
    """Where the chapter's TEI goes: ``tei/yili-<chapter>.xml``."""
    return tei_dir / f"yili-{r.manifest.chapter_id}.xml"


def write_outputs(r: BuildResult, tei_dir: Path, report_dir: Path) -> list[Path]:
    """Write the TEI and the report as JSON, both or neither (every destination is checked and
    written to a temporary before either is replaced); returns the paths written."""
    paths = [tei_path(r, tei_dir), report_dir / f"{r.manifest.chapter_id}.report.json"]
    write_all([(paths[0], tei_bytes(r)), (paths[1], dumps(report_json(r)).encode("utf-8"))], make_dirs=True)
    return paths


@dataclass
class ChapterOutcome:
    """What building (or checking) one chapter gave: its figures, the files written, or the one-line
    error that stopped it (``error``, with its exit code)."""

    chapter: str
    seconds: float = 0.0
    sections: int = 0
    paragraphs: int = 0
    clauses: int = 0
    #: each source's share of text characters placed (``placed_share`` of the coverage report)
    coverage: dict[str, float] = field(default_factory=dict)
    #: layers a file holds that the build does not take (``held``), by source: kind → units
    held: dict[str, dict[str, int]] = field(default_factory=dict)
    unplaced: int = 0
    paths: list[str] = field(default_factory=list)
    error: str = ""
    exit_code: int = 0
    #: with ``check``: the TEI in tei/ differs from what the corpus builds
    stale: bool = False
    #: the full coverage report (text) and the report as JSON, when asked for
    report: str = ""
    report_json: dict[str, object] | None = None


def build_chapter(corpus_dir: Path | str, chapter: str, tei_dir: Path, report_dir: Path, check: bool = False,
                  want_report: bool = False, want_json: bool = False) -> ChapterOutcome:
    """Build one chapter and write its TEI and report (both or neither), or with ``check`` compare
    its TEI with ``tei_dir``'s; an error becomes the outcome's one-line ``error`` (never raised, so
    that the other chapters of a work build go on)."""
    out = ChapterOutcome(chapter)
    t0 = time.perf_counter()
    try:
        r = run_build(corpus_dir, chapter=chapter)
        out.sections = len(r.sections)
        out.paragraphs = sum(len(s.paragraphs) for s in r.sections)
        out.clauses = sum(len(p.clauses) for s in r.sections for p in s.paragraphs)
        out.coverage = {sid: float(c["placed_share"]) for sid, c in r.coverage.items()}
        out.held = {sid: dict(c["held"]) for sid, c in r.coverage.items() if c.get("held")}
        out.unplaced = len(r.unplaced)
        if check:
            p = tei_path(r, tei_dir)
            out.stale = not p.exists() or p.read_bytes() != tei_bytes(r)
            out.paths = [str(p)]
        else:
            out.paths = [str(x) for x in write_outputs(r, tei_dir, report_dir)]
        if want_report:
            out.report = format_report(r)
        if want_json:
            out.report_json = report_json(r)
    except YiliError as exc:
        out.error, out.exit_code = str(exc), exc.exit_code
    except Exception as exc:  # noqa: BLE001 - one chapter's failure is its line, not the work's stop
        out.error, out.exit_code = f"internal error: {type(exc).__name__}: {exc}", 3
    out.seconds = time.perf_counter() - t0
    return out


def build_work(corpus_dir: Path | str, chapters: list[str] | None, tei_dir: Path, report_dir: Path,
               check: bool = False, jobs: int = 2, progress: Callable[[ChapterOutcome, int, int], None] | None = None,
               want_report: bool = False, want_json: bool = False) -> list[ChapterOutcome]:
    """Build ``chapters`` (default: every chapter of the work) in ``jobs`` processes, the largest
    first; ``progress`` is called as each chapter ends (its outcome, how many have ended, how
    many there are). Returns the outcomes in the work's order."""
    work = load_work(corpus_dir)
    ids = list(work.chapters) if chapters is None else chapters
    for c in ids:
        if c not in work.chapters:
            raise DataError(f"no chapter {c!r} in the work (chapters: {', '.join(work.chapters)})",
                            str(work.corpus_dir / "manifest.toml"))

    def size(c: str) -> int:  # the chapter manifest's files, for the order of the work (largest first)
        try:
            m = load_manifest(corpus_dir, c)
            return sum(s.path(m.corpus_dir).stat().st_size for s in m.sources if s.path(m.corpus_dir).exists())
        except (YiliError, OSError):
            return 0

    order = sorted(ids, key=size, reverse=True)
    done: dict[str, ChapterOutcome] = {}
    args = (tei_dir, report_dir, check, want_report, want_json)
    if jobs <= 1 or len(order) == 1:
        for c in order:
            done[c] = build_chapter(corpus_dir, c, *args)
            if progress:
                progress(done[c], len(done), len(order))
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(order))) as pool:
            futures = {pool.submit(build_chapter, corpus_dir, c, *args): c for c in order}
            for f in as_completed(futures):
                o = f.result()
                done[o.chapter] = o
                if progress:
                    progress(o, len(done), len(order))
    return [done[c] for c in ids]


def front_report(corpus_dir: Path | str, tei_dir: Path | None = None, check: bool = False,
                 folder: str = "corpus") -> list[dict[str, object]]:
    """The front matter the work manifest lists (``[[front]]``: 序, 提要 …), each file checked
    against its sha256 and described by what it holds: its parts (the ``#+PROPERTY: JUAN`` lines
    of a mandoku file), its pages and its coverage. With ``tei_dir``, its TEI
    (:mod:`yili_corpus.tei.front`, ``tei/front.xml``) is written there atomically, or with
    ``check`` compared with the one there (``stale``)."""
    from .tei.front import front_bytes, front_coverage, front_path

    work = load_work(corpus_dir)
    out: list[dict[str, object]] = []
    for k, f in enumerate(work.front):
        p = work.corpus_dir / f.file
        if not p.exists():
            raise DataError("front matter file is missing", str(p))
        got = sha256_file(p)
        if got != f.sha256:
            raise DataError(f"checksum changed (manifest {f.sha256[:12]}…, file {got[:12]}…); if the change is "
                            "intended, update sha256 of [[front]] in manifest.toml", str(p))
        text = p.read_text(encoding="utf-8")
        parts = [ln.split("JUAN", 1)[1].strip() for ln in text.splitlines() if ln.startswith("#+PROPERTY: JUAN")]
        rec: dict[str, object] = {"file": f.file, "description": f.description, "sha256": f.sha256,
                                  "parts": parts, "pages": text.count("<pb:"), "coverage": front_coverage(work, f)}
        if tei_dir is not None:
            dest = front_path(tei_dir) if k == 0 else tei_dir / f"front-{k + 1}.xml"
            data = front_bytes(work, f, folder)
            if check:
                rec["stale"] = not dest.exists() or dest.read_bytes() != data
            else:
                write_all([(dest, data)], make_dirs=True)
            rec["placed"] = str(dest)
        out.append(rec)
    return out


__all__ = ["BuildResult", "ChapterOutcome", "build_chapter", "build_work", "front_report", "TransLink", "Locator",
           "run_build", "tei_bytes", "tei_path", "write_outputs", "format_report", "report_json", "alignment_report", "format_alignment", "reading_text"]
