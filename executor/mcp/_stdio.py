"""A stdio client transport whose reader is bounded: no line over ``max_bytes`` is kept.

The SDK's own stdio reader keeps a whole line in memory however long it is (and joins its
chunks by repeated string concatenation, so a 50 MB answer took longer than a call's
timeout). This one reads bytes, keeps at most ``max_bytes`` of a line, and answers the
request an oversized line was the response to with a JSON-RPC error of its own
(:data:`RESPONSE_TOO_LARGE`), found by the ``id`` at the start or end of the line; the
rest of the line is read and dropped. A response the SDK cannot read (a ``result`` that is
not an object, JSON nested deeper than its parser goes) is answered the same way
(:data:`UNREADABLE_RESPONSE`, with the SDK's first problem), so the request it answers
fails at once instead of waiting for its timeout. Everything else is the SDK's: the
message types, the parse, the process-tree kill. The server gets exactly ``env`` (no
other variable).
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from typing import IO, Any

import anyio
import anyio.abc
from toolcat.catalog.common import escape_controls

__all__ = ["ASK_FOR_LESS", "RESPONSE_TOO_LARGE", "UNREADABLE_RESPONSE", "bounded_stdio"]

log = logging.getLogger("toolcat.mcp")

#: The JSON-RPC error code this transport answers an oversized response with (in the
#: implementation-defined server-error range).
RESPONSE_TOO_LARGE = -32099
#: The code of the error that stands for a response the SDK could not read.
UNREADABLE_RESPONSE = -32098

#: What a ``response_too_large`` message ends with: what the model can do about it.
ASK_FOR_LESS = "; ask for less (a range, a page, a narrower query)"

_EXIT_WAIT = 2.0  # seconds a server gets to exit after its stdin closes (as the SDK's)
_KEEP = 512  # bytes of an oversized line's start and end kept to find its id
_ID = rb'(-?\d+|"(?:[^"\\]|\\.){0,200}")'
_HEAD = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID)
_TAIL = re.compile(rb'"id"\s*:\s*' + _ID + rb'\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$')


def _oversized_id(head: bytes, tail: bytes) -> int | str | None:
    import json

    found = _HEAD.match(head) or _TAIL.search(tail)
    if found is None:
        return None
    value: int | str = json.loads(found.group(1))
    return value


class _Lines:
    """Splits a byte stream into lines, each kept up to ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._over = False
        self._head = b""
        self._tail = b""
        self._size = 0

    def feed(self, chunk: bytes) -> list[tuple[bytes | None, int | str | None, int]]:
        """The lines ``chunk`` completes: (line, None, size), or (None, id, size) for one
        over the limit (its id, if it had one where a response keeps it)."""
        out: list[tuple[bytes | None, int | str | None, int]] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            self._add(piece)
            if end < 0:
                return out
            start = end + 1
            if self._over:
                out.append((None, _oversized_id(self._head, self._tail), self._size))
            else:
                out.append((bytes(self._buf), None, self._size))
            self._buf.clear()
            self._over, self._head, self._tail, self._size = False, b"", b"", 0

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._over:
            self._tail = (self._tail + piece)[-_KEEP:]
            return
        self._buf += piece
        if len(self._buf) > self.limit:
            self._over = True
            self._head = bytes(self._buf[:_KEEP])
            self._tail = bytes(self._buf[-_KEEP:])
            self._buf.clear()


def _too_large(request_id: int | str, size: int, limit: int) -> Any:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    message = f"the response was {size} bytes or more, over the {limit} bytes a result may have"
    error = types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=types.ErrorData(code=RESPONSE_TOO_LARGE, message=message),
    )
    return SessionMessage(error)


def _parse(line: bytes) -> Any:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        answer = _answer(line)
        if answer is None:
            return _not_json_rpc(line)
        error = types.ErrorData(code=UNREADABLE_RESPONSE, message=_unreadable(answer, exc))
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=answer["id"], error=error))


def _answer(line: bytes) -> dict[str, Any] | None:
    """``line`` as a JSON object when it reads as a response (an ``id``, a ``result`` or
    ``error``, no ``method``); else ``None``."""
    import json

    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or "method" in message:
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    return message if "result" in message or "error" in message else None


def _unreadable(answer: dict[str, Any], exc: ValueError) -> str:
    """Why the SDK could not read ``answer``: its first problem as a response (the parse
    tried every kind of message), else the parse's own (JSON nested too deep)."""
    import mcp_types as types
    from pydantic import ValidationError

    from ._connect import malformed

    kind = types.JSONRPCError if "error" in answer else types.JSONRPCResponse
    try:
        kind.model_validate(answer, by_name=False)
    except ValidationError as problem:
        exc = problem
    why = malformed(exc) if isinstance(exc, ValidationError) else str(exc)
    return f"an answer that is not valid JSON-RPC ({why})"


_SHOWN = 200  # characters of a line that is not JSON-RPC quoted in the log


def _not_json_rpc(line: bytes) -> ValueError:
    """A stdout line that is no JSON-RPC message (a banner, a debug print): the session
    skips it, and the log quotes its start."""
    text = escape_controls(line[: _SHOWN * 4].decode("utf-8", "replace").strip())
    cut = text[:_SHOWN] + ("…" if len(text) > _SHOWN else "")
    return ValueError(repr(cut))


@asynccontextmanager
async def bounded_stdio(
    argv: list[str],
    *,
    env: Mapping[str, str],
    cwd: str | None,
    errlog: IO[str],
    max_bytes: int,
    on_exit: Callable[[], None] | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Run ``argv`` and yield the SDK's (read, write) streams of its stdout and stdin.

    ``on_exit()`` is called when the server closes its stdout on its own (it exited or
    crashed), before the session notices at its next request."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    process = await anyio.open_process(
        argv, env=dict(env), cwd=cwd, stderr=errlog, start_new_session=True
    )
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)
    assert process.stdout is not None and process.stdin is not None
    stdout, stdin = process.stdout, process.stdin

    async def reader() -> None:
        lines = _Lines(max_bytes)
        async with read_writer:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                async for chunk in stdout:
                    for line, request_id, size in lines.feed(chunk):
                        if line is not None:
                            if line.strip():
                                await read_writer.send(_parse(line))
                        elif request_id is not None:
                            await read_writer.send(_too_large(request_id, size, max_bytes))
                        else:
                            log.warning("an MCP server wrote a line of %d bytes, dropped", size)
        if on_exit is not None and not closing.is_set():
            on_exit()

    async def writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send((data + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()  # the server is gone: pending requests end now

    closing = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            closing.set()
            with anyio.CancelScope(shield=True):
                await write_stream.aclose()
                with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await stdin.aclose()
                with anyio.move_on_after(_EXIT_WAIT):
                    await process.wait()
                if process.returncode is None:
                    await terminate_posix_process_tree(process, _EXIT_WAIT)
                await read_stream.aclose()
            tg.cancel_scope.cancel()
