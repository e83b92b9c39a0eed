"""McpTransport: runs the tools whose command is an ``McpCommand`` (see ``_transport.py``).

The core has parsed, validated and guarded the call; here the catalog's arguments become
the upstream's (renames, fixed values, context-bound ones from the caller), ``tools/call``
runs on the upstream's session in the pool, and the ``CallToolResult`` becomes a
``ToolResult`` (see ``_shape``). The pool is created at the first plan, from the catalog.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolcat.catalog import Catalog, McpCommand, McpUpstream, ToolDefinition
from toolcat.executor._arguments import ArgumentChecker
from toolcat.executor._calls import CallStopped, ToolCall, ToolError
from toolcat.executor._identity import ToolContext, current_context
from toolcat.executor._redact import Redactor
from toolcat.executor._results import error_result
from toolcat.executor._secrets import SecretShape, mask_secrets, secret_shape
from toolcat.executor._telemetry import Telemetry
from toolcat.executor._transport import Delivery

from ._auth import UpstreamAuth, per_caller
from ._hooks import CallHooks, call_hooks
from ._link import NotSent
from ._pins import upstream_arguments
from ._pool import UpstreamPool
from ._shape import shape_result

if TYPE_CHECKING:
    from toolcat.executor._settings import ExecutorSettings

__all__ = ["McpPlan", "McpRequest", "McpTransport", "PreparedMcpCall"]

_MAX_BYTES = 10_000_000  # as an HTTP service's max_response_bytes
# A call not sent for these reasons goes to the next replica: it is down, or its own
# listing of the tool no longer matches the pin (another may still match, mid-deploy).
_NEXT_REPLICA = frozenset({"unavailable", "tool_changed"})


@dataclass(frozen=True, slots=True)
class McpPlan:
    """One tool of an upstream, compiled once."""

    tool: ToolDefinition
    command: McpCommand
    upstream: McpUpstream
    checker: ArgumentChecker
    secrets: SecretShape | None
    timeout: float
    max_chars: int  # the server's max_response_chars
    max_bytes: int = _MAX_BYTES

    @property
    def safe(self) -> bool:
        """The upstream says the tool changes nothing (``readOnlyHint``)."""
        return self.tool.annotations.read_only is True

    @property
    def target(self) -> str:
        """The upstream's name (quotas per service, spans)."""
        return self.command.server


@dataclass(frozen=True, slots=True)
class McpRequest:
    """A call ready to send: the upstream's tool and arguments."""

    server: str
    tool: str
    arguments: dict[str, Any]
    redactor: Redactor
    masked: Any = None  # the arguments with their secrets masked (dry run, audit)
    # the caller, for a server whose sessions are per caller (its token is never shown)
    caller: ToolContext | None = field(default=None, repr=False)

    def header(self, name: str) -> str | None:
        return None  # an MCP call has no headers a core guard reads


@dataclass(frozen=True, slots=True)
class PreparedMcpCall:
    """What a call would send to an upstream (a dry run): secrets already masked."""

    server: str
    tool: str
    arguments: Any
    transport: str  # "stdio" or "http"
    endpoint: str  # the command's program, or the URL (as written, ${VAR} unresolved)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mcp": {"server": self.server, "tool": self.tool},
            "transport": self.transport,
            "endpoint": self.endpoint,
            "arguments": self.arguments,
        }


class McpTransport:
    """Runs ``McpCommand`` tools; the executor registers one by default.

    ``relist_after``, ``connect_timeout`` and ``mode`` go to the pool (see
    :class:`UpstreamPool`). In ``ExecutorSettings(transports={McpCommand: McpTransport(...)})``
    it takes the executor's catalog at its first plan.
    """

    def __init__(
        self,
        catalog: Catalog | None = None,
        settings: ExecutorSettings | None = None,
        telemetry: Telemetry | None = None,
        *,
        relist_after: float = 5.0,
        connect_timeout: float = 30.0,
        mode: str = "auto",
    ) -> None:
        self._mode = mode
        self._catalog = catalog
        self._env = settings.env if settings is not None else None
        self._telemetry = telemetry
        self._relist_after = relist_after
        self._connect_timeout = connect_timeout
        self._pool: UpstreamPool | None = None
        self._auth = UpstreamAuth()

    def bind(self, catalog: Catalog, settings: ExecutorSettings, telemetry: Telemetry) -> None:
        """Take what an executor gives (its catalog, env, telemetry) where none was given."""
        if self._catalog is None:
            self._catalog = catalog
        if self._env is None:
            self._env = settings.env
        if self._telemetry is None:
            self._telemetry = telemetry

    @property
    def env(self) -> Mapping[str, str]:
        if self._env is not None:
            return self._env
        if self._catalog is not None and self._catalog.env is not None:
            return self._catalog.env
        return os.environ

    @property
    def pool(self) -> UpstreamPool:
        """The sessions of the catalog's upstreams (created on first use)."""
        if self._pool is None:
            if self._catalog is None:
                raise RuntimeError("McpTransport has no catalog yet: it gets one at its first plan")
            self._pool = UpstreamPool(
                self._catalog,
                env=self.env,
                credentials=self._auth.credentials,
                closers=(self._auth.aclose,),
                relist_after=self._relist_after,
                connect_timeout=self._connect_timeout,
                telemetry=self._telemetry,
                mode=self._mode,
            )
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    async def aclose(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.aclose()

    # -- the transport protocol ----------------------------------------------------------

    def plan(self, tool: ToolDefinition, catalog: Catalog) -> McpPlan:
        if self._catalog is None:
            self._catalog = catalog
        command = tool.command
        assert isinstance(command, McpCommand)
        upstream = catalog.mcp_servers[command.server]
        return McpPlan(
            tool=tool,
            command=command,
            upstream=upstream,
            checker=ArgumentChecker(tool.input_schema),
            secrets=secret_shape(tool.input_schema, tool.sensitive_arguments),
            timeout=command.timeout if command.timeout is not None else upstream.timeout,
            max_chars=upstream.max_response_chars,
        )

    def prepare(self, plan: McpPlan, arguments: dict[str, Any], *, preview: bool) -> McpRequest:
        masked, secrets = mask_secrets(arguments, plan.secrets)
        sent = upstream_arguments(plan.command, arguments)
        redactor = Redactor(secrets)
        caller = None
        if per_caller(plan.upstream):
            caller = current_context()
            if caller.token is not None:
                redactor.add_token(caller.token)
        return McpRequest(
            server=plan.command.server,
            tool=plan.command.tool,
            arguments=sent,
            redactor=redactor,
            masked=upstream_arguments(plan.command, masked),
            caller=caller,
        )

    def send(self, call: ToolCall, plan: McpPlan, request: McpRequest) -> Delivery:
        if self.pool.runs_on():  # called on the loop this would wait for
            raise RuntimeError(
                "Executor.execute of an MCP tool on the event loop that runs the MCP "
                "upstreams would wait for the loop it blocks: use aexecute there"
            )
        # read here: the pool's loop runs the call in a context of its own
        future = self.pool.submit(self._call(call, plan, request, None, call_hooks.get()))
        try:
            return future.result()
        except concurrent.futures.CancelledError:  # the pool closed under the call
            return _closed(call)

    async def asend(self, call: ToolCall, plan: McpPlan, request: McpRequest) -> Delivery:
        caller = asyncio.get_running_loop()
        hooks = call_hooks.get()  # the caller's (the MCP server sets them around a call)
        if self.pool.runs_on(caller):  # the sessions live on this loop: no hop to make
            return await self._call(call, plan, request, caller, hooks)
        future = self.pool.submit(self._call(call, plan, request, caller, hooks))
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if future.cancelled() and not _cancelling():  # the pool closed, not our caller
                return _closed(call)
            raise

    def dry_run(self, request: McpRequest) -> PreparedMcpCall:
        upstream = self.pool.servers[request.server].upstream
        endpoint = upstream.command[0] if upstream.stdio else upstream.urls[0]
        return PreparedMcpCall(
            server=request.server,
            tool=request.tool,
            arguments=request.masked,
            transport="stdio" if upstream.stdio else "http",
            endpoint=endpoint,
        )

    # -- one call, on the pool's loop ------------------------------------------------------

    async def _call(
        self,
        call: ToolCall,
        plan: McpPlan,
        request: McpRequest,
        caller: asyncio.AbstractEventLoop | None,
        hooks: CallHooks | None,
    ) -> Delivery:
        server = self.pool.servers[plan.command.server]
        links = server.pick(request.caller)
        error = ToolError("unavailable", f"MCP server {plan.target!r} has no endpoint")
        refusal: ToolError | None = None  # a replica whose own listing refused the tool
        for number, link in enumerate(links, 1):
            try:
                result = await link.call(plan.tool, request.arguments, plan.timeout, hooks, caller)
            except CallStopped as stop:
                error = stop.error
                hide = _masking(request, link.secrets)
                if hide:
                    error = ToolError(error.type, hide(error.msg), error.loc)
                sent = not isinstance(stop, NotSent)
                if error.type == "tool_changed":
                    refusal = refusal or error
                if not sent and error.type in _NEXT_REPLICA and number < len(links):
                    continue  # nothing reached this replica: the next one may answer
                if not sent and refusal is not None:
                    error = refusal  # the replicas that are up refuse it: say why
                return Delivery(error_result(call, [error]), reached=sent)
            return Delivery(shape_result(call, plan, result, _masking(request, link.secrets)))
        return Delivery(error_result(call, [refusal or error]), reached=False)


def _closed(call: ToolCall) -> Delivery:
    error = ToolError("cancelled", "the MCP upstreams were closed during the call")
    return Delivery(error_result(call, [error]))


def _cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _masking(request: McpRequest, session: list[str]) -> Redactor:
    """The call's secrets, and the credentials its session sends (an upstream may echo them)."""
    if session:
        request.redactor.add_token(*session)
    return request.redactor
