"""The code is ruff clean."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def test_ruff_clean() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "src", "tests"], cwd=ROOT, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr
