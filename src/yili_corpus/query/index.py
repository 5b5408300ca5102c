"""The search index: every unit of the TEI with its normalised key, in SQLite.

Built from the TEI on first use and stored in the user cache folder as
``index-<sha256 of the TEI>-v<N>.sqlite``; a changed TEI has another checksum, so its index is
built anew. Searching reads only this file, which keeps a fresh ``yili search`` well under the
0.3 s target: the TEI is not parsed again.

A unit is a 经/记 paragraph (clauses joined by :data:`CLAUSE_SEP`, an ideographic space: the
reading text has no punctuation of its own, and the division into clauses is the edition's, not a
witness's mark), a 注, a 疏 block, a note or a translation paragraph.

What the index promises (docs/reliability.md):

* **Checked on every open.** A build seals the file with a checksum of its bytes, kept in two
  header fields that SQLite leaves to the application (:data:`SUM_FIELDS`); an open verifies it
  (≈3 ms for the chapter's 2 MB index) before it reads anything, so a damaged file — a block
  overwritten, a character changed — is built anew, not read. A database error at any later
  query leads to one reopen (a rebuild if the file is damaged), not to an internal error.
* **Built under a temporary name of its process** (:func:`..files.temp_name`) and renamed into
  place: two processes building the same index both succeed, a reader never sees half a file,
  and an index is never deleted while another process may be opening it — a damaged one is
  replaced by the rename, an old one pruned only when unused for a while.
* **Of one state.** If the TEI or the overlays change while the index is built (an import
  running), it is built again for the new state (:data:`BUILD_ATTEMPTS`), never stored under a
  checksum it does not match.
* **No writable cache needed.** If the cache folder cannot be written (or the disk is full), the
  index is built in memory for the run, and a note on stderr says so once.
* **Cleaned up.** After a build, temporaries of dead processes and indexes that were not used for
  a while (beyond the few most recently used) are removed — files of this module's naming only.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import hashlib
import json
import operator
import os
import re
import sqlite3
import stat
import tempfile
import time
from array import array
from collections import (
    Counter,
    _count_elements,  # type: ignore[attr-defined]
)
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import DataError, UsageError
from ..layers import is_overlay
from ..layers import layer as layer_of
from ..paths import cache_dir, note_once, writable_cache_dir

# 7: sealed with a checksum (SUM_FIELDS), built without a journal; 8: pages; 9: a traditional
# witness's 注 indexed in simplified characters; 10: glyphs as read (no private-use code point);
# 11: clauses apart by an ideographic space (CLAUSE_SEP); 12: witness readings of the 经/记 (readings)
# 14: a 经/记 whose base writes traditional characters (lzh-Hant) indexed in simplified
INDEX_VERSION = 14
#: What separates the clauses of a 经/记 paragraph where they are shown as one line (show, search):
#: an ideographic space, which no witness writes and no reader takes for punctuation (w001's ．
#: was shown there before the clause division from evidence).
CLAUSE_SEP = "\u3000"

#: Where an index file keeps its checksum: the SQLite header's ``user_version`` (offset 60) and
#: ``application_id`` (offset 68) fields, 4 bytes each, which SQLite leaves to the application and
#: never checks. They hold the first 8 bytes of the sha256 of the whole file with these 8 bytes
#: zeroed: a damaged file passes with odds of 1 in 2**64.
SUM_FIELDS = ((60, 4), (68, 4))
#: The SQLite header: its size and how it starts.
HEADER_SIZE = 100
SQLITE_MAGIC = b"SQLite format 3\x00"
#: Bytes read at a time while checksumming (into one buffer): memory stays flat for any index
#: (the chapter's is 2 MB, the 100× benchmark's ~200 MB), and 1 MB reads are as fast as one read
#: of the whole file (1.6 ms for the chapter's index, of which sha256 is 1.3 ms).
HASH_CHUNK = 1 << 20

#: Builds in a row when the TEI or the overlays change while the index is being built (an
#: import running): each build reads the new state. Three covers an import finishing during a
#: build and another starting; after that the last build serves this run from memory, unstored.
BUILD_ATTEMPTS = 3

#: A prune keeps this many of the most recently used indexes whatever their age: the current one
#: and a few states a user goes back to (the TEI before a rebuild, overlays before an import),
#: at ~2 MB each for the chapter.
KEEP_INDEXES = 4
#: Beyond those, an index is removed only when it has not been used (opened) for this long, in
#: seconds: one that another process has just opened or is about to open is never pulled away.
PRUNE_AFTER = 600
#: An open marks an index as used (its modification time) only when the mark is older than this,
#: in seconds, so that a search does not write to the cache folder every time; well below
#: PRUNE_AFTER.
TOUCH_AFTER = 60
#: The index code before version 7 made its temporaries with tempfile (``.index-XXXXXXXX.sqlite``,
#: with SQLite's ``-journal`` beside it), which name no process; they are removed when older than
#: this, in seconds — no build takes that long. (Its ``.userdict`` files of --word are no longer
#: made; they go the same way.)
LEGACY_AGE = 3600

#: The names this module gives its files in the cache folder (nothing else there is touched).
INDEX_NAME = re.compile(r"^index-[0-9a-f]{16}-v\d+\.sqlite$")
LEGACY_NAME = re.compile(r"^(\.index-[a-z0-9_]{8}\.sqlite(-journal)?|index-[0-9a-f]{16}-v\d+\.userdict\.(txt|part))$")


@dataclass
class Record:
    """One searchable unit."""

    ref: str
    unit: str
    section: int
    paragraph: str
    layer: str
    text: str
    key: str
    keymap: list[int]
    clauses: list[tuple[int, str]]  # for 经/记: (text offset, clause id)
    label: str  # who: 郑玄注, 贾公彦疏, 今注（w002 注27）, 今译（w002）
    #: pages of the cited edition (start, end): for 经/记 one per clause (as ``clauses``), for a
    #: unit one (its own), empty where there are none
    pages: list[list[str]] = field(default_factory=list)

    def page_of(self, start: int, end: int) -> tuple[str, str] | None:
        """The pages of the cited edition that text offsets ``[start, end)`` stand on: for 经/记
        from the start page of the clause holding ``start`` to the end page of the clause holding
        ``end - 1``; for a unit, its own. None without pages."""
        if not self.clauses:
            return (self.pages[0][0], self.pages[0][1]) if self.pages and self.pages[0] else None
        if len(self.pages) != len(self.clauses):
            return None
        offs = [off for off, _c in self.clauses]
        i = max(0, bisect.bisect_right(offs, start) - 1)
        j = max(i, bisect.bisect_right(offs, max(start, end - 1)) - 1)
        a, b = self.pages[i], self.pages[j]
        return (a[0], b[1]) if a and b else None

    def clause_at(self, offset: int) -> str | None:
        """The clause id holding text offset ``offset`` (经/记 only)."""
        cid = None
        for off, c in self.clauses:
            if off <= offset:
                cid = c
            else:
                break
        return cid


def unit_label(key: str, wit: str, n: str | None = None) -> str:
    """Who a unit is by, as a citation names it: the commentator (郑玄注), or a modern layer with
    its witness and note number (今注（w002 注27）, 今译（w002）, 今译（mine）)."""
    lay = layer_of(key)
    if not lay.is_modern:
        return lay.cite if not is_overlay(key) else f"{lay.short}（{wit}）"
    num = f" 注{n}" if n and lay.tei == "note" else ""
    return f"{lay.cite}（{wit}{num}）"


def section_records(s: Any, norm: Any, chars: dict[str, Any]) -> list[Record]:
    """The searchable units of one section."""
    from ..document import in_script, readable

    out: list[Record] = []
    for p in s.paragraphs:
        parts, offs = [], []
        pos = 0
        for c in p.clauses:
            if parts:
                pos += len(CLAUSE_SEP)
            offs.append((pos, c.id))
            t = c.reading(chars)  # in simplified characters, whatever the base writes
            parts.append(t)
            pos += len(t)
        text = CLAUSE_SEP.join(parts)
        key, km = norm.key_map(text)
        out.append(Record(p.id, p.id, s.n, p.id, p.layer, text, key, km, offs, "",
                          [list(c.page or ()) for c in p.clauses]))
        for u in p.units:
            if u.parts:  # a 疏 block's parts, a 考證 entry's lemma and note
                text = "".join(readable(c, chars) for _r, c, _s in u.parts)
            elif u.layer == "trans":
                text = "".join(x.text for x in u.sentences)
            else:
                text = readable(u.content, chars)
            # what a reader sees by default: a traditional witness's 注 in simplified characters
            # (one character for one: the key map holds)
            text = in_script(text, u.lang, "hans")
            key, km = norm.key_map(text)
            label = unit_label(u.layer, u.witness, u.n)
            out.append(Record(f"{p.id}@{u.layer}", u.id, s.n, p.id, u.layer, text, key, km, [], label,
                              [list(u.page)] if u.page else []))
    return out


@dataclass
class Reading:
    """A 经/记 paragraph as one witness reads it, where its readings differ from the reading text
    (the apparatus): ``rec`` as a unit of the index (``rec.text`` the witness's words, in simplified
    characters), ``spans`` the (start, end, lemma) of the witness's readings in ``rec.text``, with
    what the reading text has there."""

    witness: str
    rec: Record
    spans: list[tuple[int, int, str]]

    def differs(self, start: int, end: int) -> list[str]:
        """The lemmas of the witness's own readings that the text from ``start`` to ``end`` takes
        in (an omission: the place where it stands lies inside); empty if none."""
        return [lem for a, b, lem in self.spans if (a < end and b > start if b > a else start < a < end)]


def reading_records(s: Any, norm: Any, chars: dict[str, Any], traditional: str | None) -> list[Reading]:
    """The paragraphs of one section as each witness reads them, for the witnesses whose readings
    differ from the reading text (the entries of :func:`.apparatus.entry`: the same readings that
    ``show`` lists, private-use sequences read as their characters; a character a witness could
    not encode is not a reading of its own)."""
    from ..document import App, in_script, readable
    from .apparatus import entry

    out: list[Reading] = []
    for p in s.paragraphs:
        by_wit: dict[str, dict[int, tuple[str, str]]] = {}
        for c in p.clauses:
            for x in c.content:
                if isinstance(x, App):
                    e = entry(x, traditional or "", chars, "hans", traditional)
                    for r in (e or {}).get("readings", []):
                        if r["status"] == "reading":
                            by_wit.setdefault(r["wit"], {})[id(x)] = (r["text"], e["lemma"])  # type: ignore[index]
        for wit, subs in sorted(by_wit.items()):
            text = ""
            offs: list[tuple[int, str]] = []
            spans: list[tuple[int, int, str]] = []
            for i, c in enumerate(p.clauses):
                if i:
                    text += CLAUSE_SEP
                offs.append((len(text), c.id))
                for x in c.content:
                    if isinstance(x, App) and id(x) in subs:
                        rdg, lem = subs[id(x)]
                        spans.append((len(text), len(text) + len(rdg), lem))
                        text += rdg
                    else:
                        text += in_script(readable([x], chars), c.lang, "hans")
            key, km = norm.key_map(text)
            rec = Record(p.id, p.id, s.n, p.id, p.layer, text, key, km, offs, wit,
                         [list(c.page or ()) for c in p.clauses])
            out.append(Reading(wit, rec, spans))
    return out


def char_folds(norm: Any) -> dict[str, str]:
    """Every character the key changes, with what it becomes: OpenCC's traditional characters
    and the variant table's forms. Stored in the index, so that a search folds its query with a
    dictionary lookup and need not load OpenCC."""
    from pathlib import Path as _P

    import opencc

    vt = norm.variants
    chars = set(vt.fold) | set(vt.fold.values())
    ts = _P(opencc.__file__).parent / "dictionary" / "TSCharacters.txt"
    for line in ts.read_text(encoding="utf-8").splitlines():
        head = line.split("\t", 1)[0]
        if len(head) == 1:
            chars.add(head)
    out = {}
    for c in sorted(chars):
        k = norm.char(c)
        if k != c:
            out[c] = k
    return out


def tei_digest(path: Path) -> str:
    """The sha256 of a TEI file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def has_overlays(folder: Path | None) -> bool:
    """Whether ``folder`` holds overlays (``*.xml``); without any, the import module that reads
    them is not loaded."""
    return folder is not None and folder.is_dir() and any(folder.glob("*.xml"))


def tei_chapter(tei: Path) -> str | None:
    """The chapter id a TEI's file name gives (``tei/yili-ID.xml``), or None for another name."""
    m = re.fullmatch(r"yili-([a-z]+)\.xml", Path(tei).name)
    return m.group(1) if m else None


def index_digest(tei: Path, overlays: Path | None) -> str:
    """The digest an index is kept under: the TEI's, combined with the overlays' if any (those of
    the TEI's chapter, when its file name says which: an import into one chapter does not
    rebuild the others' indexes)."""
    d = tei_digest(tei)
    if has_overlays(overlays):
        from ..overlay import overlays_digest

        d = hashlib.sha256((d + overlays_digest(overlays, tei_chapter(tei))).encode()).hexdigest()
    return d


def index_path(digest: str) -> Path:
    """Where the index of a TEI with this digest lives."""
    return cache_dir() / f"index-{digest[:16]}-v{INDEX_VERSION}.sqlite"


SCHEMA = """
CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE units (
  id INTEGER PRIMARY KEY, ref TEXT, unit TEXT, section INTEGER, paragraph TEXT, layer TEXT,
  text TEXT, key TEXT, keymap BLOB, clauses TEXT, label TEXT, pages TEXT
);
CREATE TABLE grams (gram TEXT, unit INTEGER, layer TEXT, section INTEGER, n INTEGER,
                    PRIMARY KEY (gram, unit)) WITHOUT ROWID;
CREATE TABLE gramcount (gram TEXT PRIMARY KEY, units INTEGER) WITHOUT ROWID;
CREATE TABLE sections (n INTEGER PRIMARY KEY, xml BLOB);
CREATE TABLE aliases (alias TEXT PRIMARY KEY, unit TEXT) WITHOUT ROWID;
CREATE TABLE readings (
  id INTEGER PRIMARY KEY, witness TEXT, section INTEGER, paragraph TEXT, layer TEXT,
  text TEXT, key TEXT, keymap BLOB, clauses TEXT, spans TEXT
);
"""
#: Made after the rows are in (one sort, not an update at every row).
INDEXES = "CREATE INDEX units_layer ON units(layer, section);"


def _gram_counts(key: str) -> dict[str, int]:
    """The terms of a key (the inverted index's: its characters and character pairs) with how often each occurs, as ``key.count(term)``
    counts (a pair of one character twice, ``AA``, without overlaps: ``AAA`` holds it once)."""
    counts = Counter(key)
    _count_elements(counts, map(operator.add, key, key[1:]))
    for c in counts.keys() & set(key):
        if c + c in counts:
            counts[c + c] = key.count(c + c)
    return counts


def build_index(tei: Path, dest: Path, overlays: Path | None = None) -> str:
    """Stream the TEI and write its index to the new file ``dest`` (see :func:`fill_index`), sealed
    with its checksum (:func:`seal`). ``dest`` must be a name no one else uses: callers build under
    a temporary name (:func:`..files.temp_name`) and rename. Returns the digest of the TEI and
    overlays the index holds (see :func:`fill_index`)."""
    con = sqlite3.connect(dest)
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived rows and no cycles: the collector would only rescan them
    try:
        # no journal, no syncs: a failed build is thrown away whole, and a file damaged by a crash
        # after its rename fails the checksum and is built again
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("PRAGMA cache_size=-65536")  # 64 MB of pages (the default is 2 MB)
        digest = fill_index(con, tei, overlays)
        con.commit()
    finally:
        con.close()
        if collecting:
            gc.enable()
    seal(dest)
    return digest


#: A TEI larger than this (bytes) is indexed by :data:`WORKERS` processes, each reading a run of
#: its sections into a file of its own, merged at the end (:func:`_fill_parallel`); a smaller one
#: in this process (process start and merge would cost more than they save). The chapter's TEI is
#: 1.2 MB; the 10× benchmark's 11 MB.
PARALLEL_BYTES = 8 << 20
#: How many processes index a large TEI (at most the machine's cores).
WORKERS = 2

_STAGING = "CREATE TEMP TABLE grams_in (gram TEXT, unit INTEGER, layer TEXT, section INTEGER, n INTEGER)"


@dataclass
class _Part:
    """What a pass over (some of) the sections of a TEI gathered besides its rows."""

    header: bytes = b""
    titles: dict[int, str] = field(default_factory=dict)
    where: dict[str, tuple[int, str]] = field(default_factory=dict)
    units: int = 0


def _fill_sections(con: sqlite3.Connection, tei: Path, start: int = 0, stop: int | None = None) -> _Part:
    """Write the rows of the sections ``start`` (counted from 0) up to ``stop`` of ``tei`` into
    ``con`` (tables of :data:`SCHEMA`, the terms into the staging table ``grams_in``), the units
    numbered from 1."""
    from ..tei.read import SectionReader, iter_tei

    part = _Part()
    reader = None
    norm: Any = None
    uid = 0
    i = -1
    for item in iter_tei(tei):
        if item[0] == "header":
            part.header = item[1]
            reader = SectionReader(part.header, str(tei))
            norm = reader.doc.normaliser()
            continue
        if reader is None:
            raise DataError("the TEI has no header before its sections", str(tei))
        i += 1
        if i < start:
            continue
        if stop is not None and i >= stop:
            break
        doc = reader.doc
        _tag, n, xml = item
        sec = reader.section(xml)
        part.titles[sec.n] = sec.title
        con.execute("INSERT INTO sections VALUES (?, ?)", (sec.n, xml))
        for p in sec.paragraphs:
            for c in p.clauses:
                part.where[c.id] = (sec.n, p.id)
            # the ids of 疏 blocks collated into another witness's block (w003's into the 四库
            # copy's): a reference to one still finds the passage
            con.executemany("INSERT OR IGNORE INTO aliases VALUES (?, ?)",
                            ((a, u.id) for u in p.units for a in u.attrs.get("merged", "").split()))
        units, grams = [], []
        for r in section_records(sec, norm, doc.char_map):
            uid += 1
            units.append((uid, r.ref, r.unit, r.section, r.paragraph, r.layer, r.text, r.key,
                          array("I", r.keymap).tobytes(), json.dumps(r.clauses), r.label, json.dumps(r.pages)))
            grams.extend((g, uid, r.layer, r.section, k) for g, k in _gram_counts(r.key).items())
        con.executemany(
            "INSERT INTO units (id, ref, unit, section, paragraph, layer, text, key, keymap, clauses, label, pages) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", units)
        con.executemany("INSERT INTO grams_in VALUES (?, ?, ?, ?, ?)", grams)
        con.executemany(
            "INSERT INTO readings (witness, section, paragraph, layer, text, key, keymap, clauses, spans) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(rd.witness, rd.rec.section, rd.rec.paragraph, rd.rec.layer, rd.rec.text, rd.rec.key,
              array("I", rd.rec.keymap).tobytes(), json.dumps(rd.rec.clauses), json.dumps(rd.spans))
             for rd in reading_records(sec, norm, doc.char_map, doc.traditional)])
    if reader is None:
        raise DataError("the TEI has no header", str(tei))
    part.units = uid
    return part


def _part_worker(tei: str, start: int, stop: int | None, dest: str) -> _Part:
    """In a worker process: the sections ``start`` to ``stop`` of ``tei`` into the new file
    ``dest``, the terms sorted into ``grams`` (see :func:`_fill_parallel`)."""
    gc.disable()
    con = sqlite3.connect(dest)
    try:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.executescript(SCHEMA)
        con.execute(_STAGING)
        part = _fill_sections(con, Path(tei), start, stop)
        con.execute("INSERT INTO grams SELECT * FROM grams_in ORDER BY gram, unit")
        con.commit()
    finally:
        con.close()
    return part


def _count_sections(tei: Path) -> int:
    """About how many sections ``tei`` has (start tags of section divisions in its bytes): only
    to share them out among workers; a wrong count makes the shares uneven, never the index."""
    with open(tei, "rb") as f:
        return len(re.findall(rb'<div\b[^>]*\btype="section"', f.read()))


def _fill_parallel(con: sqlite3.Connection, tei: Path, workers: int) -> _Part:
    """The rows of ``tei`` as :func:`_fill_sections` writes them, by ``workers`` processes: each
    reads a run of consecutive sections into a file of its own (its units numbered from 1, its
    terms sorted), and the runs are appended here in order, each unit's number moved by the
    units of the runs before it; the terms of all runs are merged in term order (each run's
    sorted, a term's units of an earlier run before those of a later one: the order of the
    table) into the staging table's place."""
    from concurrent.futures import ProcessPoolExecutor

    share = -(-max(_count_sections(tei), 1) // workers)
    bounds = [(k * share, (k + 1) * share if k < workers - 1 else None) for k in range(workers)]
    with tempfile.TemporaryDirectory(prefix="yili-index-") as tmp:
        files = [Path(tmp) / f"part{k}.sqlite" for k in range(workers)]
        with ProcessPoolExecutor(workers) as ex:
            parts = list(ex.map(_part_worker, [str(tei)] * workers, [b[0] for b in bounds], [b[1] for b in bounds],
                                [str(f) for f in files]))
        total = _Part(header=parts[0].header)
        arms = []
        for k, (part, f) in enumerate(zip(parts, files, strict=True)):
            con.execute(f"ATTACH DATABASE ? AS p{k}", (str(f),))
            base = total.units
            con.execute(f"INSERT INTO units SELECT id + {base}, ref, unit, section, paragraph, layer, text, key, "
                        f"keymap, clauses, label, pages FROM p{k}.units ORDER BY id")
            con.execute(f"INSERT INTO sections SELECT * FROM p{k}.sections")
            con.execute(f"INSERT OR IGNORE INTO aliases SELECT alias, unit FROM p{k}.aliases")
            con.execute("INSERT INTO readings (witness, section, paragraph, layer, text, key, keymap, clauses, spans) "
                        f"SELECT witness, section, paragraph, layer, text, key, keymap, clauses, spans FROM p{k}.readings "
                        "ORDER BY id")
            arms.append(f"SELECT gram, unit + {base}, layer, section, n FROM p{k}.grams")
            total.titles.update(part.titles)
            total.where.update(part.where)
            total.units += part.units
        con.execute(_STAGING)
        con.commit()
        # a merge of the sorted runs (SQLite's compound ORDER BY), in the order of the term
        con.execute("INSERT INTO grams " + " UNION ALL ".join(arms) + " ORDER BY 1")
        con.commit()
        for k in range(workers):
            con.execute(f"DETACH DATABASE p{k}")
        return total


def fill_index(con: sqlite3.Connection, tei: Path, overlays: Path | None = None, workers: int | None = None) -> str:
    """Write the index of ``tei`` and its overlays into the empty database ``con``: units with
    their keys, the inverted index of characters and character pairs, and each section's XML (so
    that ``show`` parses one section, not the whole file). Returns the digest stored in its meta
    table: that of the TEI and the overlays, taken after both were read. ``workers``: processes
    that read the sections (default: :data:`WORKERS` for a TEI over :data:`PARALLEL_BYTES`, else
    this one); the index is the same either way."""
    from ..tei.read import SectionReader

    if workers is None:
        try:
            big = tei.stat().st_size > PARALLEL_BYTES
        except OSError:
            big = False
        workers = min(WORKERS, os.cpu_count() or 1) if big else 1
    con.executescript(SCHEMA)
    if workers > 1:
        part = _fill_parallel(con, tei, workers)
    else:
        # the terms go to a staging table first and into ``grams`` (a B-tree in term order)
        # sorted, at the end: inserted in the order of the text, every row would land in another page
        con.execute(_STAGING)
        part = _fill_sections(con, tei)
    header, titles, where, uid = part.header, part.titles, part.where, part.units
    doc = SectionReader(header, str(tei)).doc
    norm = doc.normaliser()
    if overlays is not None and has_overlays(overlays):
        from ..overlay import read_overlays

        for ov in read_overlays(overlays):
            for u in ov.units:
                if u.target not in where:
                    continue
                sec_n, para = where[u.target]
                text = "".join(x.text for x in u.sentences) if u.sentences else "".join(map(str, u.content))
                key, km = norm.key_map(text)
                label = unit_label(u.layer, ov.name)
                uid += 1
                con.execute(
                    "INSERT INTO units (id, ref, unit, section, paragraph, layer, text, key, keymap, clauses, label, pages) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (uid, f"{para}@{u.layer}", u.id, sec_n, para, u.layer, text, key, array("I", km).tobytes(),
                     "[]", label, "[]"),
                )
                con.executemany("INSERT INTO grams_in VALUES (?, ?, ?, ?, ?)",
                                ((g, uid, u.layer, sec_n, k) for g, k in _gram_counts(key).items()))
    con.execute("INSERT INTO grams SELECT * FROM grams_in ORDER BY gram, unit")
    con.execute("DROP TABLE grams_in")
    con.execute("INSERT INTO gramcount SELECT gram, count(*) FROM grams GROUP BY gram")
    con.executescript(INDEXES)
    digest = index_digest(tei, overlays)
    meta = {
        "folds": json.dumps(char_folds(norm), ensure_ascii=False),
        "version": str(INDEX_VERSION), "tei": str(tei), "digest": digest, "chapter": doc.id,
        "work": doc.work, "title": doc.chapter, "number": str(doc.number),
        "titles": json.dumps(doc.titles, ensure_ascii=False),
        "sections": json.dumps(titles, ensure_ascii=False),
        "variants": json.dumps(doc.variants, ensure_ascii=False),
        "edition": json.dumps(asdict(doc.edition) if doc.edition else None, ensure_ascii=False),
        "header": header.decode("utf-8"),
    }
    con.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
    return digest


# -- the checksum --------------------------------------------------------------------------------------

def _checksum(f: Any, header: bytes) -> bytes:
    """The checksum of an index file (see :data:`SUM_FIELDS`), ``header`` its first bytes already
    read, ``f`` positioned after them."""
    h = bytearray(header)
    for off, n in SUM_FIELDS:
        h[off : off + n] = bytes(n)
    sha = hashlib.sha256(h)
    buf = bytearray(HASH_CHUNK)
    view = memoryview(buf)
    while n := f.readinto(buf):
        sha.update(view[:n])
    return sha.digest()[:8]


def _stored_sum(header: bytes) -> bytes:
    return b"".join(header[off : off + n] for off, n in SUM_FIELDS)


def seal(path: Path) -> None:
    """Write the checksum of the closed index file ``path`` into its header."""
    with open(path, "r+b", buffering=0) as f:
        header = f.read(HEADER_SIZE)
        if len(header) < HEADER_SIZE or not header.startswith(SQLITE_MAGIC):
            raise DataError("the new search index is not an SQLite file", str(path))
        digest = _checksum(f, header)
        at = 0
        for off, n in SUM_FIELDS:
            f.seek(off)
            f.write(digest[at : at + n])
            at += n


class _Damaged(Exception):
    """An index file that is not what it should be (the reason is the message)."""


def verify(path: Path) -> os.stat_result | None:
    """The status of the index file ``path`` if it is a regular, whole SQLite file whose checksum
    holds; None if there is none; :class:`_Damaged` otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not hang us
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _Damaged(exc.strerror or str(exc)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Damaged("not a regular file")
        f = os.fdopen(fd, "rb", buffering=0)  # unbuffered: readinto one reused buffer
    except BaseException:
        os.close(fd)
        raise
    with f:
        try:
            header = f.read(HEADER_SIZE)
            if len(header) < HEADER_SIZE or not header.startswith(SQLITE_MAGIC):
                raise _Damaged("not an SQLite file")
            if _checksum(f, header) != _stored_sum(header):
                raise _Damaged("its checksum does not match")
        except OSError as exc:
            raise _Damaged(exc.strerror or str(exc)) from None
    return st


# -- the cache folder ------------------------------------------------------------------------------------

def _is_index_temporary(name: str) -> bool:
    """Whether ``name`` is a temporary (files.temp_name) of an index file."""
    return name.startswith(".index-") and bool(INDEX_NAME.match(name[1:].split(".yili-", 1)[0]))


def prune(folder: Path, keep: Path) -> list[Path]:
    """Remove from the cache ``folder`` the index files it no longer needs: temporaries of
    processes that are gone (killed builds), those of the index code before version 7 when old
    (:data:`LEGACY_AGE`), and indexes other than ``keep`` that are neither among the
    :data:`KEEP_INDEXES` most recently used nor used in the last :data:`PRUNE_AFTER` seconds.
    Only names of this module's making are looked at. Returns what was removed."""
    from ..files import stale_temporaries

    now = time.time()
    doomed: list[Path] = [p for p in stale_temporaries(folder) if _is_index_temporary(p.name)]
    indexes: list[tuple[float, Path]] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        entries = []
    for e in entries:
        index, legacy = INDEX_NAME.match(e.name), LEGACY_NAME.match(e.name)
        if not (index or legacy) or e.name == keep.name:
            continue
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        if index:
            indexes.append((st.st_mtime, Path(e.path)))
        elif now - st.st_mtime > LEGACY_AGE:
            doomed.append(Path(e.path))
    indexes.sort(reverse=True)
    doomed += [p for mtime, p in indexes[KEEP_INDEXES - 1 :] if now - mtime > PRUNE_AFTER]
    gone = []
    for p in doomed:
        with contextlib.suppress(OSError):
            p.unlink()
            gone.append(p)
    return gone


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _filters(cond: list[str], args: list[Any], layers: list[str] | None, sections: list[int] | None) -> None:
    """Add layer and section conditions to an SQL WHERE clause being built."""
    if layers:
        cond.append(f"layer IN ({','.join('?' * len(layers))})")
        args.extend(layers)
    if sections:
        cond.append(f"section IN ({','.join('?' * len(sections))})")
        args.extend(sections)


#: A step that takes longer than this (seconds) says so on stderr, when stderr is a terminal.
PROGRESS_AFTER = 2.0


@contextlib.contextmanager
def progress(what: str) -> Any:
    """Around a step that may be long: if it is still running after :data:`PROGRESS_AFTER`
    seconds, a line on stderr says what is being done, and another how long it took. Only on a
    terminal: a script or a pipe reading stderr gets no progress lines."""
    import sys
    import threading

    if not sys.stderr.isatty():
        yield
        return
    t0 = time.monotonic()
    shown: list[bool] = []

    def say() -> None:
        shown.append(True)
        print(f"yili: {what} …", file=sys.stderr, flush=True)

    timer = threading.Timer(PROGRESS_AFTER, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if shown:
            print(f"yili: {what}: done in {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)


class _Rows(list):  # type: ignore[type-arg]
    """The rows of a statement, fetched whole, read as a cursor is (``fetchone``, ``fetchall``)."""

    def fetchone(self) -> Any:
        return self[0] if self else None

    def fetchall(self) -> list[Any]:
        return list(self)


class _Guarded:
    """The connection of an :class:`Index`, as its methods and callers use it (``execute``): a
    database error at a query — a file damaged after it was opened — leads to one reopen of the
    index (:meth:`Index.open`, which builds it anew if the file is damaged), and the statement is
    run again; a second error is damaged data (exit 3), not an internal error."""

    def __init__(self, index: Index) -> None:
        self._index = index

    def execute(self, sql: str, args: Any = ()) -> _Rows:
        try:
            return _Rows(self._index._raw.execute(sql, args).fetchall())
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise  # a wrong statement: a bug, not a damaged file
        except sqlite3.DatabaseError as exc:
            self._index._reopen(exc)
        try:
            return _Rows(self._index._raw.execute(sql, args).fetchall())
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise
        except sqlite3.DatabaseError as exc:
            raise DataError(f"the search index cannot be read: {exc}", self._index._file()) from None


class Index:
    """An open index (see module doc)."""

    def __init__(self, tei: Path, con: sqlite3.Connection, overlays: Path | None = None,
                 path: Path | None = None) -> None:
        self.tei = tei
        self.overlays = overlays
        self.path = path  # the file (None: built in memory for this run)
        self._raw = con
        self._reopened = False
        self._folds: dict[str, str] | None = None
        self._last_terms: tuple[str, dict[str, int]] | None = None  # see _terms
        self.normaliser: Any = None  # the query normaliser, once made (query/search.make_normaliser)
        self.con = _Guarded(self)
        self._load_meta()

    def _load_meta(self) -> None:
        self.meta = dict(self._raw.execute("SELECT k, v FROM meta").fetchall())
        self.sections: dict[int, str] = {int(k): v for k, v in json.loads(self.meta["sections"]).items()}

    def _file(self) -> str:
        return str(self.path) if self.path is not None else "the search index (in memory)"

    def _reopen(self, exc: Exception) -> None:
        """After a database error: open the index again (built anew if its file is damaged), once."""
        if self._reopened:
            raise DataError(f"the search index cannot be read: {exc}", self._file()) from None
        self._reopened = True
        fresh = Index.open(self.tei, self.overlays)
        old, self._raw, self.path = self._raw, fresh._raw, fresh.path
        self.meta, self.sections = fresh.meta, fresh.sections
        self._last_terms = None
        with contextlib.suppress(sqlite3.Error):
            old.close()

    def close(self) -> None:
        """Close the database (the index cannot be used afterwards)."""
        self._raw.close()

    @classmethod
    def open(cls, tei: Path, overlays: Path | None = None) -> Index:
        """Open the index of ``tei`` (and its overlays) from the cache folder, building it when it
        is missing or damaged (see module doc)."""
        digest = index_digest(tei, overlays)
        try:
            path = index_path(digest)
        except UsageError as exc:  # no cache folder at all (no home folder)
            return cls._in_memory(tei, overlays, str(exc), "")
        return cls._open_file(tei, overlays, path, digest) or cls._build(tei, overlays, digest)

    @classmethod
    def _open_file(cls, tei: Path, overlays: Path | None, path: Path, digest: str) -> Index | None:
        """The index in the file ``path`` if it is there, whole, and of ``digest``; else None."""
        for _attempt in range(2):  # a second look if another process replaced the file meanwhile
            try:
                st = verify(path)
            except _Damaged:
                return None
            if st is None:
                return None
            try:
                con = sqlite3.connect("file:" + quote(str(path)) + "?mode=ro", uri=True)
            except sqlite3.Error:
                return None
            try:
                idx = cls(tei, con, overlays, path)
                now = os.stat(path)
            except (sqlite3.DatabaseError, OSError, ValueError, KeyError):
                con.close()
                return None
            if (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):  # not the file verified
                con.close()
                continue
            if idx.meta.get("digest") != digest or idx.meta.get("version") != str(INDEX_VERSION):
                con.close()
                return None
            if time.time() - st.st_mtime > TOUCH_AFTER:  # mark it used (for the prune)
                with contextlib.suppress(OSError):
                    os.utime(path)
            return idx
        return None

    @classmethod
    def _build(cls, tei: Path, overlays: Path | None, digest: str) -> Index:
        """Build the index of the TEI and overlays as they are now into the cache folder, and open
        it; in memory if the cache folder cannot be written."""
        from ..files import temp_name  # not imported by a search that finds its index

        try:
            folder = writable_cache_dir()
        except UsageError as exc:
            return cls._in_memory(tei, overlays, str(exc), str(cache_dir()))
        for attempt in range(BUILD_ATTEMPTS):
            path = index_path(digest)
            tmp = temp_name(path)
            try:
                with progress(f"building the search index of {tei.name}"):
                    built = build_index(tei, tmp, overlays)
            except (OSError, sqlite3.DatabaseError) as exc:  # disk full, quota …
                _unlink(tmp)
                return cls._in_memory(tei, overlays, f"the cache folder {folder} cannot take the search index "
                                      f"({getattr(exc, 'strerror', None) or exc})", str(folder))
            except BaseException:
                _unlink(tmp)
                raise
            if built != digest:  # the TEI or the overlays changed during the build
                if attempt == BUILD_ATTEMPTS - 1:  # and still do: serve this build, unstored
                    return cls._from_temporary(tei, overlays, tmp)
                _unlink(tmp)
                digest = built
                found = cls._open_file(tei, overlays, index_path(digest), digest)  # built by another
                if found:
                    return found
                continue
            try:
                os.replace(tmp, path)
            except OSError as exc:  # a folder in its place …
                note_once(str(folder), f"the search index cannot be stored as {path} ({exc.strerror or exc}); "
                                       "it is kept in memory for this run")
                return cls._from_temporary(tei, overlays, tmp)
            prune(folder, path)
            found = cls._open_file(tei, overlays, path, digest)
            if found:
                return found
            break
        # what was just stored does not read back whole (another process replaced or damaged it)
        return cls._in_memory(tei, overlays, f"the search index in {folder} does not read back whole",
                              str(folder))

    @classmethod
    def _in_memory(cls, tei: Path, overlays: Path | None, why: str, key: str) -> Index:
        """The index built in memory for this run, with a note (once) saying why."""
        note_once(key or why, f"{why}; the search index is built in memory for this run")
        con = sqlite3.connect(":memory:")
        con.execute("PRAGMA temp_store=MEMORY")  # the build's staging table too: no file written
        fill_index(con, tei, overlays)
        con.commit()
        return cls(tei, con, overlays, None)

    @classmethod
    def _from_temporary(cls, tei: Path, overlays: Path | None, tmp: Path) -> Index:
        """The index built into ``tmp``, copied into memory; ``tmp`` is removed."""
        try:
            src = sqlite3.connect(tmp)
            con = sqlite3.connect(":memory:")
            try:
                src.backup(con)
            finally:
                src.close()
        finally:
            _unlink(tmp)
        return cls(tei, con, overlays, None)

    @property
    def folds(self) -> dict[str, str]:
        """The character folds of the query key (:func:`char_folds`), decoded once per open index
        (a few thousand entries: decoding them at every search cost more than the search)."""
        if self._folds is None:
            self._folds = json.loads(self.meta.get("folds", "{}"))
        return self._folds

    @property
    def max_section(self) -> int:
        return max(self.sections)

    @property
    def edition(self) -> Any:
        """The printed edition clauses and 注 are cited by page in (a
        :class:`~yili_corpus.document.Edition`), or None."""
        from ..document import Edition

        raw = json.loads(self.meta.get("edition") or "null")
        return Edition(**raw) if isinstance(raw, dict) else None

    def rows(self, layers: list[str] | None = None, sections: list[int] | None = None,
             contains: str | None = None) -> list[Record]:
        """Units, filtered by layer, section and a key substring (found through the inverted
        index of characters and character pairs, then checked)."""
        where, args = self._where(layers, sections, contains)
        return self._select(where + " ORDER BY id", args)

    def readings(self, layers: list[str] | None = None, sections: list[int] | None = None,
                 contains: str | None = None) -> list[Reading]:
        """The 经/记 paragraphs as the witnesses read them where they differ (:class:`Reading`),
        filtered by layer, section and a key substring (``contains``: only the readings whose key
        holds it are read and decoded, not all of them for every search)."""
        cond: list[str] = []
        args: list[Any] = []
        _filters(cond, args, layers, sections)
        cond = [f"r.{c}" for c in cond]
        if contains:
            cond.append("instr(r.key, ?) > 0")
            args.append(contains)
        where = ("WHERE " + " AND ".join(cond)) if cond else ""
        out = []
        # a reading's paragraph is a unit of its section and layer: joined on the three, the join
        # goes through units_layer (on the unit id alone SQLite made an automatic index of every
        # unit at each call: 0.8 ms a chapter, the largest cost of a search of the whole work)
        for wit, sec, para, layer, text, key, km, cl, sp, pg in self.con.execute(
                "SELECT r.witness, r.section, r.paragraph, r.layer, r.text, r.key, r.keymap, r.clauses, r.spans, "
                "u.pages FROM readings r JOIN units u ON u.layer = r.layer AND u.section = r.section "
                f"AND u.unit = r.paragraph {where} ORDER BY r.id", args):
            keymap = array("I")
            keymap.frombytes(km)
            rec = Record(para, para, sec, para, layer, text, key, keymap,  # type: ignore[arg-type]
                         [tuple(x) for x in json.loads(cl)], wit, json.loads(pg) if pg != "[]" else [])
            out.append(Reading(wit, rec, [tuple(x) for x in json.loads(sp)]))
        return out

    def has(self, layer: str, sections: list[int] | None = None) -> bool:
        """Whether a layer has any unit (in the sections given)."""
        where, args = self._where([layer], sections, None)
        return self.con.execute(f"SELECT 1 FROM units {where} LIMIT 1", args).fetchone() is not None

    def keys(self, layers: list[str] | None = None, sections: list[int] | None = None,
             contains: str | None = None) -> list[tuple[int, str, str]]:
        """(row id, layer, key) of the units the filters select: cheap, for counting."""
        where, args = self._where(layers, sections, contains)
        return list(self.con.execute(f"SELECT id, layer, key FROM units {where} ORDER BY id", args))

    def _where(self, layers: list[str] | None, sections: list[int] | None,
               contains: str | None) -> tuple[str, list[Any]]:
        cond: list[str] = []
        args: list[Any] = []
        if contains:
            term = self._rarest_term(contains)
            cond.append("id IN (SELECT unit FROM grams WHERE gram = ?)")
            args.append(term)
            if len(contains) > len(term):
                cond.append("instr(key, ?) > 0")
                args.append(contains)
        _filters(cond, args, layers, sections)
        return ("WHERE " + " AND ".join(cond)) if cond else "", args

    def gram_counts(self, gram: str, layers: list[str] | None, sections: list[int] | None,
                    limit: int | None) -> tuple[dict[str, int], list[int]]:
        """For a one- or two-character key: occurrences by layer, from the inverted index alone,
        and the units that hold the first ``limit`` occurrences (all units if no limit)."""
        cond: list[str] = ["gram = ?"]
        args: list[Any] = [gram]
        _filters(cond, args, layers, sections)
        where = " AND ".join(cond)
        counts = dict(self.con.execute(f"SELECT layer, sum(n) FROM grams WHERE {where} GROUP BY layer", args))
        units: list[int] = []
        got = 0
        for uid, n in self.con.execute(f"SELECT unit, n FROM grams WHERE {where} ORDER BY unit", args):
            if limit is not None and got >= limit:
                break
            units.append(uid)
            got += n
        return counts, units

    def rows_by_id(self, ids: list[int]) -> list[Record]:
        """The units with these row ids, in the order given."""
        if not ids:
            return []
        order = sorted(set(ids))
        rows = self._select(f"WHERE id IN ({','.join('?' * len(order))}) ORDER BY id", order)
        by_id = dict(zip(order, rows, strict=True))
        return [by_id[i] for i in ids if i in by_id]

    def _select(self, where: str, args: list[Any]) -> list[Record]:
        sql = "SELECT ref, unit, section, paragraph, layer, text, key, keymap, clauses, label, pages FROM units " + where
        out = []
        for ref, unit, sec, para, layer, text, key, km, cl, label, pg in self.con.execute(sql, args):
            keymap = array("I")
            keymap.frombytes(km)
            out.append(Record(ref, unit, sec, para, layer, text, key, keymap,  # type: ignore[arg-type]
                              [tuple(x) for x in json.loads(cl)] if cl != "[]" else [], label,
                              json.loads(pg) if pg != "[]" else []))
        return out

    def _terms(self, key: str) -> dict[str, int]:
        """The terms of ``key`` (its character, or its character pairs) with the units holding
        each (0: none), from one lookup in ``gramcount``; the last key's remembered."""
        if self._last_terms is not None and self._last_terms[0] == key:
            return self._last_terms[1]
        terms = sorted({key} if len(key) == 1 else {key[i : i + 2] for i in range(len(key) - 1)})
        got = dict(self.con.execute(f"SELECT gram, units FROM gramcount WHERE gram IN ({','.join('?' * len(terms))})",
                                    terms))
        out = {g: got.get(g, 0) for g in terms}
        self._last_terms = (key, out)
        return out

    def may_hold(self, key: str) -> bool:
        """Whether some unit may hold ``key``: every character pair of it (its character, for
        one) is in some unit. False is sure (no unit holds the key); True is to be checked."""
        return bool(key) and all(self._terms(key).values())

    def _rarest_term(self, key: str) -> str:
        """The character pair (or character, for one) of ``key`` that the fewest units hold."""
        if len(key) == 1:
            return key
        best, best_n = key[:2], None
        for g, n in self._terms(key).items():  # in sorted order: the first of the rarest
            if best_n is None or n < best_n:
                best, best_n = g, n
        return best

    def section_xml(self, numbers: list[int]) -> list[bytes]:
        """The XML of the given sections, in order."""
        out = []
        for n in numbers:
            row = self.con.execute("SELECT xml FROM sections WHERE n = ?", (n,)).fetchone()
            if row:
                out.append(row[0])
        return out
