"""`toolcat list PATH`: the tools of a catalog, as a table or JSON."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition


def register(sub: Any) -> None:
    p = sub.add_parser(
        "list", help="the tools of a catalog", description="List the tools of a catalog."
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="catalog file, directory, or OpenAPI spec"
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    p.add_argument("--toolset", metavar="NAME", help="only the tools of this toolset")
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolcat.catalog import UnknownToolsetError
    from toolcat.catalog.common import escape_json_controls

    from ._app import CliError
    from ._loading import load_or_exit

    catalog = load_or_exit(args.paths, args.ref_root)
    try:
        tools = catalog.toolset(args.toolset)
    except UnknownToolsetError as exc:
        raise CliError(str(exc), 2) from exc
    if args.format == "json":
        import json

        doc = {
            "tools": [tool_summary(catalog, t) for t in tools],
            "toolsets": dict(catalog.toolsets),
        }
        sys.stdout.write(escape_json_controls(json.dumps(doc, indent=2, ensure_ascii=False)))
        sys.stdout.write("\n")
    else:
        sys.stdout.write(table(tools))
    return 0


def first_line(text: str, limit: int = 80) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def table(tools: tuple[ToolDefinition, ...]) -> str:
    """Aligned columns: NAME METHOD PATH SERVICE DESCRIPTION (its first line); control
    characters from the catalog escaped. A tool of an MCP server reads ``MCP``, the
    upstream's name of the tool and the server where an HTTP tool has its method, path
    and service."""
    from toolcat.catalog import HttpCommand
    from toolcat.catalog.common import escape_controls as e

    rows = [("NAME", "METHOD", "PATH", "SERVICE", "DESCRIPTION")]
    for t in tools:
        c = t.command
        method, path = (c.method, c.path) if isinstance(c, HttpCommand) else ("MCP", c.tool)
        rows.append((e(t.name), method, e(path), e(t.target), e(first_line(t.description))))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths, strict=True)) + "  " + row[4]
        for row in rows
    ]
    return "".join(line.rstrip() + "\n" for line in lines)


def tool_summary(catalog: Catalog, tool: ToolDefinition) -> dict[str, Any]:
    """The JSON entry of one tool: what it is, how it is called, where it is declared.

    Reads no service, server or auth field, so no secret can reach the output. An HTTP
    tool has ``method``, ``path`` and ``service``; a tool of an MCP server has ``server``,
    ``tool`` (the upstream's name) and ``pin`` instead, and its parameters' ``name`` is
    the upstream's name of each argument.
    """
    from toolcat.catalog import HttpCommand

    c = tool.command
    a = tool.annotations
    how: dict[str, Any]
    if isinstance(c, HttpCommand):
        how = {"method": c.method, "path": c.path, "service": c.service}
        parameters = [
            {
                "argument": p.argument,
                "in": str(p.location),
                "name": p.wire_name,
                "required": p.required,
            }
            for p in c.parameters
        ]
    else:
        how = {"server": c.server, "tool": c.tool, "pin": c.pin}
        required = set(tool.input_schema.get("required") or ())
        parameters = [
            {"argument": name, "name": c.arguments.get(name, name), "required": name in required}
            for name in tool.input_schema.get("properties") or {}
        ]
    return {
        "name": tool.name,
        "description": tool.description,
        **how,
        "parameters": parameters,
        "confirm": tool.confirm,
        "return_direct": tool.return_direct,
        "tags": list(tool.tags),
        "annotations": {
            "title": a.title,
            "read_only": a.read_only,
            "destructive": a.destructive,
            "idempotent": a.idempotent,
            "open_world": a.open_world,
        },
        "toolsets": sorted(n for n, members in catalog.toolsets.items() if tool.name in members),
        "source": str(tool.source) if tool.source else None,
    }
