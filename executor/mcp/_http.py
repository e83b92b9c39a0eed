"""An HTTP upstream's JSON answers read up to a bound (the SDK reads them whole).

SSE streams are bounded per event by the SDK itself (``max_sse_event_size``). A JSON answer
over the bound fails its request with an error that names the "byte limit", which the link
reports as ``response_too_large``. Imported only when an HTTP upstream connects.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2

__all__ = ["CappedBody", "CappedTransport"]


class CappedBody(httpx2.AsyncByteStream):
    """A response body that stops with ``httpx2.StreamError`` past ``limit`` bytes."""

    def __init__(self, inner: httpx2.AsyncByteStream, limit: int) -> None:
        self.inner, self.limit = inner, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self.inner:
            read += len(chunk)
            if read > self.limit:
                raise httpx2.StreamError(f"the answer exceeded the {self.limit} byte limit")
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """``inner``, with every JSON answer's body capped at ``limit`` bytes."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int) -> None:
        self.inner, self.limit = inner, limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if response.headers.get("content-type", "").lower().startswith("application/json"):
            assert isinstance(response.stream, httpx2.AsyncByteStream)
            response.stream = CappedBody(response.stream, self.limit)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
