"""Pins at run time: does an upstream's live tool still match what the catalog reviewed?

The pin (``McpCommand.pin``) is a digest of the upstream's definition as reviewed. When the
live definition's digest differs, :func:`pin_problem` says what changed by comparing the
live parts with the catalog's own copy of them: the description, the input schema (seen
through the catalog's renames, without its fixed and context arguments), the output
schema and the annotations. A part the catalog rewrote on purpose cannot be told apart
from one the upstream changed; when no part differs the message names the two pins.

The argument mapping the transport applies (:func:`upstream_arguments`) lives here too:
it is the same rename, read the other way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcat.catalog import McpCommand, ToolDefinition, mcp_pin, thaw

__all__ = ["catalog_view", "changed_parts", "pin_problem", "short_pin", "upstream_arguments"]

# ToolAnnotations field -> MCP's name
_HINTS = {
    "title": "title",
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}


def short_pin(pin: str) -> str:
    """``sha256:`` and the first 12 hex digits: enough to tell two pins apart in a message."""
    return pin[: len("sha256:") + 12]


def upstream_arguments(command: McpCommand, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The upstream's arguments for the catalog's: renamed back, fixed ones added.

    >>> from toolcat.catalog import FrozenDict
    >>> cmd = McpCommand("s", "t", "sha256:0", arguments=FrozenDict({"q": "query"}),
    ...                  fixed=FrozenDict({"limit": 5}))
    >>> upstream_arguments(cmd, {"q": "cats"})
    {'query': 'cats', 'limit': 5}
    """
    renames = command.arguments
    out = {renames.get(name, name): value for name, value in arguments.items()}
    for name, value in command.fixed.items():
        out[name] = thaw(value)
    return out


def catalog_view(
    command: McpCommand, context_arguments: Mapping[str, Any], schema: Mapping[str, Any]
) -> dict[str, Any]:
    """An upstream input schema as the catalog shows it: properties renamed to the
    catalog's names, fixed and context-bound arguments left out."""
    back = {upstream: name for name, upstream in command.arguments.items()}
    hidden = set(command.fixed)
    out = dict(thaw(schema))
    properties = out.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {
            back.get(k, k): v
            for k, v in properties.items()
            if k not in hidden and back.get(k, k) not in context_arguments
        }
    required = out.get("required")
    if isinstance(required, list):
        out["required"] = [
            back.get(k, k)
            for k in required
            if k not in hidden and back.get(k, k) not in context_arguments
        ]
        if not out["required"]:
            del out["required"]
    return out


def _annotations(tool: ToolDefinition) -> dict[str, Any]:
    stated = {mcp: getattr(tool.annotations, ours) for ours, mcp in _HINTS.items()}
    return {k: v for k, v in stated.items() if v is not None}


def _comparable(schema: Any) -> Any:
    """A schema without what the loader may add or leave out (``additionalProperties``,
    an empty ``required``)."""
    if isinstance(schema, Mapping):
        return {
            k: _comparable(v)
            for k, v in schema.items()
            if k != "additionalProperties" and not (k == "required" and not v)
        }
    if isinstance(schema, list | tuple):
        return [_comparable(v) for v in schema]
    return schema


def changed_parts(tool: ToolDefinition, command: McpCommand, live: Mapping[str, Any]) -> list[str]:
    """The parts of ``live`` that differ from the catalog's copy of them, in plain words."""
    parts = []
    if (live.get("description") or "") != tool.description:
        parts.append("description")
    view = catalog_view(command, tool.context_arguments, live.get("inputSchema") or {})
    if _comparable(view) != _comparable(thaw(tool.input_schema)):
        parts.append("input schema")
    ours = thaw(tool.output_schema) if tool.output_schema is not None else None
    if _comparable(live.get("outputSchema")) != _comparable(ours):
        parts.append("output schema")
    theirs = {k: v for k, v in (live.get("annotations") or {}).items() if v is not None}
    if theirs != _annotations(tool):
        parts.append("annotations")
    return parts


def pin_problem(
    tool: ToolDefinition, command: McpCommand, live: Mapping[str, Any] | None
) -> str | None:
    """``None`` when ``live`` (the upstream's listing of the tool, or ``None``: not listed)
    matches the pin; else what changed, for the refusal and the log."""
    if live is None:
        return f"tool {command.tool!r} was removed upstream (server {command.server!r})"
    now = mcp_pin(live)
    if now == command.pin:
        return None
    pins = f"pin {short_pin(command.pin)}, now {short_pin(now)}"
    parts = changed_parts(tool, command, live)
    named = " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)
    what = f"{named} changed" if parts else "definition changed"
    return f"the {what} upstream since it was reviewed ({pins})"
