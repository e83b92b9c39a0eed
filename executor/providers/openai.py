"""OpenAI Chat Completions: ``tools``, ``tool_calls`` and ``role: tool`` messages.

One tool is ``{"type": "function", "function": {name, description, parameters[, strict]}}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolcat.catalog import DEFAULT_SCHEMA_BUDGET, PROVIDER_LIMITS
from toolcat.executor._calls import ToolCall

from ._common import export_each, need, plain, select_tools, strict_parameters
from ._result import ExportNote, ExportResult

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition
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


class OpenAIChat:
    """Chat Completions: a completion, its message or its ``tool_calls`` in; ``role: tool`` out."""

    name = "openai"
    supports_strict = True
    carries_output_schemas = False
    limits = PROVIDER_LIMITS["openai"]

    def tools(
        self,
        catalog: Catalog | Iterable[ToolDefinition],
        *,
        strict: bool = False,
        toolset: str | None = None,
        budget: int | None = DEFAULT_SCHEMA_BUDGET,
    ) -> ExportResult:
        tools = select_tools(catalog, toolset)
        return export_each(
            self.name,
            tools,
            lambda t: to_openai_tool(t, strict=strict),
            budget,
            strict,
            lambda item: item["function"]["parameters"],
        )

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
