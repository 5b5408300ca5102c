"""Build hook: the package carries the corpus it reads (the TEI of tei/) as package data, so that
``pip install .`` gives a ``yili`` that works from any folder (docs/design.md, "The package").
Everything else is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
#: Where the TEI goes inside the installed package (yili_corpus.paths.packaged_tei_dir reads it).
DATA = Path("yili_corpus") / "data" / "tei"


class BuildWithCorpus(build_py):
    """build_py, then a copy of tei/yili-*.xml into yili_corpus/data/tei/ of the build."""

    def run(self) -> None:
        super().run()
        found = sorted((HERE / "tei").glob("yili-*.xml"))
        if not found:
            raise SystemExit("tei/ has no yili-*.xml: run yili build before packaging")
        dest = Path(self.build_lib) / DATA
        dest.mkdir(parents=True, exist_ok=True)
        for f in found:
            shutil.copyfile(f, dest / f.name)


setup(cmdclass={"build_py": BuildWithCorpus})
