"""Every clause of a document with its reading text and key, in order (for xref and import)."""

from __future__ import annotations

from ..document import Document


class ClauseTable:
    """The clauses of ``doc``: ids, texts, keys, sections and layers, in reading order; the
    clause indices that open a section; the whole reading key with, for each key character, the
    clause it belongs to and the reading text's own character."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.norm = doc.normaliser()
        chars = doc.char_map
        self.ids: list[str] = []
        self.texts: list[str] = []
        self.keys: list[str] = []
        self.section_of: list[int] = []
        self.layer_of: list[str] = []
        self.section_starts: set[int] = set()
        self.owner: list[int] = []
        self.chars: list[str] = []
        for s in doc.sections:
            self.section_starts.add(len(self.ids))
            for p in s.paragraphs:
                for c in p.clauses:
                    t = c.reading(chars)
                    k, idx = self.norm.key_map(t)
                    self.owner.extend([len(self.ids)] * len(k))
                    self.chars.extend(t[i] for i in idx)
                    self.ids.append(c.id)
                    self.texts.append(t)
                    self.keys.append(k)
                    self.section_of.append(s.n)
                    self.layer_of.append(s.layer)
        self.key = "".join(self.keys)
