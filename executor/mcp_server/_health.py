"""Health probes and graceful drain for `toolcat serve --transport http`.

- ``GET /healthz``: 200 while the process answers (liveness).
- ``GET /readyz``: 200 when the catalog is loaded and the server is not draining,
  else 503; the JSON body says why (``catalog_loaded``, ``tools``, ``draining``,
  ``failed_reloads``, ``last_reload_error``). A broken ``--watch`` edit keeps the
  last good catalog, so the server stays ready and the body names the failure.
  ``upstreams`` reports each upstream MCP server; none is waited for (one that is
  down only keeps its own tools out of tools/list).
- ``GET /metrics`` (with ``--metrics``, needs the ``otel`` extra): the OpenTelemetry
  metrics (tool calls, errors, durations, catalog reloads) in Prometheus text format,
  through the OTel Prometheus exporter. Labels are bounded: tool names of the catalog
  (an unknown one is ``_unknown``), the executor's error types, ``ok``/``failed``.

All three answer any ``Host`` and need no credentials: load balancers, kubelets and
Prometheus send the pod's IP as Host. The probes' bodies name no tool, file or
caller; ``/metrics`` (opt-in) names tools. Everything else goes on to HostGuard
and auth.

On SIGTERM (:func:`draining_server`): readiness turns false at once; a new
session, tool call or stream on the MCP path is answered ``503`` with
``Retry-After`` and a JSON-RPC error (code ``SHUTTING_DOWN``) that the MCP SDK
clients surface as such; other requests (tools/list, ping), replies and
notifications still pass (an in-flight call may be waiting for an elicitation
answer). Tool calls already running finish, up to ``drain_timeout`` seconds;
those still running then are cancelled and answered with the same JSON-RPC
error. Then uvicorn shuts down (open streams get ``SHUTDOWN_GRACE`` seconds) and
the process exits 0.
"""

from __future__ import annotations

import contextlib
import json
import logging
import signal
from collections.abc import Callable, Iterator
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError

__all__ = [
    "SHUTTING_DOWN",
    "DrainGate",
    "HealthRoutes",
    "Lifecycle",
    "count_reload",
    "draining_server",
    "prometheus_exposition",
]

log = logging.getLogger("toolcat.serve")

#: The JSON-RPC error code of a request refused or cancelled because the server shuts down
#: (implementation-defined server error range); ``data.retryable`` is true.
SHUTTING_DOWN = -32001
HEALTH_PATHS = ("/healthz", "/readyz", "/metrics")
#: Seconds uvicorn waits, once the drain is over, for open streams before closing them.
SHUTDOWN_GRACE = 2
#: The JSON-RPC methods refused while draining: new sessions, new calls, new long streams.
#: Others (tools/list, ping, replies to elicitation) still pass: an SDK client lists the
#: tools to check a call's structured result, and an in-flight call may await a reply.
REFUSED_WHILE_DRAINING = frozenset({"initialize", "tools/call", "subscriptions/listen"})
#: The largest request body the drain gate reads to tell a request from a reply.
_MAX_PEEK = 1 << 20


class Lifecycle:
    """Readiness and the drain of in-flight tool calls (shared by the server and its routes)."""

    def __init__(self, drain_timeout: float = 30.0, retry_after: int = 5) -> None:
        self.drain_timeout = drain_timeout
        self.retry_after = retry_after
        self.draining = False
        self.inflight = 0
        self._scopes: set[anyio.CancelScope] = set()
        self._asked: anyio.Event | None = None
        self._idle: anyio.Event | None = None

    def error_data(self) -> dict[str, Any]:
        return {"retryable": True, "retry_after": self.retry_after}

    @contextlib.contextmanager
    def call(self) -> Iterator[None]:
        """Around one tool call: counted for the drain, cancelled at its deadline
        (then ``MCPError`` ``SHUTTING_DOWN`` is raised)."""
        scope = anyio.CancelScope()
        self.inflight += 1
        self._scopes.add(scope)
        try:
            with scope:
                yield
        finally:
            self.inflight -= 1
            self._scopes.discard(scope)
            if self.inflight == 0 and self._idle is not None:
                self._idle.set()
        if scope.cancelled_caught:
            raise MCPError(
                SHUTTING_DOWN,
                f"the server shut down before the call finished (drain deadline "
                f"{self.drain_timeout:g} s); the upstream may have received it",
                self.error_data(),
            )

    def request_drain(self) -> None:
        """Start draining (on the event loop's thread): readiness is false from now on."""
        if self.draining:
            return
        self.draining = True
        log.warning(
            "SIGTERM: draining (%d call(s) in flight, deadline %g s)",
            self.inflight,
            self.drain_timeout,
        )
        if self._asked is not None:
            self._asked.set()

    async def drain_on_request(self, server: Any) -> None:
        """Wait for :meth:`request_drain`, let in-flight calls finish (cancel those still
        running at the deadline), then tell uvicorn (``server``) to exit."""
        self._asked = anyio.Event()
        self._idle = anyio.Event()
        if self.draining:
            self._asked.set()
        await self._asked.wait()
        if self.inflight:
            with anyio.move_on_after(self.drain_timeout):
                await self._idle.wait()
        if self.inflight:
            log.warning("drain deadline: cancelling %d call(s) still running", self.inflight)
            for scope in list(self._scopes):
                scope.cancel()
            with anyio.move_on_after(SHUTDOWN_GRACE):
                await self._idle.wait()
        server.should_exit = True


def draining_server(config: Any, lifecycle: Lifecycle) -> Any:
    """A ``uvicorn.Server`` for ``config`` on which SIGTERM starts ``lifecycle``'s drain
    instead of an immediate shutdown. A drain that ran to its end exits 0 (the signal
    is not raised again); SIGINT (Ctrl-C) stops as before."""
    import asyncio

    import uvicorn  # here: the CLI imports this module for every command

    class DrainingServer(uvicorn.Server):
        _loop: asyncio.AbstractEventLoop | None = None

        async def serve(self, sockets: Any = None) -> None:
            self._loop = asyncio.get_running_loop()
            await super().serve(sockets)

        def handle_exit(self, sig: int, frame: Any) -> None:
            if sig == signal.SIGTERM and self._loop is not None:
                self._loop.call_soon_threadsafe(lifecycle.request_drain)
                return
            super().handle_exit(sig, frame)

    return DrainingServer(config)


class HealthRoutes:
    """ASGI: answers ``/healthz`` and ``/readyz`` (any Host, no auth); passes the rest on.

    ``status`` gives the catalog's part of readiness: a dict with ``catalog_loaded``.
    """

    def __init__(
        self,
        app: Any,
        lifecycle: Lifecycle,
        status: Callable[[], dict[str, Any]],
        metrics: Callable[[], tuple[bytes, str]] | None = None,
    ) -> None:
        self.app = app
        self.lifecycle = lifecycle
        self.status = status
        self.metrics = metrics  # None: /metrics is not served (passed on: 404 or auth)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path") if scope["type"] == "http" else None
        if path not in HEALTH_PATHS or (path == "/metrics" and self.metrics is None):
            await self.app(scope, receive, send)
            return
        if scope.get("method") not in ("GET", "HEAD"):
            await _answer(send, 405, {"error": "method not allowed"}, [(b"allow", b"GET, HEAD")])
            return
        if path == "/metrics" and self.metrics is not None:
            body, content_type = self.metrics()
            await _send(send, 200, body, content_type.encode(), head=scope["method"] == "HEAD")
            return
        if path == "/healthz":
            await _answer(send, 200, {"status": "alive"}, head=scope["method"] == "HEAD")
            return
        # off the event loop: with server.redis, readiness may ping Redis (up to its timeout)
        status = await anyio.to_thread.run_sync(self.status)
        details = {**status, "draining": self.lifecycle.draining}
        ready = (
            bool(details.get("catalog_loaded"))
            and not self.lifecycle.draining
            and details.get("shared_state") != "unreachable"
        )
        details = {"status": "ready" if ready else "not ready", **details}
        await _answer(send, 200 if ready else 503, details, head=scope["method"] == "HEAD")


class DrainGate:
    """ASGI, in front of the MCP app: while draining, a new request on ``path`` gets 503.

    A POST whose JSON-RPC message (or batch) holds a request for one of
    ``REFUSED_WHILE_DRAINING`` is refused with a JSON-RPC error for its id; other
    requests, replies and notifications pass; a GET (a new stream) is refused;
    anything else (DELETE of a session) passes.
    """

    def __init__(self, app: Any, lifecycle: Lifecycle, path: str) -> None:
        self.app = app
        self.lifecycle = lifecycle
        self.path = path.rstrip("/") or "/"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if (
            not self.lifecycle.draining
            or scope["type"] != "http"
            or (scope.get("path", "").rstrip("/") or "/") != self.path
        ):
            await self.app(scope, receive, send)
            return
        method = scope.get("method")
        if method == "GET":
            await self._refuse(send, None)
            return
        if method != "POST":
            await self.app(scope, receive, send)
            return
        body, complete = await _read_body(receive)
        ident, is_request = _request_id(body) if complete else (None, True)
        if is_request:
            await self._refuse(send, ident)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _refuse(self, send: Any, ident: Any) -> None:
        error = {
            "jsonrpc": "2.0",
            "id": ident,
            "error": {
                "code": SHUTTING_DOWN,
                "message": "the server is shutting down; retry the request",
                "data": self.lifecycle.error_data(),
            },
        }
        retry = str(self.lifecycle.retry_after).encode()
        await _answer(send, 503, error, [(b"retry-after", retry)])


async def _read_body(receive: Any) -> tuple[bytes, bool]:
    """The request body, and whether it was read whole (at most ``_MAX_PEEK`` bytes)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if size > _MAX_PEEK:
            return b"", False
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, receive: Any) -> Any:
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        result: dict[str, Any] = await receive()
        return result

    return replay


def _request_id(body: bytes) -> tuple[Any, bool]:
    """(the id of the first refused request in the message, whether it holds one)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None, True  # not JSON: the app would refuse it anyway
    items = message if isinstance(message, list) else [message]
    for item in items:
        if not isinstance(item, dict) or item.get("method") in REFUSED_WHILE_DRAINING:
            ident = item.get("id") if isinstance(item, dict) else None
            return (ident if isinstance(ident, str | int) else None), True
    return None, False


async def _answer(
    send: Any,
    status: int,
    payload: dict[str, Any],
    extra: list[tuple[bytes, bytes]] | None = None,
    *,
    head: bool = False,
) -> None:
    body = json.dumps(payload).encode() + b"\n"
    await _send(send, status, body, b"application/json", extra, head=head)


async def _send(
    send: Any,
    status: int,
    body: bytes,
    content_type: bytes,
    extra: list[tuple[bytes, bytes]] | None = None,
    *,
    head: bool = False,
) -> None:
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


_reloads: Any = None


def count_reload(ok: bool) -> None:
    """Count a catalog reload (``toolcat.catalog.reloads``, ``outcome`` ok or failed) when
    OpenTelemetry is installed; a no-op otherwise."""
    global _reloads
    try:
        from opentelemetry import metrics
    except ImportError:  # pragma: no cover - without the otel extra
        return
    if _reloads is None:
        _reloads = metrics.get_meter("toolcat.serve").create_counter(
            "toolcat.catalog.reloads",
            unit="{reload}",
            description="Catalog reloads by --watch; failed ones kept the last good catalog",
        )
    _reloads.add(1, {"outcome": "ok" if ok else "failed"})


def prometheus_exposition() -> Callable[[], tuple[bytes, str]]:
    """Install a global OpenTelemetry ``MeterProvider`` read by the Prometheus exporter
    and return what renders ``/metrics`` (body, content type).

    Raises ``RuntimeError`` (one line) without the exporter (the ``otel`` extra) or when
    another meter provider is already installed (export with that one instead).
    """
    try:
        from opentelemetry import metrics
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from opentelemetry.sdk.metrics import MeterProvider
        from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
    except ImportError as exc:
        raise RuntimeError(
            f"--metrics needs the otel extra (pip install 'toolcat[otel]'): {exc}"
        ) from exc
    if type(metrics.get_meter_provider()).__name__ != "_ProxyMeterProvider":
        raise RuntimeError(
            "--metrics: an OpenTelemetry meter provider is already installed; "
            "export its metrics with its own reader"
        )
    registry = CollectorRegistry(auto_describe=True)
    reader = PrometheusMetricReader(registry=registry)
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))

    def render() -> tuple[bytes, str]:
        return generate_latest(registry), CONTENT_TYPE_LATEST

    return render
