"""What an upstream MCP server asks of toolcat's client during a call, passed on.

An upstream tool may report progress and ask its user for input (elicitation) while it
runs. The transport hands both to the :class:`~toolcat.executor.mcp.CallHooks` of the
call (a ContextVar); :func:`hooks_for` makes them for one ``tools/call`` of toolcat's
own client:

- progress goes to the client on the call's own channel, against the client's progress
  token (none sent: nothing is sent);
- an elicitation is asked of the client in the era it speaks. Handshake era: a request
  mid-call, related to the call. 2026-07-28 era, where a server cannot send requests:
  the call is *parked* (:class:`Parked`, it keeps running and waits for the answer), the
  client gets an ``InputRequiredResult`` carrying the upstream's question, and its retry
  (the same call with the answer and the sealed state) hands the answer to the waiting
  upstream and waits on with it. A client that cannot answer (no elicitation capability,
  or no channel for requests) gets nothing and the upstream gets ``decline``.

Sampling requests never reach this module: the transport declines them.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.message import ServerMessageMetadata

from ._confirm import arguments_digest

__all__ = ["DECLINED", "INPUT_KEY", "Parked", "ParkedCalls", "hooks_for"]

log = logging.getLogger("toolcat.serve")

# The key of the upstream's question in an InputRequiredResult (the confirmation's is
# "confirm"); the request state of a parked call carries "p" (its id).
INPUT_KEY = "upstream"
DECLINED = types.ElicitResult(action="decline")
# How many calls may wait for their client's answer at once, in one process.
MAX_PARKED = 1000


def _can_elicit(ctx: ServerRequestContext[Any, Any], params: types.ElicitRequestParams) -> bool:
    """Whether toolcat's client declared the elicitation mode of ``params``."""
    capabilities = ctx.session.client_capabilities if ctx.session is not None else None
    wanted = capabilities.elicitation if capabilities is not None else None
    if wanted is None:
        return False
    if isinstance(params, types.ElicitRequestURLParams):
        return wanted.url is not None
    # a client that declares ``elicitation: {}`` takes forms (the 2025-06-18 shape)
    return wanted.form is not None or wanted.url is None


@dataclass
class Parked:
    """A call of a 2026-07-28 client that waits for its client's answer to an upstream
    question. ``task`` runs the call; ``questions`` carries each question to the request
    that is answering the client now, with the future its answer goes into."""

    id: str
    tool: str
    digest: str  # of the call's arguments: an answer is for this call only
    task: asyncio.Task[Any] | None = None
    questions: asyncio.Queue[tuple[types.ElicitRequestParams, asyncio.Future[Any]]] = field(
        default_factory=asyncio.Queue
    )
    waiting: asyncio.Future[Any] | None = None  # the question asked and not yet answered
    ctx: ServerRequestContext[Any, Any] | None = None  # the request answering the client now


class ParkedCalls:
    """The parked calls of one server, by id; each waits ``timeout`` s for an answer."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._calls: dict[str, Parked] = {}

    def __len__(self) -> int:
        return len(self._calls)

    def new(self, tool: str, arguments: Mapping[str, Any] | None) -> Parked:
        parked = Parked(secrets.token_urlsafe(16), tool, arguments_digest(arguments))
        return parked

    def find(self, params: types.CallToolRequestParams) -> Parked | str | None:
        """The parked call a retry answers (a reason when it cannot be), or ``None`` when
        the retry is not for a parked call (its state is a confirmation's, or none)."""
        try:
            state = json.loads(params.request_state or "")
            ident = state["p"]
        except (ValueError, TypeError, KeyError):
            return None
        parked = self._calls.get(ident)
        if parked is None:
            return (
                "the call this answer belongs to is no longer running (it timed out or "
                "finished); call the tool again"
            )
        if parked.tool != params.name or parked.digest != arguments_digest(params.arguments):
            return "the answer was given for another call; call the tool again"
        return parked

    async def run(
        self,
        parked: Parked,
        ctx: ServerRequestContext[Any, Any],
        start: Callable[[], Coroutine[Any, Any, Any]] | None,
        answer: Any = None,
    ) -> Any:
        """Start the call (``start``) or hand ``answer`` to it; then the call's result, or
        the ``InputRequiredResult`` of its next question. A request cancelled while it
        waits cancels the call."""
        parked.ctx = ctx
        if start is not None:
            parked.task = asyncio.get_running_loop().create_task(
                start(), context=contextvars.copy_context()
            )
            # a call whose client never came back ends unread: its outcome is dropped
            parked.task.add_done_callback(_dropped)
        elif parked.waiting is not None and not parked.waiting.done():
            parked.waiting.set_result(answer)
        assert parked.task is not None
        task = parked.task
        asked: asyncio.Task[Any] = asyncio.get_running_loop().create_task(parked.questions.get())
        try:
            await asyncio.wait({task, asked}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the client's request was cancelled: so is its call
            asked.cancel()
            task.cancel()
            self._calls.pop(parked.id, None)
            raise
        if task.done():
            asked.cancel()
            self._calls.pop(parked.id, None)
            return task.result()
        params, future = asked.result()
        parked.waiting = future
        if len(self._calls) >= MAX_PARKED and parked.id not in self._calls:
            future.set_result(DECLINED)  # never unbounded: the upstream hears no
            return await self.run(parked, ctx, None)
        self._calls[parked.id] = parked
        state = json.dumps(
            {"v": 1, "p": parked.id, "t": parked.tool, "a": parked.digest, "d": time.time()},
            separators=(",", ":"),
        )
        return types.InputRequiredResult(
            input_requests={INPUT_KEY: types.ElicitRequest(params=params)},
            request_state=state,
        )

    async def ask(self, parked: Parked, params: types.ElicitRequestParams) -> types.ElicitResult:
        """The parked call's question, put to the client through the request serving it
        (see :meth:`run`); ``cancel`` when no answer comes within the timeout."""
        ctx = parked.ctx
        if ctx is None or not _can_elicit(ctx, params):
            return DECLINED
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await parked.questions.put((params, future))
        with anyio.move_on_after(self.timeout):
            return _elicit_result(await future)
        log.warning("no answer to an upstream's question within %g s", self.timeout)
        self._calls.pop(parked.id, None)
        return types.ElicitResult(action="cancel")


def _dropped(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("a parked call ended with %s", type(task.exception()).__name__)


def _elicit_result(answer: Any) -> types.ElicitResult:
    """The client's answer as an ``ElicitResult`` (``decline`` when it is not one)."""
    if isinstance(answer, types.ElicitResult):
        return answer
    data = answer.model_dump(by_alias=True) if hasattr(answer, "model_dump") else answer
    try:
        return types.ElicitResult.model_validate(data)
    except ValueError:
        return DECLINED


def hooks_for(
    ctx: ServerRequestContext[Any, Any], parked: Parked | None, calls: ParkedCalls
) -> Any:
    """The :class:`CallHooks` of one ``tools/call``: progress and elicitation to ``ctx``'s
    client (through ``parked`` in the 2026-07-28 era, else mid-call)."""
    from toolcat.executor.mcp import CallHooks

    async def progress(
        value: float, total: float | None = None, message: str | None = None
    ) -> None:
        where = parked.ctx if parked is not None and parked.ctx is not None else ctx
        try:
            await where.session.report_progress(value, total, message)
        except Exception as exc:  # the client went away: the call goes on
            log.debug("could not forward progress: %s", exc)

    async def elicit(params: types.ElicitRequestParams) -> types.ElicitResult:
        if parked is not None:
            return await calls.ask(parked, params)
        if not _can_elicit(ctx, params) or not ctx.session.can_send_request:
            return DECLINED
        try:
            with anyio.move_on_after(calls.timeout):
                return await ctx.session.send_request(
                    types.ElicitRequest(params=params),
                    types.ElicitResult,
                    metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
                )
        except Exception as exc:  # the client could not answer: the upstream hears no
            log.warning("could not forward an upstream's question: %s", exc)
            return DECLINED
        return types.ElicitResult(action="cancel")

    return CallHooks(progress=progress, elicit=elicit)
