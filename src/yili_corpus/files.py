"""Files: the one place that writes, reads with a bound, and locks.

What every command that writes promises (docs/reliability.md):

* **Atomic.** A file is written to a temporary beside it and renamed over the target, so a reader
  sees the old file or the new one, never half of one; an interrupted write leaves the old file.
* **Only its own files.** A temporary is named ``.<target>.yili-<pid>-<random>.tmp``: unique to
  the process, and recognisable as ours. Clean-up removes only such names, and of those only the
  ones whose process is gone (a killed earlier run); it never globs with the user's file name.
* **Only regular files are replaced.** A symlink (dangling or not), a FIFO, a device, a socket
  or a folder at the target is refused; an existing regular file only with ``force``.
* **Several destinations: all or nothing.** :func:`write_all` writes every temporary first and
  renames only when all were written.
* **Bounded reads.** :func:`read_bounded` refuses what is not a regular file (a FIFO would hang,
  ``/dev/zero`` never ends) and what is larger than its limit, before reading it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from .errors import UsageError

#: The marker of the project's temporaries: ``.<target>.yili-<pid>-<hex>.tmp``.
_TMP_RE = re.compile(r"^\.(?P<target>.+)\.yili-(?P<pid>\d+)-[0-9a-f]{8}\.tmp$")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Files are written readable by all, as open() would make them (mkstemp makes them private).
FILE_MODE = 0o666 & ~_umask()


def temp_name(path: Path) -> Path:
    """A temporary name beside ``path``, unique to this process and call."""
    return path.with_name(f".{path.name}.yili-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def stale_temporaries(folder: Path, target: str | None = None) -> list[Path]:
    """The project's temporaries in ``folder`` whose writing process is gone (for ``target``
    only, if given). Other files, however they are named, are never listed."""
    out: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return out
    for e in entries:
        m = _TMP_RE.match(e.name)
        if not m or (target is not None and m.group("target") != target):
            continue
        if not e.is_file(follow_symlinks=False):
            continue
        if not _alive(int(m.group("pid"))):
            out.append(Path(e.path))
    return out


def remove_stale_temporaries(folder: Path, target: str | None = None) -> int:
    """Remove the temporaries :func:`stale_temporaries` lists; returns how many went."""
    n = 0
    for p in stale_temporaries(folder, target):
        with contextlib.suppress(OSError):
            p.unlink()
            n += 1
    return n


def check_target(path: str | Path, force: bool = True, what: str = "file") -> None:
    """Refuse a destination that cannot or must not be replaced by a regular file: a name ending
    in a slash, a symlink (even a dangling one), anything but a regular file, an existing file
    without ``force``, a folder that does not exist or cannot be written."""
    raw = os.fspath(path)
    if raw.endswith(("/", os.sep)) or Path(raw).name in ("", ".", ".."):
        raise UsageError(f"cannot write {raw}: a {what} name is needed, not a folder")
    path = Path(raw)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise UsageError(f"cannot write {path}: it is a symbolic link; name the file itself")
        if stat.S_ISDIR(st.st_mode):
            raise UsageError(f"cannot write {path}: it is a folder")
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"cannot write {path}: it is not a regular file (a device, FIFO or socket)")
        if not force:
            raise UsageError(f"{path} exists; pass --force to overwrite it")
    parent = path.parent
    if not parent.is_dir():
        if parent.exists():
            raise UsageError(f"cannot write {path}: {parent} is not a folder")
        raise UsageError(f"cannot write {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {path}: folder {parent} is not writable")


def check_folder(folder: Path, what: str) -> None:
    """Refuse a folder to write into that cannot be one — a file, or a file where a folder
    would be made — or that cannot be written, before any work is done; ``what`` names it in
    the message (``--tei-dir``, ``overlay folder``)."""
    p = folder
    while not os.path.lexists(p) and p.parent != p:
        p = p.parent
    if not p.is_dir():
        where = "" if p == folder else f" ({p} is in the way)"
        raise UsageError(f"{what} {folder} is not a folder{where}")
    if not os.access(p, os.W_OK | os.X_OK):
        raise UsageError(f"{what} {folder}: cannot write in {p}")


def write_all(items: Sequence[tuple[Path, bytes]], force: bool = True, make_dirs: bool = False) -> None:
    """Write each ``(path, data)`` atomically, all or nothing: every destination is checked and
    every temporary written before the first rename; on any failure no target has changed and
    this call's temporaries are gone. Stale temporaries of earlier runs beside a target are
    removed (ours only)."""
    for path, _ in items:
        if make_dirs and not str(path).endswith(("/", os.sep)):
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UsageError(f"cannot write {path}: cannot make folder {path.parent}: "
                                 f"{exc.strerror or exc}") from None
        check_target(path, force)
    temps: list[Path] = []
    try:
        for path, data in items:
            remove_stale_temporaries(path.parent, path.name)
            tmp = temp_name(path)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
            temps.append(tmp)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for (path, _), tmp in zip(items, temps, strict=True):
            check_target(path, force=True)  # nothing turned into a link or device meanwhile
            os.replace(tmp, path)
    except OSError as exc:
        _drop(temps)
        raise UsageError(f"cannot write {items[len(temps) - 1 if temps else 0][0]}: "
                         f"{exc.strerror or exc}") from None
    except BaseException:
        _drop(temps)
        raise


def _drop(temps: list[Path]) -> None:
    for t in temps:
        with contextlib.suppress(FileNotFoundError, OSError):
            os.unlink(t)


def write_atomic_bytes(path: Path, data: bytes, force: bool = True, make_dirs: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary of this process and a rename."""
    write_all([(Path(path), data)], force=force, make_dirs=make_dirs)


def write_atomic(path: Path, text: str, force: bool = True, make_dirs: bool = True) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`write_atomic_bytes`)."""
    write_atomic_bytes(path, text.encode("utf-8"), force=force, make_dirs=make_dirs)


def read_bounded(path: Path, limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; anything else is a usage error
    with a one-line reason (a FIFO, a device, a folder, a file too large, unreadable)."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UsageError(f"cannot read {p}: no such file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {p}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UsageError(f"cannot read {p}: it is a folder")
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"cannot read {p}: not a regular file (a FIFO, device or socket)")
        if st.st_size > limit:
            raise UsageError(f"{p} is {_size(st.st_size)}; a {what} may be at most {_size(limit)}")
        chunks = []
        got = 0
        while True:
            try:
                b = os.read(fd, 1 << 20)
            except OSError as exc:
                raise UsageError(f"cannot read {p}: {exc.strerror or exc}") from None
            if not b:
                break
            got += len(b)
            if got > limit:
                raise UsageError(f"{p} is larger than {_size(limit)}, the most a {what} may be")
            chunks.append(b)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _size(n: int) -> str:
    for unit, k in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= k:
            return f"{n / k:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


@contextlib.contextmanager
def locked(folder: Path, name: str = ".yili.lock") -> Iterator[None]:
    """An exclusive lock on ``folder`` (a lock file of ours in it), held for the block: two
    writers of the same folder take turns. Waits at most 60 s, then says who holds it."""
    import fcntl
    import time

    folder.mkdir(parents=True, exist_ok=True)
    lock = folder / name
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    except OSError as exc:
        raise UsageError(f"cannot lock {folder}: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise UsageError(f"cannot lock {folder}: {exc.strerror or exc}") from None
                if time.monotonic() > deadline:
                    raise UsageError(f"{folder} is locked by another yili process; try again") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)
