"""One vocabulary of layers (issue 11, item 2): the keys, names and labels of the layers are
defined in src/yili_corpus/layers.py and nowhere else in the package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from yili_corpus import layers
from yili_corpus.errors import UsageError
from yili_corpus.query.refs import layer_name

SRC = Path(__file__).resolve().parent.parent / "src" / "yili_corpus"
HOME = SRC / "layers.py"
#: The layers' Chinese names and citation labels (the short labels 经, 注 … are also words of the
#: sources' own syntax, 注“X”至“Y”, and are not looked for).
NAMES = {s for x in layers.LAYERS for s in (x.name, x.cite) if len(s) >= 2}


def copies(folder: Path) -> list[str]:
    """Places in the package that copy the vocabulary: a string literal that is a layer's name
    or citation label, or a table (a dict of constants) keyed by two or more layer keys."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        if path == HOME:
            continue
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(folder)}:{getattr(n, 'lineno', 0)}"
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in NAMES:
                out.append(f"{where} names a layer: {n.value!r}")
            if isinstance(n, ast.Dict) and all(isinstance(v, ast.Constant) for v in n.values):
                keys = {k.value for k in n.keys if isinstance(k, ast.Constant) and k.value in layers.KEYS}
                if len(keys) >= 2:
                    out.append(f"{where} is a table of layers: {sorted(keys)}")
    return out


def test_layer_names_are_defined_in_one_module() -> None:
    assert copies(SRC) == []


def test_the_check_finds_a_copy(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('NAMES = {"jing": "经", "zhu": "郑注"}\nRANK = {"zhu": 1, "shu": 2}\n'
                                   'LABEL = "贾公彦疏"\n', encoding="utf-8")
    assert sorted(x.split(" ", 1)[1] for x in copies(tmp_path)) == [
        "is a table of layers: ['jing', 'zhu']", "is a table of layers: ['shu', 'zhu']",
        "names a layer: '贾公彦疏'", "names a layer: '郑注'"]


def test_vocabulary_is_whole_and_consistent() -> None:
    assert len(set(layers.KEYS)) == len(layers.KEYS)
    assert layers.TEXT_KEYS == ("jing", "ji")
    aliases = [a for x in layers.LAYERS for a in x.aliases]
    assert len(aliases) == len(set(aliases)), "an alias stands for two layers"
    for x in layers.LAYERS:
        assert x.tei in ("clauses", "note", "sentences") and x.lang in ("lzh", "zh-Hans")
        assert layer_name(x.key) == x.key and layer_name(x.short) == x.key and layer_name(x.name) == x.key
    assert layer_name("trans:mine") == "trans:mine" and layers.layer("trans:mine").key == "trans"
    with pytest.raises(UsageError, match="unknown layer"):
        layer_name("jing:mine")
    assert layers.ordered({"trans:b", "note", "jing", "trans:a"}) == ["jing", "note", "trans:a", "trans:b"]
