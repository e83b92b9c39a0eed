"""Pieces several providers share: the ``tools()`` export, strict parameters, plain payloads."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolcat.catalog import Catalog, ToolDefinition
from toolcat.catalog.common import ProviderLimits, freeze, recursion_headroom
from toolcat.catalog.schema import (
    DEFAULT_SCHEMA_BUDGET,
    NotStrictable,
    budget_tool,
    schema_size,
    to_strict_schema,
)
from toolcat.executor._calls import ToolResult

from ._limits import too_many_tools
from ._result import ExportNote, ExportResult

__all__ = [
    "BuiltinProvider",
    "error_object",
    "export_each",
    "need",
    "plain",
    "refuse_strict",
    "select_tools",
    "strict_parameters",
]

Converted = tuple[dict[str, Any], list[ExportNote]]


class BuiltinProvider:
    """The built-in providers' ``tools()``: pick the tools, convert each within the
    schema budget, then :meth:`wrap` the list as the request takes it.

    A provider says what one tool looks like (:meth:`convert`) and, when it supports
    strict mode, where a converted tool keeps its schema (:meth:`parameters`).
    """

    name: str
    supports_strict = False
    carries_output_schemas = False
    limits: ProviderLimits

    def tools(
        self,
        catalog: Catalog | Iterable[ToolDefinition],
        *,
        strict: bool = False,
        toolset: str | None = None,
        budget: int | None = DEFAULT_SCHEMA_BUDGET,
    ) -> ExportResult:
        if not self.supports_strict:
            refuse_strict(self.name, strict)
        selected = select_tools(catalog, toolset)
        each = export_each(
            self.name,
            selected,
            lambda tool: self.convert(tool, strict=strict),
            budget,
            strict,
            self.parameters if self.supports_strict else None,
        )
        result = self.wrap(each)
        over = too_many_tools(self.limits, len(selected))
        if over is not None:  # the request would fail at the provider: say so first
            advice = "pick fewer with toolset=, or let the model search them: an AgentLoop "
            advice += "with LoopSettings(tool_selection='search')"
            result.notes = (ExportNote("", "", f"{over} ({advice})"), *result.notes)
        return result

    def convert(self, tool: ToolDefinition, *, strict: bool) -> Converted:
        """One tool as the request carries it, and the notes of its conversion."""
        raise NotImplementedError

    def parameters(self, item: dict[str, Any]) -> Any:
        """The schema inside a converted tool (strict exports shrink it to the budget)."""
        raise NotImplementedError

    def wrap(self, result: ExportResult) -> ExportResult:
        """The converted tools as the request's ``tools`` (as they are, unless overridden)."""
        return result


def select_tools(
    catalog_or_tools: Catalog | Iterable[ToolDefinition], toolset: str | None
) -> tuple[ToolDefinition, ...]:
    """The tools to export: a catalog's toolset, or the given tools as they are."""
    if isinstance(catalog_or_tools, Catalog):
        return catalog_or_tools.toolset(toolset)
    if toolset is not None:
        raise ValueError("toolset needs a Catalog, not a list of tools")
    return tuple(catalog_or_tools)


def refuse_strict(provider: str, strict: bool) -> None:
    """Strict mode is OpenAI's: asking another provider for it is an error."""
    if strict:
        raise ValueError(f"strict mode is OpenAI's; it does not apply to provider {provider!r}")


def export_each(
    provider: str,
    tools: Iterable[ToolDefinition],
    convert: Callable[[ToolDefinition], Converted],
    budget: int | None = None,
    strict: bool = False,
    parameters: Callable[[dict[str, Any]], Any] | None = None,
) -> ExportResult:
    """One item per tool, the notes of every conversion kept in order.

    With a ``budget`` (characters; see :func:`toolcat.catalog.schema.fit_schema`) each
    tool's input schema is first shrunk to fit it, with a note where it was; for
    ``strict`` exports optional branches are left out rather than collapsed (a
    collapsed free-form object would cost the tool its strict mode), and since the
    strict rewrite adds to a schema (nullable types, closed objects), a converted
    schema (``parameters`` finds it in the item) that passed the budget is shrunk
    once more by the share it passed it.
    """
    out: list[dict[str, Any]] = []
    notes: list[ExportNote] = []
    with recursion_headroom():  # schema rewrites recurse per level, up to the nesting limit
        for original in tools:
            tool, budget_note = original, None
            if budget:
                tool, budget_note = budget_tool(original, budget, omit=strict)
            item, tool_notes = convert(tool)
            if budget and strict and parameters is not None:
                for _ in range(3):  # the strict rewrite grows a schema: shrink it further
                    size = schema_size(parameters(item))
                    if size <= budget:
                        break
                    # the growth, taken off the budget of the schema it rewrote
                    tighter = max(1, schema_size(tool.input_schema) * budget // size - 1)
                    tool, budget_note = budget_tool(original, tighter, omit=True)
                    item, tool_notes = convert(tool)
            if budget_note is not None:
                notes.append(ExportNote(tool.name, "", budget_note))
            out.append(item)
            notes.extend(tool_notes)
    return ExportResult(provider, out, tuple(notes))


def strict_parameters(
    tool: ToolDefinition, strict: bool
) -> tuple[dict[str, Any], bool, list[ExportNote]]:
    """The input schema, strict when asked and possible; returns (schema, strict, notes)."""
    if not strict:
        return freeze(tool.input_schema), False, []
    try:
        result = to_strict_schema(tool.input_schema)
    except NotStrictable as exc:
        note = ExportNote(tool.name, exc.pointer, f"sent with strict: false ({exc.reason})")
        return freeze(tool.input_schema), False, [note]
    notes = [ExportNote(tool.name, p, m) for p, m in result.notes]
    return result.schema, True, notes


def plain(value: Any) -> Any:
    """SDK objects (anything with ``model_dump()``) as plain dicts and lists."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def need(obj: Any, key: str, what: str) -> Any:
    """``obj[key]``, or a ``ValueError`` that says which part of the call lacks it."""
    if not isinstance(obj, Mapping) or key not in obj:
        raise ValueError(f"{what} has no {key!r}")
    return obj[key]


def error_object(result: ToolResult) -> dict[str, Any]:
    """The error object of a failed result (the JSON the executor wrote, when it is one)."""
    try:
        parsed = json.loads(result.content)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and "error" in parsed:
        return dict(parsed["error"]) if isinstance(parsed["error"], dict) else parsed
    first = result.error
    return {"type": first.type if first else "internal", "message": result.content}
