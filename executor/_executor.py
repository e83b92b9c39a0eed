"""The executor: a model's tool call in, a validated request out, a result back."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
from toolcat.catalog import (
    AccessPolicy,
    AuditSettings,
    Catalog,
    QuotaPolicy,
    ToolDefinition,
    method_semantics,
)

from ._access import AccessGuard
from ._arguments import parse_arguments
from ._audit import AuditLog, AuditTrail
from ._auth import TokenCache
from ._calls import ToolCall, ToolError, ToolResult, echo_name
from ._deadline import bind_deadline
from ._dispatch import Dispatcher, DispatchFailure, Reply
from ._identity import ToolContext, context_value, current_context, current_identity, with_context
from ._plan import ToolPlan, compile_plan
from ._quota import QuotaDecision, QuotaGuard, QuotaStore
from ._redact import MASK, Redactor
from ._render import Draft, render
from ._results import error_result, shape_reply
from ._shared import (
    IdempotencyStore,
    MemoryIdempotencyStore,
    RedisState,
    RedisTokens,
    SharedStateError,
    result_record,
)
from ._telemetry import UNKNOWN_TOOL, Telemetry, logger

__all__ = ["ConfirmCallback", "Executor", "PreparedRequest"]

ConfirmCallback = Callable[[ToolCall, ToolDefinition], "bool | Awaitable[bool]"]


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """The request a call would send (a dry run): secrets are already masked."""

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "url": self.url,
            "headers": dict(self.headers),
            "body": self.body,
        }


class Executor:
    """Runs tool calls against the catalog's services.

    >>> executor = Executor(catalog)                      # doctest: +SKIP
    >>> result = executor.execute(ToolCall("get_order", '{"order_id": "A1"}'))  # doctest: +SKIP
    >>> result.ok, result.status                          # doctest: +SKIP
    (True, 200)

    Problems of a call are results (``ok=False`` with typed errors), never
    exceptions. No request leaves for invalid arguments. ``env`` is the mapping
    ``${VAR}`` reads (``None``: the catalog's own ``env``, else ``os.environ`` at
    call time). Clients passed in
    are used as they are and not closed; the executor's own clients are pooled
    and closed by :meth:`close`/:meth:`aclose`. Tools with ``confirm: true``
    run only when ``confirm(call, tool)`` returns true; without a callback they
    are refused. ``sleep``/``async_sleep`` are the waits between retries.
    With ``opentelemetry-api`` installed, each call is a span ``execute_tool {name}``
    (GenAI conventions) on the global providers, or on those passed in.
    ``audit`` writes one JSON line per call (an :class:`AuditLog`, or the settings of
    one); ``quotas`` limits calls per caller and tool and per service, its buckets in
    ``quota_store`` (default: in this process). ``shared`` (a Redis, see
    :func:`connect_redis`) shares OAuth client-credentials tokens with other replicas;
    ``idempotency`` keeps the records of tools with an ``idempotency_key`` (default: in
    this process) for ``idempotency_seconds``.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        env: Mapping[str, str] | None = None,
        client: httpx.Client | None = None,
        async_client: httpx.AsyncClient | None = None,
        confirm: ConfirmCallback | None = None,
        max_concurrency: int = 8,
        sleep: Callable[[float], None] = time.sleep,
        async_sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        telemetry: bool = True,
        tracer_provider: Any = None,
        meter_provider: Any = None,
        access: AccessPolicy | None = None,
        audit: AuditLog | AuditSettings | None = None,
        quotas: QuotaPolicy | None = None,
        quota_store: QuotaStore | None = None,
        shared: RedisState | None = None,
        idempotency: IdempotencyStore | None = None,
        idempotency_seconds: float = 600.0,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.catalog = catalog
        self._env = env if env is not None else catalog.env
        self._client = client
        self._async_client = async_client
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self._own_client = client is None
        self._own_async_client = async_client is None
        self._confirm = confirm
        self.max_concurrency = max_concurrency
        # Keep a connection alive for each call that may run at once, so a turn of
        # concurrent calls reuses its connections instead of opening new ones.
        self._limits = httpx.Limits(
            max_connections=max(100, max_concurrency),
            max_keepalive_connections=max(32, max_concurrency),
        )
        self._plans: dict[str, ToolPlan] = {}
        self.shared = shared
        self.tokens = TokenCache(shared=RedisTokens(shared) if shared is not None else None)
        self.idempotency: IdempotencyStore = (
            idempotency if idempotency is not None else MemoryIdempotencyStore()
        )
        self.idempotency_seconds = idempotency_seconds
        self._safe_names: frozenset[str] | None = None
        self._dispatcher = Dispatcher(self.tokens, sleep=sleep, async_sleep=async_sleep)
        self._telemetry = Telemetry(telemetry, tracer_provider, meter_provider)
        self._confirm_lock = threading.Lock()
        # held only while a question waits: a caller's entry goes with its last question
        self._async_confirm_locks: weakref.WeakValueDictionary[tuple[int, str], asyncio.Lock]
        self._async_confirm_locks = weakref.WeakValueDictionary()
        self._client_lock = threading.Lock()
        # the access policy (server.access): None or no rules lets every caller call every tool
        self.access = AccessGuard(access or AccessPolicy(), catalog)
        self._own_audit = isinstance(audit, AuditSettings)
        self.audit = AuditLog.from_settings(audit) if isinstance(audit, AuditSettings) else audit
        self.quotas = QuotaGuard(quotas or QuotaPolicy(), catalog, quota_store)

    # -- clients -------------------------------------------------------------------

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            with self._client_lock:
                if self._client is None:
                    client = httpx.Client(follow_redirects=False, limits=self._limits)
                    bind_deadline(client)  # the total timeout holds on every socket read
                    self._client = client
        return self._client

    @property
    def async_client(self) -> httpx.AsyncClient:
        """The async client; the executor's own is bound to the event loop that first used it."""
        loop = asyncio.get_running_loop()
        if (
            self._async_client is not None
            and self._own_async_client
            and self._async_loop is not loop
        ):
            # A new event loop (another asyncio.run): the old client's connections belong to
            # the old loop and cannot be reused. Use `async with Executor(...)` to close them.
            self._async_client = None
        if self._async_client is None:
            self._async_client = httpx.AsyncClient(follow_redirects=False, limits=self._limits)
            self._async_loop = loop
        return self._async_client

    def close(self) -> None:
        """Close the clients this executor created (not the ones passed in)."""
        if self._own_audit and self.audit is not None:
            self.audit.close()
        if self._own_client and self._client is not None:
            self._client.close()
            self._client = None
        if self._own_async_client and self._async_client is not None:
            loop = self._async_loop
            if loop is not None and not loop.is_closed() and not loop.is_running():
                loop.run_until_complete(self._async_client.aclose())
            # otherwise the loop that owned it is gone (or busy): use aclose() in that loop
            self._async_client = None

    async def aclose(self) -> None:
        if self._own_audit and self.audit is not None:
            self.audit.close()
        if self._own_async_client and self._async_client is not None:
            await self._async_client.aclose()
            self._async_client = None
        if self._own_client and self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Executor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- the steps before sending ----------------------------------------------------

    def plan(self, name: str) -> ToolPlan | None:
        """The compiled plan of a tool (cached), or ``None`` for an unknown name."""
        plan = self._plans.get(name)
        if plan is None:
            tool = self.catalog.get(name)
            if tool is None:
                return None
            plan = self._plans[name] = compile_plan(tool, self.catalog.service_for(tool))
        return plan

    def _draft(
        self, call: ToolCall, trail: AuditTrail | None = None, *, preview: bool = False
    ) -> tuple[ToolPlan, Draft] | ToolResult:
        plan = self.plan(call.name) if isinstance(call.name, str) else None
        if plan is None:
            # A model-chosen name may be megabytes: echo (and compare) only its start.
            shown = echo_name(call.name)
            closest = self.catalog.closest(shown) if shown == call.name else ()
            if closest and self.access.enabled:  # never suggest a tool the caller may not call
                who = current_identity()
                closest = tuple(n for n in closest if self.access.decide(who, n).allowed)
            hint = f"; did you mean: {', '.join(closest)}?" if closest else ""
            return error_result(
                replace(call, name=shown) if shown != call.name else call,
                [ToolError("unknown_tool", f"no tool named {shown!r}{hint}")],
                extra={"closest": list(closest)} if closest else None,
            )
        args = parse_arguments(call.arguments)
        if isinstance(args, ToolError):
            return error_result(call, [args])
        if trail is not None:
            trail.arguments, trail.tool = args, plan.tool
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
        if errors:
            return error_result(call, errors)
        if bound:
            filled = self._from_context(call, plan, args)
            if isinstance(filled, ToolResult):
                return filled
            args = filled
        env = self._env if self._env is not None else os.environ
        draft = render(plan, args, env, context=current_context(), preview=preview)
        if isinstance(draft, ToolError):
            return error_result(call, [draft])
        if trail is not None:
            trail.redactor = draft.redactor
        return plan, draft

    # -- one call ----------------------------------------------------------------------

    def execute(self, call: ToolCall, *, context: ToolContext | None = None) -> ToolResult:
        """Run one call (blocking).

        ``context`` carries the caller; without it, the identity a server set for this
        task (:func:`current_identity`) is the caller. The access policy is checked first.
        """
        if context is not None:
            with with_context(context):
                return self.execute(call)
        trail = AuditTrail()
        if not self._telemetry.tracing():
            result = self._guarded(call, trail)
        else:
            with self._telemetry.span(
                self._known(call.name), call.id, self._service_name(call), current_identity()
            ) as span:
                result = self._guarded(call, trail)
                span.finish(
                    error_type=result.error.type if result.error else None,
                    status=result.status,
                    decision=trail.decision,
                    rule=trail.rule,
                )
        self._observe(result, trail)
        return result

    def _guarded(self, call: ToolCall, trail: AuditTrail) -> ToolResult:
        try:
            return self._execute(call, trail)
        except Exception as exc:  # a bug of ours must not take the conversation down
            return self._internal(call, exc, trail.start)

    def _execute(self, call: ToolCall, trail: AuditTrail) -> ToolResult:
        start = trail.start
        if self.audit is not None and isinstance(call.name, str):  # to mask a refused call too
            trail.tool = self.catalog.get(call.name)
        refused = self._forbidden(call, trail) or self._limited(call, trail)
        if refused is not None:
            return _timed(refused, start)
        prepared = self._draft(call, trail)
        if isinstance(prepared, ToolResult):
            return _timed(prepared, start)
        plan, draft = prepared
        unaudited = self._unaudited(call, plan, trail)  # before the user is asked to confirm
        if unaudited is not None:
            return _timed(unaudited, start)
        if plan.tool.confirm and not self._confirmed_sync(call, plan.tool):
            return _timed(_refused(call), start)
        safe = plan.tool.name in self._safe_tools
        with self.quotas.slot(plan.tool.command.service, safe=safe) as slot:
            if not slot.allowed:
                return _timed(_rate_limited(call, slot, trail), start)
            key = self._idempotency_key(plan, draft, trail)
            if key is not None:
                held = self._begin(call, plan, key)
                if held is not None:  # a replayed result keeps its notes
                    return replace(held, elapsed=time.perf_counter() - start)
            try:
                reply = self._dispatcher.send(self.client, plan, draft)
            except DispatchFailure as exc:
                failed = _dispatch_failed(call, exc, draft.redactor, start)
                if key is not None:
                    self._finish(key, failed, _never_sent(exc))
                return failed
        result = shape_reply(call, plan, reply, draft.redactor, time.perf_counter() - start)
        if plan.service.validate_responses:
            result = self._conforming(plan, draft, reply, result)
        if key is not None:
            self._finish(key, result)
        return result

    async def aexecute(self, call: ToolCall, *, context: ToolContext | None = None) -> ToolResult:
        """Run one call on the event loop; the arguments are checked in a worker thread."""
        if context is not None:
            with with_context(context):
                return await self.aexecute(call)
        trail = AuditTrail()
        if not self._telemetry.tracing():
            result = await self._aguarded(call, trail)
        else:
            with self._telemetry.span(
                self._known(call.name), call.id, self._service_name(call), current_identity()
            ) as span:
                result = await self._aguarded(call, trail)
                span.finish(
                    error_type=result.error.type if result.error else None,
                    status=result.status,
                    decision=trail.decision,
                    rule=trail.rule,
                )
        self._observe(result, trail)
        return result

    async def _aguarded(self, call: ToolCall, trail: AuditTrail) -> ToolResult:
        try:
            return await self._aexecute(call, trail)
        except Exception as exc:
            return self._internal(call, exc, trail.start)

    async def _aexecute(self, call: ToolCall, trail: AuditTrail) -> ToolResult:
        # Parsing, validating and rendering the arguments is CPU work sized by the model's
        # input and the spec's schema: it runs in a worker thread (the loop's default
        # executor, as asyncio.to_thread), so the event loop keeps serving other clients.
        start = trail.start
        if self.audit is not None and isinstance(call.name, str):  # to mask a refused call too
            trail.tool = self.catalog.get(call.name)
        refused = self._forbidden(call, trail)
        if refused is None:
            if self.quotas.shared and self.quotas.enabled:  # a round trip: off the loop
                refused = await asyncio.to_thread(self._limited, call, trail)
            else:
                refused = self._limited(call, trail)
        if refused is not None:
            return _timed(refused, start)
        prepared = await asyncio.to_thread(self._draft, call, trail)
        if isinstance(prepared, ToolResult):
            return _timed(prepared, start)
        plan, draft = prepared
        unaudited = self._unaudited(call, plan, trail)  # before the user is asked to confirm
        if unaudited is not None:
            return _timed(unaudited, start)
        if plan.tool.confirm and not await self._confirmed_async(call, plan.tool):
            return _timed(_refused(call), start)
        service = plan.tool.command.service
        safe = plan.tool.name in self._safe_tools
        # a shared store answers over the network: its round trips leave the event loop
        shared = self.quotas.shared or getattr(self.idempotency, "shared", False)
        if self.quotas.remote_slot(service):
            slot = await asyncio.to_thread(self.quotas.enter, service, safe=safe)
        else:
            slot = self.quotas.enter(service, safe=safe)
        try:
            if not slot.allowed:
                return _timed(_rate_limited(call, slot, trail), start)
            key = self._idempotency_key(plan, draft, trail)
            if key is not None:
                if shared:
                    held = await asyncio.to_thread(self._begin, call, plan, key)
                else:
                    held = self._begin(call, plan, key)
                if held is not None:  # a replayed result keeps its notes
                    return replace(held, elapsed=time.perf_counter() - start)
            try:
                reply = await self._dispatcher.asend(self.async_client, plan, draft)
            except DispatchFailure as exc:
                failed = _dispatch_failed(call, exc, draft.redactor, start)
                if key is not None:
                    await _maybe_thread(shared, self._finish, key, failed, _never_sent(exc))
                return failed
        finally:
            if slot.lease is not None:
                await asyncio.to_thread(self.quotas.leave, service, slot)
            else:
                self.quotas.leave(service, slot)
        result = shape_reply(call, plan, reply, draft.redactor, time.perf_counter() - start)
        if plan.service.validate_responses:
            result = await asyncio.to_thread(self._conforming, plan, draft, reply, result)
        if key is not None:
            await _maybe_thread(shared, self._finish, key, result)
        return result

    def _from_context(
        self, call: ToolCall, plan: ToolPlan, args: dict[str, Any]
    ) -> dict[str, Any] | ToolResult:
        """``args`` with the context-bound arguments filled; a required one missing refuses."""
        context = current_context()
        required = {b.argument for b in plan.tool.command.parameters if b.required}
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

    @property
    def _safe_tools(self) -> frozenset[str]:
        """The tools with a safe method (computed at the first call)."""
        if self._safe_names is None:
            self._safe_names = frozenset(
                t.name for t in self.catalog if method_semantics(t.command.method).safe
            )
        return self._safe_names

    def _idempotency_key(self, plan: ToolPlan, draft: Draft, trail: AuditTrail) -> str | None:
        """The record's key of a non-safe call whose tool names an idempotency key and that
        carries one: the tool, the caller and the key's value (a header sent, else the
        argument)."""
        name = plan.tool.idempotency_key
        if name is None or plan.tool.name in self._safe_tools:
            return None
        value: str | None = None
        lower = name.lower()
        for header, sent in draft.headers:
            if header.lower() == lower:
                value = sent.decode("utf-8", "replace") if isinstance(sent, bytes) else sent
                break
        if value is None and isinstance(trail.arguments, dict):
            given = trail.arguments.get(name)
            if given is not None:
                value = given if isinstance(given, str) else json.dumps(given, sort_keys=True)
        if not value:
            return None
        who = current_identity()
        caller = "-" if who is None else who.key
        return f"{plan.tool.name}\x1f{caller}\x1f{value}"

    def _begin(self, call: ToolCall, plan: ToolPlan, key: str) -> ToolResult | None:
        """Record ``key`` as running; a result when a call with the same key ran or runs.

        A running record lasts as long as a result would: if this replica dies mid-call,
        nobody knows whether the service got the request, so a retry is not sent."""
        try:
            held = self.idempotency.begin(key, self.idempotency_seconds)
        except SharedStateError as exc:
            if self.shared is not None:
                self.shared.failed("idempotency", "fail_closed", exc)
            return _unavailable(call, "the shared idempotency store (Redis) does not answer")
        if held is None:
            return None
        if held.get("state") == "done" and isinstance(held.get("result"), dict):
            return _replayed(call, held["result"])
        return error_result(
            call,
            [
                ToolError(
                    "in_progress",
                    "a call with the same idempotency key is running; it was not sent again. "
                    "Try again in 1 s for its result",
                )
            ],
            extra={"retry_after": 1.0},
        )

    def _finish(self, key: str, result: ToolResult, never_sent: bool = False) -> None:
        """Keep ``result`` under ``key`` (or drop the record: the request never left)."""
        try:
            if never_sent:
                self.idempotency.forget(key)
            else:
                self.idempotency.finish(key, result_record(result), self.idempotency_seconds)
        except SharedStateError as exc:  # the running record expires on its own
            if self.shared is not None:
                self.shared.failed("idempotency", "fail_open", exc)

    def _limited(self, call: ToolCall, trail: AuditTrail) -> ToolResult | None:
        """A ``rate_limited`` result when a quota of the caller on this tool is used up."""
        if not self.quotas.enabled or not isinstance(call.name, str):
            return None
        decision = self.quotas.check(current_identity(), call.name)
        return None if decision.allowed else _rate_limited(call, decision, trail)

    def _unaudited(self, call: ToolCall, plan: ToolPlan, trail: AuditTrail) -> ToolResult | None:
        """A refusal when the audit log cannot be written and ``fail_closed`` covers the call."""
        if self.audit is None or self.audit.permits(plan.tool.command.method):
            return None
        trail.decision, trail.rule = "deny", "audit.fail_closed"
        return error_result(
            call,
            [
                ToolError(
                    "refused_by_policy",
                    "the audit log cannot be written, and calls like this one are not sent "
                    "without their audit line; it was not sent. Try again later",
                )
            ],
        )

    def _forbidden(self, call: ToolCall, trail: AuditTrail | None = None) -> ToolResult | None:
        """A ``forbidden`` result when the access policy refuses the caller this tool."""
        if (
            not self.access.enabled
            or not isinstance(call.name, str)
            or call.name not in self.catalog.tools
        ):
            return None  # an unknown name gets unknown_tool from _draft
        identity = current_identity()
        decision = self.access.decide(identity, call.name)
        if trail is not None:
            trail.rule = decision.rule
        if decision.allowed:
            return None
        if trail is not None:
            trail.decision = "deny"
        # as record arguments: the log filter escapes control characters (a forged sub)
        logger.info(
            "access policy refused %s to %s (%s)",
            call.name,
            identity.subject if identity is not None else "an unauthenticated caller",
            decision.reason,
        )
        return error_result(
            call,
            [
                ToolError(
                    "forbidden",
                    f"the access policy does not let this caller call {call.name!r} "
                    f"({decision.reason}); it was not sent. Use a tool the caller may call, "
                    "or ask for access",
                )
            ],
        )

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
        """The request ``call`` would send, with secrets masked; sends nothing.

        Returns the error result instead when the call could not be sent. A service
        that forwards or exchanges the caller's token shows ``Bearer ***``, with or
        without a token in ``context``; no exchange is made.
        """
        if context is not None:
            with with_context(context):
                return self.prepare(call)
        prepared = self._draft(call, preview=True)
        if isinstance(prepared, ToolResult):
            return prepared
        _, draft = prepared
        headers = [(k, v.decode() if isinstance(v, bytes) else v) for k, v in draft.headers]
        if draft.oauth is not None:
            headers.append(("Authorization", f"Bearer {MASK}"))
        if draft.files is not None:
            headers.append(("Content-Type", "multipart/form-data"))
        return PreparedRequest(
            method=draft.method,
            url=draft.redactor(str(draft.url)),
            headers=draft.redactor.headers(headers),
            body=draft.preview,
        )

    # -- response validation (a service's validate_responses) ---------------------------

    def _conforming(
        self, plan: ToolPlan, draft: Draft, reply: Reply, result: ToolResult
    ) -> ToolResult:
        """``result``, with a note (warn) or as an error (error) when ``reply`` breaks the spec."""
        from ._openapi import response_problem

        service = plan.service
        problem = response_problem(plan, draft, reply)
        if problem is None:
            return result
        problem = draft.redactor(problem)
        mode = service.validate_responses or "warn"
        name = self._known(result.call.name)
        self._telemetry.nonconforming(name, service.name, mode)
        logger.warning(
            "tool %s (call %s): the response does not conform to the spec of service %s: %s",
            name,
            result.call.id,
            service.name,
            problem,
        )
        text = f"the response does not conform to the service's OpenAPI spec: {problem}"
        if mode == "error":
            return error_result(
                result.call,
                [ToolError("nonconforming_response", text)],
                status=reply.status,
                headers=result.headers,
                elapsed=result.elapsed,
            )
        return replace(result, notes=(*result.notes, text))

    # -- helpers ---------------------------------------------------------------------------

    def _known(self, name: object) -> str:
        """``name`` for telemetry: a catalog name, or ``UNKNOWN_TOOL`` (bounded cardinality)."""
        return name if isinstance(name, str) and name in self.catalog else UNKNOWN_TOOL

    def _service_name(self, call: ToolCall) -> str | None:
        tool = self.catalog.get(call.name) if isinstance(call.name, str) else None
        return tool.command.service if tool is not None else None

    def _confirmed_sync(self, call: ToolCall, tool: ToolDefinition) -> bool:
        if self._confirm is None:
            return False
        with self._confirm_lock:  # one question at a time
            answer = self._confirm(call, tool)
            if inspect.isawaitable(answer):
                answer = _run_awaitable(answer)
        return bool(answer)

    async def _confirmed_async(self, call: ToolCall, tool: ToolDefinition) -> bool:
        if self._confirm is None:
            return False
        who = current_identity()  # one queue per caller: nobody waits on another's user
        loop_key = (id(asyncio.get_running_loop()), who.key if who is not None else "")
        lock = self._async_confirm_locks.get(loop_key)
        if lock is None:
            lock = self._async_confirm_locks[loop_key] = asyncio.Lock()
        async with lock:  # one question at a time to one caller
            answer = self._confirm(call, tool)
            if inspect.isawaitable(answer):
                answer = await answer
        return bool(answer)

    def _internal(self, call: ToolCall, exc: Exception, start: float) -> ToolResult:
        logger.exception("tool call %s failed inside the executor", echo_name(call.name))
        return error_result(
            call,
            [ToolError("internal", f"the executor failed: {type(exc).__name__}")],
            elapsed=time.perf_counter() - start,
        )

    def _observe(self, result: ToolResult, trail: AuditTrail | None = None) -> None:
        if self.audit is not None and trail is not None:
            self.audit.write(result, trail, current_identity())
        error = result.error
        name = self._known(result.call.name)
        self._telemetry.record(name, error.type if error else None, result.elapsed)
        if error is not None:
            logger.info(
                "tool %s (call %s) failed: %s: %s",
                echo_name(result.call.name),
                result.call.id,
                error.type,
                error.msg,
            )
        elif logger.isEnabledFor(10):
            logger.debug(
                "tool %s (call %s) -> %s in %.3fs",
                result.call.name,
                result.call.id,
                result.status,
                result.elapsed,
            )


def _timed(result: ToolResult, start: float) -> ToolResult:
    return ToolResult(
        result.call,
        result.ok,
        result.content,
        result.status,
        result.data,
        result.errors,
        result.headers,
        time.perf_counter() - start,
        result.return_direct,
    )


def _rate_limited(call: ToolCall, decision: QuotaDecision, trail: AuditTrail) -> ToolResult:
    """Nothing was sent: the caller may try again after ``retry_after`` seconds."""
    trail.decision, trail.rule = "rate_limited", decision.rule
    if decision.unavailable:
        return _unavailable(call, decision.what)
    return error_result(
        call,
        [
            ToolError(
                "rate_limited",
                f"this call is over {decision.what}; it was not sent. Try again in "
                f"{decision.retry_after:g} s",
            )
        ],
        extra={"retry_after": decision.retry_after},
    )


def _unavailable(call: ToolCall, what: str) -> ToolResult:
    """Shared state did not answer, so a non-safe call was not sent (retryable)."""
    return error_result(
        call,
        [ToolError("unavailable", f"{what}; the call was not sent. Try again in 1 s")],
        extra={"retry_after": 1.0},
    )


def _replayed(call: ToolCall, record: dict[str, Any]) -> ToolResult:
    """The result kept for a call with the same idempotency key, for this call."""
    errors = tuple(
        ToolError(str(e[0]), str(e[1]), tuple(e[2]))
        for e in record.get("errors") or ()
        if isinstance(e, list) and len(e) == 3
    )
    return ToolResult(
        call,
        bool(record.get("ok")),
        str(record.get("content", "")),
        record.get("status"),
        record.get("data"),
        errors,
        dict(record.get("headers") or {}),
        0.0,
        bool(record.get("return_direct")),
        bool(record.get("truncated")),
        ("the result of an earlier call with the same idempotency key; not sent again",),
    )


def _never_sent(exc: DispatchFailure) -> bool:
    """The request never reached the service (no connection, refused before sending)."""
    error = exc.error
    return error.type == "refused_by_policy" or error.msg.startswith("could not connect")


async def _maybe_thread(thread: bool, fn: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.to_thread(fn, *args) if thread else fn(*args)


def _refused(call: ToolCall) -> ToolResult:
    return error_result(
        call,
        [ToolError("not_confirmed", "the user did not confirm this call; it was not sent")],
    )


def _redacted(error: ToolError, redactor: Redactor) -> ToolError:
    if not redactor:
        return error
    return ToolError(error.type, redactor(error.msg), error.loc)


def _dispatch_failed(
    call: ToolCall, exc: DispatchFailure, redactor: Redactor, start: float
) -> ToolResult:
    """The result of a call whose request failed (the error's secrets redacted)."""
    return error_result(
        call,
        [_redacted(exc.error, redactor)],
        status=exc.status,
        elapsed=time.perf_counter() - start,
    )


def _run_awaitable(awaitable: Awaitable[Any]) -> Any:
    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    with ThreadPoolExecutor(max_workers=1) as pool:  # a loop runs in this thread
        return pool.submit(asyncio.run, wait()).result()
