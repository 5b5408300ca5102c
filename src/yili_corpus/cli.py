"""The ``yili`` command line (a thin wrapper over the library)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from . import __version__
from .errors import UsageError, YiliError


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


class YiliGroup(click.Group):
    """A group that turns every error into a one-line message and its exit code."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except YiliError as exc:
            click.echo(f"yili: error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("yili: interrupted", err=True)
            ctx.exit(130)
        except Exception as exc:  # noqa: BLE001 - no traceback reaches a user
            if os.environ.get("YILI_DEBUG"):
                raise
            click.echo(f"yili: internal error: {type(exc).__name__}: {exc} (set YILI_DEBUG=1 for a traceback)", err=True)
            ctx.exit(3)
        return None


@click.group(cls=YiliGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="yili")
def main() -> None:
    """yili — the aligned, citable corpus of 《仪礼·乡射礼》.

    Exit codes: 0 ok, 1 nothing found, 2 bad usage or input, 3 damaged data.
    """


@main.command()
@click.option("--corpus", "corpus", metavar="DIR", help="The corpus folder (default: ./corpus).")
@click.option("--out", "out", metavar="DIR", help="Where to write the output (default: ./build).")
@click.option("--check", is_flag=True, help="Write nothing; fail (exit 3) if the output is stale.")
@click.option("--json", "as_json", is_flag=True, help="Print the coverage report as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary line.")
def build(corpus: str | None, out: str | None, check: bool, as_json: bool, quiet: bool) -> None:
    """Build the corpus from the sources and print the coverage report.

    \b
    Example:
      yili build            # corpus/ → build/xiangsheli.model.json + report
      yili build --check    # is build/ up to date?
    """
    from .build import dumps, format_report, model_json, report_json, run_build, write_outputs

    cdir = _corpus_dir(corpus)
    out_dir = Path(out) if out else cdir.parent / "build"
    result = run_build(cdir)
    cid = result.manifest.chapter_id
    if check:
        want = {
            out_dir / f"{cid}.model.json": dumps(model_json(result)),
            out_dir / f"{cid}.report.json": dumps(report_json(result)),
        }
        stale = [str(p) for p, text in want.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        if stale:
            raise YiliStale(f"output is stale: {', '.join(stale)} (run yili build)")
        click.echo(f"up to date: {out_dir}")
        return
    paths = write_outputs(result, out_dir)
    if as_json:
        click.echo(json.dumps(report_json(result), ensure_ascii=False, indent=2, sort_keys=True))
        return
    if not quiet:
        click.echo(format_report(result))
        click.echo("")
    n_par = sum(len(s.paragraphs) for s in result.sections)
    click.echo(
        f"built {len(result.sections)} sections, {n_par} paragraphs, "
        f"{sum(len(p.clauses) for s in result.sections for p in s.paragraphs)} clauses → "
        + ", ".join(str(p) for p in paths)
    )


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
        click.echo(json.dumps(rep, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        click.echo(format_alignment(rep))


class YiliStale(YiliError):
    """The output is older than the sources (exit 3)."""

    exit_code = 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
