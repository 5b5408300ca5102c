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
from functools import cached_property
from pathlib import Path
from typing import Any

from .document import Document
from .errors import UsageError
from .layers import KEYS as LAYERS
from .paths import find_tei
from .query.index import Index, has_overlays
from .query.refs import Address, check_overlay_layers, layer_name, parse_range, parse_ref


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
        return parse_ref(text, chapter=meta.get("chapter", ""), titles=titles, max_section=self.index.max_section)

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
        return search(self.index, query, self.layers(layers), secs, regex, word, context, limit)

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
        contract"), plus ``readings``: the readings of imported witnesses in its clauses, if any.
        ``script``: ``hans`` (simplified) or ``hant`` (the traditional witness's own characters
        for the 经/记 and 注, converted modern layers; see :func:`yili_corpus.document.in_script`)."""
        from .query.show import Passage

        r = self.ref(ref)
        ps = Passage(self._section_doc(r), r, self.layers(layers), _script(script))
        out = ps.to_json()
        readings = self._overlay_readings(ps)
        if readings:
            out["readings"] = readings
        return out

    def passage_text(self, ref: str, layers: list[str] | None = None, script: str = "hans") -> str:
        """A passage with its layers, as text for reading (``script`` as for :meth:`passage`)."""
        from .query.show import Passage

        r = self.ref(ref)
        ps = Passage(self._section_doc(r), r, self.layers(layers), _script(script))
        text = ps.to_text()
        for x in self._overlay_readings(ps):
            text += f"\n  异文 {x['wit']}: {x['clause']}  {x['lem'] or '∅'} ] {x['rdg'] or '∅'}"
        return text

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
        return {"sections": list(per.values()), "totals": {k: totals[k] for k in LAYERS if k in totals}}

    def export(self, fmt: str, sections: str | None = None, layers: list[str] | None = None,
               notices: list[str] | None = None) -> str:
        """The export of a section range and layers in ``fmt`` (see :mod:`yili_corpus.export`);
        a layer asked for that has no text in the range adds a line to ``notices`` (the export is
        "" when none has any)."""
        from .export import FORMATS, render

        if fmt not in FORMATS:
            raise UsageError(f"unknown format {fmt!r}; formats are {', '.join(FORMATS)}")
        secs = self.sections(sections) or sorted(self.index.sections)
        return render(self.document, self.tei, fmt, secs, self.layers(layers), notices)


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
