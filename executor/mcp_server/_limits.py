"""Bounds of `toolcat serve --transport http` against slow and greedy clients.

- **Headers in time** (:func:`header_timeout_protocol`): a connection gets
  ``header_timeout`` seconds to send a request's headers, from when it opens or its
  last response ended; one that does not is closed. uvicorn's own keep-alive timer
  stops at the first byte received, so a client sending nothing, or half a request
  line, held its connection (and a file descriptor) for ever.
- **Connections** (uvicorn's ``limit_concurrency``): past ``max_connections``
  connections or requests at once, new requests get 503.
- **Sessions** (the MCP SDK's ``max_sessions`` and ``session_idle_timeout``): at most
  ``max_sessions`` open at once (503 past it), each closed after
  ``session_idle_timeout`` seconds without a request; and :class:`SessionLimits`, at
  most ``max_sessions_per_caller`` of them per authenticated caller (429 past it), so
  one caller cannot take every session.

:class:`ServeLimits` holds the values; ``toolcat serve`` takes each as a flag.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from typing import Any

__all__ = ["ServeLimits", "SessionLimits", "header_timeout_protocol"]


@dataclass(frozen=True)
class ServeLimits:
    """The bounds of one HTTP server (seconds and counts); the defaults are the documented
    ones (docs/security.md)."""

    header_timeout: float = 10.0
    keep_alive_timeout: int = 5  # uvicorn takes whole seconds
    max_connections: int = 1000
    max_sessions: int = 1000
    max_sessions_per_caller: int = 32
    session_idle_timeout: float = 600.0

    def __post_init__(self) -> None:
        for name in ("header_timeout", "keep_alive_timeout", "session_idle_timeout"):
            value = getattr(self, name)
            if not (math.isfinite(value) and 0 < value <= 86400):
                raise ValueError(
                    f"{name.replace('_', '-')} must be more than 0 and at most 86400 s"
                )
        for name in ("max_connections", "max_sessions", "max_sessions_per_caller"):
            if not 1 <= getattr(self, name) <= 1_000_000:
                raise ValueError(f"{name.replace('_', '-')} must be 1-1000000")


def header_timeout_protocol(seconds: float) -> type[Any]:
    """uvicorn's h11 protocol class, closing a connection whose request headers have not
    all arrived ``seconds`` after it opened or after its last response (for
    ``uvicorn.Config(http=...)``, uvicorn's documented way to choose the protocol)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeout(H11Protocol):
        _header_timer: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._wait_for_headers()

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is not h11.IDLE:  # a request's headers are in
                self._stop_waiting()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._wait_for_headers()  # the next request's headers, on this connection

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            super().connection_lost(exc)

        def _wait_for_headers(self) -> None:
            self._stop_waiting()
            self._header_timer = self.loop.call_later(seconds, self._headers_late)

        def _stop_waiting(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeout


@dataclass
class _Session:
    caller: str
    last_seen: float
    active: int = 0  # requests on it being served now (an open stream counts)


class SessionLimits:
    """ASGI, behind authentication: at most ``per_caller`` open MCP sessions per caller.

    A POST to ``path`` without ``Mcp-Session-Id`` may open a session: past the caller's
    limit it gets 429 with a JSON-RPC error, before the MCP app sees it. A session is counted
    from the answer that names it until the client deletes it or it has been idle
    (no request in flight) for ``idle_timeout`` seconds, as the SDK itself expires it.
    Requests without a verified caller (no authentication) pass: the SDK's total
    ``max_sessions`` still holds for them.
    """

    def __init__(self, app: Any, *, path: str, per_caller: int, idle_timeout: float) -> None:
        self.app = app
        self.path = path.rstrip("/") or "/"
        self.per_caller = per_caller
        self.idle_timeout = idle_timeout
        self._sessions: dict[str, _Session] = {}
        self._opening: dict[str, int] = {}  # caller -> sessions being opened now

    def open_sessions(self, caller: str) -> int:
        """The sessions ``caller`` holds or is opening now."""
        self._expire(time.monotonic())
        held = sum(1 for s in self._sessions.values() if s.caller == caller)
        return held + self._opening.get(caller, 0)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from ._auth import identity_in

        identity = identity_in(scope) if scope["type"] == "http" else None
        if identity is None:
            await self.app(scope, receive, send)
            return
        caller = identity.key
        named = _header(scope, b"mcp-session-id")
        if named is not None:
            await self._on_session(named, caller, scope, receive, send)
            return
        on_path = (scope.get("path", "").rstrip("/") or "/") == self.path
        if not on_path or scope.get("method") != "POST":  # cannot open a session
            await self.app(scope, receive, send)
            return
        if self.open_sessions(caller) >= self.per_caller:
            await _too_many(send, self.per_caller)
            return
        self._opening[caller] = self._opening.get(caller, 0) + 1
        opening = True

        def opened() -> None:
            nonlocal opening
            if opening:
                opening = False
                left = self._opening[caller] - 1
                if left:
                    self._opening[caller] = left
                else:
                    del self._opening[caller]

        async def watch(message: Any) -> None:
            if message["type"] == "http.response.start":
                created = _header(message, b"mcp-session-id")
                if created is not None and message["status"] < 400:
                    self._sessions[created] = _Session(caller, time.monotonic())
                opened()  # the answer is out: the session is counted, or there is none
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            opened()

    async def _on_session(
        self, named: str, caller: str, scope: Any, receive: Any, send: Any
    ) -> None:
        session = self._sessions.get(named)
        if session is None or session.caller != caller:  # the SDK answers (404)
            await self.app(scope, receive, send)
            return
        session.active += 1
        status = 0

        async def watch(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            session.active -= 1
            session.last_seen = time.monotonic()
            if (scope.get("method") == "DELETE" and 200 <= status < 300) or status == 404:
                self._sessions.pop(named, None)  # ended by the client, or gone in the SDK

    def _expire(self, now: float) -> None:
        idle = [
            name
            for name, s in self._sessions.items()
            if s.active == 0 and now - s.last_seen > self.idle_timeout
        ]
        for name in idle:
            del self._sessions[name]


def _header(holder: Any, name: bytes) -> str | None:
    for key, value in holder.get("headers", []):
        if key.lower() == name:
            text: str = value.decode("latin-1")
            return text
    return None


async def _too_many(send: Any, limit: int) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32000,
                "message": f"too many open sessions for this caller (at most {limit}); "
                "close one (DELETE) or wait until an idle one expires",
            },
        }
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"retry-after", b"30"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})
