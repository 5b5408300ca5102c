"""yili-corpus: an aligned, citable TEI corpus of 《仪礼·乡射礼》 and the ``yili`` command line.

The build runs sources → parse (:mod:`yili_corpus.sources`) → normalise and collate and segment
(:mod:`yili_corpus.text`) → align (:mod:`yili_corpus.align`) → output (:mod:`yili_corpus.build`).
"""

__version__ = "0.1.0"
