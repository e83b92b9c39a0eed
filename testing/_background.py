"""Serve an ASGI app with uvicorn on 127.0.0.1 in a background thread (demo and tests)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any

__all__ = ["BackgroundServer"]


class BackgroundServer:
    """Starts ``app`` on a free port (or ``port``) and stops it on exit.

    >>> # with BackgroundServer(app) as server: httpx.get(server.url + "/health")
    """

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        import uvicorn  # a dependency of the MCP SDK; imported here to keep CLI startup fast

        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that name TCP, and
        # without it each answer on a kept-alive connection waits ~40 ms for a delayed ACK
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.host, self.port = self._sock.getsockname()[:2]
        config = uvicorn.Config(
            app, log_level="warning", lifespan="auto", ws="none", http="h11", access_log=False
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._sock]},
            name=f"uvicorn-{self.port}",
            daemon=True,
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"server on {self.url} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
