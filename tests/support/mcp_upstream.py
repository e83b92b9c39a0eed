"""An MCP server written with the official Python SDK, for the tests of MCP upstreams.

Run it as a stdio server (``python -m toolcat.tests.support.mcp_upstream``) or over
streamable HTTP on 127.0.0.1 (``... --http PORT``; port 0 picks a free one and the URL is
printed on stderr as ``listening on http://127.0.0.1:PORT/mcp``); :func:`http_app` is the
ASGI app for a server in the test's own process (``toolcat.testing.BackgroundServer``).
The SDK answers both protocol eras on either transport.

Its tools (:data:`TOOLS`): ``echo``, ``add``, ``slow`` (sleeps, reporting progress),
``fail`` (``isError``), ``big`` (a text of n bytes), ``image``, ``structured`` (with an
output schema), ``described`` (its description is read at every listing from the file
named by ``MCP_UPSTREAM_DESCRIPTION_FILE``, else ``MCP_UPSTREAM_DESCRIPTION``, so a test
changes it under a running server), ``changed`` (sends ``notifications/tools/list_changed``),
``crash`` (the process dies mid-call), ``shout`` (floods stderr), ``ask`` (elicits a
form from the client, handshake era), ``env`` (the value of a variable, or ``null``) and
``headers`` (the HTTP headers the call came with, and the sha256 of its Authorization),
``pid`` (the server's process id).
``slow`` writes ``cancelled`` to ``MCP_UPSTREAM_CANCELLED_FILE`` when its call is
cancelled. ``MCP_UPSTREAM_PAGE_SIZE`` lists the tools in pages of that size.
``MCP_UPSTREAM_CALLS_FILE`` names a file where every call received is appended as one JSON
line (``{"name": ..., "arguments": ...}``), so a test sees what reached the server.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import signal
import socket
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server import NotificationOptions, Server
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = [
    "TOOLS",
    "build_server",
    "description",
    "http_app",
    "main",
    "pinned_catalog",
    "stdio_upstream",
    "tool_definitions",
    "upstream_executor",
]

# a 1x1 transparent PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

_OBJECT = {"type": "object"}


def _schema(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


def description() -> str:
    """The description of ``described`` now: the file's text, the variable's, or a default."""
    path = os.environ.get("MCP_UPSTREAM_DESCRIPTION_FILE")
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    return os.environ.get("MCP_UPSTREAM_DESCRIPTION", "Describe the weather.")


#: name -> (description, input schema, output schema or None, annotations or None)
TOOLS: dict[str, tuple[str, dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]] = {
    "echo": (
        "Echo a text back.",
        _schema({"text": {"type": "string"}}, "text"),
        None,
        {"readOnlyHint": True},
    ),
    "add": (
        "Add two integers.",
        _schema({"a": {"type": "integer"}, "b": {"type": "integer"}}, "a", "b"),
        None,
        {"readOnlyHint": True, "idempotentHint": True},
    ),
    "slow": (
        "Sleep for some seconds, reporting progress, then answer.",
        _schema({"seconds": {"type": "number"}}, "seconds"),
        None,
        None,
    ),
    "fail": ("Fail with a message.", _schema({"message": {"type": "string"}}), None, None),
    "big": ("A text of n bytes.", _schema({"n": {"type": "integer"}}, "n"), None, None),
    "image": ("A tiny PNG image.", _OBJECT, None, None),
    "structured": (
        "The weather in a city, as structured content.",
        _schema({"city": {"type": "string"}}, "city"),
        _schema({"city": {"type": "string"}, "celsius": {"type": "number"}}, "city", "celsius"),
        {"readOnlyHint": True},
    ),
    "described": ("", _schema({"city": {"type": "string"}}), None, None),
    "changed": ("Announce that the tool list changed.", _OBJECT, None, None),
    "crash": ("Die in the middle of the call.", _OBJECT, None, {"destructiveHint": True}),
    "shout": (
        "Write many lines on stderr, then answer.",
        _schema({"lines": {"type": "integer"}, "width": {"type": "integer"}}, "lines"),
        None,
        None,
    ),
    "ask": (
        "Ask the client a question (elicitation), then answer with the reply.",
        _schema({"question": {"type": "string"}}),
        None,
        None,
    ),
    "env": (
        "The value of an environment variable.",
        _schema({"name": {"type": "string"}}, "name"),
        None,
        None,
    ),
    "headers": ("The HTTP headers of this call.", _OBJECT, None, None),
    "pid": ("The server's process id.", _OBJECT, None, None),
}


def tool_definitions() -> list[dict[str, Any]]:
    """Every tool as the server lists it (MCP JSON), ``described`` with its description now."""
    out = []
    for name, (text, schema, output, hints) in TOOLS.items():
        tool: dict[str, Any] = {
            "name": name,
            "description": description() if name == "described" else text,
            "inputSchema": schema,
        }
        if output is not None:
            tool["outputSchema"] = output
        if hints is not None:
            tool["annotations"] = hints
        out.append(tool)
    return out


def stdio_upstream(name: str = "up", **fields: Any) -> Any:
    """An ``McpUpstream`` that runs this server over stdio (``fields`` override the entry's)."""
    from toolcat.catalog import McpUpstream

    command = (sys.executable, "-m", "toolcat.tests.support.mcp_upstream")
    return McpUpstream(name, command=command, **fields)


def pinned_catalog(*upstreams: Any, prefix: str = "", env: dict[str, str] | None = None) -> Any:
    """A catalog of every tool of this server for each of ``upstreams``, pinned to their
    definitions now (as ``toolcat import mcp`` would write it): tool ``<prefix><name>``."""
    from toolcat.catalog import Catalog, McpCommand, ToolAnnotations, ToolDefinition, mcp_pin
    from toolcat.catalog.common import freeze

    tools = []
    for upstream in upstreams:
        for listed in tool_definitions():
            hints = listed.get("annotations") or {}
            output = listed.get("outputSchema")
            tools.append(
                ToolDefinition(
                    name=f"{prefix or upstream.name + '_'}{listed['name']}",
                    description=listed["description"],
                    input_schema=freeze(listed["inputSchema"]),
                    command=McpCommand(upstream.name, listed["name"], mcp_pin(listed)),
                    output_schema=freeze(output) if output is not None else None,
                    annotations=ToolAnnotations(
                        read_only=hints.get("readOnlyHint"),
                        destructive=hints.get("destructiveHint"),
                        idempotent=hints.get("idempotentHint"),
                    ),
                )
            )
    return Catalog(tools, [], env=env, mcp_servers=upstreams)


def upstream_executor(*upstreams: Any, env: dict[str, str] | None = None, **transport: Any) -> Any:
    """An executor of every tool of this server for each of ``upstreams`` (``up_echo``, ...);
    ``env`` is what ``${VAR}`` reads; ``transport`` goes to its ``McpTransport``
    (``relist_after``, ``mode``, ...)."""
    from toolcat.catalog import McpCommand
    from toolcat.executor import Executor, ExecutorSettings
    from toolcat.executor.mcp import McpTransport

    catalog = pinned_catalog(*upstreams, env=env or {})
    options = {"connect_timeout": 60.0, **transport}
    settings = ExecutorSettings(env=env or {}, transports={McpCommand: McpTransport(**options)})
    return Executor(catalog, settings)


async def _list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    tools = [types.Tool.model_validate(t) for t in tool_definitions()]
    size = int(os.environ.get("MCP_UPSTREAM_PAGE_SIZE") or 0) or len(tools)
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + size
    return types.ListToolsResult(
        tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
    )


def _text(text: str, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


async def _call_tool(  # noqa: C901  the upstream's tools as one dispatch, a branch per test tool
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    args = dict(params.arguments or {})
    name = params.name
    log = os.environ.get("MCP_UPSTREAM_CALLS_FILE")
    if log:  # the test that asks reads what reached the server
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"name": name, "arguments": args}) + "\n")
    if name == "echo":
        return _text(str(args.get("text", "")))
    if name == "add":
        return _text(str(int(args["a"]) + int(args["b"])))
    if name == "slow":
        seconds = float(args["seconds"])
        steps = max(1, int(seconds * 10))
        try:
            for i in range(steps):
                await ctx.session.report_progress(i, steps, f"step {i}")
                await anyio.sleep(seconds / steps)
        except anyio.get_cancelled_exc_class():
            marker = os.environ.get("MCP_UPSTREAM_CANCELLED_FILE")
            if marker:  # the test that cancelled the call looks for it
                with open(marker, "w") as f:
                    f.write("cancelled")
            raise
        return _text(f"slept {seconds}")
    if name == "ask":
        answer = await ctx.session.elicit_form(
            message=str(args.get("question", "Go on?")),
            requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}},
            related_request_id=ctx.request_id,
        )
        return _text(json.dumps({"action": answer.action, "content": answer.content}))
    if name == "fail":
        return _text(str(args.get("message", "it failed")), error=True)
    if name == "big":
        return _text("x" * int(args["n"]))
    if name == "image":
        encoded = base64.b64encode(PNG).decode()
        return types.CallToolResult(
            content=[
                types.TextContent(type="text", text="a pixel"),
                types.ImageContent(type="image", data=encoded, mime_type="image/png"),
            ]
        )
    if name == "structured":
        data = {"city": str(args["city"]), "celsius": 21.5}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(data))], structured_content=data
        )
    if name == "described":
        return _text(f"{description()} ({args.get('city', 'nowhere')})")
    if name == "changed":
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:  # to subscriptions/listen streams
            await _BUS.publish(ToolsListChanged())
        else:
            await ctx.session.send_tool_list_changed()
        return _text("announced")
    if name == "crash":
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)  # a crash, not an exit: nothing is flushed
    if name == "shout":
        line = "e" * int(args.get("width", 80))
        for _ in range(int(args["lines"])):
            print(line, file=sys.stderr)
        sys.stderr.flush()
        return _text("shouted")
    if name == "env":
        return _text(json.dumps(os.environ.get(str(args["name"]))))
    if name == "pid":
        return _text(str(os.getpid()))
    if name == "headers":
        request = ctx.request
        seen = dict(getattr(request, "headers", {}) or {})
        if "authorization" in seen:  # what a test compares when toolcat masks the echo
            seen["authorization-sha256"] = hashlib.sha256(
                seen["authorization"].encode()
            ).hexdigest()
        return _text(json.dumps(seen))
    return _text(f"no tool {name}", error=True)


class _Upstream(Server[Any]):
    """The SDK server, announcing ``tools.listChanged``."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, experimental_capabilities, extensions)


# where 2026-07-28 clients hear of a change (subscriptions/listen); one per process
_BUS = InMemorySubscriptionBus()


def build_server() -> Server[Any]:
    """A fresh server with the tools of :data:`TOOLS`."""
    return _Upstream(
        "mcp-upstream",
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
        on_subscriptions_listen=ListenHandler(_BUS),
    )


def http_app(*, json_response: bool = False) -> Any:
    """The server as a streamable-HTTP ASGI app, at ``/mcp`` (answers as SSE events, or
    with ``json_response`` as JSON bodies)."""
    from mcp.server.transport_security import TransportSecuritySettings

    return build_server().streamable_http_app(
        json_response=json_response,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


async def _stdio() -> None:
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def _http(port: int) -> None:
    import uvicorn

    # IPPROTO_TCP: asyncio sets TCP_NODELAY only then (else ~40 ms a kept-alive request)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(http_app(), log_level="warning", lifespan="on", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on this port"
    )
    options = parser.parse_args(argv)
    if options.http is not None:
        _http(options.http)
    else:
        anyio.run(_stdio)


if __name__ == "__main__":
    main()
