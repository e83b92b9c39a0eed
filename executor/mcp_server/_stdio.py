"""Standard input and output as the SDK's ``stdio_server`` reads and writes them, without threads.

The SDK's default wraps fd 0 and 1 in ``anyio.wrap_file``: every line read, every write and
every flush is a hop to a worker thread and back, three a call, which cost more than the
rest of serve's front together. When fd 0 and fd 1 are pipes or sockets (what an MCP client
that starts ``toolcat serve`` gives it), :func:`pipe_streams` reads and writes them on the
event loop instead (``anyio.wait_readable`` / ``wait_writable``). Anything else (a regular
file, a terminal, the null device) gets ``None``, and the SDK's own streams.

Stray output is kept off the wire as the SDK keeps it: while serving, fd 0 reads the null
device and fd 1 writes to stderr, and the wire is read and written through private
duplicates; both are put back on exit.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import anyio

__all__ = ["LineReader", "LineWriter", "pipe_streams"]

_CHUNK = 65536  # bytes read at a time


class LineReader:
    """The lines of a pipe, as text (``async for line in reader``), each with its newline.

    Invalid UTF-8 is replaced (as the SDK's text wrapper does); the last line may lack its
    newline; the iteration ends at end of file."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()
        self._searched = 0  # bytes of the buffer known to hold no newline
        self._eof = False

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self._buffer.find(b"\n", self._searched)
            if end >= 0:
                return self._take(end + 1)
            if self._eof:
                if self._buffer:
                    return self._take(len(self._buffer))
                raise StopAsyncIteration
            self._searched = len(self._buffer)
            await anyio.wait_readable(self.fd)
            try:  # readable: a read returns what is there without blocking
                chunk = os.read(self.fd, _CHUNK)
            except BlockingIOError:
                continue
            except OSError:  # the client's end is gone mid-read (a socket reset)
                chunk = b""
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True

    def _take(self, size: int) -> str:
        line = bytes(self._buffer[:size])
        del self._buffer[:size]
        self._searched = 0
        return line.decode("utf-8", errors="replace")


class LineWriter:
    """Text written whole to a non-blocking pipe; ``flush`` has nothing left to do.

    A full pipe (a client slow to read) waits on the event loop, never blocks it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def write(self, text: str) -> None:
        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                sent = os.write(self.fd, data)
            except BlockingIOError:
                sent = 0
            data = data[sent:]
            if data:
                await anyio.wait_writable(self.fd)

    async def flush(self) -> None:
        return None


def _pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _same_file(a: int, b: int) -> bool:
    try:
        first, second = os.fstat(a), os.fstat(b)
    except OSError:
        return False
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


@contextmanager
def _diverted(fd: int, target: int) -> Iterator[int]:
    """Point ``fd`` at what ``target`` is while the block runs; yield a private duplicate of
    what ``fd`` was (close-on-exec, so upstream servers never inherit the wire)."""
    import fcntl

    wire = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        os.dup2(target, fd)
        try:
            yield wire
        finally:
            os.dup2(wire, fd)
    finally:
        os.close(wire)


@contextmanager
def pipe_streams() -> Iterator[tuple[Any, Any]]:
    """``(stdin, stdout)`` to give ``mcp.server.stdio.stdio_server``: thread-free streams of
    fd 0 and 1 when both are pipes or sockets, else ``(None, None)`` (the SDK's default).

    fd 1 must not be the same pipe as fd 2 (``2>&1``): its write end is made non-blocking,
    which would make stderr's writes fail when the pipe is full."""
    if (
        sys.platform == "win32"
        or not (_pipe_or_socket(0) and _pipe_or_socket(1))
        or _same_file(1, 2)
    ):
        yield None, None
        return
    with ExitStack() as stack:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            wire_in = stack.enter_context(_diverted(0, null))
        finally:
            os.close(null)
        wire_out = stack.enter_context(_diverted(1, 2))
        # the pipe outlives this process: its mode goes back as it was
        stack.callback(os.set_blocking, wire_out, os.get_blocking(wire_out))
        os.set_blocking(wire_out, False)
        yield LineReader(wire_in), LineWriter(wire_out)
