"""Where things are: the TEI to read, the user cache folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .errors import UsageError


def cache_dir() -> Path:
    """The user cache folder: ``$YILI_CACHE_DIR``, else ``$XDG_CACHE_HOME/yili-corpus``, else
    ``~/.cache/yili-corpus``. A relative ``$XDG_CACHE_HOME`` is ignored, as the XDG specification
    asks. No home folder to be found is a usage error (set ``$YILI_CACHE_DIR``)."""
    if os.environ.get("YILI_CACHE_DIR"):
        return Path(os.environ["YILI_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "yili-corpus"
    try:
        home = Path.home()
    except (RuntimeError, KeyError):
        raise UsageError("no cache folder: there is no home folder; set YILI_CACHE_DIR") from None
    return home / ".cache" / "yili-corpus"


def writable_cache_dir() -> Path:
    """The cache folder, made if missing, when this process can write in it; else a
    :class:`UsageError` saying why (a file in its place, a read-only folder, no home folder).
    Callers that only cache fall back to memory on that error (see :func:`note_once`)."""
    d = cache_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"the cache folder {d} is not a folder") from None
    except OSError as exc:
        raise UsageError(f"the cache folder {d} cannot be made: {exc.strerror or exc}") from None
    if not d.is_dir():
        raise UsageError(f"the cache folder {d} is not a folder")
    if not os.access(d, os.W_OK | os.X_OK):
        raise UsageError(f"the cache folder {d} is not writable")
    return d


_noted: set[str] = set()


def note_once(key: str, message: str) -> None:
    """Say ``yili: note: <message>`` on stderr, once per process for ``key`` (a cache folder that
    cannot be written is said once, however often the run falls back to memory)."""
    if key in _noted:
        return
    _noted.add(key)
    try:
        print(f"yili: note: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # no stderr to say it on: the run goes on regardless
        pass


def find_tei_dir() -> Path | None:
    """The nearest ``tei/`` folder holding a ``yili-*.xml``: in this folder or above; else None."""
    here = Path.cwd()
    for d in (here, *here.parents):
        if (d / "tei").is_dir() and any((d / "tei").glob("yili-*.xml")):
            return d / "tei"
    return None


def packaged_tei_dir() -> Path | None:
    """The TEI installed with the package (``pip install .`` copies ``tei/yili-*.xml`` into
    ``yili_corpus/data/tei``; see setup.py), or None when running from a clone without it."""
    d = Path(__file__).resolve().parent / "data" / "tei"
    return d if d.is_dir() and any(d.glob("yili-*.xml")) else None


def find_tei(explicit: str | Path | None = None, chapter: str | None = None) -> Path:
    """The TEI file to read: ``explicit``, else ``$YILI_TEI``, else ``tei/yili-CHAPTER.xml`` in
    this folder or the nearest folder above that has a ``tei/yili-*.xml``, else the TEI installed
    with the package (:func:`packaged_tei_dir`). Without ``chapter``
    that folder must hold one chapter's TEI: several is a usage error naming them (the choice is
    never made silently)."""
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
    tdir = find_tei_dir() or packaged_tei_dir()  # the project folder's first, else the installed one
    if tdir is not None:
        found = sorted(tdir.glob("yili-*.xml"))
        names = [f.stem.removeprefix("yili-") for f in found]
        if chapter:
            if chapter not in names:
                raise UsageError(f"no chapter {chapter} in {tdir}: the chapters there are {', '.join(names)}")
            return found[names.index(chapter)]
        if len(found) > 1:
            raise UsageError(f"several chapters in {tdir} ({', '.join(names)}): say which with --chapter ID "
                             "(or --tei FILE)")
        return found[0]
    raise UsageError("no TEI found: run yili in the project folder (tei/yili-*.xml), install the package "
                     "(pip install .), set YILI_TEI, or pass --tei FILE")


def find_teis(explicit: str | Path | None = None) -> dict[str, Path]:
    """The chapters' TEIs to read, by chapter id (``tei/yili-ID.xml`` gives ID): ``explicit`` or
    ``$YILI_TEI`` alone (its id from its name, else ``""``: read from its header), else every
    ``yili-*.xml`` of the folder :func:`find_tei` reads. Opens no file."""
    if explicit or os.environ.get("YILI_TEI"):
        p = find_tei(explicit)
        return {p.stem.removeprefix("yili-") if p.stem.startswith("yili-") else "": p}
    tdir = find_tei_dir() or packaged_tei_dir()
    if tdir is None:
        find_tei()  # the error saying where a TEI is looked for
    assert tdir is not None
    return {f.stem.removeprefix("yili-"): f for f in sorted(tdir.glob("yili-*.xml"))}


def overlay_dir(explicit: str | Path | None = None) -> Path:
    """The overlay folder (``yili import``): ``explicit``, ``$YILI_OVERLAY``, else
    ``$XDG_DATA_HOME/yili-corpus/overlays``, else ``~/.local/share/yili-corpus/overlays``."""
    if explicit:
        return Path(explicit)
    if os.environ.get("YILI_OVERLAY"):
        return Path(os.environ["YILI_OVERLAY"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "yili-corpus" / "overlays"
