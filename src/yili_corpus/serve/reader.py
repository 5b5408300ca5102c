"""The reader: the one thread that reads the work for the server (docs/serve.md).

The work's indexes are SQLite connections and its documents are parsed once and kept; neither
may be shared between threads. Every request hands its job to this thread and awaits it, so the
event loop keeps accepting clients while a job runs; a job that runs past
:data:`REQUEST_SECONDS` gets its request a 503 (the thread finishes it before the next).

The thread is a daemon: when the server stops, a job still running (opening a chapter's index
for the first time) does not hold the process open. An index it was building is left as the
process's own temporary, which the next build removes (``files.stale_temporaries``), as after a
killed process; the cache never holds a half-built index under its real name.
"""

from __future__ import annotations

import asyncio
import functools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from starlette.exceptions import HTTPException

T = TypeVar("T")

#: How long one job of the reader may take before its request is answered 503.
REQUEST_SECONDS = 20.0


class Reader:
    """The work, read by one thread: ``await reader(fn, *args)`` runs ``fn(work, *args)`` there."""

    def __init__(self, work: Any) -> None:
        self.work = work
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="yili-reader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (item := self._jobs.get()) is not None:
            future, job = item
            if not future.set_running_or_notify_cancel():  # its request gave up waiting
                continue
            try:
                future.set_result(job())
            except BaseException as exc:  # noqa: BLE001 - the request reports it
                future.set_exception(exc)

    async def __call__(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """The result of ``fn(work, *args, **kwargs)``, computed by the reader thread."""
        future: Future[T] = Future()
        self._jobs.put((future, functools.partial(fn, self.work, *args, **kwargs)))
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), REQUEST_SECONDS)
        except TimeoutError:
            raise HTTPException(503, f"the answer took longer than {REQUEST_SECONDS:g} s; ask for less") from None

    def close(self) -> None:
        """Stop the reader thread after the job it is running (the application's shutdown); the
        jobs still queued are not run."""
        while True:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        self._jobs.put(None)
