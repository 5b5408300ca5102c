"""The build: sources → parse → normalise → collate → align (paragraph level) → segment → output.

``run_build`` runs the steps in order and returns everything they made; ``write_outputs`` writes
the model as JSON (atomically) and ``format_report`` renders the coverage report.
"""

from __future__ import annotations

import bisect
import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .align.commentary import ShuAnchor, ZhuAnchor, anchor_commentary
from .align.notes import NoteAnchor, anchor_notes
from .align.overrides import Override, load_overrides
from .align.sentences import split_sentences
from .align.translation import SentenceLink, align_translation
from .align.xrefs import Chapters
from .errors import DataError
from .files import write_all
from .model import ParsedSource, Section, SourceUnit, count_text_chars, is_text_char
from .sources.manifest import Manifest, load_manifest, parse_all
from .text.collate import Collation, Collator, load_emendations
from .text.normalise import Normaliser, VariantTable
from .text.segment import find_sections, load_sections, reading_text, segment

#: A translation paragraph of one source that repeats one of another source this closely
#: (difflib ratio of the keys) is the same paragraph, merged.
DUPLICATE_RATIO = 0.9
#: Translation paragraph links below this confidence are listed in the report.
LOW_CONFIDENCE = 0.8
#: Sentence–clause links below this confidence (share of the clauses with lexical evidence in
#: the sentence) are listed in the alignment report.
LOW_SENTENCE_CONFIDENCE = 0.5


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


def coverage_of(ps: ParsedSource) -> dict[str, Any]:
    """Count text characters read, placed in a layer, and reported as noise; refuse silent loss."""
    n = len(ps.text)
    mark = bytearray(n)
    for u in ps.units:
        for i in range(u.offset, u.end):
            mark[i] = 1
    for z in ps.noise:
        for i in range(z.offset, z.end):
            mark[i] = 2
    read = placed = noise = 0
    lost: list[int] = []
    for i, ch in enumerate(ps.text):
        if not is_text_char(ch):
            continue
        read += 1
        if mark[i] == 1:
            placed += 1
        elif mark[i] == 2:
            noise += 1
        else:
            lost.append(i)
    if lost:
        i = lost[0]
        line = ps.text.count("\n", 0, i) + 1
        raise DataError(
            f"{len(lost)} text characters are in no unit and no noise record (parser bug), first "
            f"{ps.text[i:i + 8]!r}", ps.path, line,
        )
    return {
        "source": ps.id,
        "file": ps.path,
        "read": read,
        "placed": placed,
        "noise": noise,
        "placed_share": round(placed / read, 5) if read else 1.0,
        "noise_items": [
            {"line": z.line, "col": z.col, "text": z.text, "chars": count_text_chars(z.text), "reason": z.reason}
            for z in ps.noise
        ],
    }


def _translations(
    parsed: dict[str, ParsedSource],
    col: Collation,
    norm: Normaliser,
    section_clause_starts: set[int],
    scrambled: dict[str, str],
) -> tuple[list[TransLink], list[dict[str, Any]]]:
    clause_keys = [col.base.key[a:b] for a, b, _u in col.base.clauses]
    by_source = {sid: [u for u in p.units if u.kind == "trans"] for sid, p in parsed.items()}
    keys = {id(u): norm.key(u.text) for us in by_source.values() for u in us}
    # the largest translation source first; others' paragraphs that repeat it are merged into it
    order = sorted((s for s in by_source if by_source[s]), key=lambda s: -len(by_source[s]))
    primary: list[SourceUnit] = []
    links: list[TransLink] = []
    unplaced: list[dict[str, Any]] = []
    dup_of: list[tuple[SourceUnit, SourceUnit]] = []  # (repeat, the paragraph it repeats)
    for sid in order:
        own: list[SourceUnit] = []
        for u in by_source[sid]:
            k = keys[id(u)]
            best = None
            for p in primary:
                pk = keys[id(p)]
                sm = difflib.SequenceMatcher(None, k, pk, autojunk=False)
                if sm.real_quick_ratio() < DUPLICATE_RATIO * 0.5:
                    continue
                # a truncated copy counts: compare with the same-length head of the other
                r = difflib.SequenceMatcher(None, k, pk[: max(len(k), 1)], autojunk=False).ratio()
                if r >= DUPLICATE_RATIO:
                    best = p
                    break
            if best is not None:
                dup_of.append((u, best))
            else:
                own.append(u)
        if not own:
            continue
        # paragraphs of one source keep their order, unless the source is a scrambled page
        in_order = _is_ordered(own) and scrambled.get(sid) != "scrambled"
        sents = [split_sentences(u.text) for u in own]
        keyed = [[norm.key(u.text[x:y]) for x, y in ss] for u, ss in zip(own, sents, strict=True)]
        res = align_translation(keyed, clause_keys, section_clause_starts, ordered=in_order)
        placed = set()
        for ap in res:
            placed.add(ap.index)
            links.append(TransLink(own[ap.index], ap.first, ap.last, ap.confidence,
                                   sentences=sents[ap.index], links=ap.links))
        for i, u in enumerate(own):
            if i not in placed:
                unplaced.append({"source": u.source, "line": u.line, "reason": "translation paragraph not aligned"})
        primary.extend(own)
    by_unit = {id(t.unit): t for t in links}
    for dup, p in dup_of:
        t = by_unit.get(id(p))
        if t is not None:
            t.duplicates.append(dup)
    links.sort(key=lambda t: (t.first, t.last))
    return links, unplaced


def _is_ordered(units: list[SourceUnit]) -> bool:
    return all(units[i].line < units[i + 1].line for i in range(len(units) - 1))


def run_build(corpus_dir: Path | str, use_overrides: bool = True) -> BuildResult:
    """Run every step of the build on the corpus in ``corpus_dir``.

    ``use_overrides=False`` leaves out ``corpus/alignment-overrides.tsv`` (to measure the aligner).
    """
    manifest = load_manifest(corpus_dir)
    # 1. parse
    parsed = parse_all(manifest)
    coverage = {sid: coverage_of(p) for sid, p in parsed.items()}
    # 2–3. normalise, collate
    norm = Normaliser(VariantTable.load(manifest.table("variants")))
    emend = load_emendations(manifest.table("emendations"))
    col = Collator(parsed, manifest.base, manifest.rank, norm, emend).run()
    rows = load_sections(manifest.table("sections"))
    starts = find_sections(rows, col.base.key, norm, str(manifest.table("sections")))
    start_set = set(starts)
    section_clauses = {i for i, (a, _b, _u) in enumerate(col.base.clauses) if a in start_set}
    # 4. align the translation (it gives paragraph breaks), then segment
    translations, unplaced = _translations(parsed, col, norm, section_clauses,
                                           {s.id: s.order for s in manifest.sources})
    overrides = (
        load_overrides(manifest.table("overrides")) if use_overrides and "overrides" in manifest.tables else []
    )
    stale = _apply_trans_overrides(overrides, translations, col, norm)
    breaks: dict[int, list[str]] = {}
    for t in translations:
        breaks.setdefault(col.base.clauses[t.first][0], []).append(f"{t.unit.source}:trans")
    fragmentary = frozenset(s.id for s in manifest.sources if s.id != manifest.base)
    sections = segment(col, rows, norm, manifest.chapter_id, str(manifest.table("sections")),
                       breaks, fragmentary)
    # 5. anchor 注, 疏 and notes on the reading text
    rkey, rmap = col.reading_key_map()
    zhu: list[ZhuAnchor] = []
    shu: list[ShuAnchor] = []
    for p in parsed.values():
        if any(u.kind == "zhu" for u in p.units):
            z, s = anchor_commentary(col, p.units, norm, rkey, rmap)
            zhu.extend(z)
            shu.extend(s)
    chapters = Chapters.load(manifest.table("chapters"), manifest.chapter_number)
    sec_info = [(s.n, s.title, _to_reading(rmap, s.start)) for s in sections]
    notes: list[NoteAnchor] = []
    for p in parsed.values():
        nu = [u for u in p.units if u.kind == "note"]
        for a in anchor_notes(nu, rkey, norm, chapters, sec_info):
            if a.start is not None:
                a.start, a.end = _to_base(rmap, a.start, a.end)
            notes.append(a)
    stale += _apply_note_overrides(overrides, notes, col, norm)
    for a in notes:
        if a.start is None:
            unplaced.append({"source": a.unit.source, "line": a.unit.line, "reason": a.how})
    for sa in shu:
        if sa.how != "exact":
            unplaced.append({"source": sa.units[0].source, "line": sa.units[0].line,
                             "reason": f"疏 block {sa.block} resolved {sa.how}: {sa.reason}"})
    result = BuildResult(manifest, parsed, norm, col, sections, translations, notes, coverage, unplaced,
                         zhu, shu, stale)
    _layers(result)
    return result


def _to_reading(rmap: list[int], base_off: int) -> int:
    return bisect.bisect_left(rmap, base_off)


def _to_base(rmap: list[int], start: int, end: int | None) -> tuple[int, int]:
    s = rmap[min(start, len(rmap) - 1)]
    if end is None or end <= start:
        return s, s
    return s, rmap[min(end, len(rmap)) - 1] + 1


def _clause_span(col: Collation, norm: Normaliser, frm: str, to: str, near: int) -> tuple[int, int] | None:
    """Clause indices (first, last) from the clause holding ``frm`` to the one holding ``to``,
    the occurrence of ``frm`` nearest to clause ``near``."""
    kf, kt = norm.key(frm), norm.key(to)
    K = col.base.key
    cands = []
    i = K.find(kf)
    while i >= 0:
        cands.append(i)
        i = K.find(kf, i + 1)
    if not cands or not kt:
        return None
    starts = [a for a, _b, _u in col.base.clauses]
    anchor = starts[min(near, len(starts) - 1)]
    i = min(cands, key=lambda x: abs(x - anchor))
    j = K.find(kt, i)
    if j < 0:
        return None
    c0 = bisect.bisect_right(starts, i) - 1
    c1 = bisect.bisect_right(starts, j + len(kt) - 1) - 1
    return c0, c1


def _apply_trans_overrides(
    overrides: list[Override], translations: list[TransLink], col: Collation, norm: Normaliser
) -> list[dict[str, Any]]:
    stale: list[dict[str, Any]] = []
    for o in overrides:
        if o.layer != "trans":
            continue
        t = next((x for x in translations if x.unit.source == o.source and x.unit.line == o.line), None)
        try:
            si = int(o.item) - 1
        except ValueError:
            si = -1
        if t is None or not 0 <= si < len(t.sentences):
            stale.append({"row": o.row, "reason": f"no sentence {o.item} of a translation paragraph at {o.source} line {o.line}"})
            continue
        span = _clause_span(col, norm, o.frm, o.to, t.first)
        if span is None:
            stale.append({"row": o.row, "reason": f"{o.frm!r}…{o.to!r} not found in the 经/记"})
            continue
        clauses = list(range(span[0], span[1] + 1))
        for lk in t.links:
            if si in lk.sentences:
                lk.sentences.remove(si)
            lk.clauses = [c for c in lk.clauses if c not in clauses]
        t.links = [lk for lk in t.links if lk.sentences and lk.clauses]
        t.links.append(SentenceLink(t.links[0].para if t.links else 0, [si], clauses, 1.0, override=o.row))
        t.links.sort(key=lambda lk: (lk.sentences[0], lk.clauses[0]))
        cl = [c for lk in t.links for c in lk.clauses]
        t.first, t.last = min(cl), max(cl)
    return stale


def _apply_note_overrides(
    overrides: list[Override], notes: list[NoteAnchor], col: Collation, norm: Normaliser
) -> list[dict[str, Any]]:
    stale: list[dict[str, Any]] = []
    for o in overrides:
        if o.layer != "note":
            continue
        a = next(
            (x for x in notes if x.unit.source == o.source and x.unit.line == o.line
             and (o.item == "-" or str(x.unit.meta.get("n")) == o.item)),
            None,
        )
        near = 0
        if a is not None and a.start is not None:
            near = bisect.bisect_right([s for s, _e, _u in col.base.clauses], a.start) - 1
        span = _clause_span(col, norm, o.frm, o.to, near) if a is not None else None
        if a is None or span is None:
            stale.append({"row": o.row, "reason": f"no note {o.item} at {o.source} line {o.line}, or its words not found"})
            continue
        kf = norm.key(o.frm)
        a0 = col.base.clauses[span[0]][0]
        i = col.base.key.find(kf, a0)
        j = col.base.key.find(norm.key(o.to), i)
        a.start, a.end = i, j + len(norm.key(o.to))
        a.how = f"override (corpus/alignment-overrides.tsv row {o.row}): {o.reason}"
    return stale


class Locator:
    """Base-key offset → section / paragraph / clause."""

    def __init__(self, sections: list[Section]) -> None:
        self.clauses = [(c.start, c, p, s) for s in sections for p in s.paragraphs for c in p.clauses]
        self.starts = [c[0] for c in self.clauses]

    def at(self, off: int) -> tuple[Section, Any, Any]:
        i = max(0, bisect.bisect_right(self.starts, off) - 1)
        _st, c, p, s = self.clauses[i]
        return s, p, c


def _layers(r: BuildResult) -> None:
    loc = Locator(r.sections)
    text_layer = {s.n: s.kind for s in r.sections}
    for s in r.sections:
        s.layers = {text_layer[s.n]: len(s.paragraphs)}
    w = {al.stream.para: al for al in r.collation.alignments if al.stream.wit == "w003"}
    for p in r.parsed.values():
        for u in p.units:
            if u.kind in ("zhu", "shu") and u.meta.get("para") in w:
                al = w[u.meta["para"]]
                if u.kind == "shu" and u.meta.get("role") != "lemma":
                    continue
                s, _p, _c = loc.at(al.bstart)
                s.layers[u.kind] = s.layers.get(u.kind, 0) + 1
    for a in r.notes:
        if a.start is not None:
            s, _p, _c = loc.at(a.start)
            s.layers["note"] = s.layers.get("note", 0) + 1
    for t in r.translations:
        s, _p, _c = loc.at(r.collation.base.clauses[t.first][0])
        s.layers["trans"] = s.layers.get("trans", 0) + 1


# -- output ---------------------------------------------------------------------------------------

def alignment_report(r: BuildResult) -> dict[str, Any]:
    """Per section: which layers are aligned, how many units, how many low-confidence links."""
    loc = Locator(r.sections)
    col = r.collation
    per: dict[int, dict[str, Any]] = {
        s.n: {"section": s.n, "title": s.title, s.kind: sum(len(p.clauses) for p in s.paragraphs),
              "zhu": 0, "shu": 0, "shu_by_position": 0, "note": 0, "note_approximate": 0, "note_summary": 0,
              "trans": 0, "sentences": 0, "low_confidence": 0}
        for s in r.sections
    }
    low: list[dict[str, Any]] = []
    for z in r.zhu:
        per[loc.at(z.span.start)[0].n]["zhu"] += 1
    for sa in r.shu:
        if sa.jing is None:
            continue
        row = per[loc.at(sa.jing.start)[0].n]
        row["shu"] += 1
        row["shu_by_position"] += sa.how != "exact"
    for a in r.notes:
        if a.start is None:
            continue
        row = per[loc.at(a.start)[0].n]
        row["note"] += 1
        row["note_approximate"] += a.how.startswith("approximate")
        row["note_summary"] += a.section is not None
    for t in r.translations:
        for lk in t.links:
            row = per[loc.at(col.base.clauses[lk.clauses[0]][0])[0].n]
            row["sentences"] += len(lk.sentences)
            if lk.confidence < LOW_SENTENCE_CONFIDENCE and not lk.override:
                row["low_confidence"] += 1
                low.append({
                    "source": t.unit.source, "line": t.unit.line,
                    "sentences": [i + 1 for i in lk.sentences],
                    "text": "".join(t.unit.text[t.sentences[i][0]:t.sentences[i][1]] for i in lk.sentences),
                    "clauses": [loc.at(col.base.clauses[c][0])[2].id for c in lk.clauses],
                    "confidence": lk.confidence,
                })
        per[loc.at(col.base.clauses[t.first][0])[0].n]["trans"] += 1
    return {"sections": list(per.values()), "low_confidence": low, "stale_overrides": r.stale_overrides}


def format_alignment(rep: dict[str, Any]) -> str:
    """The alignment report as a table."""
    cols = ["jing", "ji", "zhu", "shu", "note", "trans", "sentences", "low_confidence"]
    head = f"  {'§':>2} {'title':<12}" + "".join(f"{c[:9]:>10}" for c in cols)
    lines = ["Alignment by section (units; low = sentence links with little lexical evidence)", head]
    for row in rep["sections"]:
        cells = []
        for c in cols:
            v = row.get(c, "")
            if c == "shu" and row.get("shu_by_position"):
                v = f"{v}({row['shu_by_position']}p)"
            if c == "note" and row.get("note_approximate"):
                v = f"{v}({row['note_approximate']}~)"
            cells.append(f"{v if v != 0 else '·':>10}")
        lines.append(f"  {row['section']:>2} {row['title']:<12}" + "".join(cells))
    lines.append("  (p) resolved by position, (~) approximate lemma match")
    if rep["low_confidence"]:
        lines.append("")
        lines.append("Low-confidence sentence links")
        for x in rep["low_confidence"]:
            lines.append(f"  {x['source']}:{x['line']} S{','.join(map(str, x['sentences']))} {x['confidence']:.2f} "
                         f"{x['text'][:24]} → {x['clauses'][0]}…{x['clauses'][-1]}")
    if rep["stale_overrides"]:
        lines.append("")
        lines.append("Overrides that match nothing (corpus/alignment-overrides.tsv)")
        for x in rep["stale_overrides"]:
            lines.append(f"  row {x['row']}: {x['reason']}")
    return "\n".join(lines)


def report_json(r: BuildResult) -> dict[str, Any]:
    """The coverage report as a JSON-ready dict."""
    col = r.collation
    loc = Locator(r.sections)
    restored = [s for s in col.sites if s.kind == "restored"]
    return {
        "sources": list(r.coverage.values()),
        "sections": [{"n": s.n, "title": s.title, "layers": s.layers} for s in r.sections],
        "variants": [
            {"section": s.section, "kind": s.kind, "lemma": s.lemma, "sic": s.sic,
             "readings": {x.wit: x.text for x in s.readings}, "rule": s.rule, "evidence": s.evidence}
            for s in col.sites if s.kind in ("variant", "emendation")
        ],
        "restored": [
            {"section": s.section, "text": s.lemma, "from": s.lemma_wits,
             "readings": {x.wit: {"text": x.text, "status": x.status, "line": x.line, "col": x.col} for x in s.readings}}
            for s in restored
        ],
        "placeholders": col.pua,
        "translation": [
            {"source": t.unit.source, "line": t.unit.line, "confidence": t.confidence,
             "section": loc.at(col.base.clauses[t.first][0])[0].n,
             "low": t.confidence < LOW_CONFIDENCE}
            for t in r.translations
        ],
        "unplaced": r.unplaced,
        "alignment": alignment_report(r),
    }


def dumps(data: Any) -> str:
    """Stable JSON: sorted keys, UTF-8, two-space indent, final newline."""
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def tei_bytes(r: BuildResult) -> bytes:
    """The TEI document of the build."""
    from .tei.assemble import to_document
    from .tei.write import to_bytes

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


def format_report(r: BuildResult) -> str:
    """The coverage report as text for the terminal."""
    lines = ["Sources (text characters: CJK ideographs and private-use code points)"]
    lines.append(f"  {'source':6} {'read':>6} {'placed':>7} {'noise':>6} {'placed %':>9}")
    for c in r.coverage.values():
        lines.append(f"  {c['source']:6} {c['read']:>6} {c['placed']:>7} {c['noise']:>6} {100 * c['placed_share']:>8.2f}%")
        for z in c["noise_items"]:
            lines.append(f"      noise {c['file']}:{z['line']}: {z['text']!r} ({z['chars']} chars) — {z['reason']}")
    lines.append("")
    lines.append("Sections and layers (units per layer)")
    for s in r.sections:
        lay = ", ".join(f"{k} {v}" for k, v in s.layers.items())
        lines.append(f"  {s.n:>2} {s.title:<12} {lay}")
    col = r.collation
    var = [s for s in col.sites if s.kind in ("variant", "emendation")]
    res = [s for s in col.sites if s.kind == "restored"]
    lines.append("")
    lines.append(f"Collation: {len(var)} variants and emendations, {len(res)} restored characters")
    for s in var:
        rd = "; ".join(f"{x.wit} {x.text or '∅'}" for x in s.readings)
        lines.append(f"  §{s.section} {s.kind}: {s.lemma} ← {rd} — {s.rule}")
    for s in res:
        rd = "; ".join(f"{x.wit} {_show(x.text)} [{x.status}]" for x in s.readings)
        lines.append(f"  §{s.section} restored {s.lemma}: {rd}")
    if col.pua:
        lines.append("")
        lines.append("Unencoded characters learned from the collation")
        for v in col.pua.values():
            lines.append(f"  {v['witness']} {v['codepoints']} = {v['character']} ({v['count']}×)")
    low = [t for t in r.translations if t.confidence < LOW_CONFIDENCE]
    lines.append("")
    lines.append(f"Translation paragraphs: {len(r.translations)} placed "
                 f"({sum(len(t.duplicates) for t in r.translations)} duplicates merged), {len(low)} low-confidence")
    for t in low:
        lines.append(f"  low confidence {t.confidence}: {t.unit.source} line {t.unit.line}")
    lines.append("")
    lines.append(format_alignment(alignment_report(r)))
    if r.unplaced:
        lines.append("")
        lines.append("Not placed or placed by position")
        for u in r.unplaced:
            lines.append(f"  {u['source']} line {u['line']}: {u['reason']}")
    return "\n".join(lines)


def _show(s: str) -> str:
    return "".join(f"<U+{ord(c):04X}>" if 0xE000 <= ord(c) <= 0xF8FF else c for c in s) or "∅"


__all__ = ["BuildResult", "run_build", "write_outputs", "format_report", "report_json", "tei_bytes",
           "reading_text"]
