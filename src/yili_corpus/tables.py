"""Reading the TSV data tables of corpus/ (``#`` comment lines, a header row, tab-separated)."""

from __future__ import annotations

import csv
from pathlib import Path

from .errors import DataError


def read_table(path: Path | str, header: list[str], what: str) -> list[tuple[int, list[str]]]:
    """The rows of a table as (line number, cells), after checking that it starts with ``header``."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DataError(f"cannot read {what}: {exc.strerror}", str(p)) from None
    rows: list[tuple[int, list[str]]] = []
    seen_header = False
    for i, ln in enumerate(lines, start=1):
        if not ln.strip() or ln.startswith("#"):
            continue
        cells = next(csv.reader([ln], delimiter="\t"))
        if not seen_header:
            if [c.strip() for c in cells[: len(header)]] != header:
                raise DataError(f"{what} must start with the header {', '.join(header)}", str(p), i)
            seen_header = True
            continue
        rows.append((i, cells))
    return rows
