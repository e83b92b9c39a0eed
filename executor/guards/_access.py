"""The access policy as a guard: a caller calls only the tools the policy grants it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcat.executor._calls import ToolError
from toolcat.executor._flow import Flow, no_io
from toolcat.executor._results import error_result
from toolcat.executor._telemetry import logger

from ._base import CallState, Guard

if TYPE_CHECKING:
    from toolcat.executor._access import AccessGuard
    from toolcat.executor._calls import ToolResult
    from toolcat.executor._transport import Plan

__all__ = ["Access"]


class Access(Guard):
    """Refuses (``forbidden``) a tool the policy does not grant the caller."""

    stage = "call"

    def __init__(self, access: AccessGuard) -> None:
        self.access = access

    def applies(self, plan: Plan | None) -> bool:
        return plan is not None  # an unknown name gets unknown_tool from the core

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        return no_io(self._forbidden(state))

    def _forbidden(self, state: CallState) -> ToolResult | None:
        if state.plan is None:
            return None  # an unknown name gets unknown_tool from the core
        call, identity = state.call, state.identity
        name = state.plan.tool.name
        decision = self.access.decide(identity, name)
        state.trail.rule = decision.rule
        if decision.allowed:
            return None
        state.trail.decision = "deny"
        # as record arguments: the log filter escapes control characters (a forged sub)
        logger.info(
            "access policy refused %s to %s (%s)",
            name,
            identity.subject if identity is not None else "an unauthenticated caller",
            decision.reason,
        )
        return error_result(
            call,
            [
                ToolError(
                    "forbidden",
                    f"the access policy does not let this caller call {name!r} "
                    f"({decision.reason}); it was not sent. Use a tool the caller may call, "
                    "or ask for access",
                )
            ],
        )
