"""The MCP request handlers of :class:`McpServer`: tools/list, tools/call (search_tools,
an upstream's call parked for its questions, a call through the executor), the session
tracking that list_changed needs, and the ``confirm: true`` callback a call asks through."""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from toolcat.executor import (
    SEARCH_TOOL_NAME,
    SharedStateError,
    ToolCall,
    ToolContext,
    ToolError,
    error_result,
    format_result,
    run_search_tool,
    with_context,
)

from ._confirm import (
    CONFIRM_SCHEMA,
    NO_ELICITATION,
    STATE_GRACE,
    UNRECORDED,
    Asking,
    decide,
    input_required,
    late,
    new_state,
    question,
    read_answer,
    used_reason,
)
from ._relay import INPUT_KEY as RELAY_KEY
from ._relay import Parked, hooks_for
from ._reload import first_connections, start_upstreams
from ._upstreams import mcp_result, offered, reset_call_hooks, set_call_hooks, upstream_tool

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition

    from ._served import Served
    from ._server import McpServer

__all__ = ["call_tool", "confirm_call", "list_tools", "principal", "track_session"]

log = logging.getLogger("toolcat.serve")


# The MCP request a tool call is running for: the confirmation callback asks its client.
_request: contextvars.ContextVar[ServerRequestContext[Any, Any] | None] = contextvars.ContextVar(
    "toolcat_mcp_request", default=None
)

# The confirmation of the tools/call running: filled by the handler and the confirm callback.
_asking: contextvars.ContextVar[Asking | None] = contextvars.ContextVar(
    "toolcat_mcp_asking", default=None
)


async def confirm_call(server: McpServer, call: ToolCall, tool: ToolDefinition) -> bool:
    """``confirm: true`` tools: allowed with ``yes``, else the client's user is asked.

    2026-07-28 era: a retried call's answer decides (each confirmation runs one
    call: see ``McpServer._confirm_ledger``); a first call records the question, which
    ``call_tool`` returns as an ``InputRequiredResult``. Handshake era: the
    question goes mid-call as an elicitation (form mode). A client that cannot
    ask, a decline, a dismissal or no answer within ``confirm_timeout`` refuses
    the call (``Asking.reason`` says why, for the model).
    """
    if server.yes:
        return True
    asking = _asking.get()
    ctx = _request.get()
    if asking is None or ctx is None or ctx.session is None:
        return False
    if asking.modern and asking.answer is not None:
        return await _use(server, asking, call)
    capabilities = ctx.session.client_capabilities
    if capabilities is None or capabilities.elicitation is None:
        asking.reason = NO_ELICITATION
        return False
    message = question(tool.name, tool.description, call.arguments)
    if asking.modern:
        asking.ask = message
        return False
    if not ctx.session.can_send_request:
        asking.reason = NO_ELICITATION
        return False
    try:
        with anyio.move_on_after(server.confirm_timeout) as waited:
            answer = await ctx.session.elicit_form(
                message, CONFIRM_SCHEMA, related_request_id=ctx.request_id
            )
    except Exception as exc:  # the client could not answer: refuse, never run unasked
        log.warning("could not ask the client to confirm %s: %s", tool.name, exc)
        return False
    if waited.cancelled_caught:
        asking.reason = late(server.confirm_timeout)
        return False
    verdict = decide(answer.action, answer.model_dump())
    asking.reason = verdict.reason
    return verdict.accepted


async def _use(server: McpServer, asking: Asking, call: ToolCall) -> bool:
    """Whether the answer a retried call carries runs it: accepted, and its first use."""
    answer = asking.answer
    assert answer is not None
    if not answer.accepted:
        asking.reason = answer.reason
        return False
    ledger = server._confirm_ledger
    key = f"toolcat:confirm:{answer.nonce}"
    seconds = answer.seconds_left + STATE_GRACE
    try:
        if getattr(ledger, "shared", False):  # a network round trip: off the event loop
            held = await anyio.to_thread.run_sync(ledger.begin, key, seconds)
        else:
            held = ledger.begin(key, seconds)
    except SharedStateError:  # unknown whether it was used elsewhere: not sent
        log.warning("refused a confirmation of %s: shared state unavailable", call.name)
        asking.reason = UNRECORDED
        return False
    if held is not None:
        log.warning("refused a confirmation of %s: %s", call.name, held.get("state"))
        asking.reason = used_reason(held)
        return False
    return True


async def track_session(
    server: McpServer, ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    # Handshake-era clients get list_changed on their session; modern ones listen.
    # The session object is per request; the connection behind it is per client.
    # The SDK keeps it private, so fall back to the session when it moves.
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS and ctx.session is not None:
        peer = getattr(ctx.session, "_connection", None) or ctx.session
        try:
            server._sessions.add(peer)
        except TypeError:  # not weak-referenceable: skip rather than leak
            pass
    return await call_next(ctx)


async def list_tools(
    server: McpServer,
    ctx: ServerRequestContext[Any, Any],
    params: types.PaginatedRequestParams | None,
) -> types.ListToolsResult:
    served = server._current()
    start_upstreams(server, served)  # started by run_stdio/run_http; else by the first list
    await first_connections(served)
    # an upstream's tool while its upstream checked it against its pin
    listed = [t for t in served.listed if offered(served.executor, served.tools, t["name"])]
    guard = served.executor.access
    if guard.enabled:  # only what this caller may call
        who = _identity(ctx)
        listed = [
            t
            for t in listed
            if t["name"] not in served.exported or guard.decide(who, t["name"]).allowed
        ]
    return types.ListToolsResult.model_validate({"tools": listed})


async def call_tool(
    server: McpServer, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    served = server._current()  # a reload mid-call leaves this call on its catalog
    call = ToolCall(
        params.name,
        dict(params.arguments or {}),
        None if ctx.request_id is None else str(ctx.request_id),
    )
    if server.tool_search and params.name == SEARCH_TOOL_NAME:
        # a thread: the first search builds the index, too long to block the event loop
        # an upstream's tool while its upstream offers it, as tools/list does
        start_upstreams(server, served)
        await first_connections(served)
        searchable: Any = [n for n in served.tools if offered(served.executor, served.tools, n)]
        guard = served.executor.access
        if guard.enabled:  # search finds only what this caller may call
            searchable = guard.allowed(_identity(ctx), searchable)
        found, _ = await anyio.to_thread.run_sync(
            lambda: run_search_tool(
                served.catalog,
                call,
                searchable,
                schemas=True,
                searcher=_searcher(served, server.env),
            )
        )
        return types.CallToolResult.model_validate(format_result("mcp", found))
    asking = Asking(modern=ctx.protocol_version in MODERN_PROTOCOL_VERSIONS)
    if asking.modern and params.request_state is not None:  # a retry with the answer
        waiting = server._parked.find(params)
        if isinstance(waiting, str):  # an answer to an upstream question, too late
            refused = error_result(call, [ToolError("cancelled", waiting)])
            return types.CallToolResult.model_validate(format_result("mcp", refused))
        if waiting is not None:  # the answer to an upstream's question: hand it over
            answer = (params.input_responses or {}).get(RELAY_KEY)
            answered: Any = await server._parked.run(waiting, ctx, None, answer)
            return answered  # type: ignore[no-any-return]
        asking.answer = read_answer(params, server.confirm_timeout)
    tool = served.tools.get(params.name)
    if asking.modern and tool is not None and upstream_tool(tool):
        # the upstream may ask the client mid-call: run it parked (see _relay)
        parked = server._parked.new(params.name, params.arguments)
        outcome: Any = await server._parked.run(
            parked, ctx, lambda: _run_call(server, served, ctx, call, params, asking, parked)
        )
        return outcome  # type: ignore[no-any-return]
    return await _run_call(server, served, ctx, call, params, asking, None)


async def _run_call(
    server: McpServer,
    served: Served,
    ctx: ServerRequestContext[Any, Any],
    call: ToolCall,
    params: types.CallToolRequestParams,
    asking: Asking,
    parked: Parked | None,
) -> types.CallToolResult | types.InputRequiredResult:
    """Run one call through the executor; its result as MCP gives it back."""
    token = _request.set(ctx)
    asked = _asking.set(asking)
    hooks = set_call_hooks(hooks_for(ctx, parked, server._parked))
    served.inflight += 1
    try:
        # the verified caller, for the call path to read; a drain deadline cancels the call
        # and its token, for services that forward or exchange it
        context = ToolContext(_identity(ctx), token=_caller_token(ctx))
        with with_context(context), server.lifecycle.call():
            result = await served.executor.aexecute(call)
    finally:
        reset_call_hooks(hooks)
        _asking.reset(asked)
        _request.reset(token)
        served.inflight -= 1
    await server._close_idle_retired()
    if result.error is not None and result.error.type == "not_confirmed":
        if asking.ask is not None:  # 2026-07-28: ask, and the client calls again
            state = new_state(params.name, params.arguments, server.confirm_timeout)
            return input_required(asking.ask, state)
        if asking.reason is not None:
            result = error_result(call, [ToolError("not_confirmed", asking.reason)])
    out = mcp_result(result)
    listed = served.exported.get(params.name)
    schema = listed.get("outputSchema") if listed else None
    if schema is not None and not out.get("isError"):
        problem = (
            None
            if result.truncated
            else _conformance(served, params.name, schema, out.get("structuredContent"))
        )
        if result.truncated or problem:  # MCP clients reject structured content off the schema
            why = (
                "the response is longer than max_response_chars, so it was cut and the "
                "structured content the tool's output schema requires was left out; ask for "
                "less (a range, a page, a narrower query), or raise max_response_chars"
                if result.truncated
                else f"the response does not match the tool's output schema: {problem}"
            )
            out = {
                "content": [{"type": "text", "text": f"{result.content}\n\nerror: {why}"}],
                "isError": True,
            }
    return types.CallToolResult.model_validate(out)


def principal(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """Who a 2026-07-28 confirmation belongs to: the verified caller (HTTP with
    authentication), or ``None`` (stdio, or a server without authentication)."""
    who = _identity(ctx)
    if who is None:
        return None
    return str(who.key)


def _identity(ctx: ServerRequestContext[Any, Any]) -> Any:
    from ._auth import identity_of

    return identity_of(ctx.request) if ctx.request is not None else None


def _caller_token(ctx: ServerRequestContext[Any, Any]) -> str | None:
    from ._auth import caller_token_of

    return caller_token_of(ctx.request) if ctx.request is not None else None


def _conformance(served: Served, name: str, schema: Mapping[str, Any], data: Any) -> str | None:
    import jsonschema_rs
    from toolcat.executor import sealed_validator

    validator: Any = served.validators.get(name)
    if validator is None:
        # jsonschema-rs: a $ref to a URL or a file is never fetched; patterns run in linear time
        try:
            validator = served.validators[name] = sealed_validator(schema)
        except jsonschema_rs.ValidationError:
            validator = served.validators[name] = False
    if validator is False:
        return "the output_schema refers to a URL or a file, or is not valid JSON Schema"
    if data is None:
        return "no structured content (the response is not a JSON object)"
    try:
        error = next(iter(validator.iter_errors(data)), None)
    except ValueError:  # a value jsonschema-rs cannot take (no JSON parser makes one)
        return "the response holds a value that is not JSON"
    if error is None:
        return None
    where = "/".join(str(p) for p in error.instance_path) or "(root)"
    return f"at {where}: {error.message}"


def _searcher(served: Served, env: Mapping[str, str] | None) -> Any:
    """The catalog's fused ranking (search.embeddings), made on its first search; else None."""
    settings = served.catalog.search_settings
    if settings is None or settings.embeddings is None:
        return None
    if served.searcher is None:
        from toolcat.executor import SemanticSearch

        served.searcher = SemanticSearch(served.catalog, env=env)
    return served.searcher
