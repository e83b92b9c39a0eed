"""Pins at run time: does an upstream's live tool still match what the catalog reviewed?

The pin (``McpCommand.pin``) is a digest of the upstream's definition as reviewed. When the
live definition's digest differs, :func:`pin_problem` says what changed by comparing the
live parts with the catalog's own copy of them: the description, the input schema (seen
through the catalog's renames, without its fixed and context arguments), the output
schema and the annotations. What ``toolcat import mcp`` writes on its own is read as the
upstream's (a cut description, one written where the server gives none, the title it
shows). A part the catalog rewrote on purpose cannot be told apart from one the upstream
changed; when no part differs the message names the two pins.

The argument mapping the transport applies (:func:`upstream_arguments`) lives here too:
it is the same rename, read the other way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcat.catalog import McpCommand, ToolDefinition, mcp_pin
from toolcat.catalog.common import mcp_parameter, mcp_schema, mcp_title, thaw

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


def _live_annotations(live: Mapping[str, Any]) -> dict[str, Any]:
    """The live hints, with the title the import shows: the tool's own, else the hints'."""
    given = live.get("annotations")
    out = {k: v for k, v in (given if isinstance(given, Mapping) else {}).items() if v is not None}
    title = mcp_title(live)
    if title:
        out["title"] = title
    return out


def _same_text(ours: str, theirs: str) -> bool:
    """Whether the catalog's text is the upstream's, the import's cut of it (``…``), or it
    after a rule's prefix."""
    theirs = theirs.strip()
    return (
        ours == theirs
        or ours.endswith(" " + theirs)
        or (ours.endswith("…") and theirs.startswith(ours[:-1]))
    )


def _comparable(schema: Any) -> Any:
    """A schema without what the loader may add or leave out (``additionalProperties``,
    an empty ``required`` or ``properties``); ``required`` as a set of names."""
    if isinstance(schema, Mapping):
        return {
            k: sorted(map(str, v)) if k == "required" else _comparable(v)
            for k, v in schema.items()
            if k != "additionalProperties" and not (k in ("required", "properties") and not v)
        }
    if isinstance(schema, list | tuple):
        return [_comparable(v) for v in schema]
    return schema


def _as_imported(view: dict[str, Any], ours: Mapping[str, Any]) -> dict[str, Any]:
    """The live input schema (already in the catalog's names) with what the import itself
    writes differently: no ``$schema`` stamp or title, an argument's nested ``required``
    list wrapped as :func:`~toolcat.catalog.common.mcp_parameter` writes it, and each
    argument's description as the catalog has it where the upstream gives none or the
    catalog's is a cut of it."""
    out = {k: v for k, v in view.items() if k not in ("$schema", "title")}
    props, mine = out.get("properties"), ours.get("properties")
    listed = out.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    if isinstance(props, dict) and isinstance(mine, Mapping):
        for name, sub in list(props.items()):
            kept = mine.get(name)
            if not (isinstance(sub, Mapping) and isinstance(kept, Mapping)):
                continue
            # as the import writes the argument (a nested `required` list it wraps), less
            # the boolean, which the compiled schema holds in its own `required`
            sub = props[name] = mcp_parameter(sub, name in required)
            if isinstance(sub.get("required"), bool):
                del sub["required"]
            text, written = sub.get("description"), kept.get("description")
            if isinstance(written, str) and (
                not (isinstance(text, str) and text.strip()) or _same_text(written, text)
            ):
                props[name] = {**sub, "description": written}
    return out


def changed_parts(tool: ToolDefinition, command: McpCommand, live: Mapping[str, Any]) -> list[str]:
    """The parts of ``live`` that differ from the catalog's copy of them, in plain words.

    What ``toolcat import mcp`` writes differently on its own (a description cut to the
    budget, a description written where the server gives none, the title shown) is not a
    change."""
    parts = []
    said = str(live.get("description") or "").strip() or str(live.get("title") or "")
    if said and not _same_text(tool.description, said):  # none given: the import wrote one
        parts.append("description")
    ours_in = thaw(tool.input_schema)
    live_input = mcp_schema(live.get("inputSchema") or {})  # as the import rewrote it
    view = catalog_view(command, tool.context_arguments, live_input)
    if _comparable(_as_imported(view, ours_in)) != _comparable(ours_in):
        parts.append("input schema")
    ours = thaw(tool.output_schema) if tool.output_schema is not None else None
    if _comparable(mcp_schema(live.get("outputSchema"))) != _comparable(ours):
        parts.append("output schema")
    if _live_annotations(live) != _annotations(tool):
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
