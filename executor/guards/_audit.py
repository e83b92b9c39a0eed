"""The audit log as a guard: exactly one line per call, whatever ends it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcat.executor._calls import ToolError
from toolcat.executor._flow import Flow, no_io
from toolcat.executor._results import error_result

from ._base import CallState, Guard

if TYPE_CHECKING:
    from toolcat.executor._audit import AuditLog
    from toolcat.executor._calls import ToolResult

__all__ = ["Audit"]


class Audit(Guard):
    """Writes the call's line in ``end`` (a refusal, an error, a cancellation: every call
    has one); refuses a call that ``fail_closed`` covers while the log cannot be written."""

    def __init__(self, log: AuditLog) -> None:
        self.log = log

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        # before the user is asked to confirm
        if state.plan is None or self.log.permits(state.plan.safe):
            return no_io(None)
        state.trail.decision, state.trail.rule = "deny", "audit.fail_closed"
        return no_io(
            error_result(
                state.call,
                [
                    ToolError(
                        "refused_by_policy",
                        "the audit log cannot be written, and calls like this one are not "
                        "sent without their audit line; it was not sent. Try again later",
                    )
                ],
            )
        )

    def end(self, state: CallState, result: ToolResult) -> None:
        self.log.write(result, state.trail, state.identity)
