"""Shared fixtures: the real corpus, built once per test session; every test runs with the
user folders (cache, overlays, data) in a temporary folder of the session, and no test may leave a
file in the repository (checked when the session ends)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

from yili_corpus.build import BuildResult, run_build

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"

#: No example database in the repository (hypothesis would write .hypothesis/ there), and its
#: other files (a cache of constants) in a temporary folder of the session.
settings.register_profile("yili", database=None)
settings.load_profile("yili")
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="yili-hypothesis-")
set_hypothesis_home_dir(_HYPOTHESIS_HOME)

#: The variables through which a test could read or write the user's own folders.
USER_VARS = ("YILI_CACHE_DIR", "YILI_OVERLAY", "YILI_TEI", "XDG_CACHE_HOME", "XDG_DATA_HOME")


def _repo_files() -> set[str]:
    """Every file of the checkout that git does not track (ignored ones included)."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {ln[3:] for ln in out.stdout.splitlines() if ln[:2] in ("??", "!!")} if out.returncode == 0 else set()


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_BEFORE] = _repo_files()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(_BEFORE, None)
    if before is None:
        return
    # build/ (ignored by git) is where tests leave what a person should look at: the browser
    # tests' screenshots and PDFs, the LaTeX PDF's first page
    new = sorted(f for f in _repo_files() - before if "__pycache__" not in f and not f.startswith("build/"))
    if new:
        print(f"\ntests wrote into the repository: {', '.join(new[:10])}")
        session.exitstatus = 1
    shutil.rmtree(_HYPOTHESIS_HOME, ignore_errors=True)


_BEFORE = pytest.StashKey[set]()


@pytest.fixture(scope="session", autouse=True)
def _user_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Cache, overlay and data folders of the session, not the user's; the cached TEI schema
    (fetched once from the package registry) is copied in when the user's cache has it."""
    from yili_corpus.paths import cache_dir
    from yili_corpus.tei.schema import FILENAME

    base = tmp_path_factory.mktemp("user")
    user_schema = cache_dir() / FILENAME
    with pytest.MonkeyPatch.context() as mp:
        for v in USER_VARS:
            mp.delenv(v, raising=False)
        mp.setenv("YILI_CACHE_DIR", str(base / "cache"))
        mp.setenv("XDG_CACHE_HOME", str(base / "xdg-cache"))
        mp.setenv("XDG_DATA_HOME", str(base / "xdg-data"))
        if user_schema.is_file():
            (base / "cache").mkdir()
            shutil.copyfile(user_schema, base / "cache" / FILENAME)
        yield base


@pytest.fixture(autouse=True)
def _no_leaked_environment() -> Iterator[None]:
    """A test that changes the environment by hand (not through monkeypatch) fails: the change
    would leak into every later test."""
    before = dict(os.environ)
    yield
    after = dict(os.environ)
    changed = sorted(k for k in before.keys() | after.keys()
                     if before.get(k) != after.get(k) and k != "PYTEST_CURRENT_TEST")
    assert not changed, f"the test left environment variables changed: {', '.join(changed)}"


@pytest.fixture(scope="session")
def built() -> BuildResult:
    """The build of the real corpus."""
    return run_build(CORPUS)


@pytest.fixture()
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the corpus folder (for tests that damage it)."""
    dst = tmp_path / "corpus"
    shutil.copytree(CORPUS, dst)
    return dst
