"""The build's reports: the coverage report (text for the terminal, :func:`format_report`; data,
:func:`report_json`) and the alignment report (:func:`alignment_report`, :func:`format_alignment`).

Every character of every source is placed in a layer or listed as noise with a reason
(:func:`coverage_of` refuses silent loss); every variant, restored character and translation
placement is listed, and the links the aligner is unsure of.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .build_result import BuildResult
from .errors import DataError
from .layers import KAOZHENG, KEYS
from .model import ParsedSource, count_text_chars, is_text_char
from .text.segment import Locator

#: Translation paragraph links below this confidence are listed in the report.
LOW_CONFIDENCE = 0.8
#: Sentence–clause links below this confidence (share of the clauses with lexical evidence in
#: the sentence) are listed in the alignment report.
LOW_SENTENCE_CONFIDENCE = 0.5


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


def section_layers(r: BuildResult) -> None:
    """Count the units of each layer in each section (``Section.layers``: the text layer's
    paragraphs, 注, 疏 lemmas, notes and translation paragraphs)."""
    loc = Locator(r.sections)
    text_layer = {s.n: s.layer for s in r.sections}
    for s in r.sections:
        s.layers = {text_layer[s.n]: len(s.paragraphs)}
    # a 注 counts where it stands (after the words it follows), a 疏 block where its range starts
    for z in r.zhu:
        s, _p, _c = loc.at(z.point)
        s.layers["zhu"] = s.layers.get("zhu", 0) + 1
    for sa in r.shu:
        if sa.jing is not None:
            # a block anchored by its place counts where it stands (the section of its span's end)
            s, _p, _c = loc.at(sa.jing.end - 1 if sa.how == "position" else sa.jing.start)
            s.layers["shu"] = s.layers.get("shu", 0) + 1
    for ya in r.yinyi.placed:
        assert ya.point is not None
        s, _p, _c = loc.at(ya.point)
        s.layers["yinyi"] = s.layers.get("yinyi", 0) + 1
    for a in r.notes:
        if a.start is not None:
            s, _p, _c = loc.at(a.start)
            s.layers["note"] = s.layers.get("note", 0) + 1
    for t in r.translations:
        s, _p, _c = loc.at(r.collation.base.clauses[t.first][0])
        s.layers["trans"] = s.layers.get("trans", 0) + 1
    for ka in r.kaozheng:
        if ka.start is not None:
            s, _p, _c = loc.at(ka.start)
            s.layers[KAOZHENG] = s.layers.get(KAOZHENG, 0) + 1


def alignment_report(r: BuildResult) -> dict[str, Any]:
    """Per section: which layers are aligned, how many units, how many low-confidence links."""
    loc = Locator(r.sections)
    col = r.collation
    per: dict[int, dict[str, Any]] = {
        s.n: {"section": s.n, "title": s.title, s.layer: sum(len(p.clauses) for p in s.paragraphs),
              "zhu": 0, "shu": 0, "shu_by_position": 0, "note": 0, "note_approximate": 0, "note_summary": 0,
              "trans": 0, KAOZHENG: 0, "sentences": 0, "low_confidence": 0}
        for s in r.sections
    }
    low: list[dict[str, Any]] = []
    for z in r.zhu:
        per[loc.at(z.point)[0].n]["zhu"] += 1
    for sa in r.shu:
        if sa.jing is None:
            continue
        row = per[loc.at(sa.jing.end - 1 if sa.how == "position" else sa.jing.start)[0].n]
        row["shu"] += 1
        # blocks whose lemma range was resolved by position, w003's collated into the 四库 copy's too
        row["shu_by_position"] += sum(x.how not in ("exact", "position") for x in [sa, *sa.other])
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
    for ka in r.kaozheng:
        if ka.start is not None:
            per[loc.at(ka.start)[0].n][KAOZHENG] += 1
    table = r.manifest.pointer(r.manifest.tables["overrides"]) if "overrides" in r.manifest.tables else ""
    shu_blocks = {w: {"file": sum(1 for u in p.units if u.kind == "shu" and "parts" in u.meta),
                      "anchored": sum(1 for sa in r.shu if sa.units[0].source == w and sa.jing is not None)}
                  for w, p in r.parsed.items() if any(u.kind == "shu" and "parts" in u.meta for u in p.units)}
    return {"sections": list(per.values()), "low_confidence": low, "stale_overrides": r.stale_overrides,
            "overrides_table": table, "shu_blocks": shu_blocks}


def format_alignment(rep: dict[str, Any]) -> str:
    """The alignment report as a table."""
    cols = [*KEYS, "sentences", "low_confidence"]
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
    for w, c in rep.get("shu_blocks", {}).items():
        lines.append(f"  疏 of {w}: {c['file']} blocks in the file, {c['anchored']} anchored by their place")
    if rep["low_confidence"]:
        lines.append("")
        lines.append("Low-confidence sentence links")
        for x in rep["low_confidence"]:
            lines.append(f"  {x['source']}:{x['line']} S{','.join(map(str, x['sentences']))} {x['confidence']:.2f} "
                         f"{x['text'][:24]} → {x['clauses'][0]}…{x['clauses'][-1]}")
    if rep["stale_overrides"]:
        lines.append("")
        lines.append(f"Overrides that match nothing ({rep.get('overrides_table') or 'the override table'})")
        for x in rep["stale_overrides"]:
            lines.append(f"  row {x['row']}: {x['reason']}")
    return "\n".join(lines)


def witness_pairs(r: BuildResult) -> list[dict[str, Any]]:
    """Per pair of witnesses of the 经/记: the substantive variants between them — every collation
    site where both have a reading (not a placeholder, not a lost character) and their keys differ
    (script, variant forms and punctuation folded) — with the count."""
    wits = [s.id for s in sorted(r.manifest.sources, key=lambda s: s.rank) if {"jing", "ji"} & set(s.layers)]
    out = []
    for i, a in enumerate(wits):
        for b in wits[i + 1:]:
            found = []
            for s in r.collation.sites:
                ra = next((x for x in s.readings if x.wit == a and x.status == "reading"), None)
                rb = next((x for x in s.readings if x.wit == b and x.status == "reading"), None)
                if ra is not None and rb is not None and ra.key != rb.key:
                    found.append({"section": s.section, a: ra.text, b: rb.text, "lemma": s.lem,
                                  "chosen": [w for w in (a, b) if w in s.lem_wits]})
            out.append({"pair": [a, b], "count": len(found), "variants": found})
    return out


def outvoted(r: BuildResult, wit: str) -> list[dict[str, Any]]:
    """The places where a witness reads otherwise than the reading text (its own slips or
    variants, recorded in the apparatus), with the rule that decided."""
    out = []
    for s in r.collation.sites:
        x = next((x for x in s.readings if x.wit == wit and x.status == "reading"), None)
        if x is not None and wit not in s.lem_wits and s.kind != "emendation":
            out.append({"section": s.section, "reading": x.text, "lemma": s.lem, "rule": s.rule,
                        "line": x.line})
    return out


def report_json(r: BuildResult) -> dict[str, Any]:
    """The coverage report as a JSON-ready dict."""
    col = r.collation
    loc = Locator(r.sections)
    restored = [s for s in col.sites if s.kind == "restored"]
    return {
        "sources": list(r.coverage.values()),
        "sections": [{"n": s.n, "title": s.title, "layers": s.layers} for s in r.sections],
        "variants": [
            {"section": s.section, "kind": s.kind, "lemma": s.lem, "sic": s.sic,
             "readings": {x.wit: x.text for x in s.readings}, "rule": s.rule, "evidence": s.evidence}
            for s in col.sites if s.kind in ("variant", "emendation")
        ],
        "restored": [
            {"section": s.section, "text": s.lem, "from": s.lem_wits,
             "readings": {x.wit: {"text": x.text, "status": x.status, "line": x.line, "col": x.col} for x in s.readings}}
            for s in restored
        ],
        "placeholders": col.pua,
        "unencoded": [v.to_dict() for v in r.unencoded.values()],
        "translation": [
            {"source": t.unit.source, "line": t.unit.line, "confidence": t.confidence,
             "section": loc.at(col.base.clauses[t.first][0])[0].n,
             "low": t.confidence < LOW_CONFIDENCE}
            for t in r.translations
        ],
        "unplaced": r.unplaced,
        "quotations": quotation_findings(r),
        "yinyi": yinyi_summary(r),
        "witness_pairs": witness_pairs(r),
        "outvoted": {s.id: outvoted(r, s.id) for s in r.manifest.sources if {"jing", "ji"} & set(s.layers)},
        "alignment": alignment_report(r),
        "clauses": clause_report(r),
        "paragraphs": paragraph_report(r),
        KAOZHENG: kaozheng_report(r),
    }


def paragraph_report(r: BuildResult) -> list[dict[str, Any]]:
    """Every paragraph: its id, section and kind, clauses, first words, and the witnesses whose
    paragraph (or translation paragraph, ``w004:trans``) starts there (none: the section start
    alone)."""
    return [{"id": p.id, "section": s.n, "kind": s.layer, "clauses": len(p.clauses),
             "first": p.clauses[0].text if p.clauses else "", "breaks": list(p.breaks)}
            for s in r.sections for p in s.paragraphs]


def format_paragraphs(rows: list[dict[str, Any]]) -> list[str]:
    """The paragraphs in the text report: how many, the witnesses that gave their breaks, by
    text layer (经, 记)."""
    lines = [f"Paragraphs: {len(rows)}; the witnesses whose paragraph starts there:"]
    for kind in sorted({x["kind"] for x in rows}):
        mine = [x for x in rows if x["kind"] == kind]
        secs = sorted({x["section"] for x in mine})
        by: Counter[str] = Counter(w for x in mine for w in x["breaks"])
        alone = sum(1 for x in mine if not x["breaks"])
        wits = ", ".join(f"{w} {n}" for w, n in sorted(by.items()))
        lines.append(f"  {kind} (§{secs[0]}–{secs[-1]}): {len(mine)} paragraphs, in the most clauses "
                     f"{max(x['clauses'] for x in mine)}; breaks by {wits}"
                     + (f"; {alone} at a section start alone" if alone else ""))
    return lines


def kaozheng_report(r: BuildResult) -> dict[str, Any]:
    """The 四库 editors' 考證: how many entries, how many anchored to words that match their
    quotation, each of the rest with its reason, and the editions named (with how many entries
    name each)."""
    loc = Locator(r.sections)
    entries = []
    for ka in r.kaozheng:
        d: dict[str, Any] = {"line": ka.unit.line, "lemma": ka.unit.meta.get("lemma", ""), "quotes": ka.quotes,
                             "how": ka.how, "matched": ka.matched, "reason": ka.reason,
                             "editions": sorted({e.name for e, _ in ka.editions})}
        if ka.start is not None:
            d["clause"] = loc.at(ka.start)[2].id
        entries.append(d)
    named: dict[str, int] = {}
    for ka in r.kaozheng:
        for name in {e.name for e, _ in ka.editions}:
            named[name] = named.get(name, 0) + 1
    return {"entries": len(entries), "matched": sum(1 for x in entries if x["matched"]),
            "unmatched": [x for x in entries if not x["matched"]], "editions": named, "list": entries}


def clause_report(r: BuildResult) -> dict[str, Any]:
    """The clause division: counts, every place where it differs from the base witness's ．
    (with its evidence and rule), and the clause ids that moved (old → new)."""
    d = r.division
    if d is None:
        return {"counts": {}, "changes": [], "moved_ids": []}
    loc = Locator(r.sections)
    return {
        "counts": dict(d.counts),
        "changes": [
            {"at": p.at, "section": loc.at(p.at)[0].n, "place": p.context,
             "change": "added" if p.boundary else "removed", "marks": dict(p.marks), "through": list(p.through),
             "zhu": list(p.zhu), "rule": p.rule}
            for p in d.changes
        ],
        "moved_ids": r.moved_ids,
    }


#: The head of the list of moved clause ids (``docs/clause-ids.tsv``).
MOVED_IDS_HEAD = (
    "# Clause ids that differ from those the base witness's clause marks gave, old → new: the clause\n"
    "# division from evidence (issue 12; docs/collation.md, \"Clause division\") joined some of w001's\n"
    "# clauses and divided others, and renumbered the clauses after each change in its paragraph.\n"
    "# change: renumbered (the same words, another id), joined (now part of a longer clause),\n"
    "# divided (now in several clauses). Written by python docs/gen_clause_ids.py from yili build.\n"
    "old\tnew\tchange\ttext\n"
)


def moved_ids_tsv(r: BuildResult) -> str:
    """The moved clause ids as the TSV of ``docs/clause-ids.tsv``."""
    rows = [f"{m['old']}\t{' '.join(m['new'])}\t{m['change']}\t{m['text']}\n" for m in r.moved_ids]
    return MOVED_IDS_HEAD + "".join(rows)


def dumps(data: Any) -> str:
    """Stable JSON: sorted keys, UTF-8, two-space indent, final newline."""
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def yinyi_summary(r: BuildResult) -> dict[str, Any]:
    """The 音义 figures: blocks, how many split cleanly, entries, how many are attached to a
    character equal to their head (in the 注, in the 经), and each of the rest with its reason."""
    y = r.yinyi
    blocks = {id(a.block) for a in y.entries} | {id(b) for b, _r in y.unsplit}
    ok = [a for a in y.entries if a.equal and a.point is not None]
    return {
        "blocks": len(blocks), "split": len(blocks) - len(y.unsplit), "entries": len(y.entries),
        "attached_equal": len(ok), "share": len(ok) / len(y.entries) if y.entries else 0.0,
        "in_zhu": sum(1 for a in ok if a.zhu is not None), "in_jing": sum(1 for a in ok if a.jing is not None),
        "rest": [{"source": a.block.source, "line": a.block.line, "entry": a.entry.text, "reason": a.how}
                 for a in y.entries if not (a.equal and a.point is not None)]
                + [{"source": b.source, "line": b.line, "entry": rest, "reason": "not split"} for b, rest in y.unsplit],
    }


def format_report(r: BuildResult) -> str:
    """The coverage report as text for the terminal."""
    lines = ["Sources (text characters: CJK ideographs and private-use code points)"]
    lines.append(f"  {'source':6} {'read':>6} {'placed':>7} {'noise':>6} {'placed %':>9}")
    for c in r.coverage.values():
        lines.append(f"  {c['source']:6} {c['read']:>6} {c['placed']:>7} {c['noise']:>6} {100 * c['placed_share']:>8.2f}%")
        marks: dict[str, list[int]] = {}
        for z in c["noise_items"]:
            if z["chars"] == 0:  # layout without text (page breaks, header lines): counted, not listed
                marks.setdefault(z["reason"], []).append(z["line"])
                continue
            lines.append(f"      noise {c['file']}:{z['line']}: {z['text']!r} ({z['chars']} chars) — {z['reason']}")
        for reason, at in marks.items():
            lines.append(f"      noise {c['file']}: {len(at)} × {reason} (no text characters; lines {at[0]}–{at[-1]})")
        if c.get("held"):
            held = ", ".join(f"{k} {v}" for k, v in c["held"].items())
            lines.append(f"      held (parsed and counted, not yet in the TEI): {held}")
    y = yinyi_summary(r)
    if y["blocks"]:
        lines.append("")
        lines.append(f"音义 (陆德明): {y['blocks']} blocks, {y['split']} split cleanly into {y['entries']} entries; "
                     f"{y['attached_equal']} ({100 * y['share']:.1f}%) attached to a character equal to the head "
                     f"({y['in_zhu']} in the 注, {y['in_jing']} in the 经); the rest (listed with unplaced):")
        for x in y["rest"]:
            lines.append(f"  {x['source']} line {x['line']}: {x['entry']} — {x['reason']}")
    lines.append("")
    lines.append("Sections and layers (units per layer)")
    for s in r.sections:
        lay = ", ".join(f"{k} {v}" for k, v in s.layers.items())
        lines.append(f"  {s.n:>2} {s.title:<12} {lay}")
    if r.kaozheng:
        k = kaozheng_report(r)
        lines.append("")
        lines.append(f"考證 (the 四库 editors' textual notes): {k['entries']} entries, {k['matched']} anchored to "
                     f"words that match their quotation ({100 * k['matched'] / k['entries']:.1f}%)")
        for x in k["unmatched"]:
            lines.append(f"  line {x['line']} {x['lemma']}: {x['how']} — {x['reason']}")
        lines.append("  editions named (entries): " + ", ".join(f"{n} {c}" for n, c in k["editions"].items()))
    col = r.collation
    var = [s for s in col.sites if s.kind in ("variant", "emendation")]
    res = [s for s in col.sites if s.kind == "restored"]
    lines.append("")
    lines.append(f"Collation: {len(var)} variants and emendations, {len(res)} restored characters")
    for s in var:
        rd = "; ".join(f"{x.wit} {_show(x.text)}" for x in s.readings)
        lines.append(f"  §{s.section} {s.kind}: {_show(s.lem)} ← {rd} — {s.rule}")
    lines.append("")
    lines.append("Substantive variants per pair of witnesses (where both read the place)")
    for p in witness_pairs(r):
        a, b = p["pair"]
        lines.append(f"  {a}–{b}: {p['count']}")
        for v in p["variants"]:
            lines.append(f"      §{v['section']} {a} {_show(v[a]) or '∅'} | {b} {_show(v[b]) or '∅'}"
                         f" (reading text {_show(v['lemma'])})")
    hant = r.manifest.traditional
    if hant:
        own = outvoted(r, hant)
        lines.append(f"  {hant} (ranked first) outvoted at {len(own)} place(s), each in the apparatus:")
        for v in own:
            lines.append(f"      §{v['section']} line {v['line']}: {_show(v['reading']) or '∅'} against "
                         f"{_show(v['lemma'])} — {v['rule']}")
    for s in res:
        rd = "; ".join(f"{x.wit} {_show(x.text)} [{x.status}]" for x in s.readings)
        lines.append(f"  §{s.section} restored {s.lem}: {rd}")
    for x in col.superseded:
        lines.append(f"  emendation of {x['file']}:{x['line']} ({x['corr']}) not applied: "
                     f"{', '.join(map(str, x['witnesses']))} read it; the collation decides there")
    if r.traditional is not None:
        t = r.traditional
        lines.append("")
        lines.append(f"Traditional forms of the reading text ({t.wit}): {t.counts['witness']} the witness's own, "
                     f"{t.counts['attested']} as it writes them elsewhere, {t.counts['converted']} converted (s2t)")
    if r.unencoded:
        lines.append("")
        lines.extend(format_unencoded(r))
    low = [t for t in r.translations if t.confidence < LOW_CONFIDENCE]
    lines.append("")
    lines.append(f"Translation paragraphs: {len(r.translations)} placed "
                 f"({sum(len(t.duplicates) for t in r.translations)} duplicates merged), {len(low)} low-confidence")
    for t in low:
        lines.append(f"  low confidence {t.confidence}: {t.unit.source} line {t.unit.line}")
    lines.append("")
    lines.extend(format_paragraphs(paragraph_report(r)))
    lines.append("")
    lines.extend(format_clauses(clause_report(r)))
    lines.append("")
    lines.append(format_alignment(alignment_report(r)))
    found = quotation_findings(r)
    lines.append("")
    lines.append(f"疏 quoting the 注 or 经 in other words (findings, docs/alignment.md): {len(found)}")
    lines.extend(f"  {f['source']} line {f['line']}: {f['finding']}" for f in found)
    if r.unplaced:
        lines.append("")
        lines.append("Not placed or placed by position")
        for u in r.unplaced:
            lines.append(f"  {u['source']} line {u['line']}: {u['reason']}")
    return "\n".join(lines)


def quotation_findings(r: BuildResult) -> list[dict[str, Any]]:
    """Every place where a 疏 quotes the 注 or 经 in other words than the text has
    (:mod:`yili_corpus.align.quotations`), in the order of the file."""
    return [{"source": f.witness, "line": f.line, "block": f.block, "words": f.words, "quotes": f.quotes,
             "text": f.text, "differences": f.differences, "finding": f.describe()}
            for sa in r.shu for f in sa.findings]


def format_unencoded(r: BuildResult) -> list[str]:
    """The report's "Unencoded characters": every private-use sequence of the witnesses, what it
    stands for and how that was found, and those that nothing resolves (shown as 〓)."""
    from .text.unencoded import UNRESOLVED_MARK

    vals = list(r.unencoded.values())
    open_ = [v for v in vals if v.character is None]
    lines = [f"Unencoded characters: {len(vals)} private-use sequence(s), {len(vals) - len(open_)} resolved, "
             f"{len(open_)} unresolved (shown as {UNRESOLVED_MARK})"]
    for v in vals:
        if v.character is None:
            continue
        lines.append(f"  {v.witness} {v.codepoints} = {v.character} ({len(v.places)}×) — {v.how}: {v.evidence}")
    for v in open_:
        lines.append(f"  unresolved: {v.witness} {v.codepoints} ({len(v.places)}×, line:col "
                     f"{', '.join(v.places)}) — no collation reads it and the private-use table ([tables] pua) has no row")
    return lines


def format_clauses(rep: dict[str, Any]) -> list[str]:
    """The clause division for the terminal: counts, the places that differ from the base
    witness's ．, the moved ids."""
    c = rep["counts"]
    if not c:
        return []
    lines = [f"Clause division: {c['clauses']} clauses ({c['base clauses']} by the base witness's ．): "
             f"{c['boundaries removed']} of its boundaries overruled, {c['boundaries added']} added"]
    for x in rep["changes"]:
        ev = ", ".join(f"{w} {m}" for w, m in sorted(x["marks"].items()))
        against = ", ".join(sorted(x["through"]))
        zhu = f"; 注 {', '.join(x['zhu'])}" if x["zhu"] else ""
        lines.append(f"  §{x['section']} {x['change']:7} {x['place']}  for: {ev or '-'}; against: {against or '-'}"
                     f"{zhu} — {x['rule']}")
    moved = rep["moved_ids"]
    lines.append(f"Clause ids moved: {len(moved)} (docs/clause-ids.tsv)")
    for m in moved:
        lines.append(f"  {m['old']} → {' '.join(m['new'])} ({m['change']})")
    return lines


def _show(s: str) -> str:
    return "".join(f"<U+{ord(c):04X}>" if 0xE000 <= ord(c) <= 0xF8FF else c for c in s) or "∅"


def shu_division(r: BuildResult) -> list[dict[str, Any]]:
    """The 疏's own division of the chapter (``釋曰自此至X論Y``, ``此已下論Y``) against the sections
    of ``sections.tsv``: per division, the 疏 block that names it, its words and title (論Y), the
    clauses it runs over (from the first 经 of the block's span to X, or, without X, to the next
    division) and how it stands to the sections: ``same``, ``joins a–b`` (one division over
    several sections), ``within a`` (a section divided further) or ``differs``."""
    import bisect

    col = r.collation
    loc = Locator(r.sections)
    rk, rm = col.reading_key_map()
    divs = [sa for sa in r.shu if sa.division is not None and sa.jing is not None]
    rows: list[dict[str, Any]] = []
    last_end = 0
    jing_end = max((s.end for s in r.sections if s.layer == "jing"), default=len(col.base.key))
    for k, sa in enumerate(divs):
        assert sa.division is not None and sa.jing is not None
        # the block's 经 since the previous 疏, not before where the previous division ends
        start = max(sa.jing.start, min(last_end, sa.jing.end - 1))
        nxt = divs[k + 1].jing if k + 1 < len(divs) else None
        end = nxt.start if nxt is not None else jing_end
        found = "next division"
        to = sa.division["to"]
        if to == "經末":  # to the end of the 经
            end, found = jing_end, "經末"
        elif to:
            x = r.norm.key(to)
            i0 = bisect.bisect_left(rm, start)
            j = rk.find(x, i0)
            if j >= 0:
                end, found = rm[j + len(x) - 1] + 1, "X"
            else:
                found = "X not found: next division"
        if found in ("X", "經末"):
            last_end = end
        s0, _p0, c0 = loc.at(start)
        s1, _p1, c1 = loc.at(max(start, end - 1))
        if s0.n == s1.n and start == s0.start and end >= s0.end:
            rel = "same"
        elif start == s0.start and end >= s1.end:
            rel = f"joins {s0.n}–{s1.n}"
        elif s0.n == s1.n:
            rel = f"within {s0.n}"
        else:
            rel = f"differs ({s0.n}–{s1.n})"
        rows.append({"shu": sa.units[0].meta.get("n"), "words": sa.division["words"], "title": sa.division["title"],
                     "from": c0.id, "to": c1.id, "end_by": found, "sections": f"{s0.n}" if s0.n == s1.n else f"{s0.n}–{s1.n}",
                     "section_titles": "、".join(s.title for s in r.sections if s0.n <= s.n <= s1.n), "relation": rel})
    return rows


def format_shu_division(rows: list[dict[str, Any]]) -> str:
    """The 疏's division against the sections, as a Markdown table."""
    out = ["| 疏 | 疏's words | from | to | sections.tsv | relation |", "|---|---|---|---|---|---|"]
    for x in rows:
        out.append(f"| {x['shu']} | {x['words']} | {x['from']} | {x['to']} ({x['end_by']}) | "
                   f"{x['sections']} {x['section_titles']} | {x['relation']} |")
    return "\n".join(out)
