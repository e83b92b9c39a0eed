"""The server's side of tools from upstream MCP servers.

The executor of each loaded catalog holds one pool of upstream connections (see
``toolcat.executor.mcp``). The server starts it without waiting (an upstream that never
answers holds up nothing else), lists an upstream tool only while the pool offers it
(its upstream checked it against its pin), tells its own clients when that changes,
gives MCP clients an upstream's content blocks whole, and reports each upstream on
``/readyz`` and ``/metrics``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolcat.catalog.common import thaw
from toolcat.executor import format_result

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor import Executor, ToolResult

__all__ = [
    "mcp_result",
    "offered",
    "pool_of",
    "register_metrics",
    "reset_call_hooks",
    "set_call_hooks",
    "upstream_status",
    "upstream_tool",
]

log = logging.getLogger("toolcat.serve")


def upstream_tool(tool: ToolDefinition) -> bool:
    """Whether ``tool`` calls a tool of an upstream MCP server."""
    from toolcat.catalog import McpCommand

    return isinstance(tool.command, McpCommand)


def pool_of(executor: Executor) -> Any:
    """The executor's pool of upstream MCP servers, or ``None`` when its catalog has none."""
    if not executor.catalog.mcp_servers:
        return None
    return executor.mcp.pool


def offered(executor: Executor, tools: dict[str, ToolDefinition], name: str) -> bool:
    """Whether tools/list offers ``name`` now: every tool that is not an upstream's, and
    an upstream's once its upstream listed it and it matches its pin (``on_change``)."""
    tool = tools.get(name)
    if tool is None or not upstream_tool(tool):
        return True
    pool = pool_of(executor)
    return pool is not None and bool(pool.offered(tool))


def mcp_result(result: ToolResult) -> dict[str, Any]:
    """The result as an MCP client takes it: an upstream's content blocks as it gave them
    (text, image, audio, resource links, embedded resources), else the text form;
    ``structuredContent`` and ``isError`` as ``format_result("mcp", ...)`` gives them."""
    out = format_result("mcp", result)
    blocks = getattr(result, "blocks", ())
    if blocks:
        out["content"] = [thaw(block) for block in blocks]
    return out


def set_call_hooks(hooks: Any) -> Any:
    """Install the hooks of one call (see ``_relay.hooks_for``); the token to reset."""
    from toolcat.executor.mcp import call_hooks

    return call_hooks.set(hooks)


def reset_call_hooks(token: Any) -> None:
    from toolcat.executor.mcp import call_hooks

    call_hooks.reset(token)


def upstream_status(executor: Executor | None) -> dict[str, Any]:
    """Each upstream's part of ``/readyz``: its state, restarts, the protocol version it
    speaks and the number of its tools refused (the probe's body names no tool; the log
    says which, and the errors); for a server with several URLs, each replica by its
    place in the list, up or down, and while down why (its URL is in the log)."""
    pool = pool_of(executor) if executor is not None else None
    if pool is None:
        return {}
    out: dict[str, Any] = {}
    for name, status in pool.status().items():
        out[name] = {
            "state": status.state,
            "restarts": status.restarts,
            "refused_tools": len(status.refused),
            "protocol": status.protocol,
        }
        if status.replicas:
            out[name]["replicas"] = [
                {"replica": i, "state": r.state, **({"error": r.error} if r.error else {})}
                for i, r in enumerate(status.replicas)
            ]
    return out


def register_metrics(current: Callable[[], Executor | None]) -> None:
    """Observable gauges of each upstream of ``current()``'s pool, for ``/metrics``:
    ``toolcat.mcp.upstream.up`` (1 ready, else 0), ``toolcat.mcp.upstream.restarts`` and
    ``toolcat.mcp.upstream.refused_tools``, labelled by server (and state);
    ``toolcat.mcp.upstream.replica.up`` (1 in the rotation, else 0), by server and replica."""
    from opentelemetry import metrics

    meter = metrics.get_meter("toolcat.serve")

    def read() -> dict[str, Any]:
        executor = current()
        pool = pool_of(executor) if executor is not None else None
        return pool.status() if pool is not None else {}

    def up(_options: Any) -> list[metrics.Observation]:
        return [
            metrics.Observation(1 if s.state == "ready" else 0, {"server": n, "state": s.state})
            for n, s in read().items()
        ]

    def restarts(_options: Any) -> list[metrics.Observation]:
        return [metrics.Observation(s.restarts, {"server": n}) for n, s in read().items()]

    def refused(_options: Any) -> list[metrics.Observation]:
        return [metrics.Observation(len(s.refused), {"server": n}) for n, s in read().items()]

    def replicas(_options: Any) -> list[metrics.Observation]:
        return [
            metrics.Observation(1 if r.state == "up" else 0, {"server": n, "replica": str(i)})
            for n, s in read().items()
            for i, r in enumerate(s.replicas)
        ]

    meter.create_observable_gauge(
        "toolcat.mcp.upstream.up",
        callbacks=[up],
        description="Whether each upstream MCP server is ready (1) or not (0), with its state",
    )
    meter.create_observable_counter(
        "toolcat.mcp.upstream.restarts",
        callbacks=[restarts],
        unit="{restart}",
        description="Restarts of each upstream MCP server",
    )
    meter.create_observable_gauge(
        "toolcat.mcp.upstream.refused_tools",
        callbacks=[refused],
        unit="{tool}",
        description="Tools of each upstream not offered: changed or removed since reviewed",
    )
    meter.create_observable_gauge(
        "toolcat.mcp.upstream.replica.up",
        callbacks=[replicas],
        description="Whether each replica (its place in the url list) of an upstream MCP "
        "server with several URLs gets calls (1) or failed its last probe or connect (0)",
    )
