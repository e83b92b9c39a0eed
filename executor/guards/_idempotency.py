"""Idempotency keys as a guard: a non-safe call with a key already seen is not sent again."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from toolcat.executor._calls import ERROR_TYPES, ToolError, ToolResult
from toolcat.executor._flow import Blocking, Flow
from toolcat.executor._results import error_result
from toolcat.executor._shared import IdempotencyStore, RedisState, SharedStateError, result_record

from ._base import CallState, Guard
from ._quota import unavailable

if TYPE_CHECKING:
    from toolcat.executor._calls import ToolCall
    from toolcat.executor._transport import Plan

__all__ = ["Idempotency"]


class Idempotency(Guard):
    """Keeps the result of a tool with an ``idempotency_key`` under the tool, the caller and
    the key's value (a header sent, else the argument) for ``seconds``; a call with a kept
    key gets that result, one with a running key ``in_progress``.

    A running record lasts as long as a result would: if this replica dies mid-call (or
    the call is cancelled after it was sent), nobody knows whether the service got the
    request, so a retry is not sent."""

    def __init__(self, store: IdempotencyStore, seconds: float, shared: RedisState | None) -> None:
        self.store = store
        self.seconds = seconds
        self.shared = shared
        self._remote = bool(getattr(store, "shared", False))  # its answers take a round trip

    def applies(self, plan: Plan | None) -> bool:
        return plan is not None and not plan.safe and plan.tool.idempotency_key is not None

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        key = self._key(state)
        if key is None:
            return None
        held: ToolResult | None
        if self._remote:
            held = yield Blocking(self._begin, state.call, key)
        else:
            held = self._begin(state.call, key)
        if held is None:
            state.held["idempotency"] = key
        return held

    def after(self, state: CallState, result: ToolResult) -> Flow[ToolResult]:
        key = state.held.pop("idempotency", None)
        if key is not None:
            never_sent = not state.trail.sent or not state.reached
            if self._remote:
                yield Blocking(self._finish, key, result, never_sent)
            else:
                self._finish(key, result, never_sent)
        return result

    def _key(self, state: CallState) -> str | None:
        plan, prepared = state.plan, state.prepared
        if plan is None or prepared is None or plan.safe:
            return None
        name = plan.tool.idempotency_key
        if name is None:
            return None
        value = prepared.header(name)
        arguments = state.trail.arguments
        if value is None and isinstance(arguments, dict):
            given = arguments.get(name)
            if given is not None:
                value = given if isinstance(given, str) else json.dumps(given, sort_keys=True)
        if not value:
            return None
        who = state.identity
        caller = "-" if who is None else who.key
        return f"{plan.tool.name}\x1f{caller}\x1f{value}"

    def _begin(self, call: ToolCall, key: str) -> ToolResult | None:
        """Record ``key`` as running; a result when a call with the same key ran or runs."""
        try:
            held = self.store.begin(key, self.seconds)
        except SharedStateError as exc:
            if self.shared is not None:
                self.shared.failed("idempotency", "fail_closed", exc)
            return unavailable(call, "the shared idempotency store (Redis) does not answer")
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

    def _finish(self, key: str, result: ToolResult, never_sent: bool) -> None:
        """Keep ``result`` under ``key`` (or drop the record: the request never left)."""
        try:
            if never_sent:
                self.store.forget(key)
            else:
                self.store.finish(key, result_record(result), self.seconds)
        except SharedStateError as exc:  # the running record expires on its own
            if self.shared is not None:
                self.shared.failed("idempotency", "fail_open", exc)


def _replayed(call: ToolCall, record: dict[str, Any]) -> ToolResult:
    """The result kept for a call with the same idempotency key, for this call."""
    errors = tuple(
        ToolError(e[0] if e[0] in ERROR_TYPES else "internal", str(e[1]), tuple(e[2]))
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
