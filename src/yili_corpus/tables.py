"""Reading the files of corpus/: any of them bounded (:func:`read_corpus_file`), and the TSV data
tables (``#`` comment lines, a header row, tab-separated).

Cells are split on tabs only (no quoting: a ``"`` in a note is an ordinary character, and a line
is a row), so the line number of a row is the line of the file. A table that cannot be read, is
not a regular file, is too large or is not UTF-8 is damaged data naming the file (and the line).
Part of the core both wings share: it imports only :mod:`yili_corpus.errors` and
:mod:`yili_corpus.files`.
"""

from __future__ import annotations

from pathlib import Path

from .errors import DataError, SourceError, UsageError
from .files import read_bounded

#: Bytes a file of the corpus (a source, a table, the manifest) may have. The largest is 31 KB;
#: 16 MB is 500 times that, and keeps a FIFO, a device or a runaway file named in corpus/ from
#: hanging the build or filling memory.
MAX_CORPUS_FILE = 16 << 20


def read_corpus_file(path: Path | str, what: str = "corpus file") -> bytes:
    """The bytes of a file of the corpus; one that cannot be read, is not a regular file or is
    larger than :data:`MAX_CORPUS_FILE` is damaged data naming the file (exit 3)."""
    try:
        return read_bounded(Path(path), MAX_CORPUS_FILE, what)
    except UsageError as exc:
        msg = str(exc)
        if msg.startswith(f"cannot read {path}: "):
            msg = "cannot read: " + msg.removeprefix(f"cannot read {path}: ")  # cannot read: it is a folder
        raise SourceError(msg.removeprefix(f"{path} "), str(path)) from None


def utf8_error(data: bytes, exc: UnicodeDecodeError, path: str) -> SourceError:
    """The error for bytes that are not UTF-8: file, line and byte, and a hint if the line reads
    as GBK/GB18030."""
    line = data.count(b"\n", 0, exc.start) + 1
    hint = "truncated or invalid UTF-8 sequence"
    ls = data.rfind(b"\n", 0, exc.start) + 1
    le = data.find(b"\n", exc.start)
    bad_line = data[ls : le if le >= 0 else len(data)]
    try:
        bad_line.decode("gb18030")
        if exc.end < len(data):
            hint = "not UTF-8 (the line decodes as GBK/GB18030; convert the file to UTF-8)"
    except UnicodeDecodeError:
        pass
    return SourceError(f"{hint} at byte {exc.start}", path, line)


def read_lines(path: Path | str, what: str) -> list[tuple[int, str]]:
    """The lines of a table that are neither blank nor ``#`` comments, as (line number, line)."""
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
