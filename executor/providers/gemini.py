"""Gemini ``generateContent`` (REST, camelCase): ``functionDeclarations``, ``functionCall``
and ``functionResponse`` parts.

All tools go in one ``{"functionDeclarations": [...]}`` entry; the schemas are
converted to Gemini's OpenAPI subset by :func:`toolcat.catalog.schema.to_gemini_schema`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolcat.catalog.common import PROVIDER_LIMITS
from toolcat.catalog.schema import to_gemini_schema
from toolcat.executor._calls import ToolCall

from ._common import BuiltinProvider, Converted, error_object, need, plain
from ._result import ExportNote, ExportResult

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor._calls import ToolResult

__all__ = ["PROVIDER", "Gemini", "to_gemini_declaration"]


def to_gemini_declaration(tool: ToolDefinition) -> tuple[dict[str, Any], list[ExportNote]]:
    """One Gemini ``FunctionDeclaration`` with its schema in Gemini's OpenAPI subset.

    A tool without arguments gets no ``parameters`` (Gemini rejects an object
    schema with empty ``properties``).
    """
    decl: dict[str, Any] = {"name": tool.name, "description": tool.description}
    notes = []
    if not (tool.name[:1].isalpha() or tool.name[:1] == "_"):
        notes.append(
            ExportNote(tool.name, "", "Gemini wants a name that starts with a letter or _")
        )
    if not tool.input_schema.get("properties"):
        return decl, notes
    result = to_gemini_schema(tool.input_schema)
    decl["parameters"] = result.schema
    return decl, notes + [ExportNote(tool.name, p, m) for p, m in result.notes]


class Gemini(BuiltinProvider):
    """generateContent: a response, a content or its parts in; a ``functionResponse`` out."""

    name = "gemini"
    limits = PROVIDER_LIMITS["gemini"]

    def convert(self, tool: ToolDefinition, *, strict: bool) -> Converted:
        return to_gemini_declaration(tool)

    def wrap(self, result: ExportResult) -> ExportResult:
        """All declarations in one ``{"functionDeclarations": [...]}`` entry (none: no entry)."""
        out = [{"functionDeclarations": result.tools}] if result.tools else []
        return ExportResult(self.name, out, result.notes)

    def parse_calls(self, message: Any) -> list[ToolCall]:
        payload = plain(message)
        if isinstance(payload, Mapping):
            if "candidates" in payload:
                candidates = payload["candidates"] or []
                payload = candidates[0].get("content", {}) if candidates else {}
            payload = payload.get("parts", [payload])
        calls = []
        for part in payload:
            if not isinstance(part, Mapping):
                continue
            fc = part.get("functionCall") or part.get("function_call")
            if fc is None:
                continue
            calls.append(
                ToolCall(need(fc, "name", "a functionCall"), fc.get("args") or {}, fc.get("id"))
            )
        return calls

    def format_result(self, result: ToolResult) -> dict[str, Any]:
        """A ``functionResponse`` part; its ``response`` is always an object (the text,
        cut at ``max_response_chars``, when the data is longer than the cap)."""
        response: dict[str, Any]
        if result.ok and result.truncated:
            response = {"result": result.content}
        elif result.ok:
            data = result.data if result.data is not None else result.content
            response = data if isinstance(data, dict) else {"result": data}
        else:
            response = {"error": error_object(result)}
        fr: dict[str, Any] = {"name": result.call.name, "response": response}
        if result.call.id:
            fr["id"] = result.call.id
        return {"functionResponse": fr}


PROVIDER = Gemini()
