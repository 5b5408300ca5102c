"""Reading the TSV data tables of corpus/ (``#`` comment lines, a header row, tab-separated).

Cells are split on tabs only (no quoting: a ``"`` in a note is an ordinary character, and a line
is a row), so the line number of a row is the line of the file. A table that cannot be read, is
not a regular file, is too large or is not UTF-8 is damaged data naming the file (and the line).
"""

from __future__ import annotations

from pathlib import Path

from .errors import DataError


def read_lines(path: Path | str, what: str) -> list[tuple[int, str]]:
    """The lines of a table that are neither blank nor ``#`` comments, as (line number, line)."""
    from .sources.reader import read_corpus_file, utf8_error

    p = Path(path)
    data = read_corpus_file(p, what)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a BOM (some editors write one): not part of the header
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise utf8_error(data, exc, str(p)) from None
    return [(i, ln) for i, ln in enumerate(text.splitlines(), start=1) if ln.strip() and not ln.startswith("#")]


def read_table(path: Path | str, header: list[str], what: str) -> list[tuple[int, list[str]]]:
    """The rows of a table as (line number, cells), after checking that it starts with ``header``."""
    p = Path(path)
    rows: list[tuple[int, list[str]]] = []
    seen_header = False
    for i, ln in read_lines(p, what):
        cells = ln.split("\t")
        if not seen_header:
            if [c.strip() for c in cells[: len(header)]] != header:
                raise DataError(f"{what} must start with the header {', '.join(header)}", str(p), i)
            seen_header = True
            continue
        rows.append((i, cells))
    return rows
