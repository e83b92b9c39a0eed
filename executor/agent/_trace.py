"""What a run of the loop gives back: each model call with its tool calls, and how it ended."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from toolcat.executor import ToolCall, ToolResult

from ._common import ModelTurn, Usage

__all__ = ["LoopResult", "LoopStep", "StopReason"]

StopReason = Literal["final_answer", "return_direct", "max_iterations"]


@dataclass(frozen=True, slots=True)
class LoopStep:
    """One model call and the tool calls it asked for.

    ``phase`` is ``"model"`` when the step is reported right after the reply
    (before its tools run) and ``"tools"`` once the results are in; the trace
    of a ``LoopResult`` holds the finished steps.
    """

    index: int  # 1-based number of the model call
    tool_choice: str
    reply: ModelTurn
    results: tuple[ToolResult, ...] = ()
    tools_elapsed: float = 0.0
    messages: tuple[Mapping[str, Any], ...] = ()  # what this step appended to the conversation
    phase: Literal["model", "tools"] = "tools"

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return self.reply.tool_calls


@dataclass(frozen=True, slots=True)
class LoopResult:
    """How a run ended, the final answer, the whole conversation and the trace."""

    final_text: str
    stop_reason: StopReason
    messages: tuple[Mapping[str, Any], ...]
    steps: tuple[LoopStep, ...]
    usage: Usage | None = None
    elapsed: float = 0.0
    tools_offered: tuple[str, ...] = field(default=())

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(r for s in self.steps for r in s.results)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready trace (``toolcat chat --format json``)."""
        return {
            "final_text": self.final_text,
            "stop_reason": self.stop_reason,
            "elapsed": round(self.elapsed, 6),
            "usage": self.usage.to_dict() if self.usage else None,
            "tools_offered": list(self.tools_offered),
            "steps": [
                {
                    "index": s.index,
                    "tool_choice": s.tool_choice,
                    "text": s.reply.text,
                    "finish_reason": s.reply.finish_reason,
                    "model_elapsed": round(s.reply.elapsed, 6),
                    "model_attempts": s.reply.attempts,
                    "usage": s.reply.usage.to_dict() if s.reply.usage else None,
                    "calls": [
                        {"id": c.id, "name": c.name, "arguments": c.arguments} for c in s.calls
                    ],
                    "results": [r.to_dict() for r in s.results],
                    "tools_elapsed": round(s.tools_elapsed, 6),
                }
                for s in self.steps
            ],
            "messages": list(self.messages),
        }
