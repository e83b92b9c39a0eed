"""An upstream MCP server that asks its client things mid-call, for the serving tests.

Run it as a stdio server: ``python -m toolcat.tests.support.mcp_asker``. Written with the
official Python SDK's low-level server, it answers both protocol eras: in the handshake
era it sends requests mid-call; in the 2026-07-28 era it answers the call with an
``InputRequiredResult`` and reads the answer from the retry.

Its tools (:data:`TOOLS`):

- ``ask``: asks the user for a colour (form elicitation); answers ``colour: X``, or
  the action (``declined``, ``cancel``) when the user gave none;
- ``sample``: asks the client's model for a completion (sampling); answers what came
  back, or ``sampling failed: ...``;
- ``wait``: waits until it is cancelled, then writes ``cancelled`` to the file named by
  ``MCP_ASKER_CANCELLED_FILE`` (a test reads it to see a cancellation arrive).

At start it writes its process id to the file named by ``MCP_ASKER_PID_FILE``, if set,
so a test can tell whether the process outlived its client.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["COLOUR_SCHEMA", "TOOLS", "build_server", "main", "tool_definitions"]

COLOUR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"colour": {"type": "string", "title": "Your favourite colour"}},
    "required": ["colour"],
}
_OBJECT: dict[str, Any] = {"type": "object"}

#: name -> (description, input schema)
TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "ask": ("Ask the user for their favourite colour.", _OBJECT),
    "sample": ("Ask the client's model to say hello.", _OBJECT),
    "wait": ("Wait until cancelled.", _OBJECT),
}


def tool_definitions() -> list[dict[str, Any]]:
    """Every tool as the server lists it (MCP JSON)."""
    return [
        {"name": name, "description": text, "inputSchema": schema}
        for name, (text, schema) in TOOLS.items()
    ]


async def _list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tool_definitions()])


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def _said(answer: types.ElicitResult) -> types.CallToolResult:
    if answer.action == "accept" and answer.content:
        return _text(f"colour: {answer.content.get('colour')}")
    return _text("declined" if answer.action == "decline" else answer.action)


async def _ask(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    question = "What is your favourite colour?"
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return _said(await ctx.session.elicit_form(question, COLOUR_SCHEMA, ctx.request_id))
    response = (params.input_responses or {}).get("colour")
    if response is None:
        ask = types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=question, requested_schema=COLOUR_SCHEMA)
        )
        return types.InputRequiredResult(input_requests={"colour": ask}, request_state="asked")
    data = response.model_dump() if hasattr(response, "model_dump") else response
    return _said(types.ElicitResult.model_validate(data))


async def _sample(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    message = types.SamplingMessage(
        role="user", content=types.TextContent(type="text", text="Say hello.")
    )
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:  # asked in the call's result
        response = (params.input_responses or {}).get("sample")
        if response is None:
            ask = types.CreateMessageRequest(
                params=types.CreateMessageRequestParams(messages=[message], max_tokens=10)
            )
            return types.InputRequiredResult(input_requests={"sample": ask}, request_state="s")
        return _text(f"sampled: {response}")
    try:
        with warnings.catch_warnings():  # sampling is deprecated from 2026-07-28 on
            warnings.simplefilter("ignore")
            reply = await ctx.session.create_message(
                [message], max_tokens=10, related_request_id=ctx.request_id
            )
    except Exception as exc:  # the client refused: say so, as a result
        return _text(f"sampling failed: {exc}")
    return _text(f"sampled: {reply.content}")


async def _wait() -> types.CallToolResult:
    try:
        await anyio.sleep(120)
    except anyio.get_cancelled_exc_class():
        path = os.environ.get("MCP_ASKER_CANCELLED_FILE")
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.write("cancelled")
        raise
    return _text("waited")


async def _call_tool(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    if params.name == "ask":
        return await _ask(ctx, params)
    if params.name == "sample":
        return await _sample(ctx, params)
    if params.name == "wait":
        return await _wait()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"no tool {params.name}")], is_error=True
    )


def build_server() -> Server[Any]:
    """A fresh server with the tools of :data:`TOOLS`."""
    return Server("mcp-asker", on_list_tools=_list_tools, on_call_tool=_call_tool)


async def _stdio() -> None:
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> None:
    path = os.environ.get("MCP_ASKER_PID_FILE")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
    anyio.run(_stdio)


if __name__ == "__main__":
    main()
