"""贾疏 of the 四库 witness (w005): every block anchored by where it stands, shown, searched and
exported; the 疏's own division of the chapter against sections.tsv (docs/alignment.md)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from yili_corpus.build import BuildResult
from yili_corpus.cli import main
from yili_corpus.report import format_shu_division, shu_division

ROOT = Path(__file__).resolve().parent.parent


def siku_shu(built: BuildResult) -> list:
    """The 疏 blocks of w005."""
    return [sa for sa in built.shu if sa.units[0].source == "w005"]


def test_every_siku_shu_block_is_anchored(built: BuildResult) -> None:
    file_blocks = sum(1 for u in built.parsed["w005"].units if u.kind == "shu")
    blocks = siku_shu(built)
    assert len(blocks) == file_blocks == 317
    assert all(sa.jing is not None and sa.how == "position" and sa.reason.startswith("its place") for sa in blocks)
    # a block whose parts are all 注釋曰 names the 注 it explains, and they stand before it
    on_zhu = [sa for sa in blocks if {p["kind"] for p in sa.units[0].meta["parts"]} == {"zhu"}]
    assert on_zhu and all(sa.zhu and all(z.offset < sa.units[0].offset for z in sa.zhu) for sa in on_zhu)


def test_siku_shu_in_the_tei_show_and_search() -> None:
    tei = (ROOT / "tei" / "yili-xiangsheli.xml").read_text(encoding="utf-8")
    assert tei.count('<note type="shu" xml:id="xiangsheli.w005.shu') == 317
    r = CliRunner().invoke(main, ["show", "2", "--json"])
    assert r.exit_code == 0, r.output
    assert "此已下论预张矦之事" in r.output
    r = CliRunner().invoke(main, ["search", "此已下论预张", "--layer", "shu"])
    assert r.exit_code == 0 and "xiangsheli.2.2@shu" in r.output, r.output
    r = CliRunner().invoke(main, ["show", "2", "--script", "hant"])
    assert r.exit_code == 0 and "此已下論預張矦之事" in r.output, r.output
    # the 四库 copy is the 疏's traditional witness: no notice that there is none
    assert "贾疏: no traditional witness" not in r.output


def test_division_table_is_in_the_docs(built: BuildResult) -> None:
    rows = shu_division(built)
    assert rows[0]["relation"] == "same" and rows[0]["from"] == "xiangsheli.1.1.1"
    assert {x["relation"].split()[0] for x in rows} >= {"same", "within", "joins"}
    doc = (ROOT / "docs" / "alignment.md").read_text(encoding="utf-8")
    assert format_shu_division(rows) in doc


def test_report_json_counts_the_shu(built: BuildResult) -> None:
    from yili_corpus.report import report_json
    rep = json.loads(json.dumps(report_json(built), ensure_ascii=False))
    assert sum(row["shu"] for row in rep["alignment"]["sections"]) == len(built.shu)


def test_a_range_covers_its_own_passage(built: BuildResult) -> None:
    """“上射”至“并行” (w003): the 疏 discusses 少左 of the passage's first clause, so the range runs
    from the paragraph's first 上射 (上射升堂少左), not the 上射 of 上射揖, and says so."""
    from yili_corpus.text.segment import Locator

    loc = Locator(built.sections)
    sa = next(x for x in built.shu if x.units[0].source == "w003" and x.lemma == ("上射", "并行"))
    _s, para, c0 = loc.at(sa.jing.start)
    _s, _p, c1 = loc.at(sa.jing.end - 1)
    assert c0.id == para.clauses[0].id and c1.id == para.clauses[-1].id
    assert "少左" in "".join(built.collation.base.key[sa.jing.start:sa.jing.end])
    assert "the first after the previous 疏's end" in sa.reason
    tei = (ROOT / "tei" / "yili-xiangsheli.xml").read_text(encoding="utf-8")
    assert "a range covers its own passage" in tei
