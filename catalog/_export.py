"""A tool's effects as MCP hints: what it states, else what its HTTP method implies.

The provider shapes themselves (OpenAI, Anthropic, Gemini, MCP, ...) live in
:mod:`toolcat.executor.providers`, one module per provider.
"""

from __future__ import annotations

from typing import Any

from ._methods import method_semantics
from ._model import ToolDefinition

__all__ = ["mcp_annotations"]


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
