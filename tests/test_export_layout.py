"""The reading-order model of the exports (export/layout.py) on the real corpus."""

from __future__ import annotations

import pytest

from yili_corpus.api import load
from yili_corpus.export.layout import layout
from yili_corpus.layers import KEYS

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"


@pytest.fixture(scope="module")
def doc():
    return load(TEI).document


def test_every_unit_is_placed_once_and_every_clause_is_there(doc) -> None:
    lay = layout(doc, [s.n for s in doc.sections], list(KEYS))
    placed = [b.ref for b in lay.blocks()]
    units = [u.id for s in doc.sections for p in s.paragraphs for u in p.units]
    assert sorted(placed) == sorted(units) and len(set(placed)) == len(placed)
    clauses = [c for s in lay.sections for p in s.paragraphs for c in p.clauses]
    assert [c.id for c in clauses] == [c.id for s in doc.sections for p in s.paragraphs for c in p.clauses]
    for c in clauses:  # the pieces are the clause's text; each marker points at an entry
        assert "".join(x.text for x in c.pieces) == c.text
        assert sorted(x.app for x in c.pieces if x.app is not None) == list(range(len(c.apparatus)))


def test_zhu_follows_the_words_it_explains_and_shu_closes_its_passage(doc) -> None:
    lay = layout(doc, list(range(16, 23)), list(KEYS))
    seen = 0
    for s in lay.sections:
        for p in s.paragraphs:
            for c in p.clauses:
                for b in c.inline + c.after:
                    if b.on_zhu is None:
                        assert b.last == c.id, (b.ref, c.id)
                    seen += 1
                bases = [b.base for b in c.inline]
                assert bases == sorted(bases, key=["zhu", "yinyi", "kaozheng"].index)
    assert seen > 100


def test_the_apparatus_stands_at_its_lemma(doc) -> None:
    lay = layout(doc, [17], list(KEYS))
    c = next(c for p in lay.sections[0].paragraphs for c in p.clauses if c.id == "xiangsheli.17.2.2")
    marked = [x for x in c.pieces if x.app is not None]
    assert [x.text for x in marked] == ["束"]
    e = c.apparatus[marked[0].app]
    assert any(r["text"] == "东" for r in e["readings"]) and e["rule"]


def test_absent_layers_and_the_side_column(doc) -> None:
    lay = layout(doc, [21], ["jing", "zhu", "trans"])
    assert lay.absent == ["trans"] and lay.side == [] and "trans" not in lay.layers
    lay = layout(doc, [52], ["ji", "trans"])
    assert lay.side == ["trans"] and all(p.beside.get("trans") for p in lay.sections[0].paragraphs[:1])
