"""Send a rendered request: timeouts, retries with backoff, same-host redirects, capped bodies.

The attempts (retries, backoff, a token refreshed once) and each exchange (a request,
its redirects, its body read within the caps) are one flow (see ``_flow``) that
``send`` drives with the sync client and ``asend`` on the event loop; only httpx's own
steps (``_wire``) have a sync and an async form.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import httpx
from toolcat.catalog import method_semantics
from toolcat.executor._calls import CallStopped, ToolError
from toolcat.executor._flow import Flow, Io, adrive, drive
from toolcat.executor._logsafe import redacted_logs
from toolcat.executor._plan import ToolPlan

from ._auth import TokenCache, TokenError
from ._deadline import deadline_scope
from ._encoding import ACCEPT_ENCODING, BodyDecoder, BodyTooLarge, EncodingRefused
from ._exchange import ExchangeGrant
from ._policy import MAX_REDIRECTS, under_base
from ._render import Draft, request_for
from ._retry import backoff_delay, retry_after
from ._wire import Chunks, close, send

__all__ = ["Dispatcher", "Reply"]

_RETRY_ERRORS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_CONNECT = 10.0


@dataclass(slots=True)
class Reply:
    """A response read in full (up to the cap)."""

    status: int
    headers: httpx.Headers
    body: bytes
    url: httpx.URL
    attempts: int = 1
    reason: str = ""


class _Stop(CallStopped):
    """An attempt that ends the dispatch (a refused redirect, a body over the cap)."""


class DispatchFailure(CallStopped):
    """A call that got no usable response; ``error`` (and ``status``, if any) for the result."""


def _describe_transport(exc: httpx.TransportError, draft: Draft) -> ToolError:
    where = f"{draft.url.host}:{draft.url.port or (443 if draft.url.scheme == 'https' else 80)}"
    if isinstance(exc, httpx.ConnectTimeout):
        return ToolError("timeout", f"could not connect to {where} in time (connect timeout)")
    if isinstance(exc, httpx.ReadTimeout):
        return ToolError("timeout", f"{where} sent no response data in time (read timeout)")
    if isinstance(exc, httpx.TimeoutException):
        return ToolError("timeout", f"the request to {where} timed out ({type(exc).__name__})")
    if isinstance(exc, httpx.ConnectError):
        return ToolError("connection_error", f"could not connect to {where}")
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return ToolError(
            "connection_error", f"{where} closed the connection without a complete response"
        )
    return ToolError("connection_error", f"the request to {where} failed ({type(exc).__name__})")


def _reply(response: httpx.Response, body: bytearray) -> Reply:
    return Reply(
        response.status_code,
        response.headers,
        bytes(body),
        response.url,
        reason=response.reason_phrase,
    )


class Dispatcher:
    """Sends drafts with one client (sync) or the other (async); shares the token cache."""

    def __init__(
        self,
        tokens: TokenCache,
        *,
        sleep: Callable[[float], None] = time.sleep,
        async_sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.tokens = tokens
        self._sleep = sleep
        self._async_sleep = async_sleep
        self._clock = clock
        self._rng = rng

    # -- shared decisions ----------------------------------------------------------

    def _past(self, deadline: float | None) -> bool:
        return deadline is not None and self._clock() >= deadline

    def _timeout(self, plan: ToolPlan, deadline: float | None) -> dict[str, float | None]:
        """The httpx timeout extension for one attempt, clamped to what the deadline leaves."""
        t = plan.timeouts
        connect = (
            t.connect
            if t.connect is not None
            else min(_DEFAULT_CONNECT, t.total or _DEFAULT_CONNECT)
        )
        read = t.read if t.read is not None else t.total
        if deadline is not None:
            left = deadline - self._clock()
            if left <= 0:
                raise _Stop(
                    ToolError(
                        "timeout", f"no complete response within {t.total:g}s (total timeout)"
                    )
                )
            connect = min(connect, left)
            read = left if read is None else min(read, left)
        return {"connect": connect, "read": read, "write": read, "pool": connect}

    def _status_delay(
        self, plan: ToolPlan, reply: Reply, attempt: int, deadline: float | None
    ) -> float | None:
        """Seconds to wait before retrying ``reply``, or ``None`` to return it."""
        policy = plan.retry
        if not plan.may_retry or attempt >= policy.attempts or reply.status not in policy.on_status:
            return None
        asked = retry_after(reply.headers)
        if asked is not None:
            if asked > policy.retry_after_cap:
                reply.reason = (
                    f"the server asked to retry after {asked:g}s, more than the cap of "
                    f"{policy.retry_after_cap:g}s"
                )
                return None
            delay = asked
        else:
            delay = backoff_delay(attempt, policy.backoff, policy.max_backoff, self._rng)
        if deadline is not None and self._clock() + delay >= deadline:
            return None
        return delay

    def _error_delay(
        self, plan: ToolPlan, exc: Exception, attempt: int, deadline: float | None
    ) -> float | None:
        policy = plan.retry
        if not plan.may_retry or attempt >= policy.attempts or not isinstance(exc, _RETRY_ERRORS):
            return None
        delay = backoff_delay(attempt, policy.backoff, policy.max_backoff, self._rng)
        if deadline is not None and self._clock() + delay >= deadline:
            return None
        return delay

    @staticmethod
    def _next_hop(
        draft: Draft, response: httpx.Response, method: str
    ) -> tuple[str, httpx.URL] | None:
        if response.status_code not in _REDIRECTS or "location" not in response.headers:
            return None
        target = response.url.join(response.headers["location"])
        if not under_base(target, draft.base):
            where = target.host if target.host != draft.base.host else target.path
            raise _Stop(
                ToolError(
                    "refused_by_policy",
                    f"the service redirected to {where!r}, outside its base URL; "
                    "nothing was sent there",
                ),
                response.status_code,
            )
        if (response.status_code == 303 and method != "HEAD") or (
            response.status_code in (301, 302) and method == "POST"
        ):
            method = "GET"
        elif not method_semantics(method).safe:
            # the same non-safe method again: its body and credentials are not re-sent
            raise _Stop(
                ToolError(
                    "refused_by_policy",
                    f"the service answered {response.status_code} to {method}, asking to "
                    f"send it again to {target.path!r}; a {method} body and credentials "
                    "are never re-sent on a redirect (nothing was re-sent)",
                ),
                response.status_code,
            )
        return method, target

    @staticmethod
    def _hop_draft(draft: Draft, method: str, url: httpx.URL) -> Draft:
        if method == draft.method:
            return replace(draft, url=url)
        headers = [(k, v) for k, v in draft.headers if k.lower() != "content-type"]
        return replace(draft, method=method, url=url, headers=headers, content=None, data=None,
                       files=None, preview=None)  # fmt: skip

    @staticmethod
    def _too_large(response: httpx.Response, limit: int) -> _Stop:
        return _Stop(
            ToolError(
                "response_too_large", f"the response body is larger than the limit of {limit} bytes"
            ),
            response.status_code,
        )

    @staticmethod
    def _request(
        client: httpx.Client | httpx.AsyncClient, draft: Draft, timeout: dict[str, float | None]
    ) -> httpx.Request:
        headers = draft.headers
        if not any(k.lower() == "accept-encoding" for k, _ in headers):
            # Ask only for what _encoding decodes under the cap (httpx adds br and zstd
            # when their packages are installed).
            headers = [("Accept-Encoding", ACCEPT_ENCODING), *headers]
        return request_for(client, draft, headers, {"timeout": timeout})

    @staticmethod
    def _decoder(response: httpx.Response, limit: int) -> BodyDecoder:
        coding = "" if response.is_stream_consumed else response.headers.get("content-encoding", "")
        return BodyDecoder(coding, limit)

    def _decoded(
        self, response: httpx.Response, decoder: BodyDecoder, chunk: bytes | None, limit: int
    ) -> bytes:
        """``chunk`` decoded (``None``: the end of the body), within ``limit`` decoded bytes."""
        try:
            return decoder.flush() if chunk is None else decoder.feed(chunk)
        except BodyTooLarge:
            raise self._too_large(response, limit) from None
        except EncodingRefused as exc:
            raise _Stop(ToolError("invalid_response", str(exc)), response.status_code) from None

    @staticmethod
    def _with_token(draft: Draft, token: str | None) -> Draft:
        if token is None:
            return draft
        if isinstance(draft.oauth, ExchangeGrant):
            draft.redactor.add_token(token)  # one per caller: no pattern compiled per token
        else:
            draft.redactor.add(token)
        return replace(draft, headers=[*draft.headers, ("Authorization", f"Bearer {token}")])

    # -- the attempts, written once ----------------------------------------------------

    def send(self, client: httpx.Client, plan: ToolPlan, draft: Draft) -> Reply:
        """Send ``draft``; raises :class:`DispatchFailure` when no usable response came."""
        total = plan.timeouts.total
        deadline = self._clock() + total if total else None
        # The executor's own client holds every socket operation to this (see _deadline).
        with (
            redacted_logs(draft.redactor),
            deadline_scope(time.monotonic() + total if total else None),
        ):
            return drive(self._attempts(client, plan, draft, deadline, deadline))

    async def asend(self, client: httpx.AsyncClient, plan: ToolPlan, draft: Draft) -> Reply:
        """:meth:`send` on the event loop; the total timeout bounds the whole call."""
        total = plan.timeouts.total
        deadline = self._clock() + total if total else None
        try:
            with redacted_logs(draft.redactor):
                async with asyncio.timeout(total):
                    # asyncio.timeout bounds the reads: no deadline between chunks
                    return await adrive(self._attempts(client, plan, draft, deadline, None))
        except TimeoutError:
            raise DispatchFailure(
                ToolError("timeout", f"no complete response within {total:g}s (total timeout)")
            ) from None

    def _attempts(
        self,
        client: httpx.Client | httpx.AsyncClient,
        plan: ToolPlan,
        draft: Draft,
        deadline: float | None,
        read_deadline: float | None,
    ) -> Flow[Reply]:
        """Try, retry (backoff, ``Retry-After``), refresh a rejected token once: each I/O
        step is an effect the caller's driver runs (sync or async). ``read_deadline``
        is checked between the chunks of a body."""
        total = plan.timeouts.total
        attempt, stale, refreshed = 0, None, False
        try:
            while True:
                attempt += 1
                timeout = self._timeout(plan, deadline)
                token = None
                if draft.oauth is not None:
                    token = yield from self.tokens.flow(client, draft.oauth, timeout, stale)
                try:
                    sent = self._with_token(draft, token)
                    reply = yield from self._exchange(
                        client, sent, timeout, read_deadline, plan.max_bytes
                    )
                except httpx.TransportError as exc:
                    delay = self._error_delay(plan, exc, attempt, deadline)
                    if delay is not None:
                        yield Io(partial(self._sleep, delay), partial(self._async_sleep, delay))
                        continue
                    if isinstance(exc, httpx.TimeoutException) and self._past(deadline):
                        raise DispatchFailure(
                            ToolError(
                                "timeout",
                                f"no complete response within {total:g}s (total timeout)",
                            )
                        ) from exc
                    raise DispatchFailure(_describe_transport(exc, draft)) from exc
                reply.attempts = attempt
                if reply.status == 401 and token is not None and not refreshed:
                    refreshed, stale, attempt = True, token, attempt - 1
                    continue
                delay = self._status_delay(plan, reply, attempt, deadline)
                if delay is None:
                    return reply
                yield Io(partial(self._sleep, delay), partial(self._async_sleep, delay))
        except _Stop as stop:
            raise DispatchFailure(stop.error, stop.status) from None
        except TokenError as exc:
            raise DispatchFailure(exc.error, exc.status) from exc

    # -- one exchange: a request, its redirects, its body --------------------------------

    def _exchange(
        self,
        client: httpx.Client | httpx.AsyncClient,
        draft: Draft,
        timeout: dict[str, float | None],
        deadline: float | None,
        limit: int,
    ) -> Flow[Reply]:
        for _ in range(MAX_REDIRECTS + 1):
            request = self._request(client, draft, timeout)
            response = yield send(client, request, False)
            try:
                hop = self._redirect_or_check(draft, response, limit)
                if hop is not None:
                    draft = hop
                    continue
                body, decoder = bytearray(), self._decoder(response, limit)
                chunks = Chunks(response, raw=True)
                while (chunk := (yield chunks)) is not None:
                    body += self._decoded(response, decoder, chunk, limit)
                    if deadline is not None and self._clock() > deadline:
                        raise _Stop(
                            ToolError(
                                "timeout", "the response did not complete within the total timeout"
                            ),
                            response.status_code,
                        )
                body += self._decoded(response, decoder, None, limit)
                return _reply(response, body)
            finally:
                yield close(response)
        raise _Stop(ToolError("http_error", f"more than {MAX_REDIRECTS} redirects"))

    def _redirect_or_check(
        self, draft: Draft, response: httpx.Response, limit: int
    ) -> Draft | None:
        """The draft of the next hop when ``response`` redirects; else ``None``, once its
        declared length is within ``limit`` (a larger one raises)."""
        hop = self._next_hop(draft, response, draft.method)
        if hop is not None:
            return self._hop_draft(draft, *hop)
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit and draft.method != "HEAD":
            raise self._too_large(response, limit)
        return None
