"""Shared fixtures: the real corpus, built once per test session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from yili_corpus.build import BuildResult, run_build

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


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
