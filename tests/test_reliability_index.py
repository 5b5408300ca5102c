"""Issue 10, the search index and the cache: findings 9 (damaged index), 10 (cache folder that
cannot be written), 11 (searches during imports) and 12 (temporaries and old indexes left)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.cli import main

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"
PLAIN_WITNESS = "司正为司马\n司马命张侯，弟子说东，遂系左下纲。\n"


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder and an (empty) overlay folder of the test's own."""
    monkeypatch.setenv("YILI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("YILI_OVERLAY", str(tmp_path / "ov"))
    monkeypatch.delenv("YILI_TEI", raising=False)
    return tmp_path


def yili(*args: str):
    r = CliRunner().invoke(main, ["--tei", str(TEI), *args])
    assert "internal error" not in r.output and "Traceback" not in r.output, r.output
    return r


def reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    """The output of a command with a good index (built in a cache folder of its own)."""
    with monkeypatch.context() as m:
        m.setenv("YILI_CACHE_DIR", str(tmp_path / "reference-cache"))
        r = yili(*args)
    assert r.exit_code == 0, r.output
    return r.stdout


def index_file(cache: Path) -> Path:
    found = sorted(cache.glob("index-*.sqlite"))
    assert len(found) == 1, found
    return found[0]


def temporaries(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if p.name.startswith(".index-"))


def subprocess_env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, YILI_CACHE_DIR=str(tmp_path / "cache"), YILI_OVERLAY=str(tmp_path / "ov"),
                YILI_TEI=str(TEI))


YILI = [sys.executable, "-m", "yili_corpus.cli"]


# -- 9: a damaged index is found on open (checksum) and at any later query, and built anew ---------------

def root_page_offsets(path: Path) -> list[int]:
    """Where the root pages of the units and grams tables are in an index file."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    size = con.execute("PRAGMA page_size").fetchone()[0]
    roots = dict(con.execute("SELECT name, rootpage FROM sqlite_master WHERE name IN ('units', 'grams')"))
    con.close()
    return [(roots[n] - 1) * size for n in ("units", "grams")]


def overwrite(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


@pytest.mark.parametrize("table", [0, 1], ids=["units", "grams"])
def test_index_with_4kb_overwritten_is_rebuilt(env: Path, monkeypatch: pytest.MonkeyPatch, table: int) -> None:
    want = reference(env, monkeypatch, "search", "司射", "--json")
    assert yili("search", "司射").exit_code == 0
    path = index_file(env / "cache")
    overwrite(path, root_page_offsets(path)[table], b"\xa5" * 4096)
    for _ in range(2):  # built anew once; the next command reads the new file
        r = yili("search", "司射", "--json")
        assert r.exit_code == 0, r.output
        assert r.stdout == want
    assert yili("stats").exit_code == 0
    assert temporaries(env / "cache") == []


def test_index_with_characters_changed_is_rebuilt(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    want = reference(env, monkeypatch, "search", "司射", "--json")
    assert yili("search", "司射").exit_code == 0
    path = index_file(env / "cache")
    data = path.read_bytes()
    assert "司射".encode() in data
    path.write_bytes(data.replace("司射".encode(), "司马".encode()))  # same length: SQLite reads it fine
    r = yili("search", "司射", "--json")
    assert r.exit_code == 0, r.output  # not "no hits"
    assert r.stdout == want


def test_database_error_after_open_rebuilds_once(env: Path) -> None:
    from yili_corpus.api import load
    from yili_corpus.errors import DataError
    from yili_corpus.query import index as ix

    want = load(TEI, env / "ov").search("司射")
    corpus = load(TEI, env / "ov")
    corpus.index  # noqa: B018 - opened (and verified); the tables are not read yet
    path = index_file(env / "cache")
    for off in root_page_offsets(path):
        overwrite(path, off, b"\xa5" * 4096)  # damaged under the open connection
    assert corpus.search("司射") == want
    assert ix.verify(index_file(env / "cache")) is not None  # the new file is whole

    # a second database error is damaged data (exit 3), not an internal error
    corpus = load(TEI, env / "ov")
    corpus.index  # noqa: B018
    path = index_file(env / "cache")
    for off in root_page_offsets(path):
        overwrite(path, off, b"\xa5" * 4096)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(ix, "verify", lambda p: os.stat(p))  # the damage goes unseen: the reopen reads it again
        with pytest.raises(DataError, match=r"index-.*\.sqlite: the search index cannot be read"):
            corpus.search("司射")


# -- 10: a cache folder that cannot be written -----------------------------------------------------------

@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` made unwritable: by its mode, or for root (whom modes do not stop) immutable."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    if not chattr or subprocess.run([chattr, "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr +i: no way to make a folder read-only")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


def reading_commands_work(env: Path, monkeypatch: pytest.MonkeyPatch, notes: int) -> None:
    want = reference(env, monkeypatch, "search", "司射", "--json")
    r = yili("search", "司射", "--json")
    assert r.exit_code == 0, r.output
    assert r.stdout == want
    assert r.stderr.count("yili: note:") == notes, r.stderr
    if notes:
        assert "the search index is built in memory for this run" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    for args in (["search", "司射", "--word"], ["show", "17.2"], ["cite", "司正为司马"], ["stats"]):
        r = yili(*args)
        assert r.exit_code == 0, (args, r.output)
        assert r.stderr.count("yili: note:") == 0, r.stderr  # said once per process only


@pytest.mark.parametrize("where", ["file", "xdg-file", "home-file"])
def test_cache_folder_that_cannot_be_made(env: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    blocker = env / "a-file"
    blocker.write_text("not a folder\n")
    if where == "file":
        monkeypatch.setenv("YILI_CACHE_DIR", str(blocker))
    else:
        monkeypatch.delenv("YILI_CACHE_DIR")
        if where == "xdg-file":
            monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
        else:
            monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
            monkeypatch.setenv("HOME", str(blocker))
    reading_commands_work(env, monkeypatch, notes=1)
    assert blocker.read_text() == "not a folder\n"


def test_read_only_cache_folder_without_an_index(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = env / "cache"
    cache.mkdir()
    with read_only(cache):
        reading_commands_work(env, monkeypatch, notes=1)
    assert list(cache.iterdir()) == []


def test_read_only_cache_folder_with_a_good_index(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert yili("search", "司射").exit_code == 0  # the index is built
    cache = env / "cache"
    before = sorted(p.name for p in cache.iterdir())
    with read_only(cache):
        reading_commands_work(env, monkeypatch, notes=0)  # --word included: it writes nothing now
    assert sorted(p.name for p in cache.iterdir()) == before


def test_cache_folder_that_fills_up(tmp_path: Path) -> None:
    """The disk fills up (here: a file size limit) while the index is written."""
    import resource

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))

    r = subprocess.run([*YILI, "search", "司射", "--json"], env=subprocess_env(tmp_path), capture_output=True,
                       text=True, timeout=60, preexec_fn=small_files)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["total"] > 0
    assert r.stderr.count("yili: note:") == 1 and "built in memory for this run" in r.stderr
    assert list((tmp_path / "cache").iterdir()) == []  # the partial temporary is gone


#: A file size limit well below the index's 2 MB, above anything else a search writes.
FILE_LIMIT = 512 << 10


# -- 11: searches while overlays change -------------------------------------------------------------------

def make_overlay(tmp_path: Path, name: str) -> Path:
    """An overlay file made by yili import (in a folder of its own)."""
    src = tmp_path / "witness.txt"
    src.write_text(PLAIN_WITNESS, encoding="utf-8")
    folder = tmp_path / f"made-{name}"
    r = CliRunner().invoke(main, ["--tei", str(TEI), "--overlay", str(folder), "import", "witness", str(src),
                                  "--name", name])
    assert r.exit_code == 0, r.output
    return folder / f"{name}.xml"


def test_overlays_changing_during_a_build(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An import finishes while the index is being built: the build is done again for the new
    state, and stored under that state's checksum only. (One overlay is there from the start: a
    folder without any is not read, and the import module is not loaded.)"""
    from yili_corpus import overlay
    from yili_corpus.query.index import Index, index_digest, index_path

    ov = env / "ov"
    ov.mkdir()
    shutil.copy(make_overlay(env, "early"), ov / "early.xml")
    made = make_overlay(env, "late")
    real = overlay.read_overlays
    calls: list[list[str]] = []

    def read_then_import(folder: Path):  # reads the old state, then the import lands
        got = real(folder)
        calls.append(sorted(p.name for p in folder.glob("*.xml")))
        if len(calls) == 1:
            shutil.copy(made, folder / made.name)
        return got

    monkeypatch.setattr(overlay, "read_overlays", read_then_import)
    idx = Index.open(TEI, ov)
    digest = index_digest(TEI, ov)
    assert idx.meta["digest"] == digest
    assert calls == [["early.xml"], ["early.xml", "late.xml"]]  # built again, from the new state
    assert index_file(env / "cache") == index_path(digest)
    assert temporaries(env / "cache") == []


def test_overlays_that_keep_changing_during_builds(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Imports land during every build: after BUILD_ATTEMPTS builds the last one serves the run
    from memory, and nothing is stored under a checksum it does not match."""
    from yili_corpus import overlay
    from yili_corpus.query.index import BUILD_ATTEMPTS, Index

    ov = env / "ov"
    ov.mkdir()
    shutil.copy(make_overlay(env, "early"), ov / "early.xml")  # read: a folder without any is not
    made = make_overlay(env, "late")
    real = overlay.read_overlays
    calls: list[int] = []

    def read_then_import(folder: Path):
        got = real(folder)
        calls.append(len(got))
        shutil.copy(made, folder / f"late{len(calls)}.xml")
        return got

    monkeypatch.setattr(overlay, "read_overlays", read_then_import)
    idx = Index.open(TEI, ov)
    assert calls == list(range(1, BUILD_ATTEMPTS + 1)) and idx.path is None
    assert idx.rows(contains="司射")
    assert list((env / "cache").iterdir()) == []


def test_searches_during_imports_with_real_processes(tmp_path: Path) -> None:
    env = subprocess_env(tmp_path)
    (tmp_path / "witness.txt").write_text(PLAIN_WITNESS, encoding="utf-8")
    # three processes building the same index at once
    procs = [subprocess.Popen([*YILI, "search", "司射", "--json"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    assert len({o for o, _ in outs}) == 1
    assert temporaries(tmp_path / "cache") == []

    # searches while overlays are imported and removed
    stop = time.monotonic() + 6
    failures: list[tuple[list[str], int, str]] = []
    counts = {"search": 0, "change": 0}

    def run(args: list[str], kind: str) -> None:
        r = subprocess.run([*YILI, *args], env=env, capture_output=True, text=True, timeout=120)
        counts[kind] += 1
        if r.returncode != 0 or "error" in r.stderr:
            failures.append((args, r.returncode, r.stderr.strip()))

    def changes() -> None:
        i = 0
        while time.monotonic() < stop:
            i += 1
            run(["import", "witness", str(tmp_path / "witness.txt"), "--name", f"w{i}"], "change")
            if i > 1:
                run(["overlays", "remove", f"w{i - 1}"], "change")

    def searches() -> None:
        while time.monotonic() < stop:
            run(["search", "司马", "--json"], "search")

    threads = [threading.Thread(target=changes), threading.Thread(target=searches), threading.Thread(target=searches)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failures = [f for f in failures if f[0][0] == "search" or "cannot be" in f[2]]
    assert not failures, (counts, failures[:3])
    assert counts["search"] >= 4 and counts["change"] >= 4, counts
    assert temporaries(tmp_path / "cache") == []


# -- 12: temporaries of killed builds, old indexes ------------------------------------------------------

def test_killed_build_leaves_no_temporaries_for_good(tmp_path: Path) -> None:
    env = subprocess_env(tmp_path)
    cache = tmp_path / "cache"
    p = subprocess.Popen([*YILI, "search", "司射"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (cache.is_dir() and temporaries(cache)) and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.005)
    p.send_signal(signal.SIGKILL)
    p.wait()
    left = temporaries(cache)
    if not left:
        pytest.skip("the build finished before it could be killed")
    r = subprocess.run([*YILI, "search", "司射"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert temporaries(cache) == []
    index_file(cache)


def test_prune_keeps_recent_indexes_and_only_touches_its_own_files(env: Path) -> None:
    from yili_corpus.query.index import (
        KEEP_INDEXES,
        LEGACY_AGE,
        PRUNE_AFTER,
        index_path,
        tei_digest,
    )

    cache = env / "cache"
    cache.mkdir()
    now = time.time()

    def make(name: str, age: float) -> Path:
        p = cache / name
        p.write_bytes(b"x")
        os.utime(p, (now - age, now - age))
        return p

    old = [make(f"index-{k:016x}-v6.sqlite", 3600 * (k + 1)) for k in range(8)]  # used 1 h … 8 h ago
    recent = make(f"index-{99:016x}-v7.sqlite", PRUNE_AFTER / 2)  # used a moment ago
    legacy = [make(".index-abcd_123.sqlite", LEGACY_AGE + 60), make(".index-abcd_123.sqlite-journal", LEGACY_AGE + 60),
              make(f"index-{1:016x}-v6.userdict.txt", LEGACY_AGE + 60),
              make(".index-0a286d9c37fdfd64-v7.sqlite.yili-999999999-0123abcd.tmp", 0)]  # process gone
    young_legacy = make(".index-efgh_456.sqlite", 10)  # may be an older yili building now
    others = [make("notes.txt", 10 ** 6), make("index-mine.sqlite", 10 ** 6), make(".index-x.tmp", 10 ** 6),
              make(".other.yili-999999999-0123abcd.tmp", 10 ** 6), make("yili-tei.rng", 10 ** 6)]
    (cache / f"index-{7:016x}-v6.sqlite.d").mkdir()

    r = yili("search", "司射")
    assert r.exit_code == 0, r.output
    current = index_path(tei_digest(TEI))
    left = set(cache.iterdir())
    # the current index and the KEEP_INDEXES - 1 most recently used others (young ones in any case)
    assert {p for p in [recent, *old] if p in left} == {recent, *old[: KEEP_INDEXES - 2]}
    assert current in left
    assert not any(p in left for p in legacy)
    assert young_legacy in left and all(p in left for p in others)
    assert (cache / f"index-{7:016x}-v6.sqlite.d").is_dir()


def test_open_marks_the_index_used(env: Path) -> None:
    assert yili("search", "司射").exit_code == 0
    path = index_file(env / "cache")
    day_ago = time.time() - 86400
    os.utime(path, (day_ago, day_ago))
    assert yili("search", "司射").exit_code == 0
    assert path.stat().st_mtime > day_ago + 3600
    assert json.loads(yili("search", "司射", "--json").stdout)["total"] > 0
