"""A loopback HTTP/1.1 server below any framework, for upstreams that misbehave on purpose.

Every connection's request head is read, then ``handler`` writes whatever it likes
on the raw socket: stacked encodings, bombs, headers trickled a byte at a time.
Used by the bounds tests and by ``benchmarks/bench_bounds.py``.
"""

from __future__ import annotations

import socket
import threading
import zlib
from collections.abc import Callable

__all__ = ["RawHandler", "RawServer", "zeros_gzip"]

RawHandler = Callable[[socket.socket], None]


class RawServer:
    """A loopback HTTP/1.1 server that answers every connection with ``handler``."""

    def __init__(self, handler: RawHandler) -> None:
        self.handler = handler
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    piece = conn.recv(65536)
                    if not piece:
                        return
                    data += piece
                self.handler(conn)
            except OSError:
                pass

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def close(self) -> None:
        self.closed.set()
        self.sock.close()


def zeros_gzip(size: int) -> bytes:
    """``size`` zero bytes, gzipped without holding them all in memory."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(size >> 20)]
    return b"".join([*parts, packer.flush()])
