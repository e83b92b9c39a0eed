"""OpenAI Chat Completions: ``tools``, ``tool_calls`` and ``role: tool`` messages.

One tool is ``{"type": "function", "function": {name, description, parameters[, strict]}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolcat.catalog.common import PROVIDER_LIMITS
from toolcat.executor._calls import ToolCall

from ._common import BuiltinProvider, Converted, need, plain, strict_parameters
from ._result import ExportNote

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor._calls import ToolResult

__all__ = ["PROVIDER", "OpenAIChat", "to_openai_tool"]


def to_openai_tool(
    tool: ToolDefinition, *, strict: bool = False
) -> tuple[dict[str, Any], list[ExportNote]]:
    """One Chat Completions tool; ``strict`` is present only when asked for."""
    parameters, is_strict, notes = strict_parameters(tool, strict)
    function: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
    }
    if strict:
        function["strict"] = is_strict
    return {"type": "function", "function": function}, notes


class OpenAIChat(BuiltinProvider):
    """Chat Completions: a completion, its message or its ``tool_calls`` in; ``role: tool`` out."""

    name = "openai"
    supports_strict = True
    limits = PROVIDER_LIMITS["openai"]

    def convert(self, tool: ToolDefinition, *, strict: bool) -> Converted:
        return to_openai_tool(tool, strict=strict)

    def parameters(self, item: dict[str, Any]) -> Any:
        return item["function"]["parameters"]

    def parse_calls(self, message: Any) -> list[ToolCall]:
        payload = plain(message)
        if isinstance(payload, Mapping):
            if "choices" in payload:
                choices = payload["choices"] or []
                payload = choices[0].get("message", {}) if choices else {}
            payload = payload.get("tool_calls") or []
        calls = []
        for item in payload:
            fn = need(item, "function", "an OpenAI tool call")
            calls.append(
                ToolCall(
                    need(fn, "name", "an OpenAI function call"),
                    fn.get("arguments", "{}"),
                    item.get("id"),
                )
            )
        return calls

    def format_result(self, result: ToolResult) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": result.call.id or "", "content": result.content}


PROVIDER = OpenAIChat()
