"""What a generated package holds, whatever its language: modules of functions with types.

The tools are read as ``toolcat serve`` lists them (the MCP export), so a function's name,
arguments and result are what the server accepts and answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolcat.catalog import Catalog, ToolDefinition

from ._names import Namer
from ._types import ANY, Converter, Declaration, Type, pascal

GroupBy = Literal["service", "toolset", "tag"]
GROUPINGS: tuple[GroupBy, ...] = ("service", "toolset", "tag")


@dataclass(frozen=True)
class Function:
    tool: str  # the tool's name on the server
    name: str  # the identifier
    description: str
    input: Type  # a Named struct, or a map for a tool without arguments
    input_required: bool  # some argument is required
    output: Type  # ANY without an output schema


@dataclass(frozen=True)
class Module:
    name: str
    source: str  # the service, toolset or tag it holds
    functions: tuple[Function, ...]
    declarations: tuple[Declaration, ...]


def plan(
    catalog: Catalog, by: GroupBy, reserved: frozenset[str], toolset: str | None = None
) -> tuple[Module, ...]:
    """The modules of ``catalog``'s tools (of one ``toolset``, as ``serve --toolset`` serves
    them), grouped ``by`` their service (or MCP server), first toolset or first tag (a tool
    with none falls back to its service)."""
    from toolcat.executor.providers import export_catalog

    listed = export_catalog(catalog, "mcp", toolset=toolset).tools
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for tool in listed:
        groups.setdefault(_group(catalog, catalog[tool["name"]], by), []).append(tool)
    modules = Namer(reserved)
    return tuple(
        _module(modules.claim(source, "tools"), source, tools) for source, tools in groups.items()
    )


def _group(catalog: Catalog, tool: ToolDefinition, by: GroupBy) -> str:
    if by == "toolset":
        for name, members in catalog.toolsets.items():
            if tool.name in members:
                return name
    if by == "tag" and tool.tags:
        return tool.tags[0]
    command = tool.command
    return str(getattr(command, "service", None) or getattr(command, "server", None) or "tools")


def _module(name: str, source: str, tools: list[Mapping[str, Any]]) -> Module:
    namer = Namer()  # functions and types share the module's names
    converter = Converter(lambda hint: namer.claim(hint, "Type"))
    functions = []
    for tool in tools:
        ident = namer.claim(str(tool["name"]))
        stem = pascal(ident) or "Tool"
        schema = tool.get("inputSchema") or {}
        required = schema.get("required") if isinstance(schema, Mapping) else None
        if isinstance(schema, Mapping) and schema.get("properties"):
            arguments = converter.convert(schema, f"{stem}Input")
        else:
            arguments = converter.convert({"type": "object"}, f"{stem}Input")
        output = tool.get("outputSchema")
        functions.append(
            Function(
                tool=str(tool["name"]),
                name=ident,
                description=str(tool.get("description") or tool.get("title") or ""),
                input=arguments,
                input_required=bool(required),
                output=converter.convert(output, f"{stem}Output") if output else ANY,
            )
        )
    return Module(name, source, tuple(functions), tuple(converter.declarations))
