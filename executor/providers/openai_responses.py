"""OpenAI Responses API: flat ``function`` tools, ``function_call`` items, ``function_call_output``.

One tool is ``{"type": "function", name, description, parameters, strict}``.
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

__all__ = ["PROVIDER", "OpenAIResponses", "to_openai_responses_tool"]


def to_openai_responses_tool(
    tool: ToolDefinition, *, strict: bool = False
) -> tuple[dict[str, Any], list[ExportNote]]:
    """One Responses API tool (flat); ``strict`` is always written: the API defaults it to true."""
    parameters, is_strict, notes = strict_parameters(tool, strict)
    item = {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
        "strict": is_strict,
    }
    return item, notes


class OpenAIResponses(BuiltinProvider):
    """Responses API: a response or its ``output`` items in; ``function_call_output`` out."""

    name = "openai-responses"
    supports_strict = True
    limits = PROVIDER_LIMITS["openai-responses"]

    def convert(self, tool: ToolDefinition, *, strict: bool) -> Converted:
        return to_openai_responses_tool(tool, strict=strict)

    def parameters(self, item: dict[str, Any]) -> Any:
        return item["parameters"]

    def parse_calls(self, message: Any) -> list[ToolCall]:
        payload = plain(message)
        if isinstance(payload, Mapping):
            payload = payload.get("output", [payload])
        return [
            ToolCall(
                need(item, "name", "a function_call item"),
                item.get("arguments", "{}"),
                item.get("call_id") or item.get("id"),
            )
            for item in payload
            if isinstance(item, Mapping) and item.get("type") == "function_call"
        ]

    def format_result(self, result: ToolResult) -> dict[str, Any]:
        return {
            "type": "function_call_output",
            "call_id": result.call.id or "",
            "output": result.content,
        }


PROVIDER = OpenAIResponses()
