"""yili-corpus: an aligned, citable TEI corpus of 《仪礼·乡射礼》 and the ``yili`` command line.

The build runs sources → parse (:mod:`yili_corpus.sources`) → normalise, collate, segment
(:mod:`yili_corpus.text`) → align (:mod:`yili_corpus.align`) → TEI (:mod:`yili_corpus.tei`).
The read wing reads the TEI: :func:`load` gives a corpus with ``search``, ``passage``, ``cite``,
``xref``, ``stats`` and ``export``.
"""

from .api import Corpus, Work, cite, load, load_work, passage, search

__version__ = "0.1.0"

__all__ = ["Corpus", "Work", "load", "load_work", "search", "passage", "cite", "__version__"]
