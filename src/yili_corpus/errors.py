"""Errors with the exit codes of the command line (docs/design.md, "The command-line contract").

0 found/ok, 1 nothing found, 2 bad usage or bad input, 3 damaged data.
"""

from __future__ import annotations

#: Characters of the user's input that a message quotes: enough to recognise a query or a
#: reference, while a pasted megabyte does not become a megabyte of error line.
QUOTE_CHARS = 60


def shown(text: object, limit: int = QUOTE_CHARS) -> str:
    """The user's input as a message quotes it: ``repr``, cut to ``limit`` characters with …."""
    s = str(text)
    return repr(s[:limit] + "…") if len(s) > limit else repr(s)


class YiliError(Exception):
    """Base class: a one-line message and an exit code; never shown as a traceback."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(YiliError):
    """Bad usage or bad input from the user (exit 2)."""

    exit_code = 2


class DataError(YiliError):
    """Damaged or inconsistent data: names the file and the place (exit 3)."""

    exit_code = 3

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class SourceError(DataError):
    """A source file that a parser cannot read: names file and line."""
