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
from .paths import find_tei
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
    def overlay_list(self) -> list[Any]:
        """The overlays of the overlay folder (read once; with none there, the import module is
        not loaded)."""
        if not has_overlays(self.overlays):
            return []
        from .overlay import read_overlays

        return read_overlays(self.overlays)

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
            raise UsageError(f"no unit {text} in the corpus (a unit's id names its witness and layer: "
                             f"{chapter}.w005.zhu113)") if re.match(rf"{re.escape(chapter)}\.w\d+\.", text) else None
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
            known = sorted(f"{'trans' if ov.kind == 'translation' else 'zhu'}:{ov.name}" for ov in self.overlay_list)
            check_overlay_layers(out, sorted(set(known) | {u.layer for ov in self.overlay_list for u in ov.units}))
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
        """The cross-references of a passage (see :mod:`yili_corpus.query.xref`)."""
        from .query.xref import xref

        return xref(self.document, self.ref(ref))

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

    def _range_doc(self, numbers: list[int]) -> Document:
        """A Document holding the sections ``numbers``, from the index (the TEI is not parsed
        whole; docs/performance.md), or the whole document if it is loaded or if those sections
        do not name the traditional witness (which the whole document takes from its first)."""
        if "document" in self.__dict__:
            return self.document
        from .tei.read import assemble

        doc = assemble(self.index.meta["header"].encode("utf-8"), self.index.section_xml(numbers), str(self.tei))
        return self._with_overlays(doc) if doc.traditional else self.document


def load(tei: str | Path | None = None, overlays: str | Path | None = None, chapter: str | None = None) -> Corpus:
    """The corpus of ``tei`` (default: the project's ``tei/yili-*.xml``, or ``$YILI_TEI``) with the
    overlays of ``overlays`` (default: ``$YILI_OVERLAY`` or the user data folder). With several
    chapters' TEIs in ``tei/``, ``chapter`` (an id: ``xiangsheli``) says which; without it that is
    a UsageError naming them."""
    from .paths import overlay_dir

    return Corpus(find_tei(tei, chapter), overlay_dir(overlays))


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
