"""A passage with all its layers (``yili show``), as text and as the show JSON of docs/design.md
("The command-line contract")."""

from __future__ import annotations

from typing import Any

from ..document import Document, Paragraph, Section, Unit, readable
from ..errors import UsageError
from ..layers import KEYS, is_overlay, short
from .index import CLAUSE_SEP
from .refs import Address


def _label(key: str) -> str:
    """A layer's label in the text of ``show`` (an overlay's layer by its key, trans:mine)."""
    return key if is_overlay(key) else short(key)


def resolve(doc: Document, ref: Address) -> tuple[Section, list[Paragraph], str | None]:
    """The section, the paragraphs and (for a clause reference) the clause id a ref addresses."""
    sec = doc.section(ref.section)
    if sec is None:
        raise UsageError(f"no section {ref.section}: the chapter has sections 1–{len(doc.sections)}")
    paras = sec.paragraphs
    clause = None
    if ref.paragraph is not None:
        paras = [p for p in sec.paragraphs if p.n == ref.paragraph]
        if not paras:
            raise UsageError(f"section {ref.section} has no paragraph {ref.paragraph} (it has 1–{len(sec.paragraphs)})")
        if ref.clause is not None:
            ids = [c.id for c in paras[0].clauses]
            clause = f"{paras[0].id}.{ref.clause}"
            if clause not in ids:
                raise UsageError(f"paragraph {paras[0].id} has no clause {ref.clause} (it has 1–{len(ids)})")
    return sec, paras, clause


class Passage:
    """What ``show`` prints: one section, or some of its paragraphs or one clause."""

    def __init__(self, doc: Document, ref: Address, layers: list[str] | None = None) -> None:
        self.doc = doc
        self.ref = ref
        self.section, self.paragraphs, self.clause = resolve(doc, ref)
        extra = sorted({u.layer for p in self.paragraphs for u in p.units if u.layer not in KEYS})
        want = layers or ([ref.layer] if ref.layer else list(KEYS) + extra)
        self.layers = [x for x in list(KEYS) + extra if x in want]
        self.extra = [x for x in extra if x in self.layers]
        self.chars = doc.char_map
        self.clause_text = {c.id: readable(c.content, self.chars) for p in self.section.paragraphs for c in p.clauses}
        order = [c.id for s in doc.sections for p in s.paragraphs for c in p.clauses]
        self.pos = {c: i for i, c in enumerate(order)}
        self.order = order

    def _covers(self, u: Unit) -> bool:
        if self.clause is None:
            return True
        a = self.pos.get(u.target or "", -1)
        b = self.pos.get(u.target_end or u.target or "", a)
        return a <= self.pos[self.clause] <= b

    def quote(self, u: Unit) -> tuple[str, str, str]:
        """(first clause, last clause, quoted 经/记 text) of a unit's attachment."""
        a, b = self.pos[u.target or ""], self.pos[u.target_end or u.target or ""]
        ids = self.order[a : b + 1]
        texts = []
        for cid in ids:
            if cid not in self.clause_text:
                sec = next(s for s in self.doc.sections if any(c.id == cid for p in s.paragraphs for c in p.clauses))
                self.clause_text.update({c.id: readable(c.content, self.chars) for p in sec.paragraphs for c in p.clauses})
            texts.append(self.clause_text[cid])
        return ids[0], ids[-1], CLAUSE_SEP.join(texts)

    def unit_text(self, u: Unit) -> str:
        if u.layer == "shu":
            return "".join(readable(c, self.chars) for _r, c, _s in u.parts)
        if u.layer.startswith("trans"):
            return "".join(s.text for s in u.sentences)
        return readable(u.content, self.chars)

    def units(self, layer: str) -> list[Unit]:
        return [u for p in self.paragraphs for u in p.units if u.layer == layer and self._covers(u)]

    def to_json(self) -> dict[str, Any]:
        """``{"ref", "section", "title", "layers": {LAYER: [UNIT, …]}}`` (docs/design.md,
        "The command-line contract")."""
        layers: dict[str, list[dict[str, Any]]] = {}
        text_layer = self.section.layer
        if text_layer in self.layers:
            if self.clause:
                layers[text_layer] = [{"ref": self.clause, "text": self.clause_text[self.clause]}]
            elif self.ref.paragraph is not None:
                layers[text_layer] = [{"ref": c.id, "text": self.clause_text[c.id]} for c in self.paragraphs[0].clauses]
            else:
                layers[text_layer] = [
                    {"ref": p.id, "text": CLAUSE_SEP.join(self.clause_text[c.id] for c in p.clauses)}
                    for p in self.paragraphs
                ]
        for lay in ["zhu", "shu", "note", "trans", *self.extra]:
            if lay not in self.layers:
                continue
            out = []
            for u in self.units(lay):
                first, last, quote = self.quote(u)
                d: dict[str, Any] = {"ref": u.id, "text": self.unit_text(u),
                                     "attach": {"ref": first, "to": last, "quote": quote}}
                if u.n:
                    d["n"] = u.n
                if lay.startswith("trans"):
                    d["sentences"] = [
                        {"n": s.n, "text": s.text, "clauses": s.corresp, "cert": s.cert} for s in u.sentences
                    ]
                out.append(d)
            if out:
                layers[lay] = out
        return {"ref": str(self.ref), "section": self.section.n, "title": self.section.title, "layers": layers}

    def to_text(self) -> str:
        """The passage for the terminal: each paragraph's 经/记 (clauses joined by an ideographic space), its 注
        (with the number of the clause each follows), then 疏, notes and translation (with the
        clauses each is attached to)."""
        work = f"《{self.doc.work}·{self.doc.chapter}》"
        lines = [f"{work}第{self.section.n}节 {self.section.title}  ({self.ref})"]
        for p in self.paragraphs:
            lines.append("")
            lines.append(f"¶ {p.id}")
            clauses = [c for c in p.clauses if not self.clause or c.id == self.clause]
            if self.section.layer in self.layers:
                lines.append(f"  {_label(self.section.layer)}  " + CLAUSE_SEP.join(self.clause_text[c.id] for c in clauses))
            if "zhu" in self.layers:
                for u in p.units:
                    if u.layer == "zhu" and self._covers(u):
                        after = (u.target_end or u.target or "").rsplit(".", 1)[-1]
                        lines.append(f"  {_label('zhu')} [{after}]  {self.unit_text(u)}")
            for lay in ["shu", "note", "trans", *self.extra]:
                if lay not in self.layers:
                    continue
                for u in p.units:
                    if u.layer != lay or not self._covers(u):
                        continue
                    first, last, quote = self.quote(u)
                    span = first.rsplit(".", 1)[-1] + ("" if first == last else "–" + last.rsplit(".", 1)[-1])
                    tag = _label(lay) + (f"{u.n}" if lay == "note" and u.n else "")
                    if lay.startswith("trans"):
                        lines.append(f"  {tag}  {self.unit_text(u)}")
                    else:
                        lines.append(f"  {tag} [{span}]  {self.unit_text(u)}")
        return "\n".join(lines)
