"""httpx's I/O as effects of a flow (see ``executor._flow``): send, read a chunk, close.

These are the only steps of the HTTP transport with a sync and an async form, one
line each, as httpx's own ``Client`` and ``AsyncClient`` have; the flows that use them
(the attempts of a call, a token request) are written once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from functools import partial
from typing import Any

import httpx
from toolcat.executor._flow import Io

__all__ = ["Chunks", "close", "send"]


def send(client: Any, request: httpx.Request, follow_redirects: bool) -> Io:
    """Send ``request`` and stream the response, with the client of the driver: one call
    for both, as the async client's ``send`` returns what the async driver awaits."""
    call = partial(client.send, request, stream=True, follow_redirects=follow_redirects)
    return Io(call, call)


class Chunks:
    """A streamed response's body, one chunk per step and ``None`` at its end: as it came
    off the wire (``raw``) or decoded by httpx. A response built from bytes in memory (a
    mock transport) has been read and decoded already: its content is the one chunk."""

    __slots__ = ("_async", "_left", "_raw", "_read", "_response", "_sync")

    def __init__(self, response: httpx.Response, *, raw: bool) -> None:
        self._response = response
        self._raw = raw
        self._read = response.is_stream_consumed  # decided once: reading consumes the stream
        self._left: bytes | None = response.content if self._read else None
        self._sync: Iterator[bytes] | None = None
        self._async: AsyncIterator[bytes] | None = None

    def _content(self) -> bytes | None:
        content, self._left = self._left, None
        return content

    def run(self) -> bytes | None:
        if self._read:
            return self._content()
        if self._sync is None:
            r = self._response
            self._sync = r.iter_raw() if self._raw else r.iter_bytes()
        return next(self._sync, None)

    async def arun(self) -> bytes | None:
        if self._read:
            return self._content()
        if self._async is None:
            r = self._response
            self._async = r.aiter_raw() if self._raw else r.aiter_bytes()
        return await anext(self._async, None)


def close(response: httpx.Response) -> Io:
    """Close ``response`` (its connection goes back to the pool)."""
    return Io(response.close, response.aclose)
