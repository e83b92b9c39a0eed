"""An MCP server over a catalog: tools/list from the IR, tools/call through the executor.

Built on the official SDK's low-level ``Server`` so that tools/list carries
inputSchema, outputSchema and annotations exactly as exported, and tools/call
answers with ``isError`` and ``structuredContent``. With ``watch=True`` the
catalog files are polled; a change is loaded once the files stop changing for
``settle`` seconds and no process holds one open for writing (a half-written
file is never loaded on purpose); a good edit is swapped in atomically and
clients are told the tool list changed; a broken edit is logged and the last
good catalog keeps serving. The catalog is read once
per load, by the loader (by default ``toolcat.loader.load_catalog``): the files
it reports, imported OpenAPI specs included, are the files watched.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from toolcat import __version__
from toolcat._errors import ToolcatError
from toolcat.executor import (
    SEARCH_TOOL_NAME,
    AuditLog,
    Executor,
    ExecutorSettings,
    IdempotencyStore,
    MemoryIdempotencyStore,
    MemoryQuotaStore,
    RedisIdempotencyStore,
    RedisQuotaStore,
    RedisState,
    SharedStateError,
    ToolCall,
    ToolContext,
    ToolError,
    connect_redis,
    error_result,
    format_result,
    run_search_tool,
    search_tool_definition,
    with_context,
)

from ._confirm import (
    CONFIRM_KEYS_ENV,
    CONFIRM_SCHEMA,
    NO_ELICITATION,
    STATE_GRACE,
    UNRECORDED,
    Asking,
    ConfirmLedger,
    MemoryConfirmLedger,
    boundary,
    decide,
    input_required,
    late,
    new_state,
    parse_keys,
    question,
    read_answer,
    used_reason,
)
from ._health import (
    SHUTDOWN_GRACE,
    DrainGate,
    HealthRoutes,
    Lifecycle,
    count_reload,
    draining_server,
    prometheus_exposition,
)
from ._hosts import HostGuard, HostPolicy
from ._limits import ServeLimits, SessionLimits, header_timeout_protocol
from ._relay import INPUT_KEY as RELAY_KEY
from ._relay import Parked, ParkedCalls, hooks_for
from ._settings import McpServerSettings
from ._stdio import pipe_streams
from ._upstreams import (
    mcp_result,
    offered,
    pool_of,
    register_metrics,
    reset_call_hooks,
    set_call_hooks,
    upstream_status,
    upstream_tool,
)
from ._watch import FileSnapshot, open_for_writing, stamps, unchanged, watched_names

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition
    from toolcat.catalog.serving import AccessPolicy, QuotaPolicy, ServerSettings
    from toolcat.executor import QuotaStore
    from toolcat.loader import LoadResult

__all__ = ["CatalogLoadFailed", "McpServer"]

log = logging.getLogger("toolcat.serve")

# The MCP request a tool call is running for: the confirmation callback asks its client.
_request: contextvars.ContextVar[ServerRequestContext[Any, Any] | None] = contextvars.ContextVar(
    "toolcat_mcp_request", default=None
)

# The confirmation of the tools/call running: filled by the handler and the confirm callback.
_asking: contextvars.ContextVar[Asking | None] = contextvars.ContextVar(
    "toolcat_mcp_asking", default=None
)

# The longest --watch waits for files to stop changing before it loads what is there.
MAX_SETTLE = 5.0


class CatalogLoadFailed(ToolcatError):
    """The catalog given to ``toolcat serve`` has errors; ``diagnostics`` says which."""

    def __init__(self, diagnostics: Sequence[Any], files: Sequence[str] = ()) -> None:
        self.diagnostics = tuple(diagnostics)
        self.files = tuple(files)  # the catalog files read, as `toolcat validate` counts them
        errors = sum(1 for d in diagnostics if str(getattr(d, "severity", "error")) == "error")
        super().__init__(f"the catalog has {errors} error(s)")


@dataclass
class _Served:
    """One loaded catalog with its executor and exported tools: swapped as a whole."""

    catalog: Catalog
    executor: Executor
    tools: dict[str, ToolDefinition]
    listed: list[dict[str, Any]]
    validators: dict[str, Any] = field(default_factory=dict)
    exported: dict[str, dict[str, Any]] = field(default_factory=dict)  # every tool, by name
    inflight: int = 0  # calls running on this catalog; a retired one closes when it drops to 0
    retired: bool = False
    searcher: Any = None  # SemanticSearch, for a catalog with search.embeddings (first search)
    started: bool = False  # its upstream MCP servers were started


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
        self._loader = loader or _load_catalog
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
        self._served: _Served | None = None
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
        self._retired: list[_Served] = []
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
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        self.server.middleware.append(self._track_session)
        # 2026-07-28 confirmations: the state a client echoes is sealed, checked, bound
        self.server.middleware.append(
            boundary(keys, confirm_timeout + STATE_GRACE, name, _principal)
        )

    @staticmethod
    def read_confirm_keys(env: Mapping[str, str]) -> list[bytes] | None:
        """The keys of ``TOOLCAT_CONFIRM_KEYS`` in ``env`` (``None``: unset); raises
        ``ValueError`` (one line that never shows a key) when one is too short."""
        return parse_keys(env.get(CONFIRM_KEYS_ENV))

    # -- loading -------------------------------------------------------------

    def load(self) -> _Served:
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
        served = self._build(result.catalog)
        self.server.upstreams = self.server.upstreams or bool(result.catalog.mcp_servers)
        old, self._served = self._served, served  # the swap: one assignment
        if old is not None:
            old.retired = True
            self._retired.append(old)
        return served

    def _build(self, catalog: Catalog) -> _Served:
        from toolcat.catalog import HttpCommand
        from toolcat.catalog.schema import DEFAULT_SCHEMA_BUDGET, budget_tool
        from toolcat.executor.providers import to_mcp_tool

        tools = catalog.toolset(self.toolset)  # UnknownToolsetError when it is not there
        subset = catalog.subset([t.name for t in tools]) if self.toolset else catalog
        exported = {}
        for tool in tools:
            # listed within the schema budget, as every export; calls check the full schema
            item = to_mcp_tool(budget_tool(tool, DEFAULT_SCHEMA_BUDGET)[0])
            command = tool.command
            if isinstance(command, HttpCommand) and command.response.select:
                # the selected value has no declared shape
                item.pop("outputSchema", None)
            exported[tool.name] = item
        listed = list(exported.values())
        if self.tool_search:
            if SEARCH_TOOL_NAME in exported:
                raise ValueError(
                    f"the catalog has a tool named {SEARCH_TOOL_NAME!r}: --tool-search "
                    "cannot offer its own tool of that name"
                )
            for name in self.pinned:
                subset[name]  # an unknown name raises UnknownToolError
            pins = [n for n in catalog.pinned(self.toolset) if n in exported]
            pins = list(dict.fromkeys([*(pins if self.catalog_pins else ()), *self.pinned]))
            listed = [exported[n] for n in pins if n in exported]
            listed.append(to_mcp_tool(search_tool_definition()))
        executor = Executor(
            subset,
            ExecutorSettings(
                env=self.env,
                confirm=self._confirm,
                access=self._access,
                audit=self.audit,
                quotas=self._quotas,
                quota_store=self._quota_store,
                shared=self.shared,
                idempotency=self._idempotency,
                idempotency_seconds=self._idempotency_seconds,
            ),
        )
        tool_map = {t.name: t for t in tools}
        return _Served(subset, executor, tool_map, listed, exported=exported)

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

    @property
    def catalog(self) -> Catalog:
        return self._current().catalog

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools served, as tools/list lists them."""
        return self._current().listed

    def _current(self) -> _Served:
        if self._served is None:
            self.load()
        assert self._served is not None
        return self._served

    async def _confirm(self, call: ToolCall, tool: ToolDefinition) -> bool:
        """``confirm: true`` tools: allowed with ``yes``, else the client's user is asked.

        2026-07-28 era: a retried call's answer decides (each confirmation runs one
        call: see ``_confirm_ledger``); a first call records the question, which
        ``_call_tool`` returns as an ``InputRequiredResult``. Handshake era: the
        question goes mid-call as an elicitation (form mode). A client that cannot
        ask, a decline, a dismissal or no answer within ``confirm_timeout`` refuses
        the call (``Asking.reason`` says why, for the model).
        """
        if self.yes:
            return True
        asking = _asking.get()
        ctx = _request.get()
        if asking is None or ctx is None or ctx.session is None:
            return False
        if asking.modern and asking.answer is not None:
            return await self._use(asking, call)
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            asking.reason = NO_ELICITATION
            return False
        message = question(tool.name, tool.description, call.arguments)
        if asking.modern:
            asking.ask = message
            return False
        if not ctx.session.can_send_request:
            asking.reason = NO_ELICITATION
            return False
        try:
            with anyio.move_on_after(self.confirm_timeout) as waited:
                answer = await ctx.session.elicit_form(
                    message, CONFIRM_SCHEMA, related_request_id=ctx.request_id
                )
        except Exception as exc:  # the client could not answer: refuse, never run unasked
            log.warning("could not ask the client to confirm %s: %s", tool.name, exc)
            return False
        if waited.cancelled_caught:
            asking.reason = late(self.confirm_timeout)
            return False
        verdict = decide(answer.action, answer.model_dump())
        asking.reason = verdict.reason
        return verdict.accepted

    async def _use(self, asking: Asking, call: ToolCall) -> bool:
        """Whether the answer a retried call carries runs it: accepted, and its first use."""
        answer = asking.answer
        assert answer is not None
        if not answer.accepted:
            asking.reason = answer.reason
            return False
        ledger = self._confirm_ledger
        key = f"toolcat:confirm:{answer.nonce}"
        seconds = answer.seconds_left + STATE_GRACE
        try:
            if getattr(ledger, "shared", False):  # a network round trip: off the event loop
                held = await anyio.to_thread.run_sync(ledger.begin, key, seconds)
            else:
                held = ledger.begin(key, seconds)
        except SharedStateError:  # unknown whether it was used elsewhere: not sent
            log.warning("refused a confirmation of %s: shared state unavailable", call.name)
            asking.reason = UNRECORDED
            return False
        if held is not None:
            log.warning("refused a confirmation of %s: %s", call.name, held.get("state"))
            asking.reason = used_reason(held)
            return False
        return True

    # -- MCP handlers ----------------------------------------------------------

    async def _track_session(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        # Handshake-era clients get list_changed on their session; modern ones listen.
        # The session object is per request; the connection behind it is per client.
        # The SDK keeps it private, so fall back to the session when it moves.
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS and ctx.session is not None:
            peer = getattr(ctx.session, "_connection", None) or ctx.session
            try:
                self._sessions.add(peer)
            except TypeError:  # not weak-referenceable: skip rather than leak
                pass
        return await call_next(ctx)

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        served = self._current()
        self._start_upstreams(served)  # started by run_stdio/run_http; else by the first list
        # an upstream's tool while its upstream checked it against its pin
        listed = [t for t in served.listed if offered(served.executor, served.tools, t["name"])]
        guard = served.executor.access
        if guard.enabled:  # only what this caller may call
            who = _identity(ctx)
            listed = [
                t
                for t in listed
                if t["name"] not in served.exported or guard.decide(who, t["name"]).allowed
            ]
        return types.ListToolsResult.model_validate({"tools": listed})

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        served = self._current()  # a reload mid-call leaves this call on its catalog
        call = ToolCall(
            params.name,
            dict(params.arguments or {}),
            None if ctx.request_id is None else str(ctx.request_id),
        )
        if self.tool_search and params.name == SEARCH_TOOL_NAME:
            # a thread: the first search builds the index, too long to block the event loop
            # an upstream's tool while its upstream offers it, as tools/list does
            searchable: Any = [n for n in served.tools if offered(served.executor, served.tools, n)]
            guard = served.executor.access
            if guard.enabled:  # search finds only what this caller may call
                searchable = guard.allowed(_identity(ctx), searchable)
            found, _ = await anyio.to_thread.run_sync(
                lambda: run_search_tool(
                    served.catalog,
                    call,
                    searchable,
                    schemas=True,
                    searcher=_searcher(served, self.env),
                )
            )
            return types.CallToolResult.model_validate(format_result("mcp", found))
        asking = Asking(modern=ctx.protocol_version in MODERN_PROTOCOL_VERSIONS)
        if asking.modern and params.request_state is not None:  # a retry with the answer
            waiting = self._parked.find(params)
            if isinstance(waiting, str):  # an answer to an upstream question, too late
                refused = error_result(call, [ToolError("cancelled", waiting)])
                return types.CallToolResult.model_validate(format_result("mcp", refused))
            if waiting is not None:  # the answer to an upstream's question: hand it over
                answer = (params.input_responses or {}).get(RELAY_KEY)
                answered: Any = await self._parked.run(waiting, ctx, None, answer)
                return answered  # type: ignore[no-any-return]
            asking.answer = read_answer(params, self.confirm_timeout)
        tool = served.tools.get(params.name)
        if asking.modern and tool is not None and upstream_tool(tool):
            # the upstream may ask the client mid-call: run it parked (see _relay)
            parked = self._parked.new(params.name, params.arguments)
            outcome: Any = await self._parked.run(
                parked, ctx, lambda: self._run_call(served, ctx, call, params, asking, parked)
            )
            return outcome  # type: ignore[no-any-return]
        return await self._run_call(served, ctx, call, params, asking, None)

    async def _run_call(
        self,
        served: _Served,
        ctx: ServerRequestContext[Any, Any],
        call: ToolCall,
        params: types.CallToolRequestParams,
        asking: Asking,
        parked: Parked | None,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Run one call through the executor; its result as MCP gives it back."""
        token = _request.set(ctx)
        asked = _asking.set(asking)
        hooks = set_call_hooks(hooks_for(ctx, parked, self._parked))
        served.inflight += 1
        try:
            # the verified caller, for the call path to read; a drain deadline cancels the call
            # and its token, for services that forward or exchange it
            context = ToolContext(_identity(ctx), token=_caller_token(ctx))
            with with_context(context), self.lifecycle.call():
                result = await served.executor.aexecute(call)
        finally:
            reset_call_hooks(hooks)
            _asking.reset(asked)
            _request.reset(token)
            served.inflight -= 1
        await self._close_idle_retired()
        if result.error is not None and result.error.type == "not_confirmed":
            if asking.ask is not None:  # 2026-07-28: ask, and the client calls again
                state = new_state(params.name, params.arguments, self.confirm_timeout)
                return input_required(asking.ask, state)
            if asking.reason is not None:
                result = error_result(call, [ToolError("not_confirmed", asking.reason)])
        out = mcp_result(result)
        listed = served.exported.get(params.name)
        schema = listed.get("outputSchema") if listed else None
        if schema is not None and not out.get("isError"):
            problem = (
                "the response is longer than max_response_chars, so its structured "
                "content was left out"
                if result.truncated
                else _conformance(served, params.name, schema, out.get("structuredContent"))
            )
            if problem:  # MCP clients reject structured content that breaks the schema
                out = {
                    "content": [
                        {
                            "type": "text",
                            "text": (
                                f"{result.content}\n\nerror: the response does not match "
                                f"the tool's output schema: {problem}"
                            ),
                        }
                    ],
                    "isError": True,
                }
        return types.CallToolResult.model_validate(out)

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
                self._start_upstreams(self._current())
                if self.watch:
                    tg.start_soon(self.watch_files)
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
        import uvicorn
        from mcp.server.transport_security import TransportSecuritySettings

        self._current()
        s = self.settings
        host, port, path, stateless = s.host, s.port, s.path, s.stateless
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]  # an IPv6 literal as written in a URL
        bounds = s.limits or ServeLimits()
        app: Any = self.server.streamable_http_app(
            streamable_http_path=path,
            stateless_http=stateless,
            host=host,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_sessions=bounds.max_sessions,
            session_idle_timeout=bounds.session_idle_timeout,
        )
        if s.docs is not None:
            from starlette.routing import Mount

            from ._docs import CallerDocs

            # behind authentication too, when it is configured: the pages a caller gets
            # show the tools it may call, no other
            app.routes.append(Mount("/docs", CallerDocs(self._current, s.docs)))
        if not stateless:  # sessions per caller: inside authentication, which names him
            app = SessionLimits(
                app,
                path=path,
                per_caller=bounds.max_sessions_per_caller,
                idle_timeout=bounds.session_idle_timeout,
            )
        app = _with_auth(app, s.serving, http_url(host, port, path), self.env)
        gated = DrainGate(app, self.lifecycle, path)
        guarded = HostGuard(gated, s.host_policy or HostPolicy.for_bind(host), port)
        probed = HealthRoutes(guarded, self.lifecycle, self.readiness, self._metrics)
        self.lifecycle.drain_timeout = s.drain_timeout
        config = uvicorn.Config(
            probed,
            host=host,
            port=port,
            log_level="warning",
            ws="none",
            lifespan="on",
            timeout_graceful_shutdown=SHUTDOWN_GRACE,
            http=header_timeout_protocol(bounds.header_timeout),
            timeout_keep_alive=bounds.keep_alive_timeout,
            limit_concurrency=bounds.max_connections,
        )
        uv = draining_server(config, self.lifecycle)
        async with anyio.create_task_group() as tg:
            self._start_upstreams(self._current())
            tg.start_soon(self.lifecycle.drain_on_request, uv)
            if self.watch:
                tg.start_soon(self.watch_files)
            if on_ready is not None:
                tg.start_soon(_announce, uv, host, port, path, on_ready)
            await uv.serve()
            tg.cancel_scope.cancel()
        await self.aclose()
        if hasattr(app, "aclose"):  # the authenticator's HTTP client
            await app.aclose()

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
        """Poll the catalog's files; reload on a change and notify clients on success.

        Each poll compares the files with the snapshot taken before the last
        load (see ``load``), not after it: an edit that lands during a reload
        differs from that snapshot, so the next poll loads it.
        """
        self._current()
        while True:
            await anyio.sleep(self.poll_interval)
            if await anyio.to_thread.run_sync(self._changed):
                settled = await self._settle()
                await self._reload(settled)

    async def _settle(self) -> dict[str, Any]:
        """Wait until the watched files stay unchanged (inode, size, mtime, ctime, and the
        content of a recently written one) for ``settle`` seconds, so an editor that
        writes in two steps or a slow copy is loaded once it is done, never half-way;
        give up waiting after ``MAX_SETTLE`` (a file rewritten without pause). Then wait
        while a process still holds a watched file open for writing (a writer that
        paused mid-file for longer than ``settle``), and load what is there."""
        seen = await anyio.to_thread.run_sync(lambda: stamps(self._watched()))
        if self.settle <= 0:
            return seen
        with anyio.move_on_after(max(MAX_SETTLE, 2 * self.settle)):
            while True:
                await anyio.sleep(self.settle)
                now = await anyio.to_thread.run_sync(lambda: stamps(self._watched()))
                if unchanged(seen, now):
                    break
                seen = now
        return await self._until_closed(seen)

    async def _until_closed(self, seen: dict[str, Any]) -> dict[str, Any]:
        """Wait while a process holds a watched file open for writing; the files as they
        are once none does (``seen`` when none did)."""
        told = False
        while writers := await anyio.to_thread.run_sync(lambda: open_for_writing(self._watched())):
            if not told:
                name, pid = next(iter(sorted(writers.items())))
                log.warning(
                    "--watch: %s is open for writing (pid %d); loading it once closed", name, pid
                )
                told = True
            await anyio.sleep(self.settle)
        if not told:
            return seen
        return await anyio.to_thread.run_sync(lambda: stamps(self._watched()))

    def _changed(self) -> bool:
        """Whether the watched files differ from the snapshot taken before the last load."""
        return self._seen is None or self._seen.changed(self._watched())

    async def reload(self) -> bool:
        """Reload now; ``True`` when the new catalog is served, ``False`` when it was broken."""
        return await self._reload(None)

    async def _reload(self, settled: dict[str, Any] | None) -> bool:
        """Reload; with ``settled`` (the files' stamps the watcher waited for), a load that
        fails while the files changed again is not a broken edit but a write still under
        way: nothing is reported and the next poll loads the files once they settle."""
        try:
            served = await anyio.to_thread.run_sync(self.load)
        except CatalogLoadFailed as exc:
            if settled is not None and await self._moved(settled):
                log.info("the catalog changed while it was loaded; loading it again")
                return False
            log.error("reload failed, still serving the last good catalog: %s", exc)
            for diagnostic in exc.diagnostics:  # one record each: escaped, never a forged line
                log.error("  %s", str(diagnostic))
            self.failed_reloads += 1
            self.last_reload_error = str(exc)  # "the catalog has N error(s)": no file names
            count_reload(False)
            return False
        except Exception as exc:  # e.g. the toolset vanished: keep serving what works
            if settled is not None and await self._moved(settled):
                log.info("the catalog changed while it was loaded; loading it again")
                return False
            log.error("reload failed, still serving the last good catalog: %s", exc)
            self.failed_reloads += 1
            self.last_reload_error = type(exc).__name__  # its text may name a toolset or tool
            count_reload(False)
            return False
        self.reloads += 1
        count_reload(True)
        self.last_reload_error = None
        log.warning("catalog reloaded: %d tools", len(served.listed))
        await self._close_idle_retired()
        self._start_upstreams(served)
        await self._notify_changed()
        return True

    async def _moved(self, settled: dict[str, Any]) -> bool:
        return not unchanged(
            settled, await anyio.to_thread.run_sync(lambda: stamps(self._watched()))
        )

    def _start_upstreams(self, served: _Served) -> None:
        """Connect the catalog's upstream MCP servers in the background (nothing waits for
        them); clients hear of each change in what they offer."""
        pool = pool_of(served.executor)
        if pool is None or served.started:
            return
        served.started = True
        loop = asyncio.get_running_loop()

        def changed(server: str) -> None:  # on the pool's thread
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._upstream_changed, server)

        pool.subscribe(changed)
        pool.start()

    def _upstream_changed(self, server: str) -> None:
        """An upstream came up, went or changed what it offers: tell the clients."""
        log.info("the tools offered from upstream %s changed; telling the clients", server)
        task = asyncio.get_running_loop().create_task(self._notify_changed())
        self._notifying.add(task)  # held until done: the loop keeps only a weak reference
        task.add_done_callback(self._notifying.discard)

    async def _notify_changed(self) -> None:
        await self._bus.publish(ToolsListChanged())
        for session in list(self._sessions):
            try:
                await session.send_tool_list_changed()
            except Exception as exc:  # a closed session: forget it
                log.debug("could not notify a session: %s", exc)
                self._sessions.discard(session)


def _principal(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """Who a 2026-07-28 confirmation belongs to: the verified caller (HTTP with
    authentication), or ``None`` (stdio, or a server without authentication)."""
    who = _identity(ctx)
    if who is None:
        return None
    return str(who.key)


def _identity(ctx: ServerRequestContext[Any, Any]) -> Any:
    from ._auth import identity_of

    return identity_of(ctx.request) if ctx.request is not None else None


def _caller_token(ctx: ServerRequestContext[Any, Any]) -> str | None:
    from ._auth import caller_token_of

    return caller_token_of(ctx.request) if ctx.request is not None else None


def _with_auth(
    app: Any, settings: ServerSettings | None, url: str, env: Mapping[str, str] | None
) -> Any:
    """``app`` behind :class:`AuthMiddleware` when ``settings`` enable authentication."""
    if settings is None or not settings.auth.enabled:
        return app
    from ._auth import AuthMiddleware
    from ._verify import Authenticator

    resource = settings.resource or url
    servers = settings.authorization_servers
    if not servers and settings.auth.jwt is not None:
        servers = (Authenticator.issuer_of(settings.auth.jwt, env),)
    return AuthMiddleware(
        app,
        Authenticator(settings.auth, resource=resource, env=env),
        resource=resource,
        authorization_servers=servers,
        required_scopes=settings.auth.required_scopes,
    )


def _load_catalog(paths: Sequence[str]) -> LoadResult:
    from toolcat.loader import load_catalog

    return load_catalog(paths, progress=False)


def _conformance(served: _Served, name: str, schema: Mapping[str, Any], data: Any) -> str | None:
    import jsonschema_rs
    from toolcat.executor import sealed_validator

    validator: Any = served.validators.get(name)
    if validator is None:
        # jsonschema-rs: a $ref to a URL or a file is never fetched; patterns run in linear time
        try:
            validator = served.validators[name] = sealed_validator(schema)
        except jsonschema_rs.ValidationError:
            validator = served.validators[name] = False
    if validator is False:
        return "the output_schema refers to a URL or a file, or is not valid JSON Schema"
    if data is None:
        return "no structured content (the response is not a JSON object)"
    try:
        error = next(iter(validator.iter_errors(data)), None)
    except ValueError:  # a value jsonschema-rs cannot take (no JSON parser makes one)
        return "the response holds a value that is not JSON"
    if error is None:
        return None
    where = "/".join(str(p) for p in error.instance_path) or "(root)"
    return f"at {where}: {error.message}"


def _searcher(served: _Served, env: Mapping[str, str] | None) -> Any:
    """The catalog's fused ranking (search.embeddings), made on its first search; else None."""
    settings = served.catalog.search_settings
    if settings is None or settings.embeddings is None:
        return None
    if served.searcher is None:
        from toolcat.executor import SemanticSearch

        served.searcher = SemanticSearch(served.catalog, env=env)
    return served.searcher


async def _announce(
    uv: Any, host: str, port: int, path: str, on_ready: Callable[[str], None]
) -> None:
    while not uv.started:
        await anyio.sleep(0.02)
    bound = port
    for server in getattr(uv, "servers", []):
        for sock in server.sockets:
            bound = sock.getsockname()[1]
    on_ready(http_url(host, bound, path))


def http_url(host: str, port: int, path: str) -> str:
    """The URL a client uses: an IPv6 address in brackets (``http://[::1]:8000/mcp``)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}{path}"
