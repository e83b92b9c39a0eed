"""Standard input and output as the SDK's ``stdio_server`` reads and writes them, without threads.

The SDK's default wraps fd 0 and 1 in ``anyio.wrap_file``: every line read, every write and
every flush is a hop to a worker thread and back, three a call, which cost more than the
rest of serve's front together. When fd 0 and fd 1 are pipes or sockets (what an MCP client
that starts ``toolcat serve`` gives it), :func:`pipe_streams` reads and writes them on the
event loop instead, through asyncio's own pipe transports and streams
(``loop.connect_read_pipe`` with a ``StreamReader``, ``loop.connect_write_pipe`` with a
``StreamWriter``). Anything else (a regular file, a terminal, the null device) gets
``None``, and the SDK's own streams.

Stray output is kept off the wire as the SDK keeps it: while serving, fd 0 reads the null
device and fd 1 writes to stderr, and the wire is read and written through private
duplicates; both are put back on exit.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from typing import Any

__all__ = ["MAX_LINE_BYTES", "LineReader", "LineWriter", "open_lines", "pipe_streams"]

log = logging.getLogger("toolcat.serve")

#: The longest line (one JSON-RPC message) read from a client; a longer one is dropped.
MAX_LINE_BYTES = 64 * 1024 * 1024


class LineReader:
    """The lines of a stream, as text (``async for line in reader``), each with its newline.

    Invalid UTF-8 is replaced (as the SDK's text wrapper does); the last line may lack its
    newline; the iteration ends at end of file. A line over the reader's limit is dropped
    with a warning, and what follows it up to its newline reads as a line the SDK reports
    as malformed."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        try:
            line = await self._reader.readline()
        except ValueError:  # over the limit: asyncio dropped what it held of the line
            log.warning("stdio: a message over the line limit was dropped")
            return "\n"
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class LineWriter:
    """Text written to a stream; ``write`` returns once the text is in the pipe, waiting on
    the loop (not blocking it) while the pipe is full."""

    def __init__(
        self, writer: asyncio.StreamWriter, reader_transport: asyncio.BaseTransport
    ) -> None:
        self._writer = writer
        self._reader_transport = reader_transport  # closed with the writer (one pair)

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))
        await self._writer.drain()

    async def flush(self) -> None:
        return None

    async def aclose(self) -> None:
        """Close the transports (not the descriptors)."""
        self._reader_transport.close()
        self._writer.close()
        await self._writer.wait_closed()


async def open_lines(
    read_fd: int, write_fd: int, *, limit: int = MAX_LINE_BYTES
) -> tuple[LineReader, LineWriter]:
    """A :class:`LineReader` of ``read_fd`` (lines up to ``limit`` bytes) and a
    :class:`LineWriter` of ``write_fd`` (pipes or sockets) on the running loop. Neither
    closes its descriptor: its owner does."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0, closefd=False)
    )
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()),
        os.fdopen(write_fd, "wb", 0, closefd=False),
    )
    transport.set_write_buffer_limits(0)  # drain() returns once all is written, as flush does
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return LineReader(reader), LineWriter(writer, read_transport)


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


@asynccontextmanager
async def pipe_streams() -> AsyncIterator[tuple[Any, Any]]:
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
        # the pipes outlive this process: their modes go back as they were
        for fd in (wire_in, wire_out):
            stack.callback(os.set_blocking, fd, os.get_blocking(fd))
        reader, writer = await open_lines(wire_in, wire_out)
        try:
            yield reader, writer
        finally:
            await writer.aclose()
