"""The manifests: the work's (``corpus/manifest.toml``: its chapters, shared tables and source rows,
front matter) and each chapter's (``corpus/chapters/ID.toml``: ids, descriptions, layers and
checksums of its sources)."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..errors import DataError
from ..genre import Commentator, Genre, load_commentators
from ..model import ParsedSource
from . import PARSERS
from .reader import read_corpus_file, read_source, utf8_error


@dataclass
class SourceEntry:
    """One source file as the manifest describes it."""

    id: str
    file: str
    format: str
    description: str
    layers: list[str]
    sha256: str
    edition: str = ""
    rank: int = 99
    order: str = "text"  # "text": paragraphs follow the text; "scrambled": they do not
    #: layers the file holds that the build does not take yet (parsed and counted, not in the TEI)
    held: list[str] = field(default_factory=list)
    #: where a file from a published edition comes from, and on what terms (empty for the seeds)
    repository: str = ""
    commit: str = ""
    licence: str = ""
    licence_url: str = ""
    attribution: str = ""
    #: the script the file is written in: ``hans`` or ``hant`` (a traditional witness gives the
    #: traditional view of the reading text, :mod:`yili_corpus.text.traditional`)
    script: str = "hans"
    #: the printed edition the file transcribes, as a citation names it (a witness cited by page:
    #: ``《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉12b``); empty for the others
    edition_title: str = ""
    juan: str = ""
    edition_chapter: str = ""
    series: str = ""
    edition_name: str = ""
    publisher: str = ""
    #: when the printed edition was made: an ISO date (``1776``) and the date as it says it
    #: (``乾隆四十一年九月``)
    edition_date: str = ""
    edition_date_text: str = ""

    def path(self, corpus_dir: Path) -> Path:
        return corpus_dir / self.file


@dataclass
class Manifest:
    """The chapter and its sources."""

    corpus_dir: Path
    chapter_id: str
    chapter_title: str
    work_title: str
    chapter_number: int
    base: str
    tables: dict[str, str]
    sources: list[SourceEntry] = field(default_factory=list)
    #: The chapter's titles as a reference may write them (the title first, then its variants:
    #: traditional forms, short forms); ``[chapter] titles``, else the title alone.
    titles: list[str] = field(default_factory=list)
    #: The witness whose text the section table's incipits quote (``[chapter] incipits``): a table
    #: generated from the 疏's division quotes the punctuated 经 it was checked against, and is
    #: found in that witness's reading of the collated text; empty: the reading text itself.
    incipits: str = ""
    #: the chapter manifest's file, relative to the corpus folder (``chapters/xiangsheli.toml``;
    #: ``manifest.toml`` in a corpus of one chapter)
    path: str = "manifest.toml"

    @property
    def folder(self) -> str:
        """The corpus folder's name: source pointers are ``FOLDER/FILE#char=A,B``, relative to the
        folder that holds it (the project), and the TEI header records it."""
        return self.corpus_dir.resolve().name

    def pointer(self, file: str) -> str:
        """The pointer to a file of the corpus folder (``corpus/003_….txt``)."""
        return f"{self.folder}/{file}"

    def witnesses_of(self, layer: str) -> list[str]:
        """The ids of the witnesses whose layers include ``layer`` (zhu: the 注 witnesses), in
        manifest order."""
        return [s.id for s in self.sources if layer in s.layers]

    @property
    def traditional(self) -> str | None:
        """The witness of the 经/记 written in traditional characters, the first by rank (the
        traditional view of the reading text is its forms); None if there is none."""
        hant = [s for s in self.sources if s.script == "hant" and {"jing", "ji"} & set(s.layers)]
        return min(hant, key=lambda s: s.rank).id if hant else None

    def source(self, sid: str) -> SourceEntry:
        for s in self.sources:
            if s.id == sid:
                return s
        raise KeyError(sid)

    def table(self, name: str) -> Path:
        if name not in self.tables:
            raise DataError(f"[tables] has no {name} (the file of the {name} table)", str(self.corpus_dir / self.path))
        return self.corpus_dir / self.tables[name]

    @property
    def rank(self) -> dict[str, int]:
        """Witness ranks for breaking ties in the collation (lower ranks higher)."""
        return {s.id: s.rank for s in self.sources}

    @cached_property
    def genre(self) -> Genre:
        """The markers of the genre (``[tables] genre``), read once."""
        return Genre.load(self.table("genre"))

    @cached_property
    def commentators(self) -> list[Commentator]:
        """The commentators (``[tables] commentators``), read once."""
        return load_commentators(self.table("commentators"))


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file of the corpus (read as :func:`read_corpus_file` reads)."""
    return hashlib.sha256(read_corpus_file(path, "source file")).hexdigest()


#: The work manifest's name in a corpus folder; it lists the chapter manifests (or, in a corpus of
#: one chapter, is the chapter manifest itself: ``[chapter]`` and ``[[source]]`` in one file).
WORK_MANIFEST = "manifest.toml"


@dataclass
class Front:
    """A file of the work that is no chapter (the front matter: 序, 提要, 目錄), as the work manifest
    lists it (``[[front]]``): checked like every source, placed in a TEI of its own
    (``tei/front.xml``, :mod:`yili_corpus.tei.front`), listed in the build's
    work report."""

    file: str
    description: str
    sha256: str
    from_: str = ""


@dataclass
class Work:
    """The work manifest: the work's title, its chapters (id → the chapter manifest's file, in the
    work's order), the default chapter, the tables every chapter shares, the source rows shared by
    every chapter's file of one edition (``[sources.NAME]``), the front matter."""

    corpus_dir: Path
    title: str
    default: str
    chapters: dict[str, str]
    tables: dict[str, str] = field(default_factory=dict)
    shared: dict[str, dict[str, object]] = field(default_factory=dict)
    front: list[Front] = field(default_factory=list)
    #: the work manifest is the one chapter's manifest (a corpus of one chapter)
    single: bool = False


def _read_toml(path: Path, what: str) -> dict[str, object]:
    if not path.exists():
        raise DataError(f"{what} not found", str(path))
    raw = read_corpus_file(path, what)
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise utf8_error(raw, exc, str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"not valid TOML: {exc}", str(path)) from None
    except ValueError as exc:  # tomllib's int() of a number of over 4300 digits
        raise DataError(f"not valid TOML: {str(exc)[:100]}", str(path)) from None


def load_work(corpus_dir: Path | str) -> Work:
    """Load the work manifest ``manifest.toml`` of ``corpus_dir``: ``[work]`` (title, default,
    chapters: the chapter manifests' files), ``[tables]``, ``[sources.NAME]``, ``[[front]]``. A
    ``manifest.toml`` with ``[chapter]`` is a corpus of one chapter (its own work)."""
    corpus_dir = Path(corpus_dir)
    path = corpus_dir / WORK_MANIFEST
    data = _read_toml(path, "manifest")
    try:
        if "work" not in data and "chapter" in data:
            ch = data["chapter"]
            assert isinstance(ch, dict)
            return Work(corpus_dir, str(ch["work"]), str(ch["id"]), {str(ch["id"]): WORK_MANIFEST}, single=True)
        w = data["work"]
        assert isinstance(w, dict)
        chapters: dict[str, str] = {}
        for f in w["chapters"]:
            cid = Path(str(f)).stem
            if cid in chapters:
                raise DataError(f"[work] chapters: {cid} twice", str(path))
            chapters[cid] = str(f)
        front = [Front(str(f["file"]), str(f["description"]), str(f["sha256"]), str(f.get("from", "")))
                 for f in data.get("front", [])]  # type: ignore[union-attr]
        shared = {str(k): dict(v) for k, v in dict(data.get("sources", {})).items()}  # type: ignore[arg-type]
        work = Work(corpus_dir, str(w["title"]), str(w["default"]), chapters, dict(data.get("tables", {})),  # type: ignore[arg-type]
                    shared, front)
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise DataError(f"work manifest entry missing or wrong: {str(exc)[:200]}", str(path)) from None
    if work.default not in work.chapters:
        raise DataError(f"[work] default {work.default!r} is not one of its chapters", str(path))
    if not all(isinstance(x, str) for x in [*work.tables.values(), *work.chapters.values()]):
        raise DataError("work manifest entry of the wrong type: tables and chapters are file names", str(path))
    return work


def load_manifest(corpus_dir: Path | str, chapter: str | None = None) -> Manifest:
    """Load and check the manifest of ``chapter`` (default: the work's default chapter) in
    ``corpus_dir``: the chapter manifest the work manifest names, with the work's tables and shared
    source rows."""
    work = load_work(corpus_dir)
    cid = chapter or work.default
    if cid not in work.chapters:
        raise DataError(f"no chapter {cid!r} in the work (chapters: {', '.join(work.chapters)})",
                        str(work.corpus_dir / WORK_MANIFEST))
    return _chapter_manifest(work, cid)


def _chapter_manifest(work: Work, cid: str) -> Manifest:
    corpus_dir = work.corpus_dir
    rel = work.chapters[cid]
    path = corpus_dir / rel
    data = _read_toml(path, "chapter manifest")
    try:
        ch = data["chapter"]
        assert isinstance(ch, dict)
        m = Manifest(
            corpus_dir=corpus_dir,
            chapter_id=ch["id"],
            chapter_title=ch["title"],
            work_title=ch.get("work", work.title),
            chapter_number=int(ch["number"]),
            base=ch["base"],
            tables={**work.tables, **dict(data.get("tables", {}))},  # type: ignore[arg-type]
            titles=list(ch.get("titles", [ch["title"]])),
            incipits=str(ch.get("incipits", "")),
            path=rel,
        )
        for row in data["source"]:  # type: ignore[union-attr]
            s = dict(row)
            if "from" in s:  # the fields every chapter's file of this edition shares
                name = s.pop("from")
                if name not in work.shared:
                    raise DataError(f"source {s.get('id')}: from = {name!r} names no [sources.{name}] of "
                                    f"{WORK_MANIFEST}", str(path))
                s = {**work.shared[name], **s}
            m.sources.append(
                SourceEntry(
                    id=s["id"], file=s["file"], format=s["format"], description=s["description"],
                    layers=list(s["layers"]), sha256=s["sha256"], edition=s.get("edition", ""),
                    rank=int(s.get("rank", 99)), order=str(s.get("order", "text")),
                    held=list(s.get("held", [])), repository=s.get("repository", ""), commit=s.get("commit", ""),
                    licence=s.get("licence", ""), licence_url=s.get("licence_url", ""),
                    attribution=s.get("attribution", ""), script=s.get("script", "hans"),
                    edition_title=s.get("edition_title", ""),
                    juan=s.get("juan", ""), edition_chapter=s.get("edition_chapter", ""),
                    series=s.get("series", ""), edition_name=s.get("edition_name", ""),
                    publisher=s.get("publisher", ""), edition_date=s.get("edition_date", ""),
                    edition_date_text=s.get("edition_date_text", ""),
                )
            )
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise DataError(f"manifest entry missing or wrong: {str(exc)[:200]}", str(path)) from None
    if m.chapter_id != cid:
        raise DataError(f"[chapter] id {m.chapter_id!r} differs from the file's name ({cid})", str(path))
    strings = [m.chapter_id, m.chapter_title, m.work_title, m.base, *m.tables.values(), *m.titles]
    strings += [x for s in m.sources for x in (s.id, s.file, s.format, s.description, s.sha256, s.edition, *s.layers,
                                                *s.held, s.repository, s.commit, s.licence, s.licence_url,
                                                s.attribution, s.script, s.edition_title, s.juan, s.edition_chapter,
                                                s.series, s.edition_name, s.publisher, s.edition_date,
                                                s.edition_date_text)]
    if not all(isinstance(x, str) for x in strings):
        raise DataError("manifest entry of the wrong type: ids, titles, files, formats, layers and sha256 are "
                        "strings", str(path))
    for s in m.sources:
        if s.order not in ("text", "scrambled"):
            raise DataError(f"source {s.id}: order must be text or scrambled, found {s.order!r}", str(path))
        if s.script not in ("hans", "hant"):
            raise DataError(f"source {s.id}: script must be hans or hant, found {s.script!r}", str(path))
        if s.format not in PARSERS:
            raise DataError(f"source {s.id}: unknown format {s.format!r}", str(path))
        if s.edition_title and not (s.juan and s.edition_chapter):
            raise DataError(f"source {s.id}: edition_title needs juan and edition_chapter (the citation "
                            "《TITLE》JUAN《CHAPTER》 names all three)", str(path))
    if m.base not in {s.id for s in m.sources}:
        raise DataError(f"base witness {m.base!r} is not a source", str(path))
    if m.incipits and m.incipits not in {s.id for s in m.sources}:
        raise DataError(f"incipits = {m.incipits!r} names no source of the chapter", str(path))
    if m.chapter_title not in m.titles:
        m.titles.insert(0, m.chapter_title)
    if not all(m.titles):
        raise DataError("[chapter] titles: a title is empty", str(path))
    return m


def verify_checksums(manifest: Manifest) -> None:
    """Refuse a source whose sha256 differs from the manifest's."""
    for s in manifest.sources:
        p = s.path(manifest.corpus_dir)
        if not p.exists():
            raise DataError(f"source {s.id} is missing", str(p))
        got = sha256_file(p)
        if got != s.sha256:
            raise DataError(
                f"checksum changed (manifest {s.sha256[:12]}…, file {got[:12]}…); if the change is "
                f"intended, update sha256 of {s.id} in {manifest.path}",
                str(p),
            )


def parse_all(manifest: Manifest) -> dict[str, ParsedSource]:
    """Verify checksums and run each source's parser."""
    verify_checksums(manifest)
    out: dict[str, ParsedSource] = {}
    for s in manifest.sources:
        p = s.path(manifest.corpus_dir)
        text = read_source(p)
        rel = manifest.pointer(s.file)
        out[s.id] = PARSERS[s.format](s.id, text, rel, chapter_title=manifest.chapter_title,
                                         genre=manifest.genre)
    check_roles(manifest, out)
    return out


#: Unit kinds that belong to a layer of another name: a 注 run (注 and the 经 that follows it,
#: divided by the collation) is the 注's.
UNIT_LAYER = {"zhu_run": "zhu"}
#: Unit kinds that are no layer: the edition's headings (卷 title, byline …), placed by the TEI's
#: front and back, not by the layers.
NO_LAYER = frozenset({"heading"})


def check_roles(manifest: Manifest, parsed: dict[str, ParsedSource]) -> None:
    """The manifest's layers are each witness's roles, and the build takes its 注, 疏, notes and
    translation from the witnesses they name: a source whose parser finds a layer its entry does
    not list (注 in a witness listed as ``["jing"]``) is refused, so that nothing is left out
    silently. (A parser's ``text`` units are the 经 or 记: ``jing`` or ``ji``.)"""
    for s in manifest.sources:
        kinds = {UNIT_LAYER.get(u.kind, u.kind) for u in parsed[s.id].units if u.kind not in NO_LAYER}
        if "text" in kinds:
            kinds = (kinds - {"text"}) | ({"jing", "ji"} & set(s.layers) or {"jing"})
        extra = sorted(kinds - set(s.layers) - set(s.held))
        if extra:
            raise DataError(f"source {s.id}: its file holds {', '.join(extra)}, which its layers "
                            f"({', '.join(s.layers)}) do not list; add them to layers in {manifest.path}",
                            str(manifest.corpus_dir / manifest.path))
