"""Telemetry as a guard: the call's span, its metrics and its log line."""

from __future__ import annotations

from contextlib import ExitStack
from typing import TYPE_CHECKING

from toolcat.executor._calls import echo_name
from toolcat.executor._flow import Flow, no_io
from toolcat.executor._telemetry import UNKNOWN_TOOL, Telemetry, logger

from ._base import CallState, Guard

if TYPE_CHECKING:
    from toolcat.executor._calls import ToolResult

__all__ = ["Tracing", "known_name"]


class Tracing(Guard):
    """Opens the span ``execute_tool {name}`` (GenAI conventions) before anything else
    and closes it last; records the call's metrics and logs how it ended."""

    stage = "call"

    def __init__(self, telemetry: Telemetry) -> None:
        self.telemetry = telemetry

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        if self.telemetry.tracing():
            plan = state.plan
            stack = ExitStack()
            state.held["span"] = (
                stack,
                stack.enter_context(
                    self.telemetry.span(
                        known_name(state),
                        state.call.id,
                        plan.target if plan is not None else None,
                        state.identity,
                    )
                ),
            )
        return no_io(None)

    def end(self, state: CallState, result: ToolResult) -> None:
        error = result.error
        opened = state.held.pop("span", None)
        if opened is not None:
            stack, span = opened
            span.finish(
                error_type=error.type if error else None,
                status=result.status,
                decision=state.trail.decision,
                rule=state.trail.rule,
            )
            stack.close()
        self.telemetry.record(known_name(state), error.type if error else None, result.elapsed)
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


def known_name(state: CallState) -> str:
    """The tool's name for telemetry: a catalog name, or ``UNKNOWN_TOOL`` (bounded)."""
    return state.plan.tool.name if state.plan is not None else UNKNOWN_TOOL
