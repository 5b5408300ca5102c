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
from .errors import DataError, SourceError, UsageError, shown
from .files import check_folder
from .genre import is_modern
from .query.clauses import ClauseTable
from .sources.reader import decode_source
from .tei.write import TEI_NS, XML_ID, XML_LANG, indent

#: The share of the characters of the 经 clauses a translation's sentences are linked to that
#: those sentences hold (a translation keeps the ritual terms): about 0.7 for the corpus's own
#: translation, about 0.15 for unrelated modern prose.
MIN_COVERAGE = 0.35
MIN_WITNESS_MATCH = 0.5
#: An overlay's name: it becomes a file name, an xml:id and a layer name (trans:NAME). Matched
#: whole (fullmatch: ``$`` would let a name end in a newline).
NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,40}")
#: A language tag (BCP 47 shape: zh, zh-Hans, zh-Hant-TW); it becomes an xml:lang.
LANG_RE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}")
T = f"{{{TEI_NS}}}"

# -- bounds (issue 10, finding 8): what an import may cost ------------------------------------------
#: Bytes a file to import may have, refused before it is read. The 经 and 记 of 乡射礼 have 6,800
#: characters; a translation runs about 1.8 characters to one, some 40 KB of UTF-8, an annotated
#: one perhaps 100 KB. 1 MB is ten times that. The aligner is near-linear: about 2.5 s per 100 KB of
#: translation, so some 30 s at the limit (benchmarks/bench_import.py); /dev/zero or a runaway
#: file is refused, not read.
MAX_IMPORT_BYTES = 1 << 20
#: A paragraph is aligned in pieces of at most this many sentences and characters: the work of
#: placing one grows with the square of its length (its sentences times the width of the band it
#: is searched in). The longest paragraph of the corpus's own translations has 92 sentences and
#: 2,237 characters (w000); most have 5 to 25 sentences and 50 to 400 characters.
PIECE_SENTENCES = 40
PIECE_CHARS = 1200
#: Paragraphs (pieces) and sentences a translation may have: the work of placing a paragraph is
#: a pass over the chapter's 1,442 clauses and more (about 2 ms), of aligning a sentence about
#: 1 to 3 ms. A whole chapter's translation has some 100 paragraphs (one a line: 1,000) and 1,000
#: sentences; 1 MB of translation about 10,000. At both limits an import takes some 30 s.
MAX_PARAGRAPHS = 5_000
MAX_SENTENCES = 12_000
#: A witness's text may have at most this many times the characters of the reading text: no more
#: than that can match (each character of the reading text matches once), so a longer one would be
#: refused by MIN_WITNESS_MATCH after its collation; refused before it, the collation (difflib,
#: quadratic in the worst case) stays bounded. A witness of the chapter has about as many.
MAX_WITNESS_RATIO = 1 / MIN_WITNESS_MATCH
#: Bytes an overlay file may have when read back (every command reads the overlays): far above
#: what an import of :data:`MAX_IMPORT_BYTES` writes, and a FIFO or a runaway file is refused.
MAX_OVERLAY_BYTES = 64 << 20


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise UsageError(f"overlay name {shown(name)}: use letters, digits, - and _ (starting with a letter, "
                         "at most 41)")
    return name


# -- translation ---------------------------------------------------------------------------------------

@dataclass
class Paragraph:
    line: int
    sentences: list[tuple[int, str]]  # (line, text)
    part: int = 0  # a long paragraph is aligned in pieces (PIECE_SENTENCES): the piece's number

    @property
    def id_suffix(self) -> str:
        return f"p{self.line}" if not self.part else f"p{self.line}.{self.part}"


def _pieces(sents: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """A paragraph's sentences in pieces of at most PIECE_SENTENCES sentences and PIECE_CHARS
    characters (a sentence longer than that is a piece of its own)."""
    out: list[list[tuple[int, str]]] = [[]]
    chars = 0
    for line, s in sents:
        if out[-1] and (len(out[-1]) >= PIECE_SENTENCES or chars + len(s) > PIECE_CHARS):
            out.append([])
            chars = 0
        out[-1].append((line, s))
        chars += len(s)
    return out


def _whole_sentences(txt: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` with no character lost: a closing ASCII quote (``"`` or ``'`` that closes a quote
    the sentence opened) goes back to its sentence, and a piece with no word in it (a quote mark
    or bracket alone at the end of a line) joins the sentence before it."""
    out: list[tuple[int, int]] = []
    for a, e in spans:
        if out:
            pa, pe = out[-1]
            head = len(txt[a:e]) - len(txt[a:e].lstrip("\"'"))
            if head and all(txt[pa:pe].count(q) % 2 for q in set(txt[a : a + head])):
                out[-1] = (pa, a + head)  # the quote closes the sentence before
                pa, pe = out[-1]
                a += head
                while a < e and txt[a].isspace():
                    a += 1
            if a >= e:
                continue
            if not any(c.isalnum() for c in txt[a:e]):
                out[-1] = (pa, e)
                continue
        out.append((a, e))
    return out


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
            for a, e in _whole_sentences(txt, split_sentences(txt)):
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
            for k, piece in enumerate(_pieces(sents)):
                paras.append(Paragraph(b[0][0] if k == 0 else piece[0][0], piece, k))
    return paras, skipped


def import_translation(doc: Document, file: Path, name: str, lang: str, dest_dir: Path,
                       force: bool = False) -> dict[str, Any]:
    """Align a translation file and write it as an overlay; returns the report.

    An overlay ``name`` that exists is replaced only with ``force``, and only if it is a
    translation too (a witness of that name must be removed first)."""
    from .align.translation import align_translation

    check_name(name)
    if not LANG_RE.fullmatch(lang):
        raise UsageError(f"--lang {shown(lang)}: not a language tag (such as zh-Hans, zh-Hant)")
    if not lang.startswith("zh"):
        raise UsageError(
            f"--lang {lang}: the aligner works on the characters a Chinese translation shares with the "
            "经 (ritual terms); a translation into another language cannot be aligned by it"
        )
    _check_dest(dest_dir, name, "translation", force)  # before the work: a refusal costs nothing
    data = _read(file)
    text = _decode(data, file)
    base = ClauseTable(doc)
    paras, skipped = split_translation(text, base)
    if not paras:
        raise UsageError(f"{file}: no translation sentences found")
    n_sent = sum(len(p.sentences) for p in paras)
    if len(paras) > MAX_PARAGRAPHS or n_sent > MAX_SENTENCES:
        raise UsageError(f"{file} has {len(paras)} paragraphs and {n_sent} sentences; at most {MAX_PARAGRAPHS:,} "
                         f"and {MAX_SENTENCES:,} can be aligned (a whole chapter's translation has about 100 and "
                         "1,000): import it in parts")
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
    label = _label(file)
    for i, p in enumerate(paras):
        ap = placed.get(i)
        if ap is None or not ap.links:
            continue
        ab = etree.SubElement(div, T + "ab", {"type": "trans", "subtype": name, XML_ID: f"{name}.{p.id_suffix}",
                                               "n": str(p.line), "cert": f"{ap.confidence:.3f}"})
        link_of: dict[int, Any] = {}
        for x in ap.links:
            for j in x.sentences:
                link_of.setdefault(j, x)
        for j, (line, s) in enumerate(p.sentences):
            lk = link_of.get(j)
            attrs = {"type": "sentence", "n": str(j + 1), "source": f"{label}#line={line - 1},{line}"}
            if lk is not None:
                attrs["corresp"] = " ".join("#" + base.ids[c] for c in lk.clauses)
                attrs["cert"] = f"{lk.confidence:.3f}"
            seg = etree.SubElement(ab, T + "seg", attrs)
            seg.text = s
        cl = [c for lk in ap.links for c in lk.clauses]
        report_paras.append({"line": p.line, "section": base.section_of[min(cl)], "from": base.ids[min(cl)],
                             "to": base.ids[max(cl)], "confidence": ap.confidence,
                             "sentences": len(p.sentences)})
    path = _write(root, dest_dir, name, "translation", force)
    low = [
        {"line": paras[ap.index].sentences[lk.sentences[0]][0], "clauses": base.ids[lk.clauses[0]],
         "confidence": lk.confidence}
        for ap in res for lk in ap.links if lk.confidence < 0.5
    ]
    return {"overlay": str(path), "name": name, "kind": "translation", "layer": f"trans:{name}",
            "confidence": round(mean, 3), "coverage": round(coverage, 3), "paragraphs": report_paras, "unplaced": unplaced,
            "skipped": skipped, "low_confidence": low}


# -- witness --------------------------------------------------------------------------------------------------

def import_witness(doc: Document, file: Path, name: str, fmt: str, dest_dir: Path,
                   force: bool = False) -> dict[str, Any]:
    """Collate a witness against the reading text and write its readings and commentary.

    An overlay ``name`` that exists is replaced only with ``force``, and only if it is a witness
    too (a translation of that name must be removed first)."""
    from .sources import mandoku

    check_name(name)
    if fmt not in ("plain", "mandoku"):
        raise UsageError(f"unknown witness format {shown(fmt)}; formats are plain, mandoku")
    _check_dest(dest_dir, name, "witness", force)
    data = _read(file)
    text = _decode(data, file)
    base = ClauseTable(doc)
    if fmt == "mandoku":
        try:
            parsed = mandoku.parse(name, text, str(file))
        except SourceError as exc:  # the user's file: bad input, not damaged data
            raise UsageError(exc.message) from None
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
    if len(wk) > MAX_WITNESS_RATIO * len(base.key):
        raise UsageError(f"{file} has {len(wk)} characters of text, more than {MAX_WITNESS_RATIO:g} times the "
                         f"{len(base.key)} of the reading text of {doc.chapter}, so that less than "
                         f"{MIN_WITNESS_MATCH:.0%} of it can match: cut it to this chapter; nothing was imported")
    # a cheap bound first: a character can only be matched (in a block of three or more) if it
    # stands in a run of three that the reading text has too; too few such, and it is refused
    # without the collation, which is slow on long repetitive text
    tri = {base.key[i : i + 3] for i in range(len(base.key) - 2)}
    covered = bytearray(len(wk))
    for i in range(len(wk) - 2):
        if wk[i : i + 3] in tri:
            covered[i : i + 3] = b"\x01\x01\x01"
    if sum(covered) / len(wk) < MIN_WITNESS_MATCH:
        raise UsageError(f"{file} does not read as a witness of {doc.chapter}: at most {sum(covered) / len(wk):.0%} "
                         "of its text can match the reading text; nothing was imported")
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
    label = _label(file)
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
        rdg_e = etree.SubElement(app, T + "rdg", {"wit": "#" + name, "source": f"{label}#line={where[0] - 1},{where[0]}"})
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
                                                  "source": f"{label}#line={parts[0].line - 1},{parts[-1].line}"})
        note.text = txt
        placed_notes.append({"n": n, "clause": clause, "text": txt})
    path = _write(root, dest_dir, name, "witness", force)
    return {"overlay": str(path), "name": name, "kind": "witness", "layer": f"zhu:{name}", "format": fmt,
            "matched": round(matched / len(wk), 3), "readings": readings, "notes": placed_notes}


# -- files ---------------------------------------------------------------------------------------------

#: What a file to import may not hold: control characters (but tab and line end) and the two
#: code points XML cannot carry. An overlay keeps every character it keeps, so such a file is
#: refused, naming the line, rather than changed behind the user's back.
_BAD_CHAR_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")


def _read(file: Path) -> bytes:
    """The bytes of the file to import: a regular file of at most MAX_IMPORT_BYTES (a FIFO, a
    device, a folder or a larger file is refused before it is read)."""
    from .files import read_bounded

    return read_bounded(file, MAX_IMPORT_BYTES, "file to import")


def _decode(data: bytes, file: Path) -> str:
    """The text of the file to import. It is the user's input: what is not clean UTF-8 text
    (binary, GBK, UTF-16, a BOM, CR line ends, control characters) is bad input (exit 2),
    named with its line."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UsageError(f"{file}:1: is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8")
    try:
        text = decode_source(data, str(file))
    except SourceError as exc:
        raise UsageError(exc.message) from None
    m = _BAD_CHAR_RE.search(text)
    if m:
        a = m.start()
        line = text.count("\n", 0, a) + 1
        col = a - (text.rfind("\n", 0, a) + 1) + 1
        what = "binary data or " if m.group() == "\x00" else ""
        raise UsageError(f"{file}:{line}: {what}control character U+{ord(m.group()):04X} at column {col}; "
                         "remove it (nothing was imported)")
    return text


def _label(file: Path) -> str:
    """The file's name as the overlay records it: characters XML cannot hold (and bytes of a
    name that is not UTF-8) written as escapes."""
    out = []
    for ch in file.name:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
            out.append(f"\\x{o - 0xDC00:02x}")
        elif 0xD800 <= o <= 0xDFFF or _BAD_CHAR_RE.match(ch):
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _kind_of(path: Path) -> str | None:
    """The kind of the overlay at ``path`` (translation, witness), "" if it cannot be read as
    one, None if there is none."""
    if not os.path.lexists(path):
        return None
    try:
        root = _parse_overlay(path).getroot()
    except (DataError, UsageError):
        return ""
    w = root.find(f".//{T}listWit/{T}witness")
    return (w.get("n") or "") if w is not None else ""


def _check_existing(path: Path, name: str, kind: str, force: bool) -> None:
    """Refuse to replace an overlay without ``force``, or one of another kind at all (finding 4)."""
    have = _kind_of(path)
    if have is None:
        return
    if not force:
        what = f"a {have}" if have else "not readable as an overlay"
        raise UsageError(f"overlay {name!r} exists ({what}: {path}); pass --force to replace it")
    if have and have != kind:
        raise UsageError(f"overlay {name!r} is a {have}, not a {kind}; --force replaces an overlay of the same "
                         f"kind only: remove it first (yili overlays remove {name})")


def _check_dest(dest_dir: Path, name: str, kind: str, force: bool) -> None:
    check_folder(dest_dir, "overlay folder")
    if dest_dir.is_dir():
        _check_existing(dest_dir / f"{name}.xml", name, kind, force)


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
    # the chapter it was imported into: its units and readings are that chapter's (issue 15)
    etree.SubElement(etree.SubElement(sd, T + "bibl", {"type": "chapter", "n": doc.id}), T + "title").text = doc.chapter
    lw = etree.SubElement(sd, T + "listWit")
    w = etree.SubElement(lw, T + "witness", {XML_ID: name, "n": kind})
    etree.SubElement(w, T + "label").text = _label(file)
    etree.SubElement(w, T + "idno", {"type": "sha256"}).text = hashlib.sha256(data).hexdigest()
    etree.SubElement(etree.SubElement(root, T + "text"), T + "body")
    return root


def _write(root: etree._Element, dest_dir: Path, name: str, kind: str, force: bool) -> Path:
    """Write the overlay ``name``: under the overlay folder's lock, the check that it may be
    replaced (finding 4) and the atomic write go together, so that of several imports of one
    name at once each sees the others' result (finding 11)."""
    from .files import locked, write_atomic_bytes

    check_folder(dest_dir, "overlay folder")
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot make the overlay folder {dest_dir}: {exc.strerror or exc}") from None
    indent(root)
    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"
    path = dest_dir / f"{name}.xml"
    with locked(dest_dir):
        _check_existing(path, name, kind, force)
        write_atomic_bytes(path, data, force=True, make_dirs=False)
    return path


def remove_overlay(folder: Path, name: str) -> Path:
    """Remove the overlay ``name`` from ``folder`` (under the folder's lock); returns its path."""
    from .files import locked

    check_name(name)
    p = folder / f"{name}.xml"
    if not folder.is_dir() or not os.path.lexists(p):
        raise UsageError(f"no overlay {name!r} in {folder}")
    with locked(folder):
        try:
            p.unlink()
        except FileNotFoundError:
            raise UsageError(f"no overlay {name!r} in {folder}") from None
        except OSError as exc:
            raise UsageError(f"cannot remove {p}: {exc.strerror or exc}") from None
    return p


def _overlay_bytes(p: Path) -> bytes:
    """The bytes of an overlay file; one that is not a regular file or is larger than
    MAX_OVERLAY_BYTES is damaged data naming it (exit 3): a FIFO there would hang every command."""
    from .files import read_bounded

    try:
        return read_bounded(p, MAX_OVERLAY_BYTES, "file in the overlay folder")
    except UsageError as exc:
        raise DataError(exc.message) from None


def _parse_overlay(p: Path) -> etree._ElementTree:
    from .tei.read import parse_tei

    return parse_tei(_overlay_bytes(p), str(p))


@dataclass
class Overlay:
    """An overlay read back: its units (for search and show) and its readings."""

    name: str
    kind: str
    path: Path
    units: list[Unit] = field(default_factory=list)
    apps: list[dict[str, str]] = field(default_factory=list)
    #: the id of the chapter it was imported into ("" if it does not say: an overlay made before
    #: the work had several chapters, of the one chapter there was)
    chapter: str = ""


def read_overlays(folder: Path) -> list[Overlay]:
    """The overlays in ``folder`` (sorted by name). A file there that cannot be read as an
    overlay is damaged data naming it (exit 3)."""
    out: list[Overlay] = []
    if not folder.is_dir():
        return out
    for p in sorted(folder.glob("*.xml")):
        root = _parse_overlay(p).getroot()
        try:
            out.append(_overlay_of(p, root))
        except (TypeError, ValueError) as exc:  # a number that is not one, in a file edited by hand
            raise DataError(f"not a valid overlay: {exc}", str(p)) from None
    return out


def _overlay_of(p: Path, root: etree._Element) -> Overlay:
    """The units and readings of the overlay file ``p`` (parsed: ``root``)."""
    from .document import SentenceSeg

    name = p.stem
    w = root.find(f".//{T}listWit/{T}witness")
    ov = Overlay(name, w.get("n", "") if w is not None else "", p)
    cb = root.find(f".//{T}sourceDesc/{T}bibl[@type='chapter']")
    if cb is not None:
        ov.chapter = cb.get("n", "")
    else:  # an older overlay: its title ends (yili.ID)
        m = re.search(r"\(yili\.([a-z]+)\)", root.findtext(f".//{T}titleStmt/{T}title") or "")
        ov.chapter = m.group(1) if m else ""
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
    return ov


_CHAPTER_RE = re.compile(rb'<bibl type="chapter" n="([a-z]+)"')
_OLD_CHAPTER_RE = re.compile(rb"\(yili\.([a-z]+)\)")


def chapter_of_bytes(data: bytes) -> str:
    """The chapter an overlay file was imported into, read from its bytes without parsing (the
    ``<bibl type="chapter" n="ID">`` of its header, else the ``(yili.ID)`` of an older overlay's
    title); "" if it says none."""
    m = _CHAPTER_RE.search(data) or _OLD_CHAPTER_RE.search(data)
    return m.group(1).decode("ascii") if m else ""


def overlays_digest(folder: Path, chapter: str | None = None) -> str:
    """A checksum of the overlay files (the index is rebuilt when they change). With ``chapter``,
    of that chapter's overlays only (and those that name no chapter): an import into one chapter
    leaves the other chapters' indexes as they are."""
    h = hashlib.sha256()
    if folder.is_dir():
        for p in sorted(folder.glob("*.xml")):
            data = _overlay_bytes(p)
            if chapter is not None and chapter_of_bytes(data) not in ("", chapter):
                continue
            h.update(p.name.encode("utf-8", "surrogateescape"))
            h.update(data)
    return h.hexdigest()
