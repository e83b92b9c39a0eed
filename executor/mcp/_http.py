"""HTTP upstreams through httpx2 (the SDK's client): JSON answers read up to a bound, and
a current OAuth token on every request.

SSE streams are bounded per event by the SDK itself (``max_sse_event_size``). A JSON answer
over the bound fails its request with an error that names the "byte limit", which the link
reports as ``response_too_large``. Imported only when an HTTP upstream connects.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2

__all__ = ["CappedBody", "CappedTransport", "TokenAuth", "refusal"]


class _AnswerErrorNoted(logging.Filter):
    """Drops the SDK's log record (a traceback, for a JSON answer) of an answer it could
    not read: a JSON body the cap stopped, one that is no JSON-RPC message, or another
    content type. The SDK makes it the request's error, which toolcat reports (the call's
    ``response_too_large`` or ``upstream_error``, the connect's one line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        said = str(record.msg)
        return not (
            said == "Error parsing JSON response"
            or said.startswith("Unexpected content type")
            # the DELETE that ends a session the server no longer knows (the link said so)
            or said in ("Session termination failed: 404", "Session termination failed: 400")
        )


logging.getLogger("mcp.client.streamable_http").addFilter(_AnswerErrorNoted())


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
    """``inner``, with every JSON answer's body capped at ``limit`` bytes.

    ``refused`` keeps the status and reason of the last POST if it got an HTTP error:
    the SDK reports one with no JSON-RPC error in its body without its status ("Server
    returned an error response"), so :func:`refusal` can say what it was.

    ``on_expired(said)`` is called when a request that carries a session id is answered
    404 (``said`` is ``None``): the server no longer knows the session (it restarted, or
    ended it), and MCP has the client start a new one. The SDK only makes the 404 the
    request's error. Servers built on the TypeScript SDK's example answer 400 instead,
    with a JSON-RPC error about the session ("Bad Request: No valid session ID
    provided"): that too, ``said`` being the error's message, which the SDK gives the
    request as its error."""

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        limit: int,
        on_expired: Callable[[str | None], None] | None = None,
    ) -> None:
        self.inner, self.limit = inner, limit
        self.refused: tuple[int, str] | None = None
        self.on_expired = on_expired

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if self.on_expired is not None and "mcp-session-id" in request.headers:
            if response.status_code == 404:
                self.on_expired(None)
            elif response.status_code == 400 and _json(response):
                response, said = await _error_said(response, self.limit)
                if said is not None and "session" in said.lower():
                    self.on_expired(said)
        if request.method == "POST":
            failed = response.status_code >= 400
            self.refused = (response.status_code, response.reason_phrase) if failed else None
        if _json(response):
            assert isinstance(response.stream, httpx2.AsyncByteStream)
            response.stream = CappedBody(response.stream, self.limit)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _json(response: httpx2.Response) -> bool:
    return response.headers.get("content-type", "").lower().startswith("application/json")


async def _error_said(response: httpx2.Response, limit: int) -> tuple[httpx2.Response, str | None]:
    """The message of the JSON-RPC error in an error answer's body (``None``: there is
    none), and the answer with its body read, for the SDK to read again."""
    read = response.stream
    assert isinstance(read, httpx2.AsyncByteStream)
    body = b""
    async for chunk in CappedBody(read, limit):
        body += chunk
    await read.aclose()
    response.stream = httpx2.ByteStream(body)
    try:
        error = json.loads(body)["error"]
    except (ValueError, TypeError, KeyError):
        return response, None
    said = error.get("message") if isinstance(error, dict) else None
    return response, said if isinstance(said, str) else None


# what the SDK says of an HTTP error answer that carries no JSON-RPC error
_STAND_INS = ("Server returned an error response", "Not Found", "Session terminated")


def refusal(status: int, reason: str, error: str = "") -> str:
    """One line about an HTTP error answer to a connect's POST, and what to give instead;
    ``error`` is what the SDK made of it (kept when it is the server's own message)."""
    said = f"HTTP {status} {reason}".rstrip()
    if error and error not in _STAND_INS:
        said = f"{said} ({error})"
    if status in (401, 403):
        return (
            f"{said}: the server wants credentials, or refused those sent; check the entry's "
            "headers or auth (toolcat import mcp: --header 'Authorization: Bearer ${TOKEN}')"
        )
    if status == 404:
        return (
            f"{said}: no MCP endpoint at this URL; give the server's streamable HTTP "
            "endpoint (often ending in /mcp)"
        )
    if status == 405:
        return (
            f"{said}: the URL takes no POST, so it is no streamable HTTP endpoint (an "
            "HTTP+SSE endpoint, often ending in /sse, is not supported); give the server's "
            "streamable HTTP endpoint (often ending in /mcp)"
        )
    return said


class TokenAuth(httpx2.Auth):
    """Puts ``fetch(grant)``'s token on every request; after a 401 it asks for a new one
    (``fetch(grant, stale)``) and sends the request once more. ``seen(token)`` is told of
    each new token (the session masks it in answers)."""

    requires_request_body = True  # a POST is sent again after a 401

    def __init__(
        self,
        fetch: Callable[[Any, str | None], Awaitable[str]],
        grant: Any,
        seen: Callable[[str], None],
    ) -> None:
        self.fetch, self.grant, self.seen = fetch, grant, seen
        self._last: str | None = None

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        token = await self._token(None)
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401:
            token = await self._token(token)
            request.headers["Authorization"] = f"Bearer {token}"
            yield request

    async def _token(self, stale: str | None) -> str:
        token = await self.fetch(self.grant, stale)
        if token != self._last:  # a new token: masked from now on
            self._last = token
            self.seen(token)
        return token
