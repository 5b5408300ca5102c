"""The 四库 editors' 考證 as the layer ``kaozheng`` (issue 13, item 4): each entry anchored to the
lemma it quotes, the editions it names in a table, and every command seeing the layer."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from lxml import etree

from yili_corpus.build import BuildResult
from yili_corpus.cli import main
from yili_corpus.report import format_report, report_json
from yili_corpus.tables import read_table
from yili_corpus.text.segment import Locator

from .conftest import CORPUS, ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
NS = {"t": "http://www.tei-c.org/ns/1.0"}


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _entries(built: BuildResult) -> list:  # type: ignore[type-arg]
    return [u for p in built.parsed.values() for u in p.units if u.kind == "kaozheng"]


def test_every_entry_is_in_the_build_and_95_percent_match_their_quotation(built: BuildResult) -> None:
    k = report_json(built)["kaozheng"]
    assert k["entries"] == len(_entries(built)) == len(built.kaozheng) > 0
    assert k["matched"] / k["entries"] >= 0.95
    # the rest are listed, each with its reason, in the report a user reads
    text = format_report(built)
    assert f"{k['entries']} entries, {k['matched']} anchored" in text
    for x in k["unmatched"]:
        assert x["reason"] and f"line {x['line']} {x['lemma']}" in text


def test_a_matched_entry_quotes_the_words_it_is_anchored_to(built: BuildResult) -> None:
    """Independently of the aligner: the key of the 经 words of each matched entry is the key of
    the reading text (or of its own witness's reading) where it stands; a 注 quotation is in its 注."""
    norm = built.norm
    col = built.collation
    for ka in built.kaozheng:
        if not ka.matched:
            continue
        reading = norm.key("".join(x if isinstance(x, str) else x.lem for x in col.pieces(ka.start, ka.end)))
        own = "".join(x if isinstance(x, str) else next((r.key for r in x.readings if r.wit == ka.unit.source),
                                                          x.lem_key) for x in col.pieces(ka.start, ka.end))
        want = norm.key(ka.jing)
        assert want in (reading, norm.key(own)), (ka.unit.line, ka.jing, reading, own)
        if ka.quotes == "zhu":
            assert norm.key(ka.rest)[:4] in norm.key(str(ka.zhu.unit.meta["text"]))


def test_si_she_shi_jie_xi_is_anchored_to_its_jing_clause(built: BuildResult) -> None:
    """司射適階西○適敖本作西 → the 经 clause 司射适阶西 of its section (the section of the entries
    around it, 興適左个中亦如之 before and 薦脯醢折俎 after, in the 四库's order)."""
    loc = Locator(built.sections)
    i = next(i for i, ka in enumerate(built.kaozheng) if ka.unit.text.startswith("司射適階西○適敖本作西"))
    ka = built.kaozheng[i]
    assert ka.matched and ka.quotes == "jing"
    sec, _p, clause = loc.at(ka.start)
    assert built.norm.key(clause.text) == built.norm.key("司射適階西")
    assert ka.start == clause.start
    nxt = built.kaozheng[i + 1]
    assert loc.at(nxt.start)[0].n == sec.n
    assert loc.at(built.kaozheng[i - 1].start)[0].n <= sec.n
    # the section's first clause with these words is the one after the previous entry
    prev_end = built.kaozheng[i - 1].end
    firsts = [c for p in sec.paragraphs for c in p.clauses
              if built.norm.key(c.text) == built.norm.key("司射適階西") and c.start >= prev_end]
    assert firsts[0].id == clause.id


def test_a_zhu_quoting_entry_points_at_its_zhu_in_the_tei() -> None:
    root = etree.parse(str(TEI)).getroot()
    notes = root.findall(".//t:note[@type='kaozheng']", NS)
    zhu_ids = {n.get("{http://www.w3.org/XML/1998/namespace}id") for n in root.findall(".//t:note[@type='zhu']", NS)}
    quoting = [n for n in notes if n.get("subtype") == "zhu"]
    assert quoting
    for n in quoting:
        lemma = n.find("t:ab[@type='lemma']", NS)
        zid = (n.get("corresp") or "").lstrip("#")
        assert zid in zhu_ids
        zhu = root.find(f".//t:note[@{{http://www.w3.org/XML/1998/namespace}}id='{zid}']", NS)
        quoted = "".join(lemma.itertext()).split("注", 1)[1]
        assert quoted[:3] in "".join(zhu.itertext())
        assert n.get("{http://www.w3.org/XML/1998/namespace}lang") == "lzh-Hant"


def test_editions_table_rows_are_named_by_entries_and_seen_where_it_says(built: BuildResult) -> None:
    lines = (CORPUS / "KR1d0028_005.txt").read_text(encoding="utf-8").splitlines()
    rows = read_table(CORPUS / "kaozheng-editions.tsv", ["id", "name", "description", "lines"], "t")
    assert rows
    named = {e.name for ka in built.kaozheng for e, _ in ka.editions}
    for _i, cells in rows:
        eid, name, _desc, seen = cells[:4]
        assert name in named, name
        for ref in seen.split():
            a, _, b = ref.partition("–")
            text = lines[int(a) - 1] + (lines[int(b) - 1].lstrip("\u3000") if b else "")
            assert name in re.sub(r"[¶/]|<pb:[^>]*>", "", text).replace("¶", ""), (name, ref)
    # the TEI's header lists them and each entry's refs point at the list
    root = etree.parse(str(TEI)).getroot()
    ids = {b.get("{http://www.w3.org/XML/1998/namespace}id"): b.findtext("t:title", "", NS)
           for b in root.iterfind(".//t:listBibl[@type='kaozheng-editions']/t:bibl", NS)}
    assert set(ids) == {cells[0] for _i, cells in rows}
    refs = root.findall(".//t:note[@type='kaozheng']//t:ref[@type='edition']", NS)
    assert refs and all(ids[r.get("target").lstrip("#")] == r.text for r in refs)


def test_show_search_cite_export_stats_see_the_layer() -> None:
    r = run("show", "35")
    assert r.exit_code == 0
    assert re.search(r"考证 \[\d+\]  司射适阶西○适敖本作西", r.output)
    r = run("show", "35", "--script", "hant")
    assert "司射適階西○適敖本作西" in r.output
    j = json.loads(run("show", "35", "--json").output)
    kz = j["layers"]["kaozheng"]
    hit = next(x for x in kz if x["text"].startswith("司射适阶西○"))
    assert hit["attach"]["quote"] == "司射适阶西"
    r = run("search", "敖本作西", "--layer", "kaozheng")
    assert r.exit_code == 0 and "@kaozheng" in r.output
    r = run("search", "敖本作西", "--layer", "jing")
    assert "@kaozheng" not in r.output
    r = run("cite", "適敖本作西")
    assert r.exit_code == 0 and "@kaozheng" in r.output and "葉" in r.output
    r = run("export", "--section", "35", "--layer", "kaozheng", "--format", "json")
    assert "司射适阶西○适敖本作西" in r.output
    r = run("export", "--section", "35", "--layer", "jing", "--format", "tei")
    assert 'type="kaozheng"' not in r.output
    r = run("stats")  # the work's table (a row a chapter) or one chapter's: its header names the layer
    assert any("考证" in ln for ln in r.output.splitlines()[:3])
