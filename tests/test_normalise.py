"""The normalised key: punctuation out, traditional → simplified, variant forms folded."""

from __future__ import annotations

import pytest

from yili_corpus.errors import DataError
from yili_corpus.text.normalise import Normaliser, VariantTable

from .conftest import CORPUS


@pytest.fixture(scope="module")
def norm() -> Normaliser:
    return Normaliser(VariantTable.load(CORPUS / "variants.tsv"))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("釋獲", "释获"),
        ("释 获", "释获"),
        ("於堂西", "于堂西"),
        ("兩楹閒", "两楹间"),
        ("两楹闲", "两楹间"),
        ("視筭", "视算"),
        ("主人荅再拜", "主人答再拜"),
        ("其中虵交", "其中蛇交"),
        ("袒薰襦", "袒纁襦"),
        ("袒熏襦", "袒纁襦"),
        ("司射，適堂西。", "司射适堂西"),
    ],
)
def test_variants_fold_to_one_key(norm: Normaliser, a: str, b: str) -> None:
    assert norm.key(a) == norm.key(b)


def test_substantive_differences_are_kept(norm: Normaliser) -> None:
    assert norm.key("说束") != norm.key("说东")
    assert norm.key("龙旃") != norm.key("龙旜")  # not folded: the collation decides


def test_key_map_points_back_to_the_diplomatic_text(norm: Normaliser) -> None:
    text = "三耦皆袒、決、遂。（有司）"
    key, idx = norm.key_map(text)
    assert key == "三耦皆袒决遂有司"
    assert [text[i] for i in idx] == list("三耦皆袒決遂有司")


def test_private_use_and_skips(norm: Normaliser) -> None:
    key, idx = norm.key_map("设\ue3ab\ue4a4〔1〕。乃[生僻字]", [(3, 6, ""), (8, 13, "\u3013")])
    assert key == "设\ue3ab\ue4a4乃\u3013"
    assert idx == [0, 1, 2, 7, 8]


def test_bad_variant_table(tmp_path) -> None:
    p = tmp_path / "v.tsv"
    p.write_text("form\tnormal\tseen\n於于\t于\tsomewhere\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"v.tsv:2: bad variant row"):
        VariantTable.load(p)
