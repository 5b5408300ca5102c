"""Reading a source file strictly: UTF-8, no BOM, LF line ends; errors name file and line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import SourceError
from ..model import Noise, SourceUnit
from ..tables import MAX_CORPUS_FILE, read_corpus_file, utf8_error

__all__ = ["MAX_CORPUS_FILE", "read_corpus_file", "utf8_error", "decode_source", "read_source", "LineText",
           "strip_span"]


def decode_source(data: bytes, path: str) -> str:
    """Decode the bytes of a source file, refusing anything but clean UTF-8 with LF line ends."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise SourceError("starts with a byte-order mark (BOM); save the file as UTF-8 without BOM", path, 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise utf8_error(data, exc, path) from None
    cr = text.find("\r")
    if cr >= 0:
        raise SourceError("has CR (Windows) line ends; convert to LF", path, text.count("\n", 0, cr) + 1)
    return text


def read_source(path: Path | str) -> str:
    """Read and decode a source file (see :func:`decode_source`)."""
    p = Path(path)
    return decode_source(read_corpus_file(p, "source file"), str(p))


class LineText:
    """A source text split into lines, keeping absolute offsets, with unit/noise constructors."""

    def __init__(self, source: str, text: str, path: str) -> None:
        self.source = source
        self.text = text
        self.path = path
        self.lines: list[tuple[int, int, str]] = []  # (lineno, offset, text)
        off = 0
        for i, ln in enumerate(text.split("\n"), start=1):
            self.lines.append((i, off, ln))
            off += len(ln) + 1

    def __iter__(self) -> Iterator[tuple[int, int, str]]:
        return iter(self.lines)

    def unit(self, kind: str, lineno: int, col: int, end_col: int, **meta: object) -> SourceUnit:
        """A unit for ``line[col:end_col]``."""
        _, off, ln = self.lines[lineno - 1]
        return SourceUnit(
            source=self.source,
            kind=kind,
            text=ln[col:end_col],
            line=lineno,
            col=col,
            end_col=end_col,
            offset=off + col,
            end=off + end_col,
            meta=dict(meta),
        )

    def noise(self, lineno: int, col: int, end_col: int, reason: str) -> Noise:
        """A noise record for ``line[col:end_col]``."""
        _, off, ln = self.lines[lineno - 1]
        return Noise(
            source=self.source,
            text=ln[col:end_col],
            line=lineno,
            col=col,
            end_col=end_col,
            offset=off + col,
            end=off + end_col,
            reason=reason,
        )

    def error(self, message: str, lineno: int) -> SourceError:
        """A :class:`SourceError` naming this file and ``lineno``."""
        return SourceError(message, self.path, lineno)


def strip_span(ln: str, col: int, end_col: int) -> tuple[int, int]:
    """Shrink ``[col, end_col)`` so it does not start or end with white space."""
    while col < end_col and ln[col].isspace():
        col += 1
    while end_col > col and ln[end_col - 1].isspace():
        end_col -= 1
    return col, end_col
