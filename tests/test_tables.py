"""The data tables of corpus/ tested as data (as OpenCC tests its dictionaries), and proof that
the build reads the genre tables (a changed table changes the result)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from yili_corpus.align.kaozheng import load_editions
from yili_corpus.align.overrides import load_overrides
from yili_corpus.align.xrefs import Chapters, parse_xrefs
from yili_corpus.build import BuildResult, run_build
from yili_corpus.errors import DataError
from yili_corpus.genre import KINDS, READ_WING, Genre, load_commentators
from yili_corpus.model import ParsedSource
from yili_corpus.sources.manifest import Manifest, load_manifest, parse_all
from yili_corpus.tables import read_table
from yili_corpus.tei.assemble import load_works, to_document
from yili_corpus.tei.write import build_tree
from yili_corpus.text.collate import load_emendations
from yili_corpus.text.normalise import Normaliser, VariantTable, t2s_char
from yili_corpus.text.segment import load_sections
from yili_corpus.text.unencoded import load_pua_table

from .conftest import CORPUS

#: Every table of manifest.toml [tables] and how it is read: a new table needs a row here.
LOADERS: dict[str, Callable[[Path, Manifest], Any]] = {
    "sections": lambda p, m: load_sections(p),
    "variants": lambda p, m: VariantTable.load(p).fold,
    # empty since the witnesses decide where its one row emended (the file says so): loads as a list
    "emendations": lambda p, m: isinstance(load_emendations(p), list),
    "chapters": lambda p, m: Chapters.load(p, m.chapter_number).names,
    "works": lambda p, m: load_works(p),
    "overrides": lambda p, m: load_overrides(p),
    "genre": lambda p, m: Genre.load(p).modern,
    "commentators": lambda p, m: load_commentators(p),
    "kaozheng_editions": lambda p, m: load_editions(p),
    "pua": lambda p, m: load_pua_table(p, {s.id: s.path(m.corpus_dir).read_text(encoding="utf-8") for s in m.sources},
                                       Normaliser(VariantTable.load(m.table("variants")))),
}


@pytest.fixture(scope="module")
def manifest() -> Manifest:
    return load_manifest(CORPUS)


@pytest.fixture(scope="module")
def chapters(manifest: Manifest) -> Chapters:
    return Chapters.load(manifest.table("chapters"), manifest.chapter_number)


def _genre_rows() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for _i, cells in read_table(CORPUS / "genre.tsv", ["kind", "value", "note"], "genre table"):
        out.setdefault(cells[0], []).append(cells[1])
    return out


# --------------------------------------------------------------------------- every table loads


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_each_table_loads(manifest: Manifest, name: str) -> None:
    assert LOADERS[name](manifest.table(name), manifest)


def test_every_table_has_a_loader_here(manifest: Manifest) -> None:
    assert set(manifest.tables) == set(LOADERS)


def test_every_row_says_where_it_comes_from(manifest: Manifest) -> None:
    for name in ("variants", "works", "genre", "commentators", "pua"):
        p = manifest.table(name)
        header = next(ln for ln in p.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#"))
        cols = header.split("\t")
        for i, cells in read_table(p, cols, name):
            assert len(cells) == len(cols) and cells[-1].strip(), f"{p.name}:{i}: no note of where it comes from"


# --------------------------------------------------------------------------- variants


def test_no_folded_form_is_folded_further(manifest: Manifest) -> None:
    rows = [(i, c[0], c[1]) for i, c in read_table(manifest.table("variants"), ["form", "normal", "seen"], "variants")]
    forms = [f for _i, f, _n in rows]
    assert len(forms) == len(set(forms)), "a form is listed twice"
    norm = Normaliser(VariantTable.load(manifest.table("variants")))
    for i, form, normal in rows:
        assert form != normal, f"variants.tsv:{i}: {form} folds to itself"
        assert normal not in forms, f"variants.tsv:{i}: the normal form {normal} is itself folded"
        # the key reaches a fixed point: form and normal form have one key, which folds no further
        # (OpenCC may still simplify the normal form: 纁 → 𫄸, for 熏 and 薰 alike)
        key = norm.char(form)
        assert key == norm.char(normal) == t2s_char(normal) and norm.char(key) == key, f"variants.tsv:{i}"


# --------------------------------------------------------------------------- chapters and works


def test_chapter_table_is_one_name_one_chapter(manifest: Manifest, chapters: Chapters) -> None:
    rows = read_table(manifest.table("chapters"), ["n", "title", "also"], "chapters")
    assert sorted(int(c[0]) for _i, c in rows) == list(range(1, 18))
    names = [c[1] for _i, c in rows] + [a.strip() for _i, c in rows if len(c) > 2 for a in c[2].split(",") if a.strip()]
    assert len(names) == len(set(names)), "a name stands for two chapters"
    assert chapters.chapter(manifest.chapter_title) == manifest.chapter_number


def test_every_chapter_the_works_table_names_exists(manifest: Manifest, chapters: Chapters) -> None:
    for title, normal, kind, _seen in load_works(manifest.table("works")):
        named = chapters.chapter(title)
        if kind == "chapter":
            work, _, chapter = normal.partition("·")
            assert work == manifest.work_title
            assert named is not None, f"works.tsv: {title} is no chapter of yili-chapters.tsv"
            assert chapters.chapter(chapter) == named
        else:
            assert named is None, f"works.tsv: {title} is a chapter of 《仪礼》, not a {kind}"


def test_every_chapter_a_note_cites_exists(built: BuildResult, chapters: Chapters) -> None:
    cited = [x for a in built.notes for x in a.xrefs if x.type == "other-chapter"]
    assert len(cited) >= 5  # 士昏礼, 士丧礼, 乡饮酒礼, 燕礼, 大射 …
    for x in cited:
        assert x.work and x.chapter is not None and chapters.chapter(x.work) == x.chapter, x
    # every 《title》 of the 注 and 疏 that is a chapter of 《仪礼》 is known to the works table
    works = {t for t, *_ in load_works(CORPUS / "works.tsv")}
    for p in built.parsed.values():
        for u in p.units:
            if u.kind in ("zhu", "shu"):
                for m in re.finditer(r"《([^》]+)》", u.text):
                    if chapters.chapter(m.group(1)) not in (None, chapters.this):
                        assert m.group(1) in works, (u.where, m.group(1))


# --------------------------------------------------------------------------- genre


def test_genre_markers_are_non_empty_and_unique() -> None:
    rows = _genre_rows()
    assert set(rows) == set(KINDS)
    for kind, values in rows.items():
        assert values and all(v.strip() == v and v for v in values), kind
        assert len(values) == len(set(values)), f"{kind}: a value is listed twice"


def test_modern_markers_never_occur_in_the_classical_text(built: BuildResult) -> None:
    g = Genre.load(CORPUS / "genre.tsv")
    classical = [u.text for p in built.parsed.values() for u in p.units if u.kind in ("text", "zhu", "shu")]
    assert classical
    hits = {c for t in classical for c in t if c in g.modern}
    # one exception, a noun: the 四库 疏 quotes 弓弣把中 (the grip of the bow; w005 line 1574)
    siku_shu = [u.text for u in built.parsed["w005"].units if u.kind == "shu"]
    assert [t.count("把") for t in siku_shu if "把" in t] == [1] and "弓弣把中" in "".join(siku_shu)
    hits -= {"把"} if not any("把" in t for t in classical if t not in siku_shu) else set()
    assert not hits, f"modern markers in the 经/记/注/疏: {hits}"
    # and each marker that occurs at all occurs in the modern layers
    modern = "".join(u.text for p in built.parsed.values() for u in p.units if u.kind in ("trans", "note"))
    assert {"的", "了", "把", "这", "着"} <= {c for c in g.modern if c in modern}


def test_own_titles_are_no_work_and_no_chapter(chapters: Chapters) -> None:
    g = Genre.load(CORPUS / "genre.tsv")
    works = {t for t, *_ in load_works(CORPUS / "works.tsv")}
    for t in g.own_titles:
        assert t not in works and chapters.chapter(t) is None


def test_read_wing_copy_equals_the_table() -> None:
    g = Genre.load(CORPUS / "genre.tsv")
    assert READ_WING.modern == g.modern
    assert sorted(READ_WING.repeat) == sorted(g.repeat)


def test_read_wing_marks_repeated_rites() -> None:
    import yili_corpus

    x = yili_corpus.load(CORPUS.parent / "tei" / "yili-xiangsheli.xml").xref("23")
    chained = {r["text"]: r["chain"] for r in x["repeats"]}
    assert chained["请射于宾如初"] is True  # 如初: a repeat marker
    assert not all(chained.values())


def test_genre_phrasing_parses_the_references(chapters: Chapters) -> None:
    g = Genre.load(CORPUS / "genre.tsv")
    xs = parse_xrefs("参阅注（55）。《士丧礼》作“脡”（见彼第24节），又（参见第32节）。贾《疏》", chapters, g)
    assert [(x.type, x.target, x.work) for x in xs] == [
        ("note", 55, None), ("other-chapter", 24, "士丧礼"), ("section", 32, None)]
    assert g.summary_re.match("此节述司射比三耦之仪。").group(1) == "司射比三耦"  # type: ignore[union-attr]
    assert parse_xrefs("参阅注（55）", chapters, Genre()) == []  # an empty genre knows no phrasing


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("modern\t的呢\ttwo", "one character"),
        ("modern\t的\tagain", "listed twice"),
        ("moderne\t的\ttypo", "unknown kind"),
        ("see\t见\t", "kind, value and a note"),
    ],
)
def test_bad_genre_table(tmp_path: Path, row: str, message: str) -> None:
    rows = [f"{k}\tX{k}\tnote" for k in KINDS if k != "modern"]
    p = tmp_path / "genre.tsv"
    p.write_text("# c\nkind\tvalue\tnote\nmodern\t的\tnote\n" + "\n".join(rows) + "\n" + row + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=re.escape(f"genre.tsv:{4 + len(rows)}: ") + ".*" + message):
        Genre.load(p)
    p.write_text("kind\tvalue\tnote\nmodern\t的\tnote\n", encoding="utf-8")
    with pytest.raises(DataError, match="no row of kind summary-open"):
        Genre.load(p)


# --------------------------------------------------------------------------- commentators


def test_commentators_have_unique_ids_and_layers(manifest: Manifest) -> None:
    cs = load_commentators(manifest.table("commentators"))
    assert [(c.id, c.name, c.dynasty, c.layer) for c in cs[:2]] == [
        ("zhengxuan", "郑玄", "东汉", "zhu"), ("jiagongyan", "贾公彦", "唐", "shu")]
    assert any(c.name == "陆德明" for c in cs)
    assert len({c.id for c in cs}) == len(cs) and len({c.layer for c in cs}) == len(cs)


def test_bad_commentator_table(tmp_path: Path) -> None:
    p = tmp_path / "c.tsv"
    head = "id\tname\tdynasty\tlayer\tresp\tnote\nzhengxuan\t郑玄\t东汉\tzhu\t注\tw003\n"
    p.write_text(head + "zhengxuan\t郑康成\t东汉\tshu\t疏\tsame id\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"c.tsv:3: commentator id 'zhengxuan' is listed twice"):
        load_commentators(p)
    p.write_text(head + "Jia Gongyan\t贾公彦\t唐\tshu\t疏\tw003\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"c.tsv:3: commentator id"):
        load_commentators(p)


# --------------------------------------------------------------------------- the build reads them


def _edit(path: Path, start: str, new: str | None = None) -> None:
    """Drop the one row of the table at ``path`` that starts with ``start``, or put ``new`` in its place."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    hit = [i for i, ln in enumerate(lines) if ln.startswith(start)]
    assert len(hit) == 1
    lines[hit[0] : hit[0] + 1] = [] if new is None else [new + "\n"]
    path.write_text("".join(lines), encoding="utf-8")


def _parse(corpus: Path) -> dict[str, ParsedSource]:
    return parse_all(load_manifest(corpus))


def test_a_changed_genre_table_changes_the_parse(corpus_copy: Path) -> None:
    before = _parse(corpus_copy)
    _edit(corpus_copy / "genre.tsv", "modern\t把\t")  # 把 no longer a modern marker
    _edit(corpus_copy / "genre.tsv", "summary-open\t以节述\t")  # nor 以节述 a summary
    after = _parse(corpus_copy)

    def kind(ps: dict[str, ParsedSource], line: int) -> str:
        return next(u.kind for u in ps["w000"].units if u.line == line)

    # w000 line 35 (……把…) reads as translation by 把 alone: without it, as 经/记
    assert (kind(before, 35), kind(after, 35)) == ("trans", "text")

    def opener(ps: dict[str, ParsedSource]) -> bool:
        return bool(next(u for u in ps["w002"].units if u.meta.get("n") == 97).meta.get("opener"))

    assert opener(before) and not opener(after)  # （97）以节述司射献释获者之仪


def test_a_changed_table_changes_the_document(built: BuildResult, corpus_copy: Path) -> None:
    _edit(corpus_copy / "genre.tsv", "see\t参阅\t")
    _edit(corpus_copy / "commentators.tsv", "zhengxuan\t", "zheng-xuan\t郑康成\t东汉\tzhu\t注\trenamed by a test")
    before, after = to_document(built), to_document(run_build(corpus_copy))
    kz = ("siku-editors", "四库馆臣", "考證")
    lu = ("ludeming", "陆德明", "音义")
    modern = [("modern-annotators", "佚名", "今注"), ("modern-translators", "佚名", "今译")]
    assert before.commentators == [("zhengxuan", "郑玄", "注"), ("jiagongyan", "贾公彦", "疏"), lu, kz, *modern]
    assert after.commentators == [("zheng-xuan", "郑康成", "注"), ("jiagongyan", "贾公彦", "疏"), lu, kz, *modern]

    def units(doc: Any, layer: str) -> list[Any]:
        return [u for s in doc.sections for p in s.paragraphs for u in p.units if u.layer == layer]

    assert {u.resp for u in units(after, "zhu")} == {"#zheng-xuan"}
    ns = "{http://www.tei-c.org/ns/1.0}"
    names = [(e.get("{http://www.w3.org/XML/1998/namespace}id"), e.text) for e in build_tree(after).iter(ns + "persName")]
    assert names == [("zheng-xuan", "郑康成"), ("jiagongyan", "贾公彦"), lu[:2], kz[:2],
                     *(m[:2] for m in modern)]  # the header

    def refs(doc: Any) -> list[str]:
        return [x.text for u in units(doc, "note") for x in u.content if getattr(x, "type", "") == "note"]

    assert "参阅注（55）" in refs(before) and "参阅注（55）" not in refs(after)
