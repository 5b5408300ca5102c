"""Step 4a: the reading text in the characters of the traditional witness.

The reading text of the 经/记 is kept in simplified characters (the base's script, in which it is
collated and searched). Its traditional view is not a conversion: for every character it is the
form the traditional witness (the manifest's source with ``script = "hant"``, the 四库 copy) writes
at that place —

* ``witness``: the witness's own character where its reading is the reading text's there (equal
  text, or a site whose chosen reading it shares);
* ``attested``: where the witness reads otherwise (a slip of its own, an omission), the form it
  writes for the same character (same key) elsewhere in its 经 and 注, the most frequent one;
* ``converted``: a character the witness never writes, through OpenCC (s2t), and counted.

The build report gives the three counts; the TEI holds the result beside each clause.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ..model import ParsedSource, Section, Site, is_text_char
from .collate import Alignment, Collation, key_char_text
from .normalise import Normaliser


@dataclass
class Traditional:
    """The traditional forms of the reading text, by base-key range, and how each was found."""

    wit: str
    at: dict[int, str]  # base offset → the witness's character (equal text)
    forms: dict[str, str]  # key character → the witness's most frequent form
    site_forms: dict[int, str]  # site start → the witness's text of the chosen reading
    counts: Counter[str] = field(default_factory=Counter)
    #: each clause's traditional form, by clause id (:meth:`fill`, once, after the segmentation)
    clauses: dict[str, str] = field(default_factory=dict)

    def fill(self, col: Collation, sections: list[Section], norm: Normaliser) -> None:
        """The traditional form of every clause, and the counts of how each character was found."""
        self.counts.clear()
        self.clauses = {c.id: self.of(col, c.start, c.end, norm)
                        for s in sections for p in s.paragraphs for c in p.clauses}

    def of(self, col: Collation, a: int, b: int, norm: Normaliser) -> str:
        """The traditional form of the reading text of base range ``[a, b)``."""
        return "".join(self._char(x, i, norm) if isinstance(x, str) else self._site(x, norm)
                       for i, x in col.walk(a, b))

    def _char(self, ch: str, pos: int, norm: Normaliser) -> str:
        if len(ch) != 1:  # a placeholder of the base ({曰鼎}): the witness's own character there
            return self.at.get(pos) or ch
        if not is_text_char(ch):
            return ch
        w = self.at.get(pos)
        if w is not None and norm.key(w) == norm.key(ch):
            self.counts["witness"] += 1
            return w
        return self._form(ch, norm)

    def _form(self, ch: str, norm: Normaliser) -> str:
        f = self.forms.get(norm.key(ch))
        if f is not None:
            self.counts["attested"] += 1
            return f
        from .normalise import s2t_char

        self.counts["converted"] += 1
        return s2t_char(ch)

    def _site(self, s: Site, norm: Normaliser) -> str:
        w = self.site_forms.get(s.start)
        if w is not None and norm.key(w) == s.lem_key:
            self.counts["witness"] += sum(1 for c in w if is_text_char(c))
            return w
        return "".join(self._form(c, norm) if is_text_char(c) else c for c in s.lem)


def traditional_forms(col: Collation, parsed: dict[str, ParsedSource], wit: str, norm: Normaliser) -> Traditional:
    """The traditional forms of witness ``wit`` (see the module doc)."""
    at: dict[int, str] = {}
    for al in col.alignments:
        if al.stream.wit != wit:
            continue
        _equal_chars(al, at)
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for u in parsed[wit].units:
        if u.kind in ("text", "zhu"):
            for c in str(u.meta.get("text", u.text)):
                if is_text_char(c):
                    seen[norm.key(c)][c] += 1
    forms = {k: cnt.most_common(1)[0][0] for k, cnt in seen.items() if k}
    site_forms = {}
    for s in col.sites:
        r = next((r for r in s.readings if r.wit == wit and r.status == "reading"), None)
        if r is not None and wit in s.lem_wits:
            site_forms[s.start] = "".join(c for c in r.text if is_text_char(c))
    return Traditional(wit, at, forms, site_forms)


def _equal_chars(al: Alignment, at: dict[int, str]) -> None:
    """The witness's character at each base offset its alignment maps one to one."""
    for i in range(al.bend - al.bstart):
        j1, j2 = al.js[i], al.je[i]
        if j2 - j1 != 1 or j1 >= len(al.stream.pos):
            continue
        u, o = al.stream.pos[j1]
        at.setdefault(al.bstart + i, key_char_text(u, o))
