"""``yili serve``: the reading room in the browser and the corpus as a DTS 1.0 API (docs/serve.md).

A read-only web application over the TEI, like every other reader of the package:

- :mod:`.app` — the application: its routes, the one thread that reads the work, errors as a
  status code and a short message (never a traceback), the bounds on every request;
- :mod:`.room` — the reading room: chapters, sections, a passage laid out as an 注疏 edition,
  search, citations;
- :mod:`.dts` — the Distributed Text Services 1.0 endpoints (Entry, Collection, Navigation,
  Document) under ``/api/dts/``;
- ``static/`` — the room's stylesheet and script (no external asset: it works offline).
"""

from .app import create_app

__all__ = ["create_app"]
