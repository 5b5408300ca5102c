"""A passage with all its layers (``yili show``), as text and as the show JSON of docs/design.md
("The command-line contract")."""

from __future__ import annotations

from typing import Any

from ..document import (
    HANT,
    LEAF,
    App,
    Clause,
    Document,
    Paragraph,
    Section,
    Unit,
    in_script,
    lacks_traditional,
    page_label,
    readable,
)
from ..errors import UsageError
from ..layers import KEYS, is_overlay, is_text, short
from ..layers import name as layer_name
from ..tei.core import KAOZHENG
from .apparatus import entries, entry_text, in_content, wit_text
from .index import CLAUSE_SEP
from .refs import LAST, Address

#: The label of a unit's apparatus line in the text of ``show`` (校勘: where its witnesses differ).
APP_LABEL = "校"
#: The label of a 疏's quotation of the 注 or 经 in other words (引: what it quotes).
QUOTE_LABEL = "引"

#: The layers shown after a paragraph's 经/记, in reading order (注 first, with its clause number).
COMMENTARY = [k for k in KEYS if not is_text(k)]


def name_of(key: str) -> str:
    """A layer's name in a notice (an overlay's layer by its key)."""
    return key if is_overlay(key) else layer_name(key)


def _label(key: str) -> str:
    """A layer's label in the text of ``show`` (an overlay's layer by its key, trans:mine)."""
    return key if is_overlay(key) else short(key)


def absent_notice(keys: list[str], where: str) -> str:
    """``no 今译 (trans) in xiangsheli.21``: what ``show`` and ``search`` say on stderr for
    layers asked for that have no text in a passage or a section range."""
    return f"no {', '.join(f'{name_of(k)} ({k})' for k in keys)} in {where}"


def clauses_page(clauses: list[Clause]) -> tuple[str, str] | None:
    """The pages of the cited edition that some clauses stand on: from the first one's start
    page to the last one's end page (None if any lacks a page)."""
    if not clauses or any(c.page is None for c in clauses):
        return None
    return clauses[0].page[0], clauses[-1].page[1]  # type: ignore[index]


def page_json(page: tuple[str, str] | None) -> dict[str, str] | None:
    """``{"start": "12b", "end": "13a"}`` (the same twice for one page)."""
    return {"start": page[0], "end": page[1]} if page else None


def page_text(page: tuple[str, str] | None) -> str:
    """``  〔葉12b–13a〕`` after a line of ``show``, or nothing."""
    return f"  〔{LEAF}{page_label(page)}〕" if page else ""


def resolve(doc: Document, ref: Address) -> tuple[Section, list[Paragraph], str | None]:
    """The section, the paragraphs and (for a clause reference) the clause id a ref addresses."""
    sec = doc.section(ref.section)
    if sec is None:
        raise UsageError(f"no section {ref.section}: the chapter has sections 1–{len(doc.sections)}")
    paras = sec.paragraphs
    clause = None
    if ref.paragraph_to is not None:  # a range of paragraphs
        paras = [p for p in sec.paragraphs if ref.paragraph <= p.n <= ref.paragraph_to]  # type: ignore[operator]
        last = ref.paragraph_to if ref.paragraph_to < LAST else ref.paragraph
        if not paras or not any(p.n == last for p in sec.paragraphs):
            raise UsageError(f"section {ref.section} has no paragraph {ref.paragraph if not paras else last} "
                             f"(it has 1–{len(sec.paragraphs)})")
    elif ref.paragraph is not None:
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

    def __init__(self, doc: Document, ref: Address, layers: list[str] | None = None, script: str = "hans") -> None:
        self.doc = doc
        self.ref = ref
        self.script = script
        self.notices: list[str] = []
        self.section, self.paragraphs, self.clause = resolve(doc, ref)
        extra = sorted({u.layer for p in self.paragraphs for u in p.units if u.layer not in KEYS})
        want = layers or ([ref.layer] if ref.layer else list(KEYS) + extra)
        self.layers = [x for x in list(KEYS) + extra if x in want]
        self.extra = [x for x in extra if x in self.layers]
        self.chars = doc.char_map
        self.clause_text = {c.id: self._clause(c) for p in self.section.paragraphs for c in p.clauses}
        order = [c.id for s in doc.sections for p in s.paragraphs for c in p.clauses]
        self.pos = {c: i for i, c in enumerate(order)}
        self.order = order
        #: the layers asked for by name that have no text in the passage (said on stderr, not
        #: printed as empty headers)
        self.absent = [k for k in self.layers if (layers or ref.layer) and not self._has(k)]

    def _has(self, key: str) -> bool:
        """Whether the passage has text of a layer."""
        if key == self.section.layer:
            return True
        return any(u.layer == key and self._covers(u) for p in self.paragraphs for u in p.units)

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
                self.clause_text.update({c.id: self._clause(c) for p in sec.paragraphs for c in p.clauses})
            texts.append(self.clause_text[cid])
        return ids[0], ids[-1], CLAUSE_SEP.join(texts)

    def _clause(self, c: Any) -> str:
        """A clause in the script asked for: traditional is the traditional witness's forms."""
        if self.script == "hant":
            if c.lang == HANT:  # a traditional base: its own characters, glyphs as read
                return str(readable(c.content, self.chars))
            if c.hant:
                return str(c.hant)
            self._notice("经/记", self.doc.traditional or "")
        return str(c.reading(self.chars))

    def _notice(self, name: str, wit: str) -> None:
        msg = (f"{name}: no traditional witness yet; shown as {wit or 'its witness'} writes it "
               "(simplified characters)")
        if msg not in self.notices:
            self.notices.append(msg)

    def unit_text(self, u: Unit) -> str:
        if u.parts:  # a 疏 block's parts, a 考證 entry's lemma and note
            text = "".join(readable(c, self.chars) for c in self.shown_parts(u) or [c for _r, c, _s in u.parts])
        elif u.layer.startswith("trans"):
            text = "".join(s.text for s in u.sentences)
        else:
            text = readable(u.content, self.chars)
        if self.script == "hant" and lacks_traditional(u.lang):
            self._notice(name_of(u.layer), u.witness)
        return in_script(text, u.lang, self.script)

    @staticmethod
    def shown_parts(u: Unit) -> list[list[Any]]:
        """The contents of a 四库 疏 block's own parts (``on-jing``, ``on-zhu`` …), or [] for a
        unit without them: the block says its words; the lemmas of w003's blocks collated into it
        name what they explain (kept in the TEI, shown by the block's attachment)."""
        return [c for r, c, _s in u.parts if r.startswith("on-")]

    def apparatus(self, u: Unit) -> list[dict[str, Any]]:
        """The apparatus entries inside a unit (a 注 or 疏 of two witnesses, whose readings differ;
        :func:`~yili_corpus.query.apparatus.entry`). A 考證 entry has the apparatus of the words
        it is on: the 经 clauses it covers, or the 注 it quotes (``where`` says which)."""
        if u.layer == KAOZHENG:
            apps = self._apparatus_under(u)
        else:
            apps = [(u.id, x) for x in in_content(u.content)]
            apps += [(u.id, x) for _r, c, _s in u.parts for x in in_content(c)]
        return entries(apps, u.witness, self.chars, self.script, self.doc.traditional, here=u.id)

    def _apparatus_under(self, u: Unit) -> list[tuple[str, App]]:
        """The apparatus entries of the words a 考證 entry is on: of the 注 it quotes, else of
        the 经 clauses it covers."""
        zhu = u.attrs.get("zhu", "").lstrip("#")
        if zhu:
            for p in self.section.paragraphs:
                for z in p.units:
                    if z.id == zhu:
                        return [(z.id, x) for x in in_content(z.content)]
            return []
        a, b = self.pos.get(u.target or "", -1), self.pos.get(u.target_end or u.target or "", -1)
        return [(c.id, x) for p in self.section.paragraphs for c in p.clauses
                if a <= self.pos.get(c.id, -2) <= b for x in in_content(c.content)]

    def _wit_text(self, text: str, wit: str) -> str:
        return wit_text(text, wit, self.script, self.doc.traditional)

    def apparatus_text(self, u: Unit) -> str:
        """``校  由便也］w003 由使也；…`` (empty if the unit has no apparatus)."""
        said = []
        for a in self.apparatus(u):
            w = a.get("where")  # a 考證's: the clause (its number) or the 注 it quotes
            at = "" if w is None else f"{w.rsplit('.', 1)[-1]} " if w in self.pos else f"{_label('zhu')} "
            said.append(entry_text(a, at))
        lines = [f"    {APP_LABEL}  " + "；".join(said)] if said else []
        # where the 疏 quotes the 注 or 经 in other words (a finding)
        lines += [f"    {QUOTE_LABEL}  {self._wit_text(q.describe(), q.witness)}" for q in u.quotations]
        return "\n".join(lines)

    def clause_apparatus(self, clauses: list[Clause]) -> list[dict[str, Any]]:
        """The apparatus entries of some 经/记 clauses (where the witnesses differ, a restored
        character, an emendation), each with ``"where"``: the clause it stands in."""
        apps = [(c.id, x) for c in clauses for x in in_content(c.content)]
        own = self.doc.traditional or ""
        return entries(apps, own, self.chars, self.script, self.doc.traditional)

    def clause_apparatus_text(self, clauses: list[Clause]) -> str:
        """``    校  2 束］w001 东；…`` under a 经/记 line: each entry after its clause number
        (empty if the clauses have no apparatus)."""
        said = [entry_text(e, f"{e['where'].rsplit('.', 1)[-1]} ") for e in self.clause_apparatus(clauses)]
        return f"    {APP_LABEL}  " + "；".join(said) if said else ""

    def text_line(self, clauses: list[Clause]) -> str:
        """The clauses of a 经/记 line, apart by :data:`CLAUSE_SEP`; each after its number in
        brackets (``[1]司射不释弓矢　[2]遂以…``) when there is more than one, so that a note's or a
        注's ``[95]`` can be found in a long paragraph (the 记 of §52 has 161 clauses)."""
        if len(clauses) < 2:
            return CLAUSE_SEP.join(self.clause_text[c.id] for c in clauses)
        return CLAUSE_SEP.join(f"[{c.id.rsplit('.', 1)[-1]}]{self.clause_text[c.id]}" for c in clauses)

    def units(self, layer: str) -> list[Unit]:
        return [u for p in self.paragraphs for u in p.units if u.layer == layer and self._covers(u)]

    def to_json(self) -> dict[str, Any]:
        """``{"ref", "section", "title", "layers": {LAYER: [UNIT, …]}}`` (docs/design.md,
        "The command-line contract")."""
        layers: dict[str, list[dict[str, Any]]] = {}
        text_layer = self.section.layer

        def paged(d: dict[str, Any], page: tuple[str, str] | None, clauses: list[Clause]) -> dict[str, Any]:
            if page:
                d["page"] = page_json(page)
            app = self.clause_apparatus(clauses)
            if app:
                d["apparatus"] = app
            return d

        if text_layer in self.layers:
            if self.clause:
                c = next(c for c in self.paragraphs[0].clauses if c.id == self.clause)
                layers[text_layer] = [paged({"ref": c.id, "text": self.clause_text[c.id]}, c.page, [c])]
            elif self.ref.paragraph is not None and self.ref.paragraph_to is None:
                layers[text_layer] = [paged({"ref": c.id, "text": self.clause_text[c.id]}, c.page, [c])
                                      for c in self.paragraphs[0].clauses]
            else:
                layers[text_layer] = [
                    paged({"ref": p.id, "text": CLAUSE_SEP.join(self.clause_text[c.id] for c in p.clauses)},
                          clauses_page(p.clauses), p.clauses)
                    for p in self.paragraphs
                ]
        for lay in [*COMMENTARY, *self.extra]:
            if lay not in self.layers:
                continue
            out = []
            for u in self.units(lay):
                first, last, quote = self.quote(u)
                d: dict[str, Any] = {"ref": u.id, "text": self.unit_text(u),
                                     "attach": {"ref": first, "to": last, "quote": quote}}
                if u.n:
                    d["n"] = u.n
                if u.page:
                    d["page"] = page_json(u.page)
                app = self.apparatus(u)
                if app:
                    d["apparatus"] = app
                if u.quotations:
                    d["quotations"] = [{"witness": q.witness, "words": self._wit_text(q.words, q.witness),
                                        "quotes": q.quotes, "zhu": q.zhu or None,
                                        "text": self._wit_text(q.text, self.doc.traditional or ""),
                                        "differences": q.differences} for q in u.quotations]
                if lay == "yinyi":  # head, what each item is (反切, 音, 如字, 又音, gloss), on the 经 or 注
                    d["head"] = in_script(readable(u.parts[0][1], self.chars), u.lang, self.script) if u.parts else ""
                    d["items"] = [{"kind": r, "text": in_script(readable(c, self.chars), u.lang, self.script)}
                                  for r, c, _s in u.parts[1:]]
                    d["on"] = "zhu" if u.attrs.get("zhu") else "jing"
                    if u.attrs.get("zhu"):
                        d["zhu"] = u.attrs["zhu"].lstrip("#")
                if lay.startswith("trans"):
                    d["sentences"] = [
                        {"n": s.n, "text": s.text, "clauses": s.corresp, "cert": s.cert} for s in u.sentences
                    ]
                out.append(d)
            if out:
                layers[lay] = out
        out: dict[str, Any] = {"ref": str(self.ref), "section": self.section.n, "title": self.section.title,
                               "script": self.script, "layers": layers}
        if self.notices:
            out["notices"] = list(self.notices)
        if self.absent:
            out["absent"] = list(self.absent)
        ed = self.doc.edition
        if ed is not None:  # what the pages are pages of
            out["edition"] = ed.citation()
        return out

    def to_text(self) -> str:
        """The passage for the terminal: each paragraph's 经/记 (clauses joined by an ideographic space), its 注
        (with the number of the clause each follows), then 疏, notes and translation (with the
        clauses each is attached to). The 经/记 and each 注 end with their pages in the cited
        printed edition (``〔葉1a–1b〕``)."""
        work = f"《{self.doc.work}·{self.doc.chapter}》"
        lines = [f"{work}第{self.section.n}节 {self.section.title}  ({self.ref})"]
        shown = [k for k in self.layers if k not in self.absent]
        if not shown:
            return ""
        for p in self.paragraphs:
            if self.section.layer not in shown and not any(
                    u.layer in shown and self._covers(u) for u in p.units):
                continue  # nothing of the layers asked for: no empty header
            lines.append("")
            lines.append(f"¶ {p.id}")
            clauses = [c for c in p.clauses if not self.clause or c.id == self.clause]
            if self.section.layer in self.layers:
                lines.append(f"  {_label(self.section.layer)}  " + self.text_line(clauses)
                             + page_text(clauses_page(clauses)))
                lines.extend(x for x in [self.clause_apparatus_text(clauses)] if x)
            if "zhu" in self.layers:
                for u in p.units:
                    if u.layer == "zhu" and self._covers(u):
                        after = (u.target_end or u.target or "").rsplit(".", 1)[-1]
                        lines.append(f"  {_label('zhu')} [{after}]  {self.unit_text(u)}{page_text(u.page)}")
                        lines.extend(x for x in [self.apparatus_text(u)] if x)
            for lay in [*(k for k in COMMENTARY if k != "zhu"), *self.extra]:
                if lay not in self.layers:
                    continue
                for u in p.units:
                    if u.layer != lay or not self._covers(u):
                        continue
                    first, last, quote = self.quote(u)
                    span = first.rsplit(".", 1)[-1] + ("" if first == last else "–" + last.rsplit(".", 1)[-1])
                    tag = _label(lay) + (f"{u.n}" if lay == "note" and u.n else "")
                    if lay == "yinyi" and u.attrs.get("zhu"):  # a 音义 entry on a word of the 注
                        span += " " + _label("zhu")
                    if lay.startswith("trans"):
                        lines.append(f"  {tag}  {self.unit_text(u)}")
                    else:
                        lines.append(f"  {tag} [{span}]  {self.unit_text(u)}")
                        lines.extend(x for x in [self.apparatus_text(u)] if x)
        if self.notices:
            lines.append("")
            lines.extend(f"（{n}）" for n in self.notices)
        return "\n".join(lines)
