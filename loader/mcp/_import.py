"""`toolcat import mcp`'s core: an MCP server's tool listing becomes catalog tool documents.

A pure function of the listing (each tool as MCP JSON, as ``tools/list`` gives it) and the
import policy (:mod:`._mcp_policy`); connecting and writing are the command's. Each tool
written is bound to its upstream tool with the pin of the definition as the server
listed it (``toolcat.catalog.mcp_pin``), so a changed upstream is refused at run time
until it is imported again and reviewed. What the model sees is the catalog's: the
name (prefixed), the description (within the budget), the arguments (renamed, hidden,
fixed by the policy), the annotations and the output schema.

>>> result = import_mcp_tools("memory", [{"name": "read_graph", "inputSchema": {}}])
>>> result.tools[0]["name"], result.tools[0]["mcp"]["tool"]
('memory_read_graph', 'read_graph')
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from toolcat.catalog import mcp_pin
from toolcat.catalog.common import (
    MAX_DESCRIPTION_CHARS,
    escape_controls,
    mcp_parameter,
    mcp_schema,
    mcp_title,
)
from toolcat.catalog.schema import DEFAULT_SCHEMA_BUDGET, schema_size
from toolcat.loader._schema_walks import walk_refs
from toolcat.loader.openapi._names import base_name, unique_name
from toolcat.loader.openapi._text import within

from ._policy import McpOverride, McpPolicy, McpPolicyError, McpRule, effective_hints

__all__ = [
    "LISTED_FIELDS",
    "McpImportResult",
    "McpToolReport",
    "import_mcp_tools",
    "listed_definition",
]

# what the import keeps of each listed tool (the pin's fields, and the title it shows)
LISTED_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
# keys of a parameter that the catalog reads as placement, not JSON Schema
_PLACEMENT = frozenset(
    {"in", "name", "style", "explode", "allow_reserved", "content_type", "file", "from"}
)
# an input schema's keys that the parameters hold, or that say nothing to a model: a
# generator's $schema stamp (the catalog's schemas are 2020-12) and its title
_SCHEMA_WRITTEN = frozenset({"type", "properties", "required", "$defs", "$schema", "title"})
_ANNOTATIONS = {
    "title": "title",
    "readOnlyHint": "read_only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open_world",
}


def listed_definition(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a listed tool the import reads and records (nulls dropped)."""
    return {k: tool[k] for k in LISTED_FIELDS if tool.get(k) is not None}


@dataclass
class McpToolReport:
    """What became of one upstream tool."""

    tool: str  # the upstream's name
    name: str | None = None  # the catalog tool, None when left out
    reason: str | None = None  # why it was left out
    notes: list[str] = field(default_factory=list)

    @property
    def skipped(self) -> bool:
        return self.name is None

    def __str__(self) -> str:
        shown = escape_controls(self.tool) or "''"  # a server's name, shown on a terminal
        if self.name is None:
            return f"skipped  {shown}: {self.reason}"
        return f"imported {shown} as {self.name}"


@dataclass
class McpImportResult:
    """The tool documents (in the server's order), toolsets, and the per-tool report."""

    server: str
    tools: list[dict[str, Any]] = field(default_factory=list)
    toolsets: dict[str, list[str]] = field(default_factory=dict)
    report: list[McpToolReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    listing: list[dict[str, Any]] = field(default_factory=list)  # every tool as listed


def import_mcp_tools(
    server: str,
    listing: Sequence[Mapping[str, Any]],
    policy: McpPolicy | None = None,
    *,
    description_max: int = MAX_DESCRIPTION_CHARS,
    schema_budget: int = DEFAULT_SCHEMA_BUDGET,
) -> McpImportResult:
    """The catalog tools of ``server``'s ``listing`` under ``policy``.

    Raises :class:`McpPolicyError` (one line) when the policy names a tool the server does
    not list, an argument a tool does not have, or hides a required argument.
    """
    policy = policy or McpPolicy()
    budget = policy.description_max or description_max
    prefix = f"{server}_" if policy.prefix is None else policy.prefix
    result = McpImportResult(server)
    result.listing = [listed_definition(t) for t in listing]
    names = [str(t.get("name")) for t in result.listing]
    _check_overrides(policy, names)
    result.warnings += _check_globs(policy, names)
    used_rules: set[int] = set()
    taken: set[str] = set()
    listed = Counter(names)
    for tool in result.listing:
        upstream = str(tool.get("name"))
        hints = effective_hints(tool.get("annotations"))
        report = McpToolReport(upstream)
        result.report.append(report)
        unusable = _unusable(tool, listed[upstream])
        if unusable is not None:
            report.reason = unusable
            continue
        rules = [(i, r) for i, r in enumerate(policy.rules) if r.applies(upstream, hints)]
        used_rules.update(i for i, _ in rules)
        reason = _left_out(policy, rules, upstream, hints)
        if reason is not None:
            report.reason = reason
            continue
        override = policy.tools.get(upstream, McpOverride())
        wanted = override.name or base_name(f"{prefix}{upstream}", "tool", upstream)
        if override.name and override.name in taken:
            raise McpPolicyError(
                f"tools.{upstream}.name: {override.name!r} is already a tool's name"
            )
        name = override.name or unique_name(wanted, upstream, taken)
        taken.add(name)
        report.name = name
        matched = [r for _, r in rules]
        doc = _tool_document(server, tool, name, matched, override, budget, report)
        confirm = _confirm_of(matched, override)
        doc["confirm"] = _confirm(policy, hints) if confirm is None else confirm
        if schema_budget and schema_size(doc.get("parameters") or {}) > schema_budget:
            report.notes.append(
                f"its input schema is over the schema budget ({schema_budget} characters): "
                "exports collapse its optional branches"
            )
        result.tools.append(doc)
        for toolset in _toolsets([r for _, r in rules], override):
            result.toolsets.setdefault(toolset, []).append(name)
    result.warnings += [
        f"rules[{i}] matches no tool the server lists"
        for i in range(len(policy.rules))
        if i not in used_rules
    ]
    return result


def _unusable(tool: Mapping[str, Any], times_listed: int) -> str | None:
    """Why a listed tool cannot become a catalog tool that loads, else ``None``."""
    if not tool.get("name"):
        return "the server lists it without a name"
    if times_listed > 1:
        return f"the server lists {times_listed} tools of this name: a call cannot say which"
    for issue in walk_refs(tool.get("inputSchema"), ("inputSchema",)):
        return f"its input schema refers outside itself ({issue.message.split(' (')[0]})"
    return None


def _check_overrides(policy: McpPolicy, names: list[str]) -> None:
    for key in policy.tools:
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise McpPolicyError(f"tools.{key}: the server lists no tool {key!r}{hint}")


def _check_globs(policy: McpPolicy, names: list[str]) -> list[str]:
    """An include glob that matches no listed tool is a typo (refused, never an empty
    import); an exclude glob that matches none is a warning."""
    for glob in policy.include.tools:
        if not any(fnmatchcase(n, glob) for n in names):
            close = difflib.get_close_matches(glob, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise McpPolicyError(f"include {glob!r} matches no tool the server lists{hint}")
    return [
        f"exclude {glob!r} matches no tool the server lists"
        for glob in policy.exclude.tools
        if not any(fnmatchcase(n, glob) for n in names)
    ]


def _left_out(
    policy: McpPolicy,
    rules: list[tuple[int, McpRule]],
    upstream: str,
    hints: Mapping[str, bool],
) -> str | None:
    if policy.include and not policy.include.matches(upstream, hints):
        return "not included (--include-tool / --include-annotation)"
    if policy.exclude and policy.exclude.matches(upstream, hints):
        return f"excluded ({policy.exclude.why(upstream, hints)})"
    excluding = [i for i, r in rules if r.exclude]
    if excluding:
        return f"excluded by rules[{excluding[-1]}]"
    return None


def _toolsets(rules: list[McpRule], override: McpOverride) -> list[str]:
    return list(dict.fromkeys([*(s for r in rules for s in r.toolsets), *override.toolsets]))


def _confirm(policy: McpPolicy, hints: Mapping[str, bool]) -> bool:
    if policy.confirm == "all":
        return True
    if policy.confirm == "none":
        return False
    if policy.confirm == "destructive":
        return hints["destructiveHint"]
    return not hints["readOnlyHint"]


def _tool_document(
    server: str,
    tool: Mapping[str, Any],
    name: str,
    rules: list[McpRule],
    override: McpOverride,
    budget: int,
    report: McpToolReport,
) -> dict[str, Any]:
    """One catalog tool, in the writer's key order (``confirm`` is the caller's)."""
    upstream = str(tool["name"])
    hidden = [a for r in rules for a in r.hide] + list(override.hide)
    fixed: dict[str, Any] = {}
    for rule in rules:
        fixed.update(rule.fixed)
    fixed.update(override.fixed)
    parameters, definitions = _parameters(tool, hidden, fixed, override, budget, report)
    description = override.description
    if description is None:
        description = str(tool.get("description") or "").strip()
        if not description:
            description = str(tool.get("title") or "") or f"The {upstream} tool of {server}."
            report.notes.append("the server gives no description: one was written")
        prefixes = [r.description_prefix for r in rules if r.description_prefix]
        if prefixes:
            description = f"{prefixes[-1]} {description}"
    binding: dict[str, Any] = {"server": server, "tool": upstream, "pin": mcp_pin(tool)}
    timeout = override.timeout or next((r.timeout for r in reversed(rules) if r.timeout), None)
    if timeout is not None:
        binding["timeout"] = timeout
    renames = {new: old for old, new in override.rename.items() if old not in fixed}
    if renames:
        binding["arguments"] = renames
    if fixed:
        binding["fixed"] = fixed
    doc: dict[str, Any] = {
        "name": name,
        "description": _cut(description, budget, "its description", report),
        "mcp": binding,
    }
    if parameters:
        doc["parameters"] = parameters
    if definitions:
        doc["definitions"] = definitions
    if isinstance(tool.get("outputSchema"), dict):
        doc["output_schema"] = mcp_schema(tool["outputSchema"])
    annotations = _annotations(tool)
    if annotations:
        doc["annotations"] = annotations
    tags = list(dict.fromkeys([*(t for r in rules for t in r.tags), *override.tags]))
    if tags:
        doc["tags"] = tags
    return doc


def _confirm_of(rules: list[McpRule], override: McpOverride) -> bool | None:
    if override.confirm is not None:
        return override.confirm
    return next((r.confirm for r in reversed(rules) if r.confirm is not None), None)


def _annotations(tool: Mapping[str, Any]) -> dict[str, Any]:
    given = _mapping(tool.get("annotations"))
    out: dict[str, Any] = {}
    title = mcp_title(tool)
    if title:
        out["title"] = title
    for key, ours in _ANNOTATIONS.items():
        if key != "title" and isinstance(given.get(key), bool):
            out[ours] = given[key]
    return out


def _check_policy_names(
    upstream: str,
    props: Mapping[str, Any],
    required: set[str],
    hidden: list[str],
    fixed: Mapping[str, Any],
    override: McpOverride,
) -> None:
    """Every argument the policy hides, fixes or renames is one the tool has, and a hidden
    required one has a fixed value."""
    for what, names in (
        ("hide", hidden),
        ("fixed", list(fixed)),
        ("rename", list(override.rename)),
    ):
        for arg in names:
            if arg not in props:
                close = difflib.get_close_matches(arg, list(props), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise McpPolicyError(
                    f"tools.{upstream}.{what}: {upstream} has no argument {arg!r}{hint}"
                )
    for arg in hidden:
        if arg in required and arg not in fixed:
            raise McpPolicyError(
                f"tools.{upstream}.hide: {arg!r} is required by {upstream}; give it a value "
                "under fixed instead"
            )


def _parameters(
    tool: Mapping[str, Any],
    hidden: list[str],
    fixed: Mapping[str, Any],
    override: McpOverride,
    budget: int,
    report: McpToolReport,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The arguments the model sees (catalog names), and the schema's ``$defs``."""
    upstream = str(tool["name"])
    schema = _mapping(mcp_schema(tool.get("inputSchema")))  # an older draft's keywords too
    props = _mapping(schema.get("properties"))
    required = {str(r) for r in schema.get("required") or () if isinstance(r, str)}
    _check_policy_names(upstream, props, required, hidden, fixed, override)
    out: dict[str, Any] = {}
    undescribed: list[str] = []
    for arg, sub in props.items():
        if arg in hidden or arg in fixed:
            continue
        shown = override.rename.get(arg, arg)
        if shown in out:
            raise McpPolicyError(f"tools.{upstream}.rename: two arguments would be named {shown!r}")
        param = dict(sub) if isinstance(sub, dict) else {}
        dropped = sorted(k for k in param if k in _PLACEMENT)
        for key in dropped:
            del param[key]
        if dropped:
            report.notes.append(f"argument {arg}: keys {', '.join(dropped)} not kept")
        param.update(override.parameters.get(shown, {}))
        text = param.get("description")
        if isinstance(text, str) and text.strip():
            param["description"] = _cut(text.strip(), budget, f"argument {shown}", report)
        else:
            param["description"] = str(param.get("title") or f"The '{shown}' argument.")
            undescribed.append(shown)
        out[shown] = mcp_parameter(param, arg in required)
    if undescribed:
        report.notes.append(f"the server describes no argument {', '.join(undescribed)}")
    for key in override.parameters:
        if key not in out:
            raise McpPolicyError(f"tools.{upstream}.parameters: no argument {key!r} is shown")
    # `additionalProperties: false` is what the catalog writes anyway: nothing is lost
    extra = sorted(
        k
        for k in schema
        if k not in _SCHEMA_WRITTEN and not (k == "additionalProperties" and schema[k] is False)
    )
    if "additionalProperties" in extra:
        report.notes.append(
            "the server takes arguments it does not list (additionalProperties): the "
            "catalog's tool takes only those listed"
        )
        extra.remove("additionalProperties")
    if extra:
        report.notes.append(f"input schema keys not written: {', '.join(extra)}")
    return out, _mapping(schema.get("$defs"))


def _cut(text: str, budget: int, what: str, report: McpToolReport) -> str:
    """``text`` within ``budget`` characters; a cut is noted in the report (the model
    then reads less than the server wrote)."""
    kept = within(text, budget)
    if kept != text:
        report.notes.append(
            f"{what}: cut from {len(text):,} to {len(kept):,} characters (--description-max)"
        )
    return kept


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}
