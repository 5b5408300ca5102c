"""The build: sources → parse → normalise → collate → align (paragraph level) → segment → output.

``run_build`` runs the steps in order and returns everything they made; ``write_outputs`` writes
the model as JSON (atomically) and ``format_report`` renders the coverage report.
"""

from __future__ import annotations

import bisect
import difflib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .align.notes import NoteAnchor, anchor_notes
from .align.translation import align_paragraphs
from .errors import DataError
from .model import ParsedSource, Section, SourceUnit, count_text_chars, is_text_char
from .sources.manifest import Manifest, load_manifest, parse_all
from .text.collate import Collation, Collator, load_emendations
from .text.normalise import Normaliser, VariantTable
from .text.segment import load_sections, reading_text, segment

#: A translation paragraph of one source that repeats one of another source this closely
#: (difflib ratio of the keys) is the same paragraph, merged.
DUPLICATE_RATIO = 0.9
#: Translation paragraph links below this confidence are listed in the report.
LOW_CONFIDENCE = 0.8


@dataclass
class TransLink:
    """A translation paragraph placed on a run of clauses (base clause indices)."""

    unit: SourceUnit
    first: int
    last: int
    confidence: float
    duplicates: list[SourceUnit] = field(default_factory=list)


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
    parsed: dict[str, ParsedSource], col: Collation, norm: Normaliser, section_clause_starts: set[int]
) -> tuple[list[TransLink], list[dict[str, Any]]]:
    clause_keys = [col.base.key[a:b] for a, b, _u in col.base.clauses]
    by_source = {sid: [u for u in p.units if u.kind == "trans"] for sid, p in parsed.items()}
    keys = {id(u): norm.key(u.text) for us in by_source.values() for u in us}
    # the largest translation source first; others' paragraphs that repeat it are merged into it
    order = sorted((s for s in by_source if by_source[s]), key=lambda s: -len(by_source[s]))
    primary: list[SourceUnit] = []
    links: list[TransLink] = []
    unplaced: list[dict[str, Any]] = []
    dup_of: dict[int, SourceUnit] = {}
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
                dup_of[id(u)] = best
            else:
                own.append(u)
        if not own:
            continue
        # paragraphs of one source keep their order, unless the source is a scrambled page
        in_order = sid != "w000" and _is_ordered(own)
        groups = [own] if in_order else [[u] for u in own]
        for g in groups:
            res = align_paragraphs([keys[id(u)] for u in g], clause_keys, section_clause_starts)
            placed = {lk.index for lk in res}
            for lk in res:
                links.append(TransLink(g[lk.index], lk.first, lk.last, lk.confidence))
            for i, u in enumerate(g):
                if i not in placed:
                    unplaced.append({"source": u.source, "line": u.line, "reason": "translation paragraph not aligned"})
        primary.extend(own)
    by_unit = {id(t.unit): t for t in links}
    for uid, p in dup_of.items():
        t = by_unit.get(id(p))
        if t is not None:
            t.duplicates.append(next(u for us in by_source.values() for u in us if id(u) == uid))
    links.sort(key=lambda t: (t.first, t.last))
    return links, unplaced


def _is_ordered(units: list[SourceUnit]) -> bool:
    return all(units[i].line < units[i + 1].line for i in range(len(units) - 1))


def run_build(corpus_dir: Path | str) -> BuildResult:
    """Run every step of the build on the corpus in ``corpus_dir``."""
    manifest = load_manifest(corpus_dir)
    parsed = parse_all(manifest)
    coverage = {sid: coverage_of(p) for sid, p in parsed.items()}
    norm = Normaliser(VariantTable.load(manifest.table("variants")))
    emend = load_emendations(manifest.table("emendations"))
    col = Collator(parsed, manifest.base, manifest.rank, norm, emend).run()
    rows = load_sections(manifest.table("sections"))
    from .text.segment import find_sections

    starts = find_sections(rows, col.base.key, norm, str(manifest.table("sections")))
    start_set = set(starts)
    section_clauses = {i for i, (a, _b, _u) in enumerate(col.base.clauses) if a in start_set}
    translations, unplaced = _translations(parsed, col, norm, section_clauses)
    breaks: dict[int, list[str]] = {}
    for t in translations:
        breaks.setdefault(col.base.clauses[t.first][0], []).append(f"{t.unit.source}:trans")
    fragmentary = frozenset(s.id for s in manifest.sources if s.id != manifest.base)
    sections = segment(col, rows, norm, manifest.chapter_id, str(manifest.table("sections")),
                       breaks, fragmentary)
    # notes, in each source's order, against the reading-text key
    notes: list[NoteAnchor] = []
    rkey, rmap = _reading_key(col)
    for p in parsed.values():
        nu = [u for u in p.units if u.kind == "note"]
        if nu:
            for a in anchor_notes(nu, rkey, norm):
                if a.start is not None:
                    a.start = rmap[min(a.start, len(rmap) - 1)]
                    a.end = rmap[min(max(a.end or a.start, a.start), len(rmap) - 1)] if a.end else a.start
                notes.append(a)
    for a in notes:
        if a.start is None:
            unplaced.append({"source": a.unit.source, "line": a.unit.line, "reason": a.how})
    result = BuildResult(manifest, parsed, norm, col, sections, translations, notes, coverage, unplaced)
    _layers(result)
    return result


def _reading_key(col: Collation) -> tuple[str, list[int]]:
    """The key of the reading text, and for each of its characters the base-key offset."""
    out: list[str] = []
    where: list[int] = []
    i = 0
    for s in col.sites:
        for j in range(i, s.start):
            out.append(col.base.key[j])
            where.append(j)
        for _c in s.lemma_key:
            out.append(_c)
            where.append(s.start)
        i = s.end
    for j in range(i, len(col.base.key)):
        out.append(col.base.key[j])
        where.append(j)
    return "".join(out), where


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

def model_json(r: BuildResult) -> dict[str, Any]:
    """The model as a JSON-ready dict (until the TEI writer lands, the build's product)."""
    col = r.collation
    loc = Locator(r.sections)
    m = r.manifest

    def unit_d(u: SourceUnit) -> dict[str, Any]:
        d = {"source": u.source, "line": u.line, "col": u.col, "text": u.text}
        d.update({k: v for k, v in u.meta.items() if k not in ("skips", "label", "paren")})
        return d

    w3 = {al.stream.para: al for al in col.alignments if al.stream.wit == "w003"}
    commentary: dict[str, list[dict[str, Any]]] = {"zhu": [], "shu": [], "note": [], "trans": []}
    for p in r.parsed.values():
        for u in p.units:
            if u.kind in ("zhu", "shu") and u.meta.get("para") in w3:
                al = w3[u.meta["para"]]
                _s, par, _c = loc.at(al.bstart)
                d = unit_d(u)
                d["paragraph"] = par.id
                commentary[u.kind].append(d)
    for a in r.notes:
        d = unit_d(a.unit)
        if a.start is not None:
            _s, _p, c = loc.at(a.start)
            d["clause"] = c.id
        d["anchor"] = a.how
        commentary["note"].append(d)
    for t in r.translations:
        d = unit_d(t.unit)
        _s, _p, c0 = loc.at(col.base.clauses[t.first][0])
        _s, _p, c1 = loc.at(col.base.clauses[t.last][1] - 1)
        d.update({"from": c0.id, "to": c1.id, "confidence": t.confidence,
                  "duplicates": [{"source": x.source, "line": x.line} for x in t.duplicates]})
        commentary["trans"].append(d)
    return {
        "chapter": {"id": m.chapter_id, "title": m.chapter_title, "work": m.work_title, "number": m.chapter_number},
        "sources": [
            {"id": s.id, "file": s.file, "format": s.format, "edition": s.edition,
             "description": s.description, "layers": s.layers, "sha256": s.sha256, "rank": s.rank}
            for s in m.sources
        ],
        "sections": [
            {
                "id": s.id, "n": s.n, "kind": s.kind, "title": s.title, "incipit": s.incipit,
                "layers": s.layers,
                "paragraphs": [
                    {"id": p.id, "n": p.n, "break_from": p.break_from,
                     "clauses": [{"id": c.id, "text": c.text, "source": c.source, "line": c.line, "col": c.col}
                                 for c in p.clauses]}
                    for p in s.paragraphs
                ],
            }
            for s in r.sections
        ],
        "apparatus": [s.to_dict() for s in col.sites],
        "placeholders": col.pua,
        "commentary": commentary,
    }


def report_json(r: BuildResult) -> dict[str, Any]:
    """The coverage report as a JSON-ready dict."""
    col = r.collation
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
             "section": Locator(r.sections).at(col.base.clauses[t.first][0])[0].n,
             "low": t.confidence < LOW_CONFIDENCE}
            for t in r.translations
        ],
        "unplaced": r.unplaced,
    }


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def dumps(data: Any) -> str:
    """Stable JSON: sorted keys, UTF-8, two-space indent, final newline."""
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def write_outputs(r: BuildResult, out_dir: Path) -> list[Path]:
    """Write the model and the report as JSON into ``out_dir``; returns the paths written."""
    cid = r.manifest.chapter_id
    paths = [out_dir / f"{cid}.model.json", out_dir / f"{cid}.report.json"]
    write_atomic(paths[0], dumps(model_json(r)))
    write_atomic(paths[1], dumps(report_json(r)))
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
    if r.unplaced:
        lines.append("")
        lines.append("Not placed")
        for u in r.unplaced:
            lines.append(f"  {u['source']} line {u['line']}: {u['reason']}")
    return "\n".join(lines)


def _show(s: str) -> str:
    return "".join(f"<U+{ord(c):04X}>" if 0xE000 <= ord(c) <= 0xF8FF else c for c in s) or "∅"


__all__ = ["BuildResult", "run_build", "write_outputs", "format_report", "model_json", "report_json",
           "reading_text"]
