"""An MCP server over a catalog: tools/list from the IR, tools/call through the executor.

Built on the official SDK's low-level ``Server`` so that tools/list carries
inputSchema, outputSchema and annotations exactly as exported, and tools/call
answers with ``isError`` and ``structuredContent`` (the handlers: ``_handlers``).
With ``watch=True`` the catalog files are polled; a change is loaded once the files
stop changing for ``settle`` seconds and no process holds one open for writing (a
half-written file is never loaded on purpose); a good edit is swapped in atomically
and clients are told the tool list changed; a broken edit is logged and the last
good catalog keeps serving (``_reload``). The catalog is read once
per load, by the loader (by default ``toolcat.loader.load_catalog``): the files
it reports, imported OpenAPI specs included, are the files watched. This module
holds :class:`McpServer`: its settings, the loads, and what it keeps across them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from toolcat import __version__
from toolcat.executor import (
    AuditLog,
    IdempotencyStore,
    MemoryIdempotencyStore,
    MemoryQuotaStore,
    RedisIdempotencyStore,
    RedisQuotaStore,
    RedisState,
    SharedStateError,
    connect_redis,
)

from ._confirm import (
    CONFIRM_KEYS_ENV,
    STATE_GRACE,
    ConfirmLedger,
    MemoryConfirmLedger,
    boundary,
    parse_keys,
)
from ._handlers import call_tool, confirm_call, list_tools, principal, track_session
from ._health import Lifecycle, prometheus_exposition
from ._http import serve_http
from ._relay import ParkedCalls
from ._reload import reload_catalog, start_upstreams, watch
from ._served import CatalogLoadFailed, Served, build_served, default_loader
from ._settings import McpServerSettings
from ._stdio import pipe_streams
from ._upstreams import register_metrics, upstream_status
from ._watch import FileSnapshot, watched_names

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition
    from toolcat.catalog.serving import AccessPolicy, QuotaPolicy, ServerSettings
    from toolcat.executor import QuotaStore, ToolCall

__all__ = ["McpServer"]

log = logging.getLogger("toolcat.serve")


class _Server(Server[Any]):
    """The SDK server, announcing ``tools.listChanged`` when the tools may change: the
    catalog is watched, or it has upstream MCP servers (whose tools come and go)."""

    def __init__(self, watch: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._watch = watch
        self.upstreams = False  # the catalog loaded has upstream MCP servers

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        changes = self._watch or self.upstreams
        options = notification_options or NotificationOptions(tools_changed=changes)
        return super().create_initialization_options(options, experimental_capabilities, extensions)


class McpServer:
    """Serves the tools of ``paths`` (optionally one ``toolset``) over MCP.

    With ``tool_search=True`` tools/list holds only the pinned tools and
    ``search_tools``, whose answer carries each found tool's input schema;
    tools/call accepts every tool served, listed or not. The pinned tools are the
    catalog's ``search.pinned`` ones that are served (read again at each reload;
    ``catalog_pins=False`` leaves them out), then ``pinned``.

    ``audit_log`` (a path, or ``-`` for standard output) writes the audit log there,
    over the catalog's ``server.audit`` path (its other settings are kept). The audit
    log is opened at the first load and kept across reloads; the quota buckets live in
    ``quota_store`` (default: in this process), kept across reloads too.

    ``confirm: true`` tools ask the client's user (unless ``yes``) and wait up to
    ``confirm_timeout`` seconds for the answer; in the 2026-07-28 era the question
    travels as an ``InputRequiredResult`` whose state is sealed with ``confirm_keys``
    (default: the comma-separated ``TOOLCAT_CONFIRM_KEYS`` of ``env``, else a key of
    this process) and used once, as ``confirm_ledger`` (default: in this process)
    records. See docs/mcp.md.

    ``loader`` reads the PATHs into a :class:`toolcat.loader.LoadResult`
    (default: ``toolcat.loader.load_catalog`` without progress output); every
    load and reload goes through it, once.

    >>> # server = McpServer(["catalog/"], McpServerSettings(watch=True)); server.load()
    >>> # anyio.run(server.run_stdio)
    """

    def __init__(
        self,
        paths: Sequence[str | os.PathLike[str]],
        settings: McpServerSettings | None = None,
    ) -> None:
        s = settings if settings is not None else McpServerSettings()
        self.settings = s
        toolset, watch, env, name = s.toolset, s.watch, s.env, s.name
        tool_search, pinned, catalog_pins, loader = (
            s.tool_search,
            s.pinned,
            s.catalog_pins,
            s.loader,
        )
        audit_log, quota_store, redis_url = s.audit_log, s.quota_store, s.redis_url
        confirm_timeout, confirm_keys, confirm_ledger = (
            s.confirm_timeout,
            s.confirm_keys,
            s.confirm_ledger,
        )
        self.paths = [str(p) for p in paths]
        self.tool_search = tool_search
        self.pinned = tuple(dict.fromkeys(pinned))
        self.catalog_pins = catalog_pins
        self._loader = loader or default_loader
        self.toolset = toolset
        self.watch = watch
        self.poll_interval = s.poll_interval
        self.settle = s.settle  # seconds the files must stay unchanged before a reload
        self.env = env
        self.yes = s.yes
        self.confirm_timeout = confirm_timeout
        keys = (
            self.read_confirm_keys(env if env is not None else os.environ)
            if confirm_keys is None
            else parse_keys(
                ",".join(k.decode() if isinstance(k, bytes) else k for k in confirm_keys)
            )
        )
        self._confirm_ledger: ConfirmLedger = confirm_ledger or MemoryConfirmLedger()
        self._confirm_ledger_given = confirm_ledger is not None
        # 2026-07-28 calls waiting for their client's answer to an upstream's question
        self._parked = ParkedCalls(confirm_timeout)
        self._notifying: set[asyncio.Task[None]] = set()
        self._served: Served | None = None
        # the catalog's ``server:`` section as last loaded; run_http serves settings.serving
        self.server_settings: ServerSettings | None = None
        self._access: AccessPolicy | None = None  # server.access of the last load
        self._quotas: QuotaPolicy | None = None  # server.quotas/concurrency of the last load
        self._audit_path = audit_log
        self.audit: AuditLog | None = None  # opened at the first load, kept across reloads
        self._quota_store: QuotaStore = quota_store or MemoryQuotaStore()
        self._redis_url = redis_url  # over the catalog's server.redis url
        self.shared: RedisState | None = None  # connected at the first load, kept
        self._idempotency: IdempotencyStore = MemoryIdempotencyStore()
        self._idempotency_seconds = 600.0
        self._shared_lock = threading.Lock()  # one ping at a time (probes run in threads)
        self._shared_seen: tuple[float, bool] = (-1e9, True)  # (when, reachable) for /readyz
        self._retired: list[Served] = []
        self._files: tuple[str, ...] = ()  # every file the last load read, specs included
        self._missing: tuple[str, ...] = ()  # specs it named that were not there: may appear
        self._seen: FileSnapshot | None = None  # the watched files just before the last load
        self._sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self._bus = InMemorySubscriptionBus()
        self.reloads = 0
        self.failed_reloads = 0  # broken edits seen while the last good catalog stayed
        self.last_reload_error: str | None = None  # the last failed reload, for /readyz
        self.lifecycle = Lifecycle()  # readiness and drain (HTTP); counts calls on stdio too
        self._metrics: Callable[[], tuple[bytes, str]] | None = None  # GET /metrics
        self.server = _Server(
            watch,
            name=name,
            version=__version__,
            on_list_tools=partial(list_tools, self),
            on_call_tool=partial(call_tool, self),
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        self.server.middleware.append(partial(track_session, self))
        # 2026-07-28 confirmations: the state a client echoes is sealed, checked, bound
        self.server.middleware.append(
            boundary(keys, confirm_timeout + STATE_GRACE, name, principal)
        )

    @staticmethod
    def read_confirm_keys(env: Mapping[str, str]) -> list[bytes] | None:
        """The keys of ``TOOLCAT_CONFIRM_KEYS`` in ``env`` (``None``: unset); raises
        ``ValueError`` (one line that never shows a key) when one is too short."""
        return parse_keys(env.get(CONFIRM_KEYS_ENV))

    # -- loading -------------------------------------------------------------

    def load(self) -> Served:
        """Load (or reload) the catalog; raises ``CatalogLoadFailed`` and keeps the old one.

        The watched files are snapshotted before the load, so an edit made while
        it runs is seen by the next poll of ``watch_files``.
        """
        seen = FileSnapshot(self._watched())
        try:
            result = self._loader(self.paths)
            self._files = tuple(result.files)
            self._missing = tuple(result.missing)
            self.server_settings = result.server
            self._access = result.server.access if result.server else None
            self._quotas = result.server.quotas if result.server else None
            if self.audit is None:
                self.audit = self._open_audit(result.server)
            if self._served is None and result.catalog is not None:
                self._connect_shared(result.server)  # at start only, as the audit log
            seen.add_loaded(self._watched())  # files this load named for the first time
        finally:
            self._seen = seen  # also after a failed load: retried when a file changes
        if result.catalog is None:
            raise CatalogLoadFailed(result.diagnostics, result.files)
        served = build_served(self, result.catalog)
        self.server.upstreams = self.server.upstreams or bool(result.catalog.mcp_servers)
        old, self._served = self._served, served  # the swap: one assignment
        if old is not None:
            old.retired = True
            self._retired.append(old)
        return served

    def _connect_shared(self, server: ServerSettings | None) -> None:
        """Connect to the Redis of ``server.redis`` (or ``redis_url``), once: raises
        :class:`SharedStateError` (one line) when the URL is malformed or Redis does not
        answer. Kept across reloads, as the audit log is."""
        import os

        from toolcat.catalog import MissingVariableError
        from toolcat.catalog.common import interpolate
        from toolcat.catalog.serving import RedisSettings

        settings = server.redis if server is not None else None
        if settings is None and self._redis_url is None:
            return
        if settings is None:
            settings = RedisSettings(url=self._redis_url or "")
        url = self._redis_url if self._redis_url is not None else settings.url
        env = self.env if self.env is not None else os.environ
        try:
            url = interpolate(url, env, where="server.redis.url")
        except MissingVariableError as exc:
            raise SharedStateError(f"server.redis.url: {exc}") from None
        if not url.strip():
            raise SharedStateError("the Redis URL is empty (server.redis.url or --redis)")
        state = connect_redis(settings, url)
        self.shared = state
        self._quota_store = RedisQuotaStore(state)
        self._idempotency = RedisIdempotencyStore(state)
        self._idempotency_seconds = settings.idempotency_seconds
        if not self._confirm_ledger_given:  # a confirmation is used once on every replica
            self._confirm_ledger = RedisIdempotencyStore(state)

    def _shared_reachable(self) -> bool:
        """Whether Redis answered a PING in the last second (asked at most once a second)."""
        import time

        state = self.shared
        if state is None:
            return True
        with self._shared_lock:
            when, ok = self._shared_seen
            if time.monotonic() - when < 1.0:
                return ok
            try:
                state.ping()
                ok = True
            except SharedStateError:
                ok = False
            self._shared_seen = (time.monotonic(), ok)
            return ok

    def _open_audit(self, server: ServerSettings | None) -> AuditLog | None:
        import dataclasses

        from toolcat.catalog.serving import AuditSettings

        settings = server.audit if server is not None else None
        if self._audit_path is not None:
            settings = (
                dataclasses.replace(settings, path=self._audit_path)
                if settings is not None
                else AuditSettings(self._audit_path)
            )
        return AuditLog.from_settings(settings) if settings is not None else None

    @property
    def audit_to_stdout(self) -> bool:
        """Whether the audit log goes to standard output (not possible on stdio)."""
        from toolcat.executor import StreamSink

        return self.audit is not None and isinstance(self.audit.sink, StreamSink)

    async def _confirm(self, call: ToolCall, tool: ToolDefinition) -> bool:
        """The executor's callback for ``confirm: true`` tools (see ``_handlers.confirm_call``)."""
        return await confirm_call(self, call, tool)

    @property
    def catalog(self) -> Catalog:
        return self._current().catalog

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools served, as tools/list lists them."""
        return self._current().listed

    def _current(self) -> Served:
        if self._served is None:
            self.load()
        assert self._served is not None
        return self._served

    # -- transports ------------------------------------------------------------

    async def run_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        self._current()
        if self.audit_to_stdout:
            raise ValueError(
                "the audit log cannot go to standard output on the stdio transport "
                "(standard output carries MCP): give it a file"
            )
        # fd 0/1 read and written on the event loop (pipes), not by a worker thread per line
        async with pipe_streams() as (stdin, stdout):
            async with (
                stdio_server(stdin, stdout) as (read, write),
                anyio.create_task_group() as tg,
            ):
                start_upstreams(self, self._current())
                if self.watch:
                    tg.start_soon(watch, self)
                await self.server.run(read, write, self.server.create_initialization_options())
                tg.cancel_scope.cancel()
        await self.aclose()

    async def run_http(self, on_ready: Callable[[str], None] | None = None) -> None:
        """Serve streamable HTTP on the settings' ``host:port`` until cancelled or SIGTERM;
        ``on_ready(url)`` is called once the socket listens.

        Every field it reads is one of :class:`McpServerSettings`: ``limits`` bound slow
        and greedy clients (header and keep-alive timeouts, connections, sessions in all
        and per caller, idle sessions): see ``_limits``.

        ``docs`` (``build(catalog, folder)``: writes the ``toolcat docs`` site of a
        catalog) serves the catalog browser read-only under ``/docs/``, behind the same
        Host/Origin guard and authentication as ``path``: each caller gets the site of
        the tools it may call (see :class:`CallerDocs`).

        Every request passes :class:`HostGuard` first: a Host or Origin that
        ``host_policy`` (default: ``HostPolicy.for_bind(host)``) refuses gets
        421 or 403, on every bind address (it replaces the SDK's own check,
        which applies on loopback only and allows any port). Then, with
        ``serving.auth`` enabled, only authenticated callers get through (see
        :class:`AuthMiddleware`).

        ``/healthz`` and ``/readyz`` answer before both (see ``_health``). SIGTERM
        drains: new requests get 503, calls in flight get up to ``drain_timeout``
        seconds, then the server stops.

        ``stateless`` serves handshake-era (2025) clients without sessions: no
        ``Mcp-Session-Id``, every POST stands alone, so consecutive requests of
        one client may land on different replicas behind a load balancer. Such
        clients then get no mid-call elicitation (a ``confirm: true`` call is
        refused unless ``yes``) and no GET stream (no ``list_changed``).
        2026-07-28 clients are served per request either way; they learn of a
        reload on their ``subscriptions/listen`` stream.
        """
        await serve_http(self, on_ready)

    def enable_metrics(self) -> None:
        """Serve ``/metrics`` (Prometheus text) on the HTTP transport; installs the global
        OpenTelemetry meter provider. Raises ``RuntimeError`` (one line) when it cannot."""
        self._metrics = prometheus_exposition()
        register_metrics(lambda: self._served.executor if self._served is not None else None)

    def readiness(self) -> dict[str, Any]:
        """The catalog's part of ``/readyz``: nothing that names a tool, file or caller.
        Each upstream MCP server is reported (``upstreams``), never waited for."""
        served = self._served
        status: dict[str, Any] = {
            "catalog_loaded": served is not None,
            "tools": len(served.tools) if served is not None else 0,
            "reloads": self.reloads,
            "failed_reloads": self.failed_reloads,
            "last_reload_error": self.last_reload_error,
        }
        if self.shared is not None:  # server.redis: ready only while Redis answers
            status["shared_state"] = "reachable" if self._shared_reachable() else "unreachable"
        upstreams = upstream_status(served.executor if served is not None else None)
        if upstreams:  # reported, never waited for: a dead upstream holds up nothing else
            status["upstreams"] = upstreams
        return status

    async def aclose(self) -> None:
        done = self._retired + ([self._served] if self._served else [])
        self._retired = []
        for served in done:
            await served.executor.aclose()
        if self.audit is not None:
            self.audit.close()
        if self.shared is not None:
            self.shared.close()
            self.shared = None

    async def _close_idle_retired(self) -> None:
        """Close the connection pools of replaced catalogs once no call uses them."""
        idle = [s for s in self._retired if s.inflight == 0]
        self._retired = [s for s in self._retired if s.inflight > 0]
        for served in idle:
            await served.executor.aclose()

    # -- watching --------------------------------------------------------------

    def _watched(self) -> set[str]:
        """The files the last load read (specs included), the specs it missed, PATHs' YAML."""
        return watched_names(self.paths, self._files, self._missing)

    async def watch_files(self) -> None:
        """Poll the catalog's files; reload on a change and notify clients on success
        (see ``_reload.watch``)."""
        await watch(self)

    def _changed(self) -> bool:
        """Whether the watched files differ from the snapshot taken before the last load."""
        return self._seen is None or self._seen.changed(self._watched())

    async def reload(self) -> bool:
        """Reload now; ``True`` when the new catalog is served, ``False`` when it was broken."""
        return await reload_catalog(self, None)
