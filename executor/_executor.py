"""The executor: a model's tool call in, a validated request out, a result back.

One call, written once (a flow, see ``_flow``) and driven by ``execute`` (this thread) or
``aexecute`` (the event loop): plan -> parse -> validate -> guards -> transport -> shape.
The guards (``guards/``) are assembled from :class:`ExecutorSettings`; the transport is the
one registered for the type of the tool's command (``http/`` runs ``HttpCommand``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from toolcat.catalog import Catalog, HttpCommand, McpCommand
from toolcat.catalog.serving import AccessPolicy, AuditSettings, QuotaPolicy

from ._access import AccessGuard
from ._arguments import parse_arguments
from ._audit import AuditLog
from ._calls import ToolCall, ToolError, ToolResult, echo_name
from ._flow import Effect, Flow, adrive, drive
from ._identity import ToolContext, context_value, current_context, current_identity, with_context
from ._quota import QuotaGuard
from ._redact import Redactor
from ._results import error_result
from ._secrets import mask_secrets
from ._settings import ExecutorSettings
from ._shared import IdempotencyStore, MemoryIdempotencyStore
from ._telemetry import Telemetry, logger
from ._transport import Delivery, Plan, Transport, transport_for
from .guards import CallState, Guard, assemble
from .http import HttpTransport, PreparedRequest
from .mcp import McpTransport

if TYPE_CHECKING:
    import httpx

    from .http._auth import TokenCache

__all__ = ["Executor", "PreparedRequest"]


class Executor:
    """Runs tool calls against the catalog's services.

    >>> executor = Executor(catalog, ExecutorSettings(env={"TOKEN": "t"}))  # doctest: +SKIP
    >>> result = executor.execute(ToolCall("get_order", '{"order_id": "A1"}'))  # doctest: +SKIP
    >>> result.ok, result.status                          # doctest: +SKIP
    (True, 200)

    Problems of a call are results (``ok=False`` with typed errors), never
    exceptions. No request leaves for invalid arguments. ``settings`` (an
    :class:`ExecutorSettings`) says how calls run: the environment, the clients, the
    confirmation callback, access, quotas, audit, shared state, telemetry. The clients
    the executor creates itself are pooled and closed by :meth:`close`/:meth:`aclose`.
    Every call is audited exactly once when an audit log is set, however it ends: a
    cancelled ``aexecute`` writes its line (outcome ``cancelled``) before the
    cancellation goes on.
    """

    def __init__(self, catalog: Catalog, settings: ExecutorSettings | None = None) -> None:
        settings = settings if settings is not None else ExecutorSettings()
        self.catalog = catalog
        self.settings = settings
        self.max_concurrency = settings.max_concurrency
        self.shared = settings.shared
        self.idempotency: IdempotencyStore = (
            settings.idempotency if settings.idempotency is not None else MemoryIdempotencyStore()
        )
        self.idempotency_seconds = settings.idempotency_seconds
        telemetry = Telemetry(settings.telemetry, settings.tracer_provider, settings.meter_provider)
        # the access policy (server.access): None or no rules lets every caller call every tool
        self.access = AccessGuard(settings.access or AccessPolicy(), catalog)
        audit = settings.audit
        self._own_audit = isinstance(audit, AuditSettings)
        self.audit = AuditLog.from_settings(audit) if isinstance(audit, AuditSettings) else audit
        self.quotas = QuotaGuard(settings.quotas or QuotaPolicy(), catalog, settings.quota_store)
        self.http = HttpTransport(catalog, settings, telemetry)
        # tools of upstream MCP servers; its sessions start at the first call (or serve's
        # start). One given in the settings takes this executor's catalog, env and telemetry
        # where it has none, and is closed with the executor.
        given = settings.transports.get(McpCommand)
        self.mcp = (
            given if isinstance(given, McpTransport) else McpTransport(catalog, settings, telemetry)
        )
        self.mcp.bind(catalog, settings, telemetry)
        self._transports: dict[type, Transport] = {HttpCommand: self.http, McpCommand: self.mcp}
        self._transports.update(settings.transports)
        guards = assemble(
            settings,
            telemetry=telemetry,
            access=self.access,
            quotas=self.quotas,
            audit=self.audit,
            idempotency=self.idempotency,
        )
        self._guards = guards
        self._every_end = tuple(reversed(guards))
        self._plans: dict[str, _Route] = {}
        self._no_tool = _Route.of(None, None, guards)  # a name the catalog lacks

    # -- clients -------------------------------------------------------------------

    @property
    def client(self) -> httpx.Client:
        return self.http.client

    @property
    def async_client(self) -> httpx.AsyncClient:
        """The async client; the executor's own is bound to the event loop that first used it."""
        return self.http.async_client

    @property
    def tokens(self) -> TokenCache:
        """The OAuth token cache (shared with other replicas through ``settings.shared``)."""
        return self.http.tokens

    def close(self) -> None:
        """Close the clients this executor created (not the ones passed in), and stop the
        sessions with upstream MCP servers."""
        if self._own_audit and self.audit is not None:
            self.audit.close()
        self.http.close()
        self.mcp.close()

    async def aclose(self) -> None:
        if self._own_audit and self.audit is not None:
            self.audit.close()
        await self.http.aclose()
        await self.mcp.aclose()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Executor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- the steps before sending ----------------------------------------------------

    def plan(self, name: str) -> Any:
        """The compiled plan of a tool (cached), or ``None`` for an unknown name."""
        return self._route(name).plan

    def _route(self, name: object) -> _Route:
        """What a call of ``name`` goes through, compiled at its first call."""
        if not isinstance(name, str):
            return self._no_tool
        found = self._plans.get(name)
        if found is None:
            tool = self.catalog.get(name)
            if tool is None:
                return self._no_tool
            transport = transport_for(self._transports, tool.command)
            if isinstance(transport, ToolError):
                raise LookupError(transport.msg)
            plan = transport.plan(tool, self.catalog)
            found = self._plans[name] = _Route.of(transport, plan, self._guards)
        return found

    def _unknown(self, call: ToolCall, identity: Any) -> ToolResult:
        # A model-chosen name may be megabytes: echo (and compare) only its start.
        shown = echo_name(call.name)
        closest = self.catalog.closest(shown) if shown == call.name else ()
        if closest and self.access.enabled:  # never suggest a tool the caller may not call
            closest = tuple(n for n in closest if self.access.decide(identity, n).allowed)
        hint = f"; did you mean: {', '.join(closest)}?" if closest else ""
        return error_result(
            replace(call, name=shown) if shown != call.name else call,
            [ToolError("unknown_tool", f"no tool named {shown!r}{hint}")],
            extra={"closest": list(closest)} if closest else None,
        )

    def _draft(self, state: CallState, transport: Transport, *, preview: bool = False) -> Any:
        """Parse, validate and prepare the call's request; an error result stops it."""
        call, plan, trail = state.call, state.plan, state.trail
        assert plan is not None
        args = parse_arguments(call.arguments)
        if isinstance(args, ToolError):
            return error_result(call, [args])
        trail.arguments = args
        bound = plan.tool.context_arguments
        if bound:
            sent = [a for a in bound if a in args]
            if sent:  # a model must not choose the tenant, the user, ...
                return error_result(
                    call,
                    [
                        ToolError(
                            "invalid_arguments",
                            f"{a!r} is filled from the caller's context ({bound[a]}); "
                            "do not send it",
                            (a,),
                        )
                        for a in sent
                    ],
                )
        errors = plan.checker.check(args)
        if errors:  # a violation's text may quote a secret argument
            hide = Redactor(mask_secrets(args, plan.secrets)[1])
            return error_result(call, [_redacted(e, hide) for e in errors])
        if bound:
            filled = self._from_context(call, plan, args)
            if isinstance(filled, ToolResult):
                return filled
            args = filled
        prepared = transport.prepare(plan, args, preview=preview)
        if isinstance(prepared, ToolError):
            return error_result(call, [prepared])
        trail.redactor = prepared.redactor
        return prepared

    def _from_context(
        self, call: ToolCall, plan: Plan, args: dict[str, Any]
    ) -> dict[str, Any] | ToolResult:
        """``args`` with the context-bound arguments filled; a required one missing refuses."""
        context = current_context()
        command = plan.tool.command
        if isinstance(command, McpCommand):
            required = set(command.required_context)
        else:
            required = {b.argument for b in getattr(command, "parameters", ()) if b.required}
        out = dict(args)
        missing = []
        for argument, source in plan.tool.context_arguments.items():
            value = context_value(context, source)
            if value is None:
                if argument in required:
                    missing.append(source)
                continue
            out[argument] = value
        if missing:
            return error_result(
                call,
                [
                    ToolError(
                        "refused_by_policy",
                        f"this tool needs {', '.join(missing)} from the caller's context, "
                        "which this call does not carry; it was not sent",
                    )
                ],
            )
        return out

    # -- one call ----------------------------------------------------------------------

    def execute(self, call: ToolCall, *, context: ToolContext | None = None) -> ToolResult:
        """Run one call (blocking).

        ``context`` carries the caller; without it, the identity a server set for this
        task (:func:`current_identity`) is the caller. The access policy is checked first.
        """
        if context is not None:
            with with_context(context):
                return drive(self._flow(call))
        return drive(self._flow(call))

    async def aexecute(self, call: ToolCall, *, context: ToolContext | None = None) -> ToolResult:
        """Run one call on the event loop (the same steps as :meth:`execute`)."""
        if context is not None:
            with with_context(context):
                return await adrive(self._flow(call))
        return await adrive(self._flow(call))

    def _flow(self, call: ToolCall) -> Flow[ToolResult]:
        """One call from start to end; every guard's ``end`` runs once, whatever ends it."""
        state = CallState(call, current_identity())
        result: ToolResult | None = None
        ends = self._every_end  # until the tool's route is known
        try:
            route = self._route(call.name)
            ends = route.ends
            result = yield from self._steps(state, route)
        except Exception as exc:  # a bug of ours must not take the conversation down
            result = self._internal(call, exc, state.trail.start)
        except BaseException:  # cancelled or interrupted: written down, then passed on
            result = _cut(state)
            raise
        finally:
            if result is None:  # the flow was closed before it ended
                result = _cut(state)
            for guard in ends:
                guard.end(state, result)
        return result

    def _steps(self, state: CallState, route: _Route) -> Flow[ToolResult]:
        call, start = state.call, state.trail.start
        transport, plan = route.transport, route.plan
        if plan is not None:
            state.plan = plan
            state.trail.tool = plan.tool  # the audit line masks a refused call too
        for guard in route.call_guards:
            refused = yield from guard.before(state)
            if refused is not None:
                return _timed(refused, start)
        if transport is None or plan is None:
            return _timed(self._unknown(call, state.identity), start)
        prepared = self._draft(state, transport)
        if isinstance(prepared, ToolResult):
            return _timed(prepared, start)
        state.prepared = prepared
        ran = 0
        result: ToolResult | None = None
        for guard in route.request_guards:
            ran += 1
            refused = yield from guard.before(state)
            if refused is not None:
                result = _timed(refused, start)  # a replayed result keeps its notes
                break
        if result is None:
            state.trail.sent = True
            delivery = yield _Send(transport, call, plan, prepared)
            state.reached = delivery.reached
            result = _timed(delivery.result, start)
        for guard in reversed(route.request_guards[:ran]):
            result = yield from guard.after(state, result)
        return result

    # -- several calls -------------------------------------------------------------------

    def execute_many(
        self,
        calls: Iterable[ToolCall],
        *,
        concurrent: bool = True,
        context: ToolContext | None = None,
    ) -> list[ToolResult]:
        """Run the calls of one turn; results in call order, one failure never stops the others."""
        calls = list(calls)
        # worker threads do not inherit this thread's caller: each call is given it
        ctx = context if context is not None else current_context()
        if not concurrent or len(calls) <= 1:
            return [self.execute(c, context=ctx) for c in calls]
        workers = min(self.max_concurrency, len(calls))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="toolcat") as pool:
            return list(pool.map(lambda c: self.execute(c, context=ctx), calls))

    async def aexecute_many(
        self,
        calls: Iterable[ToolCall],
        *,
        concurrent: bool = True,
        context: ToolContext | None = None,
    ) -> list[ToolResult]:
        """The async twin of :meth:`execute_many` (at most ``max_concurrency`` at once)."""
        calls = list(calls)
        if context is not None:
            with with_context(context):  # tasks copy this context when they start
                return await self.aexecute_many(calls, concurrent=concurrent)
        if not concurrent or len(calls) <= 1:
            return [await self.aexecute(c) for c in calls]
        if len(calls) <= self.max_concurrency:  # no gate needed: all run at once anyway
            return list(await asyncio.gather(*(self.aexecute(c) for c in calls)))
        gate = asyncio.Semaphore(self.max_concurrency)

        async def one(call: ToolCall) -> ToolResult:
            async with gate:
                return await self.aexecute(call)

        return list(await asyncio.gather(*(one(c) for c in calls)))

    # -- dry run -------------------------------------------------------------------------

    def prepare(
        self, call: ToolCall, *, context: ToolContext | None = None
    ) -> PreparedRequest | ToolResult:
        """The request ``call`` would send (a :class:`PreparedRequest` for an HTTP tool),
        with secrets masked; sends nothing.

        Returns the error result instead when the call could not be sent. A service
        that forwards or exchanges the caller's token shows ``Bearer ***``, with or
        without a token in ``context``; no exchange is made.
        """
        if context is not None:
            with with_context(context):
                return self.prepare(call)
        state = CallState(call, current_identity())
        route = self._route(call.name)
        if route.transport is None or route.plan is None:
            return self._unknown(call, state.identity)
        transport, state.plan = route.transport, route.plan
        prepared = self._draft(state, transport, preview=True)
        if isinstance(prepared, ToolResult):
            return prepared
        shown: PreparedRequest = transport.dry_run(prepared)
        return shown

    # -- helpers ---------------------------------------------------------------------------

    def _internal(self, call: ToolCall, exc: Exception, start: float) -> ToolResult:
        logger.exception("tool call %s failed inside the executor", echo_name(call.name))
        return error_result(
            call,
            [ToolError("internal", f"the executor failed: {type(exc).__name__}")],
            elapsed=time.perf_counter() - start,
        )


@dataclass(frozen=True, slots=True)
class _Route:
    """What the calls of one tool go through: its transport, its plan, and the guards
    that concern it (``Guard.applies``), decided once per tool."""

    transport: Transport | None  # None (and no plan): a name the catalog lacks
    plan: Plan | None
    call_guards: tuple[Guard, ...]
    request_guards: tuple[Guard, ...]
    ends: tuple[Guard, ...]  # every guard of the call, last first

    @classmethod
    def of(cls, transport: Transport | None, plan: Plan | None, guards: Iterable[Guard]) -> _Route:
        mine = tuple(g for g in guards if g.applies(plan))
        return cls(
            transport,
            plan,
            tuple(g for g in mine if g.stage == "call"),
            tuple(g for g in mine if g.stage == "request"),
            tuple(reversed(mine)),
        )


class _Send:
    """The transport's part of a call, as the flow's effect."""

    __slots__ = ("call", "plan", "prepared", "transport")

    def __init__(self, transport: Transport, call: ToolCall, plan: Any, prepared: Any) -> None:
        self.transport, self.call, self.plan, self.prepared = transport, call, plan, prepared

    def run(self) -> Delivery:
        return self.transport.send(self.call, self.plan, self.prepared)

    async def arun(self) -> Delivery:
        return await self.transport.asend(self.call, self.plan, self.prepared)


_: type[Effect] = _Send  # the flow's effects follow the protocol


def _timed(result: ToolResult, start: float) -> ToolResult:
    return replace(result, elapsed=time.perf_counter() - start)


def _cut(state: CallState) -> ToolResult:
    """The result of a call cut before its end (cancelled, interrupted, a client gone)."""
    if state.trail.sent:
        text = "the call was cancelled after its request was sent; the service may have received it"
    else:
        text = "the call was cancelled before its request was sent; it was not sent"
    return error_result(
        state.call,
        [ToolError("cancelled", text)],
        elapsed=time.perf_counter() - state.trail.start,
    )


def _redacted(error: ToolError, redactor: Redactor) -> ToolError:
    """``error`` with what ``redactor`` masks masked in its message."""
    if not redactor:
        return error
    return ToolError(error.type, redactor(error.msg), error.loc)
