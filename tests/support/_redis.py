"""A real ``redis-server`` on a free loopback port for tests and benchmarks: nothing
written to disk, protected mode on, stopped hard by :meth:`RedisServer.kill`."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

__all__ = ["RedisServer", "RedisUnavailable"]


class RedisUnavailable(RuntimeError):
    """``redis-server`` is not installed, or did not answer ``PING`` in time."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class RedisServer:
    """One ``redis-server`` on 127.0.0.1 (``url``); ``port`` reuses a port (a restart).

    Raises :class:`RedisUnavailable` when it cannot be had (a test skips on it)."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        program = shutil.which("redis-server")
        if program is None:
            raise RedisUnavailable(
                "redis-server is not installed (Debian: apt-get install redis-server)"
            )
        self.port = port if port is not None else _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = subprocess.Popen(
            [
                program,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--dir", str(workdir),
                "--protected-mode", "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while not self._answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RedisUnavailable("redis-server did not start")
            time.sleep(0.05)

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.kill()
