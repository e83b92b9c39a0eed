"""Catalog text for tools of upstream MCP servers, pinned to the upstream's definitions.

:func:`mcp_catalog` writes what ``toolcat import mcp`` would write for a reviewed
upstream: the ``mcp_servers:`` entries and one tool per upstream tool, named
``<server>_<tool>``, with the upstream's description, input schema (as ``parameters``)
and output schema, and its ``pin``.

>>> text = mcp_catalog({"up": {"command": ["python"]}}, {"up": [
...     {"name": "echo", "description": "Echo.", "inputSchema": {"type": "object"}}]})
>>> "up_echo" in text and "sha256:" in text
True
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import yaml
from toolcat.catalog import mcp_pin

__all__ = ["PYTHON", "mcp_catalog", "upstream_command"]

PYTHON = sys.executable


def upstream_command(module: str, *args: str) -> list[str]:
    """The argv of a test server of this package run as a stdio upstream."""
    return [PYTHON, "-m", f"toolcat.tests.support.{module}", *args]


def _parameters(schema: Mapping[str, Any]) -> dict[str, Any]:
    required = set(schema.get("required", ()))
    out: dict[str, Any] = {}
    for name, sub in (schema.get("properties") or {}).items():
        out[name] = dict(sub) if name in required else {**sub, "required": False}
    return out


def _tool(server: str, definition: Mapping[str, Any], confirm: bool) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": f"{server}_{definition['name']}",
        "description": definition.get("description") or definition["name"],
        "mcp": {"server": server, "tool": definition["name"], "pin": mcp_pin(definition)},
        "parameters": _parameters(definition.get("inputSchema") or {}),
    }
    if definition.get("outputSchema") is not None:
        tool["output_schema"] = dict(definition["outputSchema"])
    if not confirm:
        tool["confirm"] = False
    return tool


def mcp_catalog(
    servers: Mapping[str, Mapping[str, Any]],
    tools: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    confirm: bool = False,
) -> str:
    """Catalog YAML of ``servers`` (name -> ``mcp_servers:`` entry) and their ``tools``
    (server -> the upstream's definitions, MCP JSON); ``confirm`` leaves ``confirm`` to
    the catalog's default instead of ``false``."""
    doc: dict[str, Any] = {
        "toolcat": 1,
        "mcp_servers": {name: dict(entry) for name, entry in servers.items()},
        "tools": [
            _tool(server, definition, confirm)
            for server, defs in tools.items()
            for definition in defs
        ],
    }
    return yaml.safe_dump(doc, sort_keys=False)
