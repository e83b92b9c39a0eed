"""Rules for many operations at once, then per-operation overrides, on imported tool documents.

Applied after the tools are made (so they work on whatever the writer of tool
documents produces): first an operation's ``x-toolcat-confirm: true|false``
extension (an overlay can add it), then each rule of an ``openapi:`` entry, in
order, sets ``confirm``, ``timeout``, ``retry``, a description prefix, toolset
membership, or leaves the operations out; then each ``tools:`` override (keyed
by operationId) sets any tool field, so an override wins over every rule.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from toolcat.loader._diagnostics import Diagnostic

from ._options import ImportResult, OperationReport

__all__ = ["CONFIRM_EXTENSION", "apply_rules"]

# an operation's `x-toolcat-confirm: true|false` (written by an overlay, say) sets the tool's
# confirm; rules and then overrides win over it
CONFIRM_EXTENSION = "x-toolcat-confirm"

_SETS = ("confirm", "toolsets", "timeout", "retry", "description_prefix", "exclude")


def _operation(doc: Any, method: str, path: str) -> Any:
    paths = doc.get("paths") if isinstance(doc, dict) else None
    item = paths.get(path) if isinstance(paths, dict) else None
    return item.get(method.lower()) if isinstance(item, dict) else None


def _tags_of(op: Any) -> list[str]:
    tags = op.get("tags") if isinstance(op, dict) else None
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def _matches(match: Mapping[str, Any] | None, report: OperationReport, tags: list[str]) -> bool:
    if not match:
        return True
    wanted = match.get("tags")
    if wanted and not set(wanted) & set(tags):
        return False
    methods = match.get("methods")
    if methods and report.method.upper() not in {str(m).upper() for m in methods}:
        return False
    paths = match.get("paths")
    if paths and not any(fnmatchcase(report.path, p) for p in paths):
        return False
    ops = match.get("operations")
    if ops and not (report.operation_id and any(fnmatchcase(report.operation_id, p) for p in ops)):
        return False
    return True


def _prefixed(prefix: str, description: Any) -> str:
    text = description if isinstance(description, str) else ""
    if not text:
        return prefix
    if prefix.endswith((" ", "\n")):
        return prefix + text
    return f"{prefix} {text}"


def apply_rules(  # noqa: C901  the spec's own flags, then each rule in order, then the overrides, over one tool table
    result: ImportResult,
    doc: Any,
    rules: Sequence[Mapping[str, Any]],
    overrides: Mapping[str, Mapping[str, Any]],
    file: str,
) -> None:
    """Apply ``rules`` in order, then ``overrides``, to ``result``'s tools (in place).

    A rule that sets nothing is TC064; one that matches no imported operation is
    TC221 (both with the path ``("rules", i)`` of the entry, which the loader
    places in the catalog file).
    """
    by_name = {t.get("name"): t for t in result.tools}
    imported = [(i, r) for i, r in enumerate(result.report) if r.tool and r.tool in by_name]
    ops = {i: _operation(doc, r.method, r.path) for i, r in imported}
    tags = {i: _tags_of(op) for i, op in ops.items()}
    for i, report in imported:  # the spec's (or an overlay's) own word comes first
        flag = ops[i].get(CONFIRM_EXTENSION) if isinstance(ops[i], dict) else None
        if isinstance(flag, bool):
            by_name[report.tool]["confirm"] = flag
    dropped: dict[int, str] = {}
    for n, rule in enumerate(rules):
        if not any(rule.get(k) is not None for k in _SETS):
            result.diagnostics.append(
                Diagnostic.make(
                    "TC064",
                    f"rule {n + 1} sets nothing: give confirm, toolsets, timeout, retry, "
                    "description_prefix or exclude",
                    file,
                    path=("rules", n),
                )
            )
            continue
        hits = 0
        for i, report in imported:
            if i in dropped or not _matches(rule.get("match"), report, tags[i] or []):
                continue
            hits += 1
            tool = by_name[report.tool]
            if rule.get("exclude"):
                dropped[i] = f"left out by rule {n + 1}"
                continue
            for key in ("confirm", "timeout", "retry"):
                if rule.get(key) is not None:
                    tool[key] = copy.deepcopy(rule[key])
            if rule.get("description_prefix"):
                tool["description"] = _prefixed(rule["description_prefix"], tool.get("description"))
            for toolset in rule.get("toolsets") or ():
                members = result.toolsets.setdefault(toolset, [])
                if report.tool not in members:
                    members.append(str(report.tool))
        if not hits:
            result.diagnostics.append(
                Diagnostic.make(
                    "TC221",
                    f"rule {n + 1} matches no imported operation; check its match",
                    file,
                    path=("rules", n),
                )
            )
    for i, report in imported:
        override = overrides.get(report.operation_id or "") if report.operation_id else None
        if i in dropped or not override:
            continue
        tool = by_name[report.tool]
        for key, value in override.items():
            if key != "name":  # named when the tool was made (names stay unique)
                tool[key] = copy.deepcopy(value)
    if dropped:
        gone = {result.report[i].tool for i in dropped}
        result.tools[:] = [t for t in result.tools if t.get("name") not in gone]
        for i, why in dropped.items():
            result.report[i] = dataclasses.replace(result.report[i], tool=None, skipped=why)
        for name, members in list(result.toolsets.items()):
            result.toolsets[name] = [m for m in members if m not in gone]
