"""The HTTP transport: render an ``HttpCommand``'s request, authenticate, send, shape."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import httpx
from toolcat.catalog import Catalog, ToolDefinition
from toolcat.executor._calls import ToolCall, ToolError, ToolResult
from toolcat.executor._plan import ToolPlan, compile_plan
from toolcat.executor._redact import MASK
from toolcat.executor._results import error_result, shape_reply
from toolcat.executor._shared import RedisTokens
from toolcat.executor._telemetry import Telemetry, logger
from toolcat.executor._transport import Delivery

from ._auth import TokenCache
from ._deadline import bind_deadline
from ._dispatch import Dispatcher, DispatchFailure, Reply
from ._render import Draft, render

if TYPE_CHECKING:
    from toolcat.executor._settings import ExecutorSettings

__all__ = ["HttpTransport", "PreparedRequest"]


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """The request a call would send (a dry run): secrets are already masked.

    ``unset`` names the variables of the auth and the headers that are not set: the
    request shows each as its reference, masked as its value would be, and a real
    call would stop with ``missing_variable``.
    """

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    unset: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "url": self.url,
            "headers": dict(self.headers),
            "body": self.body,
            **({"unset": list(self.unset)} if self.unset else {}),
        }


class HttpTransport:
    """Runs ``HttpCommand`` tools with httpx: one pooled client per kind (sync, async),
    or the ones in the settings (used as they are and not closed)."""

    def __init__(self, catalog: Catalog, settings: ExecutorSettings, telemetry: Telemetry) -> None:
        self._env = settings.env if settings.env is not None else catalog.env
        self._client = settings.client
        self._async_client = settings.async_client
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self._own_client = settings.client is None
        self._own_async_client = settings.async_client is None
        # Keep a connection alive for each call that may run at once, so a turn of
        # concurrent calls reuses its connections instead of opening new ones.
        self._limits = httpx.Limits(
            max_connections=max(100, settings.max_concurrency),
            max_keepalive_connections=max(32, settings.max_concurrency),
        )
        shared = settings.shared
        self.tokens = TokenCache(shared=RedisTokens(shared) if shared is not None else None)
        self.dispatcher = Dispatcher(
            self.tokens, sleep=settings.sleep, async_sleep=settings.async_sleep
        )
        self._telemetry = telemetry
        self._client_lock = threading.Lock()

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
        """The async client; the transport's own is bound to the event loop that first used it."""
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
        """Close the clients this transport created (not the ones passed in)."""
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
        if self._own_async_client and self._async_client is not None:
            await self._async_client.aclose()
            self._async_client = None
        if self._own_client and self._client is not None:
            self._client.close()
            self._client = None

    # -- the transport protocol ------------------------------------------------------

    def plan(self, tool: ToolDefinition, catalog: Catalog) -> ToolPlan:
        return compile_plan(tool, catalog.service_for(tool))

    def prepare(
        self, plan: ToolPlan, arguments: dict[str, Any], *, preview: bool
    ) -> Draft | ToolError:
        env = self._env if self._env is not None else os.environ
        return render(plan, arguments, env, preview=preview)

    def send(self, call: ToolCall, plan: ToolPlan, draft: Draft) -> Delivery:
        try:
            reply = self.dispatcher.send(self.client, plan, draft)
        except DispatchFailure as exc:
            return _failed(call, exc, draft)
        result = shape_reply(call, plan, reply, draft.redactor, 0.0)
        if plan.service.validate_responses:
            result = self._conforming(plan, draft, reply, result)
        return Delivery(result)

    async def asend(self, call: ToolCall, plan: ToolPlan, draft: Draft) -> Delivery:
        try:
            reply = await self.dispatcher.asend(self.async_client, plan, draft)
        except DispatchFailure as exc:
            return _failed(call, exc, draft)
        result = shape_reply(call, plan, reply, draft.redactor, 0.0)
        if plan.service.validate_responses:  # CPU work sized by the spec: off the loop
            result = await asyncio.to_thread(self._conforming, plan, draft, reply, result)
        return Delivery(result)

    def dry_run(self, draft: Draft) -> PreparedRequest:
        headers = [(k, v.decode() if isinstance(v, bytes) else v) for k, v in draft.headers]
        if draft.oauth is not None:
            headers.append(("Authorization", f"Bearer {MASK}"))
        if draft.files is not None:
            headers.append(("Content-Type", "multipart/form-data"))
        return PreparedRequest(
            method=draft.method,
            url=draft.redactor(str(draft.url)),
            headers=draft.redactor.headers(headers),
            body=draft.redactor.value(draft.preview),
            unset=draft.unset,
        )

    # -- response validation (a service's validate_responses) ---------------------------

    def _conforming(
        self, plan: ToolPlan, draft: Draft, reply: Reply, result: ToolResult
    ) -> ToolResult:
        """``result``, with a note (warn) or as an error (error) when ``reply`` breaks the spec."""
        from toolcat.executor._openapi import response_problem

        service = plan.service
        problem = response_problem(plan, draft, reply)
        if problem is None:
            return result
        problem = draft.redactor(problem)
        mode = service.validate_responses or "warn"
        name = plan.tool.name
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
            )
        return replace(result, notes=(*result.notes, text))


def _failed(call: ToolCall, exc: DispatchFailure, draft: Draft) -> Delivery:
    """The result of a request that failed (its secrets redacted); whether it may have
    reached the service (no connection, or refused before sending: it did not)."""
    error = exc.error
    if draft.redactor:
        error = ToolError(error.type, draft.redactor(error.msg), error.loc)
    never_sent = error.type == "refused_by_policy" or error.msg.startswith("could not connect")
    return Delivery(error_result(call, [error], status=exc.status), reached=not never_sent)
