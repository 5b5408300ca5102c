"""Issue 10, files: what a command writes, and what it never touches (findings 1, 2, 5, 12).

Every case is the command as a user types it, in a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from yili_corpus.cli import main
from yili_corpus.files import locked, read_bounded, stale_temporaries, temp_name, write_all

from .conftest import ROOT

TEI = ROOT / "tei" / "yili-xiangsheli.xml"


@pytest.fixture()
def run(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201

    def go(*args: str):  # noqa: ANN202
        return CliRunner().invoke(main, ["--tei", str(TEI), *args])

    return go


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


# -- 1. export -o deletes nothing it did not make ------------------------------------------------------

def test_export_keeps_unrelated_dotfiles(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    keep = [".handout.html.swp", ".env.local", ".a.b", ".handout.html.1234.tmp", ".handout.html.yili-1-zz.tmp"]
    for k in keep:
        (tmp_path / k).write_text("mine")
    r = run("export", "--section", "17", "--format", "html", "-o", "handout.html")
    assert r.exit_code == 0, r.output
    r = run("export", "--section", "17", "--format", "md", "-o", "*")
    assert r.exit_code == 0, r.output
    for k in keep:
        assert (tmp_path / k).read_text() == "mine", k
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*keep, "handout.html", "*"])


def test_only_our_dead_temporaries_are_stale(tmp_path: Path) -> None:
    dead = _dead_pid()
    ours_dead = tmp_path / f".x.xml.yili-{dead}-0123abcd.tmp"
    ours_alive = tmp_path / f".x.xml.yili-{os.getpid()}-0123abcd.tmp"
    theirs = [tmp_path / n for n in (".x.xml.swp", f".x.xml.{dead}.tmp", f".x.xml.yili-{dead}-0123abcd.tmp.bak")]
    for p in (ours_dead, ours_alive, *theirs):
        p.write_text("")
    assert stale_temporaries(tmp_path, "x.xml") == [ours_dead]
    assert stale_temporaries(tmp_path, "y.xml") == []
    assert temp_name(tmp_path / "x.xml") != temp_name(tmp_path / "x.xml")


# -- 2. only regular files are replaced ----------------------------------------------------------------

@pytest.mark.parametrize("kind", ["symlink", "dangling", "fifo", "device", "folder"])
def test_export_refuses_what_is_not_a_regular_file(run, tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out.html"
    if kind == "symlink":
        (tmp_path / "real.txt").write_text("keep")
        target.symlink_to(tmp_path / "real.txt")
    elif kind == "dangling":
        target.symlink_to(tmp_path / "nowhere")
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        target = Path("/dev/null")
    else:
        target.mkdir()
    before = os.lstat(target)
    for force in ([], ["--force"]):
        r = run("export", "--section", "17", "--format", "html", "-o", str(target), *force)
        assert r.exit_code == 2, r.output
        assert r.output.count("\n") == 1 and "wrote" not in r.output
        after = os.lstat(target)
        assert (after.st_mode, after.st_ino, after.st_size) == (before.st_mode, before.st_ino, before.st_size)
    if kind == "symlink":
        assert (tmp_path / "real.txt").read_text() == "keep"
    if kind == "dangling":
        assert not (tmp_path / "nowhere").exists()


def test_export_to_a_folder_name_with_slash(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = run("export", "--section", "17", "--format", "md", "-o", "newdir/")
    assert r.exit_code == 2 and "folder" in r.output
    assert list(tmp_path.iterdir()) == []


def test_export_existing_file_needs_force(run, tmp_path: Path) -> None:
    out = tmp_path / "a.md"
    out.write_text("mine")
    r = run("export", "--section", "17", "--format", "md", "-o", str(out))
    assert r.exit_code == 2 and "--force" in r.output and out.read_text() == "mine"
    r = run("export", "--section", "17", "--format", "md", "-o", str(out), "--force")
    assert r.exit_code == 0 and out.read_text() != "mine"


# -- 5. build: every destination checked before anything is replaced -----------------------------------

@pytest.mark.parametrize("bad", ["file", "readonly"])
def test_build_with_unwritable_report_dir_changes_nothing(tmp_path: Path, bad: str) -> None:
    if bad == "readonly" and os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    tei_dir = tmp_path / "tei"
    tei_dir.mkdir()
    old = tei_dir / "yili-xiangsheli.xml"
    old.write_bytes(b"<old/>")
    rep = tmp_path / "report"
    if bad == "file":
        rep.write_text("a file, not a folder")
    else:
        rep.mkdir()
        rep.chmod(0o500)
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(ROOT / "corpus"), "--tei-dir", str(tei_dir),
                                  "--report-dir", str(rep), "-q"])
    assert r.exit_code == 2, r.output
    assert r.output.count("\n") == 1
    assert old.read_bytes() == b"<old/>"
    assert sorted(p.name for p in tei_dir.iterdir()) == ["yili-xiangsheli.xml"]


def test_write_all_is_all_or_nothing(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "sub" / "b.txt"
    a.write_text("old")
    (tmp_path / "sub").write_text("a file where a folder should be")
    with pytest.raises(Exception):  # noqa: B017 - any refusal will do; the point is what is left
        write_all([(a, b"new"), (b, b"new")], make_dirs=True)
    assert a.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "sub"]


def test_write_all_failing_rename_leaves_old_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a")
    b.write_text("old b")
    real = os.replace
    calls = []

    def replace(src, dst):  # noqa: ANN001, ANN202
        calls.append(dst)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(Exception):  # noqa: B017
        write_all([(a, b"new a"), (b, b"new b")])
    assert a.read_text() == "old a" and b.read_text() == "old b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


# -- 12. a killed build's temporary is cleaned by the next build, and nothing else ----------------------

def test_next_build_removes_a_killed_builds_temporary(tmp_path: Path) -> None:
    tei_dir, rep = tmp_path / "tei", tmp_path / "build"
    tei_dir.mkdir()
    stale = tei_dir / f".yili-xiangsheli.xml.yili-{_dead_pid()}-deadbeef.tmp"
    stale.write_bytes(b"half a TEI")
    mine = tei_dir / ".yili-xiangsheli.xml.swp"
    mine.write_text("an editor's swap file")
    r = CliRunner().invoke(main, ["build", "--chapter", "xiangsheli", "--corpus", str(ROOT / "corpus"), "--tei-dir", str(tei_dir),
                                  "--report-dir", str(rep), "-q"])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tei_dir.iterdir()) == [".yili-xiangsheli.xml.swp", "yili-xiangsheli.xml"]
    assert (tei_dir / "yili-xiangsheli.xml").read_bytes() == TEI.read_bytes()


def test_killed_build_leaves_the_old_tei(tmp_path: Path) -> None:
    """Killed between writing its temporary and the rename: the old TEI stands, and the next
    build cleans up. The kill is made certain by stopping the process at the rename."""
    tei_dir = tmp_path / "tei"
    tei_dir.mkdir()
    (tei_dir / "yili-xiangsheli.xml").write_bytes(b"<old/>")
    code = (
        "import os, sys\n"
        "from yili_corpus import files\n"
        "def die(src, dst):\n"
        "    os.kill(os.getpid(), 9)\n"
        "files.os.replace = die\n"
        "from yili_corpus.cli import main\n"
        f"sys.argv = ['yili', 'build', '--chapter', 'xiangsheli', '--corpus', {str(ROOT / 'corpus')!r}, '--tei-dir', {str(tei_dir)!r},"
        f" '--report-dir', {str(tmp_path / 'rep')!r}, '-q']\n"
        "main()\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert p.returncode == -9
    assert (tei_dir / "yili-xiangsheli.xml").read_bytes() == b"<old/>"
    left = [x.name for x in tei_dir.iterdir() if x.name != "yili-xiangsheli.xml"]
    assert len(left) == 1 and left[0].startswith(".yili-xiangsheli.xml.yili-")
    assert stale_temporaries(tei_dir) == [tei_dir / left[0]]


# -- bounded reads and the lock ----------------------------------------------------------------------

def test_read_bounded_refuses_fifo_device_and_large(tmp_path: Path) -> None:
    from yili_corpus.errors import UsageError

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    for p in (fifo, Path("/dev/zero"), tmp_path):
        with pytest.raises(UsageError):
            read_bounded(p, 1000)
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(UsageError, match="at most"):
        read_bounded(big, 1000)
    assert read_bounded(big, 1001) == b"x" * 1001


def test_lock_is_exclusive_across_processes(tmp_path: Path) -> None:
    code = (
        "import sys, time\nfrom pathlib import Path\nfrom yili_corpus.files import locked\n"
        f"with locked(Path({str(tmp_path)!r})):\n    print('in', flush=True)\n    time.sleep(1.0)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "in"
    import time

    t0 = time.monotonic()
    with locked(tmp_path):
        waited = time.monotonic() - t0
    p.wait(timeout=30)
    assert waited > 0.3  # it had to wait for the other process to let go


# -- 10. validate with a cache folder that cannot be written --------------------------------------------

def test_validate_without_a_writable_cache_keeps_the_schema_in_memory(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from yili_corpus.tei import schema as schema_mod

    real = schema_mod.schema_path()  # the schema as the suite has it cached
    assert real is not None
    data = real.read_bytes()
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("YILI_CACHE_DIR", str(blocker))
    monkeypatch.setattr(schema_mod, "fetch_schema", lambda timeout=180: data)
    monkeypatch.setattr(schema_mod, "_FETCHED", None)
    monkeypatch.setattr(schema_mod, "_COMPILED", {})
    r = CliRunner().invoke(main, ["validate", "--corpus", str(ROOT / "corpus"), str(TEI)])
    assert r.exit_code == 0, r.output
    assert "valid" in r.output and "internal error" not in r.output
    assert blocker.read_text() == "a file where the cache folder should be"
