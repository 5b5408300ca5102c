"""Bring your own text: a user's translation or witness, aligned into an overlay.

An overlay is a small TEI file in the user's overlay folder (``--overlay DIR``, ``$YILI_OVERLAY``,
else ``$XDG_DATA_HOME/yili-corpus/overlays`` or ``~/.local/share/yili-corpus/overlays``), never in
the shipped ``tei/``. Its pointers (``#xiangsheli.17.2.1``) name clauses of the chapter's TEI.

* ``import translation``: a plain-text translation (paragraphs separated by blank lines, or one a
  line; classical sentences interleaved are recognised and left out) is aligned with the engine of
  the build (:func:`yili_corpus.align.translation.align_translation`, paragraphs in any order) and
  stored as the layer ``trans:NAME``. A file whose sentences find too little lexical evidence in
  the chapter (coverage below :data:`MIN_COVERAGE`) is refused: it is not a translation of this
  chapter, and aligning it would be aligning at random.
* ``import witness``: another edition of the 经 (plain, or Kanripo's mandoku format), collated
  against the reading text: its readings become ``app`` entries of the overlay, its parenthesised
  commentary the layer ``zhu:NAME``, each note attached to the words it follows.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from .document import Document, Unit
from .errors import UsageError
from .query.clauses import ClauseTable
from .sources.common import is_modern
from .sources.reader import decode_source
from .tei.write import TEI_NS, XML_ID, XML_LANG, indent

#: The share of the characters of the 经 clauses a translation's sentences are linked to that
#: those sentences hold (a translation keeps the ritual terms): about 0.7 for the corpus's own
#: translation, about 0.15 for unrelated modern prose.
MIN_COVERAGE = 0.35
MIN_WITNESS_MATCH = 0.5
NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,40}$")
T = f"{{{TEI_NS}}}"


def overlay_dir(explicit: str | Path | None = None) -> Path:
    """The overlay folder: ``explicit``, ``$YILI_OVERLAY``, else the user data folder."""
    if explicit:
        return Path(explicit)
    if os.environ.get("YILI_OVERLAY"):
        return Path(os.environ["YILI_OVERLAY"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "yili-corpus" / "overlays"


def check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise UsageError(f"overlay name {name!r}: use letters, digits, - and _ (starting with a letter)")
    return name


# -- translation ---------------------------------------------------------------------------------------

@dataclass
class Paragraph:
    line: int
    sentences: list[tuple[int, str]]  # (line, text)


def split_translation(text: str, base: ClauseTable) -> tuple[list[Paragraph], list[dict[str, Any]]]:
    """Paragraphs and sentences of a plain translation; classical sentences are left out."""
    from .align.sentences import split_sentences

    blocks: list[list[tuple[int, str]]] = []
    lines = text.split("\n")
    has_blank = any(not ln.strip() for ln in lines[:-1])
    cur: list[tuple[int, str]] = []
    for i, ln in enumerate(lines, 1):
        if not ln.strip():
            if cur:
                blocks.append(cur)
                cur = []
            continue
        cur.append((i, ln.strip()))
        if not has_blank:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    grams = {base.key[i : i + 3] for i in range(len(base.key) - 2)}
    paras, skipped = [], []
    for b in blocks:
        sents: list[tuple[int, str]] = []
        for line, txt in b:
            for a, e in split_sentences(txt):
                s = txt[a:e]
                k = base.norm.key(s)
                tri = [k[i : i + 3] for i in range(len(k) - 2)]
                # a classical sentence: no modern function words, six characters or more, nearly all
                # of it the 经's own wording (a short 大夫答拜 may be either: it is kept)
                if len(k) >= 6 and not is_modern(s) and sum(g in grams for g in tri) / len(tri) >= 0.8:
                    skipped.append({"line": line, "text": s, "reason": "classical text (the 经 itself), left out"})
                    continue
                if k:
                    sents.append((line, s))
        if sents:
            paras.append(Paragraph(b[0][0], sents))
    return paras, skipped


def import_translation(doc: Document, file: Path, name: str, lang: str, dest_dir: Path) -> dict[str, Any]:
    """Align a translation file and write it as an overlay; returns the report."""
    from .align.translation import align_translation

    check_name(name)
    if not lang.startswith("zh"):
        raise UsageError(
            f"--lang {lang}: the aligner works on the characters a Chinese translation shares with the "
            "经 (ritual terms); a translation into another language cannot be aligned by it"
        )
    data = _read(file)
    text = decode_source(data, str(file))
    base = ClauseTable(doc)
    paras, skipped = split_translation(text, base)
    if not paras:
        raise UsageError(f"{file}: no translation sentences found")
    keyed = [[base.norm.key(s) for _l, s in p.sentences] for p in paras]
    res = align_translation(keyed, base.keys, base.section_starts, ordered=False)
    placed = {ap.index: ap for ap in res}
    weights = conf = 0.0
    shared = total = 0
    unplaced = []
    for i, p in enumerate(paras):
        ap = placed.get(i)
        linked = {s for lk in (ap.links if ap else []) for s in lk.sentences}
        for j, (line, s) in enumerate(p.sentences):
            if j not in linked:
                unplaced.append({"line": line, "text": s})
        for lk in ap.links if ap else []:
            w = sum(len(p.sentences[j][1]) for j in lk.sentences)
            weights += w
            conf += w * lk.confidence
            sent = set("".join(keyed[i][j] for j in lk.sentences))
            cl = set("".join(base.keys[c] for c in lk.clauses))
            shared += len(cl & sent)
            total += len(cl)
    mean = conf / weights if weights else 0.0
    coverage = shared / total if total else 0.0
    if coverage < MIN_COVERAGE:
        raise UsageError(
            f"{file} does not read as a translation of {doc.chapter}: its sentences hold {coverage:.0%} of the "
            f"characters of the clauses they would render (at least {MIN_COVERAGE:.0%} wanted); nothing was imported"
        )
    root = _overlay_root(doc, name, "translation", file, data, lang)
    div = etree.SubElement(root.find(f"{T}text/{T}body"), T + "div",
                           {"type": "overlay", "subtype": "trans", "n": name, XML_LANG: lang})
    report_paras = []
    for i, p in enumerate(paras):
        ap = placed.get(i)
        if ap is None or not ap.links:
            continue
        ab = etree.SubElement(div, T + "ab", {"type": "trans", "subtype": name, XML_ID: f"{name}.p{p.line}",
                                               "n": str(p.line), "cert": f"{ap.confidence:.3f}"})
        for j, (line, s) in enumerate(p.sentences):
            lk = next((x for x in ap.links if j in x.sentences), None)
            attrs = {"type": "sentence", "n": str(j + 1), "source": f"{file.name}#line={line - 1},{line}"}
            if lk is not None:
                attrs["corresp"] = " ".join("#" + base.ids[c] for c in lk.clauses)
                attrs["cert"] = f"{lk.confidence:.3f}"
            seg = etree.SubElement(ab, T + "seg", attrs)
            seg.text = s
        cl = [c for lk in ap.links for c in lk.clauses]
        report_paras.append({"line": p.line, "section": base.section_of[min(cl)], "from": base.ids[min(cl)],
                             "to": base.ids[max(cl)], "confidence": ap.confidence,
                             "sentences": len(p.sentences)})
    path = _write(root, dest_dir, name)
    low = [
        {"line": paras[ap.index].sentences[lk.sentences[0]][0], "clauses": base.ids[lk.clauses[0]],
         "confidence": lk.confidence}
        for ap in res for lk in ap.links if lk.confidence < 0.5
    ]
    return {"overlay": str(path), "name": name, "kind": "translation", "layer": f"trans:{name}",
            "confidence": round(mean, 3), "coverage": round(coverage, 3), "paragraphs": report_paras, "unplaced": unplaced,
            "skipped": skipped, "low_confidence": low}


# -- witness --------------------------------------------------------------------------------------------------

def import_witness(doc: Document, file: Path, name: str, fmt: str, dest_dir: Path) -> dict[str, Any]:
    """Collate a witness against the reading text and write its readings and commentary."""
    from .sources import mandoku

    check_name(name)
    data = _read(file)
    text = decode_source(data, str(file))
    base = ClauseTable(doc)
    if fmt == "mandoku":
        parsed = mandoku.parse(name, text, str(file))
        pieces = [u for u in parsed.units if u.kind == "text"]
        notes = [u for u in parsed.units if u.kind == "zhu"]
    elif fmt == "plain":
        from .sources.reader import LineText

        lt = LineText(name, text, str(file))
        pieces = [lt.unit("text", i, 0, len(ln), piece=i) for i, _off, ln in lt if ln.strip()]
        notes = []
    else:
        raise UsageError(f"unknown witness format {fmt!r}; formats are plain, mandoku")
    # the witness's key, with the position of every character and of each piece's end
    wkey: list[str] = []
    wpos: list[tuple[int, int]] = []  # (line, col)
    piece_end: dict[int, int] = {}
    for u in pieces:
        k, idx = base.norm.key_map(u.text)
        wkey.extend(k)
        wpos.extend((u.line, u.col + i) for i in idx)
        piece_end[u.meta["piece"]] = len(wkey)
    wk = "".join(wkey)
    lines = text.split("\n")
    if len(wk) < 4:
        raise UsageError(f"{file}: too little text to collate")
    # where in the reading text it stands
    sm = difflib.SequenceMatcher(None, base.key, wk, autojunk=False)
    blocks = [b for b in sm.get_matching_blocks() if b.size >= 3]
    matched = sum(b.size for b in blocks)
    if matched / len(wk) < MIN_WITNESS_MATCH:
        raise UsageError(f"{file} does not read as a witness of {doc.chapter}: only {matched / len(wk):.0%} of its "
                         f"text matches the reading text; nothing was imported")
    a0 = blocks[0].a - blocks[0].b
    a1 = blocks[-1].a + blocks[-1].size + (len(wk) - blocks[-1].b - blocks[-1].size)
    a0, a1 = max(0, a0), min(len(base.key), a1)
    sm = difflib.SequenceMatcher(None, base.key[a0:a1], wk, autojunk=False)
    root = _overlay_root(doc, name, "witness", file, data, "lzh")
    div = etree.SubElement(root.find(f"{T}text/{T}body"), T + "div", {"type": "overlay", "subtype": "witness", "n": name})
    ab = etree.SubElement(div, T + "ab", {"type": "apparatus", "subtype": name})
    readings = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        i1, i2 = a0 + i1, a0 + i2
        clause = base.ids[base.owner[min(i1, len(base.owner) - 1)]]
        lem = "".join(base.chars[i1:i2])
        rdg = "".join(lines[ln - 1][col] for ln, col in wpos[j1:j2])
        where = wpos[j1] if j1 < len(wpos) else wpos[-1]
        app = etree.SubElement(ab, T + "app", {"corresp": "#" + clause})
        lem_e = etree.SubElement(app, T + "lem")
        lem_e.text = lem
        rdg_e = etree.SubElement(app, T + "rdg", {"wit": "#" + name, "source": f"{file.name}#line={where[0] - 1},{where[0]}"})
        if rdg:
            rdg_e.text = rdg
        else:
            etree.SubElement(rdg_e, T + "gap", {"reason": "omitted"})
        readings.append({"clause": clause, "lem": lem, "rdg": rdg, "line": where[0]})
    # commentary: each note after the words it follows
    jmap = {}
    for tag, i1, _i2, j1, j2 in sm.get_opcodes():
        for j in range(j1, j2):
            jmap[j] = a0 + i1 + (j - j1 if tag in ("equal", "replace") else 0)
    placed_notes = []
    by_n: dict[int, list[Any]] = {}
    for u in notes:
        by_n.setdefault(u.meta["n"], []).append(u)
    for n, parts in sorted(by_n.items()):
        end = piece_end.get(parts[0].meta["after_piece"], 0)
        if end == 0:
            continue
        bpos = jmap.get(end - 1, a0)
        clause = base.ids[base.owner[min(bpos, len(base.owner) - 1)]]
        txt = "".join(mandoku.note_text(p) for p in parts)
        note = etree.SubElement(div, T + "note", {"type": "zhu", "subtype": name, XML_ID: f"{name}.zhu{n}", "n": str(n),
                                                  "target": "#" + clause,
                                                  "source": f"{file.name}#line={parts[0].line - 1},{parts[-1].line}"})
        note.text = txt
        placed_notes.append({"n": n, "clause": clause, "text": txt})
    path = _write(root, dest_dir, name)
    return {"overlay": str(path), "name": name, "kind": "witness", "layer": f"zhu:{name}", "format": fmt,
            "matched": round(matched / len(wk), 3), "readings": readings, "notes": placed_notes}


# -- files ---------------------------------------------------------------------------------------------

def _read(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {file}: {exc.strerror}") from None


def _overlay_root(doc: Document, name: str, kind: str, file: Path, data: bytes, lang: str) -> etree._Element:
    root = etree.Element(T + "TEI", nsmap={None: TEI_NS})
    root.set(XML_ID, f"overlay.{name}")
    root.set(XML_LANG, lang)
    h = etree.SubElement(root, T + "teiHeader")
    fd = etree.SubElement(h, T + "fileDesc")
    ts = etree.SubElement(fd, T + "titleStmt")
    etree.SubElement(ts, T + "title").text = f"Overlay {name} ({kind}) for {doc.work}·{doc.chapter} (yili.{doc.id})"
    ps = etree.SubElement(fd, T + "publicationStmt")
    etree.SubElement(ps, T + "p").text = "Made by yili import on the user's machine; not part of the shipped corpus."
    sd = etree.SubElement(fd, T + "sourceDesc")
    lw = etree.SubElement(sd, T + "listWit")
    w = etree.SubElement(lw, T + "witness", {XML_ID: name, "n": kind})
    etree.SubElement(w, T + "label").text = file.name
    etree.SubElement(w, T + "idno", {"type": "sha256"}).text = hashlib.sha256(data).hexdigest()
    etree.SubElement(etree.SubElement(root, T + "text"), T + "body")
    return root


def _write(root: etree._Element, dest_dir: Path, name: str) -> Path:
    from .files import write_atomic_bytes

    dest_dir.mkdir(parents=True, exist_ok=True)
    indent(root)
    path = dest_dir / f"{name}.xml"
    write_atomic_bytes(path, etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n")
    return path


@dataclass
class Overlay:
    """An overlay read back: its units (for search and show) and its readings."""

    name: str
    kind: str
    path: Path
    units: list[Unit] = field(default_factory=list)
    apps: list[dict[str, str]] = field(default_factory=list)


def read_overlays(folder: Path) -> list[Overlay]:
    """The overlays in ``folder`` (sorted by name)."""
    from .document import SentenceSeg
    from .tei.read import parse_tei

    out = []
    if not folder.is_dir():
        return out
    for p in sorted(folder.glob("*.xml")):
        root = parse_tei(p.read_bytes(), str(p)).getroot()
        name = p.stem
        w = root.find(f".//{T}listWit/{T}witness")
        ov = Overlay(name, w.get("n", "") if w is not None else "", p)
        for ab in root.iter(f"{T}ab"):
            if ab.get("type") == "trans":
                sents = [SentenceSeg(int(s.get("n", "0")), s.text or "", [c.lstrip("#") for c in (s.get("corresp") or "").split()],
                                     float(s.get("cert")) if s.get("cert") else None) for s in ab.iter(f"{T}seg")]
                linked = [c for s in sents for c in s.corresp]
                if linked:
                    ov.units.append(Unit(ab.get(XML_ID, ""), f"trans:{name}", [], linked[0], linked[-1], f"#{name}",
                                         n=ab.get("n"), lang=root.get(XML_LANG), sentences=sents))
            elif ab.get("type") == "apparatus":
                for app in ab.iter(f"{T}app"):
                    ov.apps.append({"clause": (app.get("corresp") or "").lstrip("#"), "lem": app.findtext(f"{T}lem") or "",
                                    "rdg": app.findtext(f"{T}rdg") or "", "wit": name})
        for note in root.iter(f"{T}note"):
            if note.get("type") == "zhu":
                t = (note.get("target") or "").lstrip("#")
                ov.units.append(Unit(note.get(XML_ID, ""), f"zhu:{name}", [note.text or ""], t, t, f"#{name}",
                                     n=note.get("n")))
        out.append(ov)
    return out


def overlays_digest(folder: Path) -> str:
    """A checksum of the overlay files (the index is rebuilt when they change)."""
    h = hashlib.sha256()
    if folder.is_dir():
        for p in sorted(folder.glob("*.xml")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()
