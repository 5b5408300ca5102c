"""Where things are: the TEI to read, the user cache folder."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import UsageError


def cache_dir() -> Path:
    """The user cache folder: ``$YILI_CACHE_DIR``, else ``$XDG_CACHE_HOME/yili-corpus``, else
    ``~/.cache/yili-corpus``."""
    if os.environ.get("YILI_CACHE_DIR"):
        return Path(os.environ["YILI_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "yili-corpus"


def find_tei(explicit: str | Path | None = None) -> Path:
    """The TEI file to read: ``explicit``, else ``$YILI_TEI``, else ``tei/yili-*.xml`` in this
    folder or the nearest folder above that has one."""
    if explicit:
        p = Path(explicit)
        if not p.is_file():
            raise UsageError(f"no such TEI file: {p}")
        return p
    env = os.environ.get("YILI_TEI")
    if env:
        p = Path(env)
        if not p.is_file():
            raise UsageError(f"YILI_TEI points to {p}, which is not a file")
        return p
    here = Path.cwd()
    for d in (here, *here.parents):
        found = sorted((d / "tei").glob("yili-*.xml")) if (d / "tei").is_dir() else []
        if found:
            return found[0]
    raise UsageError("no TEI found: run yili in the project folder (tei/yili-*.xml), set YILI_TEI, or pass --tei FILE")
