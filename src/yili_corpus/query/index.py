"""The search index: every unit of the TEI with its normalised key, in SQLite.

Built from the TEI on first use and stored in the user cache folder as
``index-<sha256 of the TEI>-v<N>.sqlite``; a changed TEI has another checksum, so its index is
built anew. A corrupt index file is rebuilt. Searching reads only this file, which keeps a
fresh ``yili search`` well under the 0.3 s target: the TEI is not parsed again.

A unit is a 经/记 paragraph (clauses joined by ．, w001's clause mark), a 注, a 疏 block, a note
or a translation paragraph.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..paths import cache_dir

INDEX_VERSION = 6
CLAUSE_SEP = "．"


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

    def clause_at(self, offset: int) -> str | None:
        """The clause id holding text offset ``offset`` (经/记 only)."""
        cid = None
        for off, c in self.clauses:
            if off <= offset:
                cid = c
            else:
                break
        return cid


LABELS = {"zhu": "郑玄注", "shu": "贾公彦疏", "note": "今注", "trans": "今译"}


def section_records(s: Any, norm: Any, chars: dict[str, Any]) -> list[Record]:
    """The searchable units of one section."""
    from ..document import readable

    out: list[Record] = []
    for p in s.paragraphs:
        parts, offs = [], []
        pos = 0
        for c in p.clauses:
            if parts:
                pos += len(CLAUSE_SEP)
            offs.append((pos, c.id))
            t = readable(c.content, chars)
            parts.append(t)
            pos += len(t)
        text = CLAUSE_SEP.join(parts)
        key, km = norm.key_map(text)
        out.append(Record(p.id, p.id, s.n, p.id, p.layer, text, key, km, offs, ""))
        for u in p.units:
            if u.layer == "shu":
                text = "".join(readable(c, chars) for _r, c, _s in u.parts)
            elif u.layer == "trans":
                text = "".join(x.text for x in u.sentences)
            else:
                text = readable(u.content, chars)
            key, km = norm.key_map(text)
            wit = u.source.split()[0].lstrip("#") if u.source else ""
            label = LABELS[u.layer]
            if u.layer == "note":
                label = f"今注（{wit}{' 注' + u.n if u.n else ''}）"
            elif u.layer == "trans":
                label = f"今译（{wit}）"
            out.append(Record(f"{p.id}@{u.layer}", u.id, s.n, p.id, u.layer, text, key, km, [], label))
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


def index_digest(tei: Path, overlays: Path | None) -> str:
    """The digest an index is kept under: the TEI's, combined with the overlays' if any."""
    d = tei_digest(tei)
    if overlays is not None and overlays.is_dir() and any(overlays.glob("*.xml")):
        from ..overlay import overlays_digest

        d = hashlib.sha256((d + overlays_digest(overlays)).encode()).hexdigest()
    return d


def index_path(digest: str) -> Path:
    """Where the index of a TEI with this digest lives."""
    return cache_dir() / f"index-{digest[:16]}-v{INDEX_VERSION}.sqlite"


SCHEMA = """
CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE units (
  id INTEGER PRIMARY KEY, ref TEXT, unit TEXT, section INTEGER, paragraph TEXT, layer TEXT,
  text TEXT, key TEXT, keymap BLOB, clauses TEXT, label TEXT
);
CREATE INDEX units_layer ON units(layer, section);
CREATE TABLE grams (gram TEXT, unit INTEGER, layer TEXT, section INTEGER, n INTEGER,
                    PRIMARY KEY (gram, unit)) WITHOUT ROWID;
CREATE TABLE gramcount (gram TEXT PRIMARY KEY, units INTEGER) WITHOUT ROWID;
CREATE TABLE sections (n INTEGER PRIMARY KEY, xml BLOB);
"""


def _grams(key: str) -> set[str]:
    """The characters and character pairs of a key (the inverted index's terms)."""
    return set(key) | {key[i : i + 2] for i in range(len(key) - 1)}


def build_index(tei: Path, dest: Path, overlays: Path | None = None) -> None:
    """Stream the TEI and write its index to ``dest`` (atomically): units with their keys, the
    inverted index of characters and character pairs, and each section's XML (so that ``show``
    parses one section, not the whole file)."""
    from ..tei.read import assemble, iter_tei

    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".index-", suffix=".sqlite", dir=dest.parent)
    os.close(fd)
    try:
        con = sqlite3.connect(tmp)
        con.executescript(SCHEMA)
        header = b""
        doc = None
        norm = None
        titles: dict[int, str] = {}
        where: dict[str, tuple[int, str]] = {}
        uid = 0
        for item in iter_tei(tei):
            if item[0] == "header":
                header = item[1]
                doc = assemble(header, [], str(tei))
                norm = doc.normaliser()
                continue
            if doc is None or norm is None:
                raise DataError("the TEI has no header before its sections", str(tei))
            _tag, n, xml = item
            part = assemble(header, [xml], str(tei))
            sec = part.sections[0]
            titles[sec.n] = sec.title
            con.execute("INSERT INTO sections VALUES (?, ?)", (sec.n, xml))
            for p in sec.paragraphs:
                for c in p.clauses:
                    where[c.id] = (sec.n, p.id)
            for r in section_records(sec, norm, part.char_map):
                uid += 1
                con.execute(
                    "INSERT INTO units (id, ref, unit, section, paragraph, layer, text, key, keymap, clauses, label) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (uid, r.ref, r.unit, r.section, r.paragraph, r.layer, r.text, r.key,
                     array("I", r.keymap).tobytes(), json.dumps(r.clauses), r.label),
                )
                con.executemany("INSERT INTO grams VALUES (?, ?, ?, ?, ?)",
                                ((g, uid, r.layer, r.section, r.key.count(g)) for g in _grams(r.key)))
        if doc is None:
            raise DataError("the TEI has no header", str(tei))
        if overlays is not None and norm is not None:
            from ..overlay import read_overlays

            for ov in read_overlays(overlays):
                for u in ov.units:
                    if u.target not in where:
                        continue
                    sec_n, para = where[u.target]
                    text = "".join(x.text for x in u.sentences) if u.sentences else "".join(map(str, u.content))
                    key, km = norm.key_map(text)
                    label = (f"今译（{ov.name}）" if u.layer.startswith("trans:") else f"注（{ov.name}）")
                    uid += 1
                    con.execute(
                        "INSERT INTO units (id, ref, unit, section, paragraph, layer, text, key, keymap, clauses, label) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (uid, f"{para}@{u.layer}", u.id, sec_n, para, u.layer, text, key, array("I", km).tobytes(),
                         "[]", label),
                    )
                    con.executemany("INSERT INTO grams VALUES (?, ?, ?, ?, ?)",
                                    ((g, uid, u.layer, sec_n, key.count(g)) for g in _grams(key)))
        con.execute("INSERT INTO gramcount SELECT gram, count(*) FROM grams GROUP BY gram")
        meta = {
            "folds": json.dumps(char_folds(norm), ensure_ascii=False),
            "version": str(INDEX_VERSION), "tei": str(tei), "digest": index_digest(tei, overlays), "chapter": doc.id,
            "work": doc.work, "title": doc.chapter, "number": str(doc.number),
            "sections": json.dumps(titles, ensure_ascii=False),
            "variants": json.dumps(doc.variants, ensure_ascii=False),
            "header": header.decode("utf-8"),
        }
        con.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        con.commit()
        con.close()
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _filters(cond: list[str], args: list[Any], layers: list[str] | None, sections: list[int] | None) -> None:
    """Add layer and section conditions to an SQL WHERE clause being built."""
    if layers:
        cond.append(f"layer IN ({','.join('?' * len(layers))})")
        args.extend(layers)
    if sections:
        cond.append(f"section IN ({','.join('?' * len(sections))})")
        args.extend(sections)


class Index:
    """An open index (see module doc)."""

    def __init__(self, tei: Path, con: sqlite3.Connection) -> None:
        self.tei = tei
        self.con = con
        self.meta = dict(con.execute("SELECT k, v FROM meta").fetchall())
        self.sections: dict[int, str] = {int(k): v for k, v in json.loads(self.meta["sections"]).items()}

    @classmethod
    def open(cls, tei: Path, overlays: Path | None = None) -> Index:
        """Open the index of ``tei`` (and its overlays), building it (again) when missing, stale
        or corrupt."""
        digest = index_digest(tei, overlays)
        path = index_path(digest)
        for attempt in range(2):
            if not path.exists():
                build_index(tei, path, overlays)
            try:
                con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                idx = cls(tei, con)
                if idx.meta.get("digest") != digest or idx.meta.get("version") != str(INDEX_VERSION):
                    raise sqlite3.DatabaseError("index does not belong to this TEI")
                return idx
            except sqlite3.DatabaseError:
                try:
                    path.unlink()
                except OSError:
                    pass
                if attempt:
                    raise DataError("the search index cannot be built", str(path)) from None
        raise DataError("the search index cannot be opened", str(path))

    @property
    def max_section(self) -> int:
        return max(self.sections)

    def rows(self, layers: list[str] | None = None, sections: list[int] | None = None,
             contains: str | None = None) -> list[Record]:
        """Units, filtered by layer, section and a key substring (found through the inverted
        index of characters and character pairs, then checked)."""
        where, args = self._where(layers, sections, contains)
        return self._select(where + " ORDER BY id", args)

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
        sql = "SELECT ref, unit, section, paragraph, layer, text, key, keymap, clauses, label FROM units " + where
        out = []
        for ref, unit, sec, para, layer, text, key, km, cl, label in self.con.execute(sql, args):
            keymap = array("I")
            keymap.frombytes(km)
            out.append(Record(ref, unit, sec, para, layer, text, key, keymap,  # type: ignore[arg-type]
                              [tuple(x) for x in json.loads(cl)] if cl != "[]" else [], label))
        return out

    def _rarest_term(self, key: str) -> str:
        """The character pair (or character, for one) of ``key`` that the fewest units hold."""
        if len(key) == 1:
            return key
        pairs = {key[i : i + 2] for i in range(len(key) - 1)}
        best, best_n = key[:2], None
        for g in sorted(pairs):
            row = self.con.execute("SELECT units FROM gramcount WHERE gram = ?", (g,)).fetchone()
            n = row[0] if row else 0
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
