"""The reader: the one thread that reads the work for the server (docs/serve.md).

The work's indexes are SQLite connections and its documents are parsed once and kept; neither
may be shared between threads. Every request hands its job to this thread and awaits it, so the
event loop keeps accepting clients while a job runs; a job that runs past
:data:`REQUEST_SECONDS` gets its request a 503 (the thread finishes it before the next).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.exceptions import HTTPException

T = TypeVar("T")

#: How long one job of the reader may take before its request is answered 503.
REQUEST_SECONDS = 20.0

class Reader:
    """The work, read by one thread: ``await reader(fn, *args)`` runs ``fn(work, *args)`` there."""

    def __init__(self, work: Any) -> None:
        self.work = work
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yili-reader")

    async def __call__(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """The result of ``fn(work, *args, **kwargs)``, computed by the reader thread."""
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(self._pool, functools.partial(fn, self.work, *args, **kwargs))
        try:
            return await asyncio.wait_for(job, REQUEST_SECONDS)
        except TimeoutError:
            raise HTTPException(503, f"the answer took longer than {REQUEST_SECONDS:g} s; ask for less") from None

    def close(self) -> None:
        """Stop the reader thread (the application's shutdown)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
