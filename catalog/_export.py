"""Provider exporters: a catalog's tools in the exact shape each LLM API takes them.

Pure functions of :class:`ToolDefinition` values: they read names,
descriptions, schemas and annotations, never services or auth, so no secret
can reach an export. The list returned for each provider is the value of the
request field that carries tools:

==================  ===========================================================
``openai``          Chat Completions ``tools``:
                    ``{"type": "function", "function": {name, description, parameters[, strict]}}``
``openai-responses`` Responses API ``tools``:
                    ``{"type": "function", name, description, parameters, strict}``
``anthropic``       Messages API ``tools``: ``{name, description, input_schema}``
``gemini``          ``generateContent`` ``tools`` (REST, camelCase):
                    ``[{"functionDeclarations": [{name, description[, parameters]}]}]``
``mcp``             MCP ``tools/list`` result ``tools``: ``{name[, title], description,
                    inputSchema[, outputSchema], annotations}``
==================  ===========================================================

Input and output schemas in the result are the catalog's own frozen values
(:class:`~toolcat.catalog.FrozenDict`, a read-only ``dict``), not copies:
``json.dumps`` and HTTP clients take them as they are, and exporting a large
catalog copies nothing. Use :func:`~toolcat.catalog.thaw` for a copy to change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._catalog import Catalog
from ._frozen import freeze
from ._gemini import to_gemini_schema
from ._methods import method_semantics
from ._model import ToolDefinition
from ._strict import NotStrictable, to_strict_schema

__all__ = [
    "PROVIDERS",
    "ExportNote",
    "ExportResult",
    "export_catalog",
    "export_tools",
    "mcp_annotations",
    "to_anthropic_tool",
    "to_gemini_declaration",
    "to_mcp_tool",
    "to_openai_responses_tool",
    "to_openai_tool",
]

Provider = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp"]
PROVIDERS: tuple[str, ...] = ("openai", "openai-responses", "anthropic", "gemini", "mcp")
STRICT_PROVIDERS = frozenset({"openai", "openai-responses"})


@dataclass(frozen=True, slots=True)
class ExportNote:
    """Something an export changed or could not carry over, for one tool.

    ``pointer`` is a JSON pointer into the tool's input schema ("" = its root).
    """

    tool: str
    pointer: str
    message: str

    def __str__(self) -> str:
        where = f" at {self.pointer}" if self.pointer else ""
        return f"{self.tool}{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class ExportResult:
    """The exported tools (JSON-ready dicts) and the notes about what changed."""

    provider: str
    tools: list[dict[str, Any]]
    notes: tuple[ExportNote, ...] = field(default=())


def export_tools(
    catalog_or_tools: Catalog | Iterable[ToolDefinition],
    provider: str,
    *,
    strict: bool = False,
    toolset: str | None = None,
) -> list[dict[str, Any]]:
    """The tools of a catalog (or one of its toolsets) as ``provider`` takes them.

    >>> export_tools(Catalog([], []), "anthropic")
    []

    Raises ``ValueError`` for an unknown provider or ``strict`` with a provider
    other than ``openai``/``openai-responses``, and
    :class:`~toolcat.catalog.UnknownToolsetError` for an unknown toolset.
    """
    return export_catalog(catalog_or_tools, provider, strict=strict, toolset=toolset).tools


def export_catalog(
    catalog_or_tools: Catalog | Iterable[ToolDefinition],
    provider: str,
    *,
    strict: bool = False,
    toolset: str | None = None,
) -> ExportResult:
    """Like :func:`export_tools`, with the notes on what each conversion changed."""
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}; choose one of: {', '.join(PROVIDERS)}")
    if strict and provider not in STRICT_PROVIDERS:
        raise ValueError(f"strict mode is OpenAI's; it does not apply to provider {provider!r}")
    if isinstance(catalog_or_tools, Catalog):
        tools = catalog_or_tools.toolset(toolset)
    elif toolset is not None:
        raise ValueError("toolset needs a Catalog, not a list of tools")
    else:
        tools = tuple(catalog_or_tools)
    notes: list[ExportNote] = []
    out: list[dict[str, Any]] = []
    if provider == "gemini":
        declarations = []
        for tool in tools:
            decl, tool_notes = to_gemini_declaration(tool)
            declarations.append(decl)
            notes.extend(tool_notes)
        out = [{"functionDeclarations": declarations}] if declarations else []
        return ExportResult(provider, out, tuple(notes))
    for tool in tools:
        if provider == "openai":
            item, tool_notes = to_openai_tool(tool, strict=strict)
        elif provider == "openai-responses":
            item, tool_notes = to_openai_responses_tool(tool, strict=strict)
        elif provider == "anthropic":
            item, tool_notes = to_anthropic_tool(tool), []
        else:
            item, tool_notes = to_mcp_tool(tool), []
        out.append(item)
        notes.extend(tool_notes)
    return ExportResult(provider, out, tuple(notes))


# -- one tool per provider --------------------------------------------------------


def _parameters(
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


def to_openai_tool(
    tool: ToolDefinition, *, strict: bool = False
) -> tuple[dict[str, Any], list[ExportNote]]:
    """One Chat Completions tool; ``strict`` is present only when asked for."""
    parameters, is_strict, notes = _parameters(tool, strict)
    function: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
    }
    if strict:
        function["strict"] = is_strict
    return {"type": "function", "function": function}, notes


def to_openai_responses_tool(
    tool: ToolDefinition, *, strict: bool = False
) -> tuple[dict[str, Any], list[ExportNote]]:
    """One Responses API tool (flat); ``strict`` is always written: the API defaults it to true."""
    parameters, is_strict, notes = _parameters(tool, strict)
    item = {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
        "strict": is_strict,
    }
    return item, notes


def to_anthropic_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One Anthropic Messages API tool."""
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": freeze(tool.input_schema),
    }


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


def mcp_annotations(tool: ToolDefinition) -> dict[str, Any]:
    """MCP ``ToolAnnotations``: what the tool states, else derived from its HTTP method.

    Safe methods (GET, HEAD, OPTIONS, TRACE) are read-only; every other method
    is destructive (MCP's conservative default); safe methods, PUT and DELETE
    are idempotent (see :mod:`._methods`); every tool reaches an outside
    service, so ``openWorldHint`` defaults to true.
    """
    stated = tool.annotations
    method = method_semantics(tool.command.method)
    read_only = stated.read_only if stated.read_only is not None else method.read_only
    destructive = stated.destructive if stated.destructive is not None else not read_only
    idempotent = stated.idempotent if stated.idempotent is not None else method.idempotent
    open_world = stated.open_world if stated.open_world is not None else True
    out: dict[str, Any] = {}
    if stated.title:
        out["title"] = stated.title
    out.update(
        readOnlyHint=read_only,
        destructiveHint=destructive,
        idempotentHint=idempotent,
        openWorldHint=open_world,
    )
    return out


def to_mcp_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One MCP tool as ``tools/list`` returns it.

    ``outputSchema`` is written only when the tool's output schema is an
    object schema (MCP requires ``"type": "object"`` there).
    """
    item: dict[str, Any] = {"name": tool.name}
    if tool.annotations.title:
        item["title"] = tool.annotations.title
    item["description"] = tool.description
    item["inputSchema"] = freeze(tool.input_schema)
    output = tool.output_schema
    if isinstance(output, Mapping) and output.get("type") == "object":
        item["outputSchema"] = freeze(output)
    item["annotations"] = mcp_annotations(tool)
    return item
