"""Quotas as guards: a rate per caller and tool, and a number of calls at once per service."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcat.executor._calls import ToolError
from toolcat.executor._flow import Blocking, Flow
from toolcat.executor._quota import QuotaDecision, QuotaGuard
from toolcat.executor._results import error_result

from ._base import CallState, Guard

if TYPE_CHECKING:
    from toolcat.executor._audit import AuditTrail
    from toolcat.executor._calls import ToolCall, ToolResult
    from toolcat.executor._transport import Plan

__all__ = ["Concurrency", "Quota", "rate_limited", "unavailable"]


class Quota(Guard):
    """Refuses (``rate_limited``) a call over a rate of ``server.quotas``; a shared store
    (Redis) is asked off the event loop."""

    stage = "call"

    def __init__(self, quotas: QuotaGuard) -> None:
        self.quotas = quotas

    def applies(self, plan: Plan | None) -> bool:
        return plan is not None

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        if state.plan is None:
            return None
        if self.quotas.shared:  # a round trip
            decision = yield Blocking(self.quotas.check, state.identity, state.plan.tool.name)
        else:
            decision = self.quotas.check(state.identity, state.plan.tool.name)
        if decision.allowed:
            return None
        return rate_limited(state.call, decision, state.trail)


class Concurrency(Guard):
    """Holds a place among a service's calls at once (``server.concurrency``) while the
    call runs; a full service refuses (``rate_limited``)."""

    def __init__(self, quotas: QuotaGuard) -> None:
        self.quotas = quotas

    def applies(self, plan: Plan | None) -> bool:
        return plan is not None and plan.target is not None

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        plan = state.plan
        service = plan.target if plan is not None else None
        if plan is None or service is None:
            return None
        if self.quotas.remote_slot(service):
            slot = yield Blocking(self.quotas.enter, service, safe=plan.safe)
        else:
            slot = self.quotas.enter(service, safe=plan.safe)
        state.held["slot"] = (service, slot)
        if slot.allowed:
            return None
        return rate_limited(state.call, slot, state.trail)

    def after(self, state: CallState, result: ToolResult) -> Flow[ToolResult]:
        held = state.held.pop("slot", None)
        if held is not None:
            service, slot = held
            if slot.lease is not None:
                yield Blocking(self.quotas.leave, service, slot)
            else:
                self.quotas.leave(service, slot)
        return result

    def end(self, state: CallState, result: ToolResult) -> None:
        held = state.held.pop("slot", None)  # still held: the call was cut (cancelled)
        if held is not None:
            self.quotas.leave(*held)


def rate_limited(call: ToolCall, decision: QuotaDecision, trail: AuditTrail) -> ToolResult:
    """Nothing was sent: the caller may try again after ``retry_after`` seconds."""
    trail.decision, trail.rule = "rate_limited", decision.rule
    if decision.unavailable:
        return unavailable(call, decision.what)
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


def unavailable(call: ToolCall, what: str) -> ToolResult:
    """Shared state did not answer, so a non-safe call was not sent (retryable)."""
    return error_result(
        call,
        [ToolError("unavailable", f"{what}; the call was not sent. Try again in 1 s")],
        extra={"retry_after": 1.0},
    )
