"""The small public API: ``load()``, and ``search``, ``passage``, ``cite``, ``xref``, ``stats``,
``export`` on the corpus it returns. The command line wraps these.

>>> import yili_corpus
>>> corpus = yili_corpus.load()                  # tei/yili-*.xml of the project, or $YILI_TEI
>>> corpus.search("释获", layers=["zhu"])["total"]   # doctest: +SKIP
>>> corpus.passage("乡射礼第十七节")["title"]        # doctest: +SKIP
'司马命张侯倚旌'
"""

from __future__ import annotations

import json
import re
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import UsageError
from .layers import KEYS as LAYERS
from .query.index import Index, has_overlays
from .query.refs import (
    FULLWIDTH,
    RANGE_SEP,
    Address,
    check_overlay_layers,
    expand_range,
    layer_name,
    parse_range,
    parse_ref,
)

if TYPE_CHECKING:  # not imported by a search (docs/performance.md)
    from .document import Document


class Corpus:
    """A chapter's TEI, with its search index (built on first use, cached)."""

    def __init__(self, tei: Path, overlays: Path | None = None) -> None:
        self.tei = tei
        self.overlays = overlays

    @cached_property
    def index(self) -> Index:
        """The search index (opened or built on first use), with the overlays' units."""
        return Index.open(self.tei, self.overlays)

    @cached_property
    def document(self) -> Document:
        """The TEI read into a Document (parsed on first use), the overlays' units added."""
        from .tei.read import read_tei

        return self._with_overlays(read_tei(self.tei))

    @cached_property
    def all_overlays(self) -> list[Any]:
        """The overlays of the overlay folder, of every chapter (read once; with none there, the
        import module is not loaded)."""
        if not has_overlays(self.overlays):
            return []
        from .overlay import read_overlays

        return read_overlays(self.overlays)

    @cached_property
    def overlay_list(self) -> list[Any]:
        """The overlays of this chapter (an overlay records the chapter it was imported into)."""
        if not self.all_overlays:
            return []
        cid = self.chapter_id
        return [ov for ov in self.all_overlays if not ov.chapter or ov.chapter == cid]

    @cached_property
    def chapter_id(self) -> str:
        """The chapter's id (from the index's meta if it is open, else the TEI header's first
        bytes: the TEI is not parsed nor the index opened for it)."""
        if "index" in self.__dict__:
            return self.index.meta.get("chapter", "")
        from .query.work import header_info

        return header_info(self.tei).id or self.index.meta.get("chapter", "")

    def _with_overlays(self, doc: Document) -> Document:
        if not self.overlay_list:
            return doc
        paras = {c.id: p for s in doc.sections for p in s.paragraphs for c in p.clauses}
        for ov in self.overlay_list:
            for u in ov.units:
                if u.target in paras:
                    paras[u.target].units.append(u)
        return doc

    # -- helpers ---------------------------------------------------------------------------------
    def ref(self, text: str) -> Address:
        """Parse a reference in any accepted form, checked against this chapter."""
        meta = self.index.meta
        titles = tuple(json.loads(meta["titles"])) if meta.get("titles") else (meta.get("title", ""),)
        chapter = meta.get("chapter", "")
        try:
            return parse_ref(text, chapter=chapter, titles=titles, max_section=self.index.max_section)
        except UsageError:
            unit = self._unit_ref(text.strip(), chapter)
            if unit is None:
                raise
            return unit

    def _unit_ref(self, text: str, chapter: str) -> Address | None:
        """A unit's id as commands print it (``xiangsheli.w005.zhu113``, ``xiangsheli.w005.kz1``,
        ``xiangsheli.w005.yinyi1.1``; a w003 疏 block's, ``xiangsheli.w003.shu3``, names the 四库
        block it was collated into): the paragraph the unit is attached to, in the unit's layer.
        None if ``text`` is no unit's id."""
        if not chapter or not text.startswith(chapter + "."):
            return None
        row = self.index.con.execute("SELECT section, paragraph, layer FROM units WHERE unit = ? LIMIT 1",
                                     (text,)).fetchone()
        if row is None:  # a block collated into another witness's (xiangsheli.w003.shu3)
            row = self.index.con.execute(
                "SELECT u.section, u.paragraph, u.layer FROM aliases a JOIN units u ON u.unit = a.unit "
                "WHERE a.alias = ? LIMIT 1", (text,)).fetchone()
        if row is None:
            if re.match(rf"{re.escape(chapter)}\.w\d+\.", text):
                raise UsageError(f"no unit {text} in the corpus (a unit's id names its witness and layer: "
                                 f"{chapter}.w005.zhu113)")
            return None
        sec, para, layer = row
        return Address(chapter, int(sec), int(para.rsplit(".", 1)[-1]), None, layer)

    def refs(self, text: str) -> list[Address]:
        """The passages a reference or a range of references addresses (``16``, ``16-17``,
        ``16.2-16.4``, ``16.3-17.2``, ``16-17@zhu``), each as an :class:`Address`."""
        s = text.strip().translate(FULLWIDTH)
        body, at, layer = s.partition("@")
        ends = RANGE_SEP.split(body)
        if len(ends) == 1:
            return [self.ref(text)]
        if len(ends) != 2 or not all(e.strip() for e in ends):
            raise UsageError(f"not a reference or range: {text.strip()!r} (try 16-17 or 16.2-16.4)")
        a, b = (self.ref(e + at + layer) for e in ends)
        return expand_range(a, b)

    def sections(self, spec: str | None) -> list[int] | None:
        """Section numbers from a range such as ``16-22`` (None: all)."""
        return parse_range(spec, self.index.max_section) if spec else None

    def layers(self, names: list[str] | tuple[str, ...] | None) -> list[str] | None:
        """Layer keys from names or aliases (None: all); an overlay's layer (trans:NAME, zhu:NAME)
        must be one of an overlay that exists."""
        if not names:
            return None
        out = [layer_name(n) for n in names]
        if any(":" in lay for lay in out):
            ovs = self.all_overlays  # a layer of another chapter's overlay is no typo: it has no text here
            known = sorted(f"{'trans' if ov.kind == 'translation' else 'zhu'}:{ov.name}" for ov in ovs)
            check_overlay_layers(out, sorted(set(known) | {u.layer for ov in ovs for u in ov.units}))
        return out

    # -- the jobs --------------------------------------------------------------------------------
    def search(self, query: str, layers: list[str] | None = None, sections: str | list[int] | None = None,
               regex: bool = False, word: bool = False, context: int = 10,
               limit: int | None = None) -> dict[str, Any]:
        """Every occurrence of ``query`` (see :mod:`yili_corpus.query.search`); with ``limit``,
        the counts are whole but only the first ``limit`` hits are returned."""
        from .query.search import search

        secs = self.sections(sections) if isinstance(sections, str) else sections
        lays = self.layers(layers)
        res = search(self.index, query, lays, secs, regex, word, context, limit)
        absent = [k for k in lays or [] if not self.index.has(k, secs)]
        if absent:  # asked for by name, with no text in the range: no hits is no finding
            res["absent"] = absent
        return res

    def _section_doc(self, ref: Address) -> Document:
        """A Document holding the section of ``ref`` and the next one (from the index: the TEI is
        not parsed whole), or the whole document if it is already loaded."""
        if "document" in self.__dict__:
            return self.document
        from .tei.read import assemble

        numbers = sorted(self.index.sections)
        i = numbers.index(ref.section) if ref.section in numbers else -1
        want = numbers[i : i + 2] if i >= 0 else []
        return self._with_overlays(
            assemble(self.index.meta["header"].encode("utf-8"), self.index.section_xml(want), str(self.tei)))

    def passage(self, ref: str, layers: list[str] | None = None, script: str = "hans") -> dict[str, Any]:
        """A passage with its layers, as the show JSON of docs/design.md ("The command-line
        contract"), plus ``readings``: the readings of imported witnesses in its clauses, if any,
        and ``absent``: the layers asked for that it has no text of. ``ref`` may be a range
        (:meth:`refs`): across sections, ``{"ref", "passages": [...]}``.
        ``script``: ``hans`` (simplified) or ``hant`` (the traditional witness's own characters
        for the 经/记 and 注, converted modern layers; see :func:`yili_corpus.document.in_script`)."""
        refs = self.refs(ref)
        outs = []
        for ps in self._passages(refs, layers, script):
            out = ps.to_json()
            readings = self._overlay_readings(ps)
            if readings:
                out["readings"] = readings
            outs.append(out)
        if len(refs) == 1:
            return outs[0]
        # a range: each section's passage, and what was absent from all of them
        every = {"ref": "-".join([str(refs[0]).split("-")[0], str(refs[-1]).split("-")[-1]]) if refs else ref,
                 "passages": outs}
        notices = list(dict.fromkeys(n for o in outs for n in o.get("notices", [])))
        if notices:
            every["notices"] = notices
        absent = [k for k in outs[0].get("absent", []) if all(k in o.get("absent", []) for o in outs)]
        if absent:
            every["absent"] = absent
        return every

    def _passages(self, refs: list[Address], layers: list[str] | None, script: str) -> list[Any]:
        from .query.show import Passage

        lays = self.layers(layers)
        return [Passage(self._section_doc(r), r, lays, _script(script)) for r in refs]

    def passage_text(self, ref: str, layers: list[str] | None = None, script: str = "hans",
                     absent: list[str] | None = None) -> str:
        """A passage with its layers, as text for reading (``script`` as for :meth:`passage`);
        a paragraph with nothing in the layers asked for is left out. ``absent``, if given, gets
        the layers asked for that have no text anywhere in the passage (or range)."""
        texts = []
        passages = self._passages(self.refs(ref), layers, script)
        if absent is not None:
            absent.extend(k for k in passages[0].absent if all(k in p.absent for p in passages))
        for ps in passages:
            text = ps.to_text()
            for x in self._overlay_readings(ps):
                text += f"\n  异文 {x['wit']}: {x['clause']}  {x['lem'] or '∅'} ] {x['rdg'] or '∅'}"
            texts.append(text)
        return "\n\n".join(t for t in texts if t)

    def _overlay_readings(self, ps: Any) -> list[dict[str, str]]:
        """Readings of imported witnesses (overlays) in the clauses of a passage."""
        clauses = {c.id for p in ps.paragraphs for c in p.clauses if not ps.clause or c.id == ps.clause}
        return [a for ov in self.overlay_list for a in ov.apps if a["clause"] in clauses]

    def cite(self, text: str, style: str = "zh", limit: int = 5, script: str | None = None) -> dict[str, Any]:
        """Where a quotation comes from, best first, with formatted citations: ``formatted`` in
        ``style``, ``edition`` the citation of the printed edition by page
        (``《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉12b``) and ``page`` its pages. ``script``
        (hans, hant) writes both in simplified or traditional characters; by default each is as
        its source writes it (the edition's in its own traditional characters)."""
        from .query.cite import STYLES, edition_citation, find_quotation, format_citation

        if style not in STYLES:
            raise UsageError(f"unknown citation style {style!r}; styles are {', '.join(STYLES)}")
        if script is not None:
            _script(script)
        found = find_quotation(self.index, text, limit)
        return {
            "query": text, "style": style, "total": len(found),
            "results": [dict(f.to_dict(), formatted=format_citation(self.index, f, style, script),
                             edition=edition_citation(self.index, f, script)) for f in found],
        }

    def xref(self, ref: str) -> dict[str, Any]:
        """The cross-references of a passage (see :mod:`yili_corpus.query.xref`), the chapters it
        cites linked to their ids, and its parallels in the other chapters' TEIs beside this one
        (:mod:`yili_corpus.query.parallels`)."""
        from .query.parallels import find_parallels, passage_records
        from .query.show import resolve
        from .query.xref import chapter_list, xref

        address = self.ref(ref)
        doc = self.document
        resolve(doc, address)  # a paragraph or clause it lacks is an error before any other chapter is opened
        others = self.other_chapters
        chapters = chapter_list(self.tei, doc.corpus, doc.number, ((cid, ix.meta) for cid, ix in others))
        found = find_parallels(passage_records(self.index, address.section, address.paragraph, address.clause),
                               others)
        return xref(doc, address, chapters=chapters, parallels=found)

    @cached_property
    def other_chapters(self) -> list[tuple[str, Index]]:
        """(id, index) of the other chapters' TEIs beside this one (tei/yili-*.xml), opened once:
        the indexes the work's search opens (with the overlay folder), not a second copy of each."""
        from .query.parallels import open_indexes, sibling_teis

        return open_indexes(sibling_teis(self.tei), self.overlays)

    def stats(self) -> dict[str, Any]:
        """Per section and layer: units and characters."""
        per: dict[int, dict[str, Any]] = {
            n: {"section": n, "title": t, "layers": {}} for n, t in sorted(self.index.sections.items())
        }
        totals: dict[str, dict[str, int]] = {}
        for r in self.index.rows():
            cell = per[r.section]["layers"].setdefault(r.layer, {"units": 0, "chars": 0})
            cell["units"] += 1
            cell["chars"] += len(r.key)
            tot = totals.setdefault(r.layer, {"units": 0, "chars": 0, "sections": 0})
            tot["units"] += 1
            tot["chars"] += len(r.key)
        for row in per.values():
            for lay in row["layers"]:
                totals[lay]["sections"] += 1
        from .query.coverage import coverage

        out = {"sections": list(per.values()), "totals": {k: totals[k] for k in LAYERS if k in totals}}
        out["coverage"] = coverage(out)  # which sections have which layers (yili stats, README)
        return out

    def export(self, fmt: str, sections: str | None = None, layers: list[str] | None = None,
               notices: list[str] | None = None) -> str:
        """The export of a section range and layers in ``fmt`` (see :mod:`yili_corpus.export`);
        a layer asked for that has no text in the range adds a line to ``notices`` (the export is
        "" when none has any)."""
        from .export import FORMATS, render

        if fmt not in FORMATS:
            raise UsageError(f"unknown format {fmt!r}; formats are {', '.join(FORMATS)}")
        secs = self.sections(sections) or sorted(self.index.sections)
        return render(self._range_doc(secs), self.tei, fmt, secs, self.layers(layers), notices)

    def range_document(self, numbers: list[int]) -> Document:
        """A Document holding the sections ``numbers`` (as :meth:`export` reads them)."""
        return self._range_doc(numbers)

    def _range_doc(self, numbers: list[int]) -> Document:
        """A Document holding the sections ``numbers``, from the index (the TEI is not parsed
        whole; docs/performance.md), or the whole document if it is loaded or if those sections
        do not name the traditional witness (which the whole document takes from its first)."""
        if "document" in self.__dict__:
            return self.document
        from .tei.read import assemble

        doc = assemble(self.index.meta["header"].encode("utf-8"), self.index.section_xml(numbers), str(self.tei))
        return self._with_overlays(doc) if doc.traditional else self.document


class Work:
    """The work: the chapters' TEIs of ``tei/``, each a :class:`Corpus` opened only when asked
    (its index opened, its TEI parsed only by what needs it). References name their chapter
    (``燕礼第3节``, ``yanli.3.1``, ``dashe.w005.zhu12``); a bare one (``16``) is the chapter
    ``chapter`` names, else :data:`~yili_corpus.query.work.DEFAULT_CHAPTER`. Search, stats and
    cite read every chapter unless a chapter is named."""

    def __init__(self, teis: dict[str, Path], overlays: Path | None = None, chapter: str | None = None) -> None:
        from .query.work import Catalog

        self.catalog = Catalog(teis)
        self.overlays = overlays
        self._corpora: dict[str, Corpus] = {}
        self.chapter = self.catalog.resolve(chapter) if chapter else None

    @property
    def ids(self) -> list[str]:
        """The chapters' ids, in the order of the work."""
        return self.catalog.ids if len(self.catalog.teis) > 1 else list(self.catalog.teis)

    def corpus(self, chapter: str | None = None) -> Corpus:
        """The :class:`Corpus` of ``chapter`` (an id or a title; default: the chapter chosen, else
        the default chapter, else the only one)."""
        cid = self.catalog.resolve(chapter) if chapter else self.default
        if cid not in self._corpora:
            self._corpora[cid] = Corpus(self.catalog.teis[cid], self.overlays)
        return self._corpora[cid]

    @property
    def default(self) -> str:
        """The chapter a reference that names none means."""
        from .query.work import DEFAULT_CHAPTER

        if self.chapter:
            return self.chapter
        teis = self.catalog.teis
        if len(teis) == 1:
            return next(iter(teis))
        if DEFAULT_CHAPTER in teis:
            return DEFAULT_CHAPTER
        raise UsageError(f"several chapters ({self.catalog.listing()}) and none is the default "
                         f"({DEFAULT_CHAPTER}): say which with --chapter ID")

    def _chosen(self, chapter: str | None) -> str | None:
        return self.catalog.resolve(chapter) if chapter else self.chapter

    def _scope(self, chapter: str | None, sections: Any = None) -> list[str]:
        """The chapters a job reads: the one named, else (with a section range, which is one
        chapter's numbering) the default one, else all."""
        cid = self._chosen(chapter)
        if cid:
            return [cid]
        if sections or len(self.catalog.teis) == 1:
            return [self.default]
        return self.ids

    def locate(self, ref: str, chapter: str | None = None) -> tuple[Corpus, str]:
        """The chapter's corpus a reference is in and the reference as that chapter reads it.
        With a chapter named (``chapter`` or --chapter) the reference is that chapter's as it
        stands (one naming another chapter is refused there)."""
        cid = self._chosen(chapter)
        if cid or len(self.catalog.teis) == 1:
            return self.corpus(cid), ref
        found, rest = self.catalog.locate(ref)
        return self.corpus(found), rest if found else ref

    # -- the jobs --------------------------------------------------------------------------------
    def search(self, query: str, chapter: str | None = None, layers: list[str] | None = None,
               sections: str | list[int] | None = None, regex: bool = False, word: bool = False,
               context: int = 10, limit: int | None = None) -> dict[str, Any]:
        """:meth:`Corpus.search` in the chapter named, else in every chapter (hits in the order
        of the work, each with its ``chapter``; ``chapters``: the hits per chapter)."""
        res: dict[str, Any] = {"query": query, "total": 0, "counts": {}, "hits": [], "chapters": []}
        absent: list[list[str]] = []
        for cid in self._scope(chapter, sections):
            c = self.corpus(cid)
            left = None if limit is None else max(limit - len(res["hits"]), 0)
            r = c.search(query, layers=layers, sections=sections, regex=regex, word=word, context=context,
                         limit=left)
            for h in r["hits"]:
                h["chapter"] = cid
            res["hits"].extend(r["hits"])
            res["total"] += r["total"]
            for k, n in r["counts"].items():
                res["counts"][k] = res["counts"].get(k, 0) + n
            absent.append(r.get("absent", []))
            if r["total"]:
                res["chapters"].append({"chapter": cid, "title": c.index.meta.get("title", ""), "total": r["total"]})
        gone = [k for k in absent[0] if all(k in a for a in absent)] if absent else []
        if gone:
            res["absent"] = gone
        return res

    def passage(self, ref: str, chapter: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """:meth:`Corpus.passage` of the chapter the reference names."""
        c, rest = self.locate(ref, chapter)
        return c.passage(rest, **kwargs)

    def passage_text(self, ref: str, chapter: str | None = None, **kwargs: Any) -> str:
        """:meth:`Corpus.passage_text` of the chapter the reference names."""
        c, rest = self.locate(ref, chapter)
        return c.passage_text(rest, **kwargs)

    def ref(self, text: str, chapter: str | None = None) -> Address:
        """A reference parsed in the chapter it names."""
        c, rest = self.locate(text, chapter)
        return c.ref(rest)

    def xref(self, ref: str, chapter: str | None = None) -> dict[str, Any]:
        """:meth:`Corpus.xref` of the chapter the reference names."""
        c, rest = self.locate(ref, chapter)
        return c.xref(rest)

    def cite(self, text: str, chapter: str | None = None, style: str = "zh", limit: int = 5,
             script: str | None = None) -> dict[str, Any]:
        """:meth:`Corpus.cite` in the chapter named, else in every chapter: the candidates of
        all, best first (by score, then the layer's rank, then the order of the work)."""
        from .query.cite import layer_rank

        out: dict[str, Any] = {"query": text, "style": style, "total": 0, "results": []}
        for cid in self._scope(chapter):
            r = self.corpus(cid).cite(text, style=style, limit=limit, script=script)
            for x in r["results"]:
                x["chapter"] = cid
            out["results"].extend(r["results"])
        out["results"].sort(key=lambda x: (-x["score"], layer_rank(x["layer"])))
        out["results"] = out["results"][:limit]
        out["total"] = len(out["results"])
        return out

    def stats(self, chapter: str | None = None) -> dict[str, Any]:
        """With one chapter (named, or the only one): :meth:`Corpus.stats`. Else the work:
        ``{chapters: [{chapter, number, title, sections, layers: {KEY: {units, chars, sections}}}],
        totals: {KEY: {units, chars, sections}}, sections}``."""
        scope = self._scope(chapter)
        if len(scope) == 1:
            out = self.corpus(scope[0]).stats()
            out["chapter"] = scope[0]
            return out
        rows = []
        totals: dict[str, dict[str, int]] = {}
        for cid in scope:
            idx = self.corpus(cid).index
            lays = {lay: {"units": n, "chars": ch or 0, "sections": secs} for lay, n, ch, secs in idx.con.execute(
                "SELECT layer, count(*), sum(length(key)), count(DISTINCT section) FROM units GROUP BY layer").fetchall()}
            rows.append({"chapter": cid, "number": int(idx.meta.get("number") or 0), "title": idx.meta.get("title", ""),
                         "sections": len(idx.sections), "layers": {k: lays[k] for k in LAYERS if k in lays}})
            for k, v in lays.items():
                t = totals.setdefault(k, {"units": 0, "chars": 0, "sections": 0})
                for f in t:
                    t[f] += v[f]
        return {"chapters": rows, "sections": sum(r["sections"] for r in rows),
                "totals": {k: totals[k] for k in LAYERS if k in totals}}

    def export(self, fmt: str, chapter: str | None = None, **kwargs: Any) -> str:
        """:meth:`Corpus.export` of one chapter (named, else the default one)."""
        return self.corpus(self._chosen(chapter)).export(fmt, **kwargs)


def load(tei: str | Path | None = None, overlays: str | Path | None = None,
         chapter: str | None = None) -> Corpus | Work:
    """The corpus of ``tei`` (default: the project's ``tei/yili-*.xml``, or ``$YILI_TEI``) with the
    overlays of ``overlays`` (default: ``$YILI_OVERLAY`` or the user data folder). With several
    chapters' TEIs in ``tei/``: the chapter ``chapter`` names (an id or a title) as a
    :class:`Corpus`, else the whole :class:`Work`."""
    work = load_work(tei, overlays, chapter)
    if chapter or len(work.catalog.teis) == 1:
        return work.corpus()
    return work


def load_work(tei: str | Path | None = None, overlays: str | Path | None = None,
              chapter: str | None = None) -> Work:
    """The :class:`Work` of the chapters' TEIs (``tei``: one TEI alone; default: every
    ``tei/yili-*.xml``), ``chapter`` the one a reference that names none means."""
    from .paths import find_teis, overlay_dir

    return Work(find_teis(tei), overlay_dir(overlays), chapter)


def search(query: str, **kwargs: Any) -> dict[str, Any]:
    """``load().search(query, …)``."""
    return load().search(query, **kwargs)


def _script(script: str) -> str:
    from .document import SCRIPTS

    if script not in SCRIPTS:
        raise UsageError(f"unknown script {script!r}; scripts are {', '.join(SCRIPTS)}")
    return script


def passage(ref: str, **kwargs: Any) -> dict[str, Any]:
    """``load().passage(ref, …)``."""
    return load().passage(ref, **kwargs)


def cite(text: str, **kwargs: Any) -> dict[str, Any]:
    """``load().cite(text, …)``."""
    return load().cite(text, **kwargs)
