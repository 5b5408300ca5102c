"""The ``yili`` command line (a thin wrapper over the library)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__
from .errors import UsageError, YiliError, shown


def _corpus_dir(value: str | None) -> Path:
    if value:
        p = Path(value)
        if not (p / "manifest.toml").exists():
            raise UsageError(f"{p} has no manifest.toml (is it a corpus folder?)")
        return p
    here = Path.cwd()
    for d in (here, *here.parents):
        if (d / "corpus" / "manifest.toml").exists():
            return d / "corpus"
    raise UsageError("no corpus/manifest.toml in this folder or above; run yili in the project folder or pass --corpus DIR")


#: Characters an error line may have (a few terminal lines). A message quotes the user's input cut
#: short (errors.shown); this is the net for any message that still grew (click's own messages
#: quote a bad value whole; a path may be long).
MAX_MESSAGE_CHARS = 400

_SURROGATES = re.compile("[\ud800-\udfff]")


def _error_line(message: str) -> str:
    """``yili: error: MESSAGE`` on one line, at most :data:`MAX_MESSAGE_CHARS` long, encodable
    (a lone surrogate from undecodable input is shown as its escape)."""
    msg = " ".join(str(message).split())
    room = MAX_MESSAGE_CHARS - len("yili: internal error: ")
    if len(msg) > room:
        msg = msg[: room - 80] + " … " + msg[-77:]  # the end often says what to do: keep it
    return "yili: error: " + msg.encode("utf-8", "backslashreplace").decode("utf-8")


class YiliGroup(click.Group):
    """A group that turns every error into a one-line message and its exit code."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """click's main, with click's own usage errors (unknown option, missing argument, bad
        value) as one line ``yili: error: …`` and exit 2, like every other error."""
        if not kwargs.get("standalone_mode", True):
            return super().main(*args, **kwargs)
        kwargs["standalone_mode"] = False
        try:
            rv = super().main(*args, **kwargs)
        except click.exceptions.NoArgsIsHelpError as exc:  # `yili` or `yili import` alone: the help
            # on stdout, and on stderr the one error line every error has
            click.echo(exc.ctx.get_help() if exc.ctx is not None else "")
            path = []
            c = exc.ctx
            while c is not None:
                path.insert(0, c.info_name if c.parent is not None else "yili")
                c = c.parent
            click.echo(_error_line(f"missing command ({' '.join(path)} --help for usage)"), err=True)
            sys.exit(2)
        except click.ClickException as exc:
            names = []
            c = getattr(exc, "ctx", None)
            while c is not None and c.parent is not None:
                names.insert(0, c.info_name)
                c = c.parent
            hint = f" ({' '.join(['yili', *names])} --help for usage)" if isinstance(exc, click.UsageError) else ""
            click.echo(_error_line(exc.format_message().rstrip(".") + hint), err=True)
            sys.exit(2)
        except click.exceptions.Abort:
            click.echo("yili: interrupted", err=True)
            sys.exit(130)
        sys.exit(rv if isinstance(rv, int) else 0)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except YiliError as exc:
            click.echo(_error_line(str(exc)), err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("yili: interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            # the reader went away (yili search … | head): stop quietly
            try:
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115
            except OSError:
                pass
            ctx.exit(0)
        except Exception as exc:  # noqa: BLE001 - no traceback reaches a user
            if os.environ.get("YILI_DEBUG"):
                raise
            click.echo(_error_line(f"{type(exc).__name__}: {exc} (set YILI_DEBUG=1 for a traceback)")
                       .replace("yili: error:", "yili: internal error:", 1), err=True)
            ctx.exit(3)
        return None


@click.group(cls=YiliGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="yili")
@click.option("--tei", "tei", metavar="FILE", envvar="YILI_TEI",
              help="The TEI to read (default: tei/yili-*.xml of the project; or $YILI_TEI).")
@click.option("--chapter", "chapter", metavar="ID",
              help="The chapter (tei/yili-ID.xml) that bare references (16, 16.2) and --section mean "
                   "(default: xiangsheli); search, stats and cite read only it.")
@click.option("--overlay", "overlay", metavar="DIR", envvar="YILI_OVERLAY",
              help="Folder of overlays made by yili import (default: ~/.local/share/yili-corpus/overlays; or $YILI_OVERLAY).")
@click.pass_context
def main(ctx: click.Context, tei: str | None, chapter: str | None, overlay: str | None) -> None:
    """yili — the aligned, citable corpus of 《仪礼》.

    \b
    yili search 比三耦          every place a term occurs, in every layer and chapter
    yili show 乡射礼第十七节     a passage with 经, 注, 疏, notes, translation
    yili show 燕礼第3节          a passage of another chapter (or --chapter yanli show 3)
    yili cite "司正为司马"       where a quotation comes from, as a citation
    yili xref 52                what a passage points to and what points to it
    yili export --section 16-22 --format html -o handout.html
    yili stats                  the chapters, their sections and layers (--chapter X: X's grid)
    yili build / validate       build the TEI from corpus/, check it
    yili serve                  the reading room and the DTS API at http://127.0.0.1:8000/

    Exit codes: 0 ok, 1 nothing found, 2 bad usage or input, 3 damaged data.
    """
    ctx.obj = {"tei": tei, "overlay": overlay, "chapter": chapter}


def _work(ctx: click.Context):  # type: ignore[no-untyped-def]
    """The work of tei/ (its chapters opened when asked), --chapter the chapter chosen."""
    from .api import load_work

    obj = ctx.find_root().obj or {}
    return load_work(obj.get("tei"), obj.get("overlay"), chapter=obj.get("chapter"))


def _corpus(ctx: click.Context):  # type: ignore[no-untyped-def]
    """The chapter chosen by --chapter, else the default one (xiangsheli), else the only one."""
    return _work(ctx).corpus()


def _set_chapter(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value:
        root = ctx.find_root()
        root.obj = {**(root.obj or {}), "chapter": value}


#: ``--chapter ID`` after the command's name too (``yili search 比三耦 --chapter dashe``), as
#: before it (``yili --chapter dashe search 比三耦``).
CHAPTER_OPTION = click.option("--chapter", metavar="ID", expose_value=False, callback=_set_chapter,
                              help="The chapter (an id such as dashe, or a title such as 大射): bare "
                                   "references and --section are its; search, stats and cite read "
                                   "only it.")


def _overlay_dir(ctx: click.Context, into: str | None = None) -> Path:
    from .paths import overlay_dir

    return overlay_dir(into or (ctx.find_root().obj or {}).get("overlay"))


def _json_text(data: object, sort_keys: bool = False) -> str:
    """JSON as the commands print it, always valid UTF-8: a lone surrogate (from a command-line
    argument that was not UTF-8) becomes U+FFFD."""
    return _SURROGATES.sub("\ufffd", json.dumps(data, ensure_ascii=False, indent=2, sort_keys=sort_keys))


def _echo_json(data: object, sort_keys: bool = False) -> None:
    click.echo(_json_text(data, sort_keys))


def _layer_option():  # type: ignore[no-untyped-def]
    from .layers import help_text

    return click.option("--layer", "layers", multiple=True, metavar="L",
                        help=f"Layer (repeatable): {help_text()}.")


LAYER_OPTION = _layer_option()


@main.command()
@click.argument("query")
@LAYER_OPTION
@click.option("--section", "section", metavar="RANGE", help="Sections, e.g. 16-22 or 16,18.")
@click.option("--regex", is_flag=True, help="QUERY is a regular expression on the normalised text (1 s limit).")
@click.option("--word", is_flag=True, help="Only whole words (jieba, with a dictionary of ritual terms).")
@click.option("--context", "context", default=10, show_default=True, metavar="N", type=int,
              help="Characters of context either side.")
@click.option("--limit", "limit", type=int, metavar="N", help="Print only the first N hits (the counts stay whole).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {query, total, counts, hits: [...]}.")
@CHAPTER_OPTION
@click.pass_context
def search(ctx: click.Context, query: str, layers: tuple[str, ...], section: str | None, regex: bool, word: bool,
           context: int, limit: int | None, as_json: bool) -> None:
    """Find every place QUERY occurs, in any layer, in every chapter (--chapter ID: in one).

    Simplified, traditional and variant forms and punctuation do not matter: 釋獲, 释获 and
    释 获 find the same places; 於堂西 finds 于堂西. Exit 1 if nothing is found.

    \b
    Example:
      yili search 获者
      yili search 比三耦 --chapter dashe
      yili search 司射 --layer trans
      yili search "释获者.{0,3}坐" --regex --section 26-35
    """
    c = _work(ctx)
    res = c.search(query, layers=list(layers) or None, sections=section, regex=regex, word=word, context=context,
                   limit=limit)
    if as_json:
        _echo_json(res)
    else:
        _print_hits(res, several=len(c.catalog.teis) > 1)
    if res.get("absent"):
        from .query.show import absent_notice

        whole = "the work" if len(c.catalog.teis) > 1 and not c.chapter else "the chapter"
        where = ("sections " + section) if section else whole
        click.echo(f"yili: note: {absent_notice(res['absent'], where)}", err=True)
    if res["total"] == 0:
        ctx.exit(1)


def _print_hits(res: dict, several: bool = False) -> None:  # type: ignore[type-arg]
    from .layers import name, ordered

    if not res["total"]:
        click.echo(f"no hits for {shown(res['query'])}")
        return
    present = ordered(list(res["counts"]))
    summary = ", ".join(f"{name(k)} {res['counts'][k]}" for k in present)
    click.echo(f"{res['total']} hits for {shown(res['query'])}: {summary}")
    chapters = res.get("chapters", [])
    if several:  # a work of several chapters: say which have hits
        click.echo(f"in {len(chapters)} chapter{'s' if len(chapters) > 1 else ''}: "
                   + ", ".join(f"{x['title'] or x['chapter']} ({x['chapter']}) {x['total']}" for x in chapters))
    if len(res["hits"]) < res["total"]:
        click.echo(f"(the first {len(res['hits'])} shown)")
    for lay in present:
        hits = [h for h in res["hits"] if h["layer"] == lay]
        if not hits:
            continue
        click.echo(f"\n{name(lay)} ({res['counts'].get(lay, len(hits))})")
        for h in hits:
            line = h["before"] + click.style(h["match"], fg="red", bold=True) + h["after"]
            wit = ""
            if h.get("witness"):  # a witness's reading, not the reading text's
                ws = h.get("witnesses") or [h["witness"]]
                wit = (f"  ({', '.join(ws)} read{'s' if len(ws) == 1 else ''} {h['match']}; "
                       f"the text has {h.get('lemma') or '—'})")
            click.echo(f"  {h['ref']:<26} {line}{wit}".replace("\n", " "))


@main.command()
@click.argument("ref")
@LAYER_OPTION
@click.option("--script", type=click.Choice(["hans", "hant"]), default="hans", show_default=True,
              help="Print in simplified (hans) or traditional (hant) characters: the 经/记 and 注 in "
                   "the traditional witness's own forms, modern layers converted.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {ref, section, title, layers: {LAYER: [...]}}.")
@CHAPTER_OPTION
@click.pass_context
def show(ctx: click.Context, ref: str, layers: tuple[str, ...], script: str, as_json: bool) -> None:
    """Print a passage with all its layers, in reading order.

    REF is a section, paragraph or clause in any form: 16, 16.2, 16.2.3, §16, 乡射礼16,
    乡射礼第十六节, 鄉射禮 16, xiangsheli.16.2@zhu; a range (16-17, 16.2-16.4); or the id of
    a unit that a command printed (xiangsheli.w005.zhu113: its paragraph, in its layer).
    A reference may name any chapter (燕礼第3节, 燕禮 3, yanli.3.1, dashe.w005.zhu12); a bare
    one is 乡射礼's, or the chapter --chapter names.
    A paragraph of more than one clause numbers them ([1]…), as 注 and notes cite them; under
    it, 校 lists where the witnesses of its clauses differ (clause lemma］witness reading).

    Under a 注 or 疏 of two witnesses, 校 lists where they differ (lemma］witness reading);
    under a 考證 entry, the same for the words it is on. 引 marks a 疏 that quotes the 注 or 经
    in other words than the text has.

    \b
    Example:
      yili show 16
      yili show 燕礼第1节
      yili show 乡射礼第十七节 --layer jing --layer trans
      yili show 17.2 --script hant --json
    """
    from .query.show import absent_notice

    c = _work(ctx)
    lays = list(layers) or None
    if as_json:
        res = c.passage(ref, layers=lays, script=script)
        _echo_json(res)
        absent = res.get("absent", [])
    else:
        absent = []
        text = c.passage_text(ref, layers=lays, script=script, absent=absent)
        if text:
            click.echo(text)
    if absent:  # a layer asked for that the passage lacks: said once, not as empty headers
        click.echo(f"yili: note: {absent_notice(absent, ref.strip())}", err=True)


@main.command()
@click.argument("text")
@click.option("--style", type=click.Choice(["zh", "chicago", "bibtex", "csl-json"]), default="zh", show_default=True)
@click.option("--script", type=click.Choice(["hans", "hant"]), default=None,
              help="Write the citations in simplified (hans) or traditional (hant) characters "
                   "[default: each as its source writes it].")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {query, style, total, results: [...]}.")
@CHAPTER_OPTION
@click.pass_context
def cite(ctx: click.Context, text: str, style: str, script: str | None, as_json: bool) -> None:
    """Find where a quotation comes from and print its citation, with its page in the printed
    edition (《儀禮注疏》卷五《鄉射禮》，文淵閣四庫全書本，葉12b). Every chapter is searched
    (--chapter ID: one); the best candidate comes first, with its chapter.

    Script, variant forms, punctuation and a few wrong or missing characters do not stop it;
    the score says how close the passage is (1 = exact). Exit 1 if nothing is close enough.

    \b
    Example:
      yili cite "司正为司马"
      yili cite "司正为司马" --script hans
      yili cite "司馬命張侯，弟子說束" --style bibtex
    """
    c = _work(ctx)
    res = c.cite(text, style=style, script=script)
    if as_json:
        _echo_json(res)
    elif not res["results"]:
        click.echo(f"no passage close enough to {shown(text)}", err=True)
    else:
        # the entry alone on stdout (yili cite … --style csl-json > x.json parses); where it was
        # found and the other candidates on stderr
        best = res["results"][0]
        click.echo(best["formatted"])
        w = best.get("witness") or ""
        wit = f"  ({w} {'read' if ', ' in w else 'reads'} so)" if w else ""
        click.echo(f"  {best['ref']}  {best['layer']}  score {best['score']:.2f}  「{best['match']}」{wit}", err=True)
        for r in res["results"][1:]:
            click.echo(f"  also {r['ref']}  {r['layer']}  score {r['score']:.2f}  「{r['match'][:30]}」", err=True)
    if not res["results"]:
        ctx.exit(1)


@main.command()
@click.argument("ref")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: {ref, section, ji, shu, notes, works, repeats, parallels, targets}.")
@CHAPTER_OPTION
@click.pass_context
def xref(ctx: click.Context, ref: str, as_json: bool) -> None:
    """Cross-references of a passage: 记 ↔ 经, 疏 blocks, notes and what they point to, works
    cited in 注 and 疏 (a chapter of 《仪礼》 as its id), clauses repeated elsewhere, and the
    parallel passages of the other chapters in tei/ with their differences ([here|there]).

    \b
    Example:
      yili xref 52
      yili xref 20 --json
    """
    c = _work(ctx)
    x = c.xref(ref)
    if as_json:
        _echo_json(x)
        return
    click.echo(f"{x['ref']} 第{x['section']}节 {x['title']}")
    click.echo(f"  points to sections: {', '.join(map(str, x['targets'])) or '—'}")
    if x["ji"]:
        click.echo("  记 ↔ 经:")
        for j in x["ji"]:
            what = j.get("clause") or j.get("note")
            ev = j.get("shares") or j.get("ref")
            click.echo(f"    §{j['section']:<3} {what}  {ev}  「{j['text'][:24]}」")
    for s in x["shu"]:
        click.echo(f"  疏 {s['ref']}: {s['lemma']} → {s['attach']['ref']}–{s['attach']['to']} ({s['resolved']})")
    for n in x["notes"]:
        if n["links"]:
            links = "; ".join(f"{lk['type']} {lk.get('target') or lk.get('cref') or ''}".strip()
                              + (f" → {lk['chapter']}" if lk.get("chapter") else "")
                              + (f" ({lk['numbering']})" if lk.get("numbering") else "") for lk in n["links"])
            click.echo(f"  note {n['ref']}: {links}")
    for w in x["works"]:
        to = f" → {w['chapter']} ({w['follow']})" if w.get("chapter") else ""
        click.echo(f"  cites 《{w['work']}》 (as {'、'.join(w['as_cited'])}) in {', '.join(w['in'])}{to}")
    for y in x["yinyi"]:
        also = "; ".join(f"§{o['section']} {o['text']}" for o in y["same_head"][:4]) + (" …" if len(y["same_head"]) > 4 else "")
        click.echo(f"  音义 {y['ref']}: {y['text']} → {y['attach']['ref']}" + (f"; {y['head']} also: {also}" if also else ""))
    for k in x["kaozheng"]:
        eds = "、".join(e["edition"] for e in k["editions"]) or "—"
        click.echo(f"  考證 {k['ref']}: {k['lemma']} → {k['attach']['ref']}–{k['attach']['to']}; cites {eds}")
    for r in x["repeats"]:
        click.echo(f"  repeated: {r['clause']} 「{r['text']}」 also at {', '.join(r['also'][:6])}"
                   + (" …" if len(r["also"]) > 6 else ""))
    for p in x["parallels"]:
        click.echo(f"  parallel in {p['chapter']}: {p['ref']}–{p['to']} ↔ {p['here']['ref']}–{p['here']['to']}, "
                   f"{p['common']} characters in common")
        click.echo(f"    {p['aligned']}")


@main.command()
@click.option("--section", "section", metavar="RANGE", help="Sections, e.g. 16-22 (default: all).")
@LAYER_OPTION
@click.option("--format", "fmt", type=click.Choice(["tsv", "csv", "md", "html", "json", "tei", "latex"]),
              required=True, help="Output format.")
@click.option("-o", "--output", "output", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@CHAPTER_OPTION
@click.pass_context
def export(ctx: click.Context, section: str | None, layers: tuple[str, ...], fmt: str, output: str | None,
           force: bool) -> None:
    """Export a range of sections of one chapter (--chapter ID; default xiangsheli) as parallel text.

    \b
    Example:
      yili export --section 16-22 --format md
      yili export --section 17 --layer jing --layer trans --format html -o handout.html
      yili export --section 52-53 --format tei -o ji.xml --force

    A layer asked for that has no text in the range is left out with a notice on stderr; when
    none has any, nothing is written and the exit code is 1.
    """
    from .files import check_target, write_atomic

    p = Path(output) if output else None
    if output:
        check_target(output, force)  # before the export is made: a bad destination costs nothing
    c = _work(ctx)
    notices: list[str] = []
    text = c.export(fmt, sections=section, layers=list(layers) or None, notices=notices)
    for n in notices:  # a layer with no text in the range: one line each, on stderr
        click.echo(f"yili: notice: {n}", err=True)
    if not text:  # nothing asked for has text here: nothing written
        ctx.exit(1)
    if p is None:
        click.echo(text, nl=False)
        return
    write_atomic(p, text, force=force, make_dirs=False)
    click.echo(f"wrote {p} ({fmt}, {len(text)} characters)")


@main.command()
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: {sections: [...], totals: {...}, coverage: {layers, rows: [{sections, layers}]}}.")
@click.option("--coverage", "only_coverage", is_flag=True,
              help="Print only the coverage table, as Markdown (the README's).")
@CHAPTER_OPTION
@click.pass_context
def stats(ctx: click.Context, as_json: bool, only_coverage: bool) -> None:
    """The chapters, with their sections and units/characters per layer, and the work's totals;
    with --chapter ID (or one chapter in tei/), units and characters per section and layer of
    that chapter, then the coverage: which sections have which layers (sections with the same
    layers in one row).

    \b
    Example:
      yili stats
      yili stats --chapter yanli
      yili stats --coverage
    """
    from .layers import KEYS as LAYERS
    from .layers import short
    from .query.coverage import coverage_markdown, coverage_text

    work = _work(ctx)
    st = (work.corpus() if only_coverage else work).stats()
    if as_json:
        _echo_json(st)
        return
    if only_coverage:
        click.echo(coverage_markdown(st["coverage"]), nl=False)
        return
    if "chapters" in st:  # the work: a row a chapter
        _print_work_stats(st)
        return
    click.echo("  §  " + "".join(f"{short(k):>10}" for k in LAYERS) + "   (units/characters)")
    for row in st["sections"]:
        cells = []
        for k in LAYERS:
            v = row["layers"].get(k)
            cells.append(f"{(str(v['units']) + '/' + str(v['chars'])) if v else '·':>11}")
        click.echo(f"{row['section']:>3} " + "".join(cells) + f"  {row['title']}")
    tot = st["totals"]
    click.echo("all " + "".join(f"{(str(tot[k]['units']) + '/' + str(tot[k]['chars'])) if k in tot else '·':>11}" for k in LAYERS))
    click.echo("")
    click.echo(coverage_text(st["coverage"]))


def _print_work_stats(st: dict) -> None:  # type: ignore[type-arg]
    """The work's stats: a row a chapter (its number, id, sections, units/characters per layer)."""
    from .layers import KEYS as LAYERS
    from .layers import short

    click.echo(f"{len(st['chapters'])} chapters, {st['sections']} sections")
    click.echo("  # chapter           §" + "".join(f"{short(k):>11}" for k in LAYERS) + "   (units/characters)")

    def cells(lays: dict) -> str:  # type: ignore[type-arg]
        return "".join(f"{(str(lays[k]['units']) + '/' + str(lays[k]['chars'])) if k in lays else '·':>12}"
                       for k in LAYERS)

    for row in st["chapters"]:
        click.echo(f"{row['number']:>3} {row['chapter']:<17}{row['sections']:>3}" + cells(row["layers"])
                   + f"  {row['title']}")
    click.echo(f"all {'':<17}{st['sections']:>3}" + cells(st["totals"]))


@main.command()
@click.option("--corpus", "corpus", metavar="DIR", help="The corpus folder (default: ./corpus).")
@click.option("--tei-dir", "tei_dir", metavar="DIR", help="Where the TEI goes (default: ./tei).")
@click.option("--report-dir", "report_dir", metavar="DIR", help="Where the JSON report goes (default: ./build).")
@click.option("--chapter", "chapters", metavar="ID", multiple=True,
              help="Build this chapter only (repeatable; default: every chapter of corpus/manifest.toml).")
@click.option("-j", "--jobs", type=click.IntRange(1, 64), default=2, show_default=True, metavar="N",
              help="Chapters built at once, each in its own process.")
@click.option("--check", is_flag=True, help="Write nothing; fail (exit 3) if a TEI in tei/ is stale.")
@click.option("--json", "as_json", is_flag=True, help="Print the coverage report as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary lines.")
@click.pass_context
def build(ctx: click.Context, corpus: str | None, tei_dir: str | None, report_dir: str | None,
          chapters: tuple[str, ...], jobs: int, check: bool, as_json: bool, quiet: bool) -> None:
    """Build the TEI of every chapter from the sources in corpus/ and print the coverage report.

    Chapters are built in parallel (--jobs); each one's TEI and report are written together or not
    at all, and a chapter that fails is one error line naming it while the others are written.
    Progress goes to stderr. One chapter (--chapter ID) prints its whole coverage report.

    \b
    Example:
      yili build                       # corpus/ → tei/yili-ID.xml, build/ID.report.json for each chapter
      yili build --chapter shiguanli   # one chapter
      yili build --check               # is tei/ up to date with corpus/?
    """
    from .build import build_work, front_report
    from .files import check_folder, write_atomic
    from .report import dumps as _dumps
    from .sources.manifest import load_work

    cdir = _corpus_dir(corpus)
    tdir = Path(tei_dir) if tei_dir else cdir.parent / "tei"
    rdir = Path(report_dir) if report_dir else cdir.parent / "build"
    if not check:  # before the build: a bad destination costs nothing and leaves nothing behind
        check_folder(tdir, "--tei-dir")
        check_folder(rdir, "--report-dir")
    work = load_work(cdir)
    root = (ctx.find_root().obj or {}).get("chapter")
    wanted = list(chapters) or ([root] if root else list(work.chapters))
    for c in wanted:
        if c not in work.chapters:
            raise UsageError(f"no chapter {shown(c)} in {cdir / 'manifest.toml'} (chapters: {', '.join(work.chapters)})")
    one = len(wanted) == 1
    verb = "checking" if check else "building"
    # progress: always for a work build; for one chapter (a few seconds) on a terminal only, so
    # that a script's stderr holds nothing but the one error line
    show = not one or sys.stderr.isatty()
    if show:
        what = wanted[0] if one else f"{len(wanted)} chapters, {min(jobs, len(wanted))} at a time"
        click.echo(f"{verb} {what} …", err=True)

    def progress(o, k: int, n: int) -> None:  # type: ignore[no-untyped-def]
        if not show:
            return
        state = "failed" if o.error else ("stale" if o.stale else ("checked" if check else "built"))
        click.echo(f"[{k}/{n}] {o.chapter}: {state} in {o.seconds:.1f} s", err=True)

    import time

    t0 = time.perf_counter()
    outcomes = build_work(cdir, wanted, tdir, rdir, check=check, jobs=jobs, progress=progress,
                          want_report=one and not quiet and not as_json and not check, want_json=as_json)
    seconds = time.perf_counter() - t0
    failed = [o for o in outcomes if o.error]
    front = []
    if not chapters and not root and not one:  # the whole work built or checked: tei/front.xml too
        front = front_report(cdir, tdir, check=check, folder=cdir.name)
    if not one and not check:  # a work build: every chapter's figures (or error) and the front matter
        summary = {"chapters": [{k: v for k, v in vars(o).items() if k not in ("report", "report_json")}
                                for o in outcomes], "front": front, "seconds": round(seconds, 1)}
        write_atomic(rdir / "work.report.json", _dumps(summary))
    for o in failed if not one else []:  # one chapter: its error is the command's
        click.echo(_error_line(f"chapter {o.chapter}: {o.error}"), err=True)
    ok = [o for o in outcomes if not o.error]
    if as_json:
        if one and ok:
            _echo_json(ok[0].report_json, sort_keys=True)
        elif ok:
            _echo_json({o.chapter: o.report_json for o in ok}, sort_keys=True)
    elif check:
        for o in ok:
            click.echo(f"{'stale' if o.stale else 'up to date'}: {o.paths[0]}")
        for f in front:
            click.echo(f"{'stale' if f['stale'] else 'up to date'}: {f['placed']}")
    elif one and ok:
        o = ok[0]
        if not quiet:
            click.echo(o.report)
            click.echo("")
        click.echo(f"built {o.sections} sections, {o.paragraphs} paragraphs, {o.clauses} clauses → "
                   + ", ".join(o.paths))
    elif ok:
        for o in ok:
            cov = ", ".join(f"{w} {100 * v:.2f}%" for w, v in o.coverage.items())
            click.echo(f"{o.chapter}: {o.sections} sections, {o.paragraphs} paragraphs, {o.clauses} clauses, "
                       f"{o.unplaced} reported; placed {cov} ({o.seconds:.1f} s) → {o.paths[0]}")
        for f in front:
            cov = f["coverage"]["placed_share"]  # type: ignore[index]
            click.echo(f"front matter {f['file']} ({', '.join(map(str, f['parts']))}; {f['pages']} pages): "
                       f"placed {100 * cov:.2f}% → {f['placed']}")
        click.echo(f"built {len(ok)} of {len(outcomes)} chapters: {sum(o.sections for o in ok)} sections, "
                   f"{sum(o.paragraphs for o in ok)} paragraphs, {sum(o.clauses for o in ok)} clauses in "
                   f"{seconds:.1f} s ({jobs} jobs)")
    if failed:
        err = YiliError(f"{len(failed)} of {len(outcomes)} chapters failed: {', '.join(o.chapter for o in failed)}"
                        + (f" (the others are {'checked' if check else 'written'})" if ok else ""))
        err.exit_code = max(o.exit_code for o in failed)
        if one:  # one chapter: its own error line, as before
            err = YiliError(failed[0].error)
            err.exit_code = failed[0].exit_code
        raise err
    stale = [o for o in outcomes if o.stale]
    stale_front = [str(f["placed"]) for f in front if f.get("stale")]
    if stale_front and not stale:
        raise YiliStale(f"{len(stale_front)} TEI file(s) stale: {', '.join(stale_front)} (run yili build)")
    if stale:
        if one:
            raise YiliStale(f"{stale[0].paths[0]} is stale: it differs from what corpus/ builds (run yili build)")
        names = [o.paths[0] for o in stale] + stale_front
        raise YiliStale(f"{len(names)} TEI file(s) stale: {', '.join(names)} (run yili build)")


@main.command()
@click.argument("files", nargs=-1, metavar="[FILE]...")
@click.option("--schema", "schema", metavar="PATH", help="A tei_all.rng to use instead of the cached one.")
@click.option("--no-schema", is_flag=True, help="Check only the project's own rules.")
@click.option("--corpus", "corpus", metavar="DIR",
              help="The corpus folder the source pointers (corpus/FILE#char=A,B) are checked against "
                   "(default: the folder the TEI header records, beside the TEI's folder).")
@click.option("--no-sources", is_flag=True,
              help="Skip the source check (by default a TEI with no corpus to check against fails).")
def validate(files: tuple[str, ...], schema: str | None, no_schema: bool, corpus: str | None,
             no_sources: bool) -> None:
    """Validate TEI files against TEI P5 tei_all and the project's rules.

    With no FILE, every .xml file in tei/. The schema is fetched from the package registry at
    first use and cached (see docs/encoding.md); --schema PATH uses your own copy.

    Every source pointer must quote its corpus file exactly, and resolve inside the corpus
    folder. A TEI copied away from its corpus fails (exit 2) unless --corpus DIR names the
    corpus or --no-sources skips the check.

    \b
    Example:
      yili validate
      yili validate tei/yili-xiangsheli.xml --schema ~/tei_all.rng
      yili validate ~/copy.xml --corpus ~/yili-corpus/corpus
    """
    from .tei.validate import validate_file

    if no_sources and corpus:
        raise UsageError("--corpus and --no-sources contradict each other; give one")
    cdir = _corpus_dir(corpus) if corpus else None
    paths = [Path(f) for f in files]
    if not paths:
        from .paths import find_tei_dir

        tdir = cdir.parent / "tei" if cdir else (find_tei_dir() or _corpus_dir(None).parent / "tei")
        paths = sorted(tdir.glob("*.xml"))
        if not paths:
            raise UsageError(f"no TEI files in {tdir}; run yili build first")
    bad = unchecked = 0
    for p in paths:
        if not p.exists():
            raise UsageError(f"no such file: {p}")
        problems = validate_file(p, schema=schema, use_schema=not no_schema, corpus_dir=cdir,
                                 sources=not no_sources)
        for pr in problems:
            click.echo(str(pr), err=True)
        real = [pr for pr in problems if pr.kind == "problem"]
        bad += len(real)
        unchecked += len(problems) - len(real)
        what = "the project's rules" if no_schema else "tei_all and the project's rules"
        if no_sources:
            what += ", sources not checked"
        status = f"{len(real)} problem(s)" if real else ("not checked against its sources" if problems else "valid")
        click.echo(f"{p}: {status} ({what})")
    if bad:
        raise YiliStale(f"{bad} problem(s) found")
    if unchecked:
        raise UsageError("the source check could not run; pass --corpus DIR, or --no-sources to skip it")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, metavar="HOST",
              help="The address to listen on (the default, loopback, lets only this machine in).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), metavar="PORT",
              help="The port to listen on (0: any free one).")
@CHAPTER_OPTION
@click.pass_context
def serve(ctx: click.Context, host: str, port: int) -> None:
    """Serve the reading room and the DTS 1.0 API in the browser (read-only, offline).

    \b
    yili serve                      http://127.0.0.1:8000/ (Ctrl-C stops it)
    yili serve --port 8080          another port
    then open  http://127.0.0.1:8000/xiangsheli/16    a passage
               http://127.0.0.1:8000/api/dts/         the DTS entry point (docs/serve.md)
    """
    import socket

    from .serve.serve import run

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(f"cannot listen on {host!r}: {exc}") from None
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}"
                         + (" (another server has the port; try --port)" if exc.errno == 98 else "")) from None
    work = _work(ctx)
    run(work, sock, say=lambda m: click.echo(m, err=True))


@main.command("align-report")
@click.option("--corpus", "corpus", metavar="DIR", help="The corpus folder (default: ./corpus).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def align_report(corpus: str | None, as_json: bool) -> None:
    """Per section: which layers are aligned, how many units, how many low-confidence links.

    \b
    Example:
      yili align-report
      yili align-report --json
    """
    from .build import alignment_report, format_alignment, run_build

    rep = alignment_report(run_build(_corpus_dir(corpus)))
    if as_json:
        _echo_json(rep, sort_keys=True)
    else:
        click.echo(format_alignment(rep))


@main.group("import")
def import_() -> None:
    """Bring your own text: align a translation or collate a witness into an overlay.

    Overlays live in the user data folder (or --overlay DIR / $YILI_OVERLAY), never in tei/;
    every command then sees them: --layer trans:NAME, --layer zhu:NAME.
    """


@import_.command("translation")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--name", required=True, help="Name of the overlay (letters, digits, - and _).")
@click.option("--lang", default="zh-Hans", show_default=True, help="Language of the translation.")
@click.option("--into", metavar="DIR", help="Write the overlay here instead of the overlay folder.")
@click.option("--force", is_flag=True, help="Replace an overlay NAME that is a translation too.")
@click.option("--json", "as_json", is_flag=True, help="Print the alignment report as JSON.")
@CHAPTER_OPTION
@click.pass_context
def import_translation_cmd(ctx: click.Context, file: str, name: str, lang: str, into: str | None, force: bool,
                           as_json: bool) -> None:
    """Align a plain-text translation of the chapter and store it as the layer trans:NAME.

    Paragraphs are separated by blank lines (or one a line), in any order; classical sentences
    interleaved are left out. A file that is not a translation of this chapter is refused, and so
    is one larger than 1 MB. An existing overlay NAME is replaced only with --force, and only if
    it is a translation (remove a witness of that name first: yili overlays remove NAME).

    \b
    Example:
      yili import translation my-translation.txt --name mine
      yili search 司射 --layer trans:mine
    """
    from .overlay import import_translation

    c = _corpus(ctx)
    rep = import_translation(c.document, Path(file), name, lang, _overlay_dir(ctx, into), force=force)
    if as_json:
        _echo_json(rep)
        return
    click.echo(f"imported {name} as layer {rep['layer']} → {rep['overlay']} (confidence {rep['confidence']:.2f})")
    for p in rep["paragraphs"]:
        click.echo(f"  line {p['line']:>4}: §{p['section']:<3} {p['from']}–{p['to']}  {p['sentences']} sentences, "
                   f"confidence {p['confidence']:.2f}")
    for u in rep["unplaced"]:
        click.echo(f"  not placed: line {u['line']}: {u['text'][:30]}")
    for u in rep["skipped"]:
        click.echo(f"  left out: line {u['line']}: {u['text'][:30]} ({u['reason']})")
    if rep["low_confidence"]:
        click.echo(f"  {len(rep['low_confidence'])} low-confidence sentence links (see --json)")


@import_.command("witness")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--name", required=True, help="Name of the overlay (letters, digits, - and _).")
@click.option("--format", "fmt", type=click.Choice(["plain", "mandoku"]), default="plain", show_default=True)
@click.option("--into", metavar="DIR", help="Write the overlay here instead of the overlay folder.")
@click.option("--force", is_flag=True, help="Replace an overlay NAME that is a witness too.")
@click.option("--json", "as_json", is_flag=True, help="Print the collation report as JSON.")
@CHAPTER_OPTION
@click.pass_context
def import_witness_cmd(ctx: click.Context, file: str, name: str, fmt: str, into: str | None, force: bool,
                       as_json: bool) -> None:
    """Collate another edition of the 经 against the reading text: its readings go into the
    overlay's apparatus, its parenthesised commentary becomes the layer zhu:NAME.

    An existing overlay NAME is replaced only with --force, and only if it is a witness (remove
    a translation of that name first: yili overlays remove NAME).

    \b
    Example:
      yili import witness KR1d0052.txt --name kanripo --format mandoku
    """
    from .overlay import import_witness

    c = _corpus(ctx)
    rep = import_witness(c.document, Path(file), name, fmt, _overlay_dir(ctx, into), force=force)
    if as_json:
        _echo_json(rep)
        return
    click.echo(f"imported {name} ({fmt}) → {rep['overlay']}: {rep['matched']:.0%} of its text matches; "
               f"{len(rep['readings'])} readings, {len(rep['notes'])} notes (layer {rep['layer']})")
    for r in rep["readings"][:40]:
        click.echo(f"  {r['clause']:<22} {r['lem'] or '∅'} ] {r['rdg'] or '∅'} {name} (line {r['line']})")


@main.group(invoke_without_command=True, subcommand_metavar="[COMMAND] [ARGS]...")
@click.pass_context
def overlays(ctx: click.Context) -> None:
    """List the overlays made by yili import (yili overlays remove NAME removes one).

    \b
    Example:
      yili overlays
      yili overlays remove mine
    """
    if ctx.invoked_subcommand is not None:
        return
    from .overlay import read_overlays

    folder = _overlay_dir(ctx)
    ovs = read_overlays(folder)
    if not ovs:
        click.echo(f"no overlays in {folder}")
        return
    for ov in ovs:
        layers = sorted({u.layer for u in ov.units})
        click.echo(f"{ov.name:<16} {ov.kind:<12} {ov.chapter or '—':<16} {len(ov.units):>4} units, "
                   f"{len(ov.apps):>4} readings  {' '.join(layers)}  {ov.path}")


@overlays.command("remove")
@click.argument("name")
@click.pass_context
def overlays_remove(ctx: click.Context, name: str) -> None:
    """Remove the overlay NAME."""
    from .overlay import remove_overlay

    p = remove_overlay(_overlay_dir(ctx), name)
    click.echo(f"removed {p}")


class YiliStale(YiliError):
    """The output is stale or invalid (exit 3)."""

    exit_code = 3


#: What each command's exit codes mean (docs/design.md, "The command-line contract"); every
#: command's --help ends with its own (set on the commands below by :func:`_exit_code_epilogs`).
EXIT_CODES: dict[str, dict[int, str]] = {
    "search": {0: "hits found", 1: "no hits"},
    "show": {0: "shown", 2: "bad usage, or a reference the chapter does not have"},
    "cite": {0: "a passage found", 1: "no passage close enough"},
    "xref": {2: "bad usage, or a reference the chapter does not have"},
    "export": {0: "exported", 2: "bad usage, or FILE exists and --force is not given"},
    "build": {0: "built (with --check: tei/ is up to date)",
              2: "bad usage, or a chapter the work does not have",
              3: "a damaged source or table (named with its line) in a chapter, the others written; "
                 "or with --check a stale tei/"},
    "validate": {0: "valid", 2: "bad usage, or the source check could not run", 3: "problems found"},
    "import translation": {0: "imported", 2: "bad usage, or a file that is not a translation of the chapter"},
    "import witness": {0: "imported", 2: "bad usage, or a file that is not an edition of the chapter"},
    "overlays remove": {0: "removed", 2: "no overlay of that name"},
    "serve": {0: "stopped (Ctrl-C)", 2: "bad usage, or the address or port cannot be listened on"},
}
_COMMON_CODES = {0: "ok", 2: "bad usage or bad input", 3: "damaged data (the message names the file)"}


def exit_codes(path: str) -> dict[int, str]:
    """The exit codes of the command ``path`` (``search``, ``import witness``) and their meaning."""
    codes = {**_COMMON_CODES, **EXIT_CODES.get(path, {})}
    codes[130] = "interrupted"
    return dict(sorted(codes.items()))


def _exit_code_epilogs(group: click.Group, prefix: str = "") -> None:
    """Give every command of ``group`` an epilog listing its exit codes."""
    for name, cmd in group.commands.items():
        path = f"{prefix} {name}".strip()
        cmd.epilog = "\b\nExit codes:\n" + "\n".join(f"  {k:<4}{v}" for k, v in exit_codes(path).items())
        if isinstance(cmd, click.Group):
            _exit_code_epilogs(cmd, path)


_exit_code_epilogs(main)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
