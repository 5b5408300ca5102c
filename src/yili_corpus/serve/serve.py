"""Running the application: uvicorn on a socket the command line has bound (so a port in use is a
one-line error before anything starts), quiet but for one line saying where the room is."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import Any

from .app import create_app


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def run(work: Any, sock: socket.socket, say: Callable[[str], None] = print) -> None:
    """Serve ``work`` on the bound socket ``sock`` until interrupted."""
    import uvicorn

    sock.listen(2048)  # clients that come before uvicorn has started wait in the queue
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    try:  # from the first line on, Ctrl-C is the normal stop (a reader may press it at once)
        say(f"yili serve: the reading room at http://{shown}:{port}/ and the DTS API at "
            f"http://{shown}:{port}/api/dts/ (Ctrl-C stops it)")
        if not _loopback(host):
            say(f"yili serve: listening on {host}, not only this machine: anyone who can reach it can "
                "read the corpus")
        config = uvicorn.Config(create_app(work), log_level="warning", access_log=False,
                                limit_concurrency=200, timeout_keep_alive=5, server_header=False)
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn has shut down and passes Ctrl-C on: the normal stop
        pass
    say("yili serve: stopped")
