"""Lint of what exports carry: namespaces past the advised size (TC148), and a tool that
needs confirmation but may be called from model-written code (TC149)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolcat.catalog import ToolDefinition
from toolcat.catalog.common import NAMESPACE_LIMITS, namespace_groups

from ._diagnostics import Diagnostic
from ._shape import Locator

__all__ = ["check_code_callers", "check_namespaces"]


def check_namespaces(
    kind: Any,
    tools: Sequence[ToolDefinition],
    toolsets: Mapping[str, Sequence[str]],
    file: str,
    locate: Locator,
    out: list[Diagnostic],
) -> None:
    """TC148 for each namespace ``search.namespaces: kind`` makes of more functions than
    OpenAI advises (fewer than 10 per namespace)."""
    if kind not in ("toolset", "service"):
        return
    groups, _ = namespace_groups(tools, kind, toolsets)
    most = NAMESPACE_LIMITS.advised_size
    where = ("search", "namespaces")
    line, col = locate(where, False)
    advice = (
        "split the toolset"
        if kind == "toolset"
        else "group the tools in toolsets and use namespaces: toolset"
    )
    for group in groups:
        if len(group.tools) > most:
            out.append(
                Diagnostic.make(
                    "TC148",
                    f"search.namespaces: the namespace of {kind} '{group.source}' holds "
                    f"{len(group.tools)} functions; OpenAI advises fewer than {most + 1} per "
                    f"namespace: {advice}",
                    file,
                    line,
                    col,
                    where,
                )
            )


def check_code_callers(tools: Sequence[ToolDefinition], out: list[Diagnostic]) -> None:
    """TC149 for each ``confirm: true`` tool that model-written code may call: nobody is
    asked before a call made inside that code."""
    for tool in tools:
        if tool.confirm and "code" in tool.callers and tool.source is not None:
            where = tool.source
            out.append(
                Diagnostic.make(
                    "TC149",
                    f"tool '{tool.name}' needs confirmation (confirm: true) but its callers "
                    "include code, and confirmation cannot happen inside model-written code; "
                    "leave code out of its callers, or drop confirm",
                    where.file,
                    where.line,
                    where.column,
                )
            )
