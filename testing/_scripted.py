"""A scripted model server: replays turns over OpenAI chat completions and Anthropic Messages.

Used by ``toolcat demo`` (a model endpoint that needs no network and no key)
and by the tests. Each request takes the next turn of the script; every
request is recorded so tests can assert on what the loop sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

__all__ = ["RecordedRequest", "ScriptedModel", "ScriptedTurn"]


@dataclass(frozen=True)
class ScriptedTurn:
    """One reply. ``status`` other than 200 answers with an error body (and ``headers``)."""

    text: str = ""
    tool_calls: Sequence[Mapping[str, Any]] = ()  # {"name", "arguments": dict | str, "id"?}
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    usage: tuple[int, int] = (12, 7)
    # Anthropic only: the API's own tool searches, before the tool calls. Each is
    # {"query" (bm25) or "pattern" (regex): str, "found": [tool names], "id"?: str,
    # "error"?: error_code}; a found name the request does not carry answers 400.
    tool_searches: Sequence[Mapping[str, Any]] = ()
    stop_reason: str | None = None  # Anthropic: instead of tool_use / end_turn (pause_turn)


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]

    @property
    def messages(self) -> list[Mapping[str, Any]]:
        return list(self.body.get("messages", []))


TurnSource = ScriptedTurn | Callable[[Mapping[str, Any]], ScriptedTurn]


class ScriptedModel:
    """The script, the recorded requests, and the Starlette ``app`` that serves them.

    A turn may be a function of the request body (to answer from the tool
    results the loop sent back). A request past the end of the script gets a
    500 whose message says so.
    """

    def __init__(self, turns: Sequence[TurnSource], *, chunk: int = 7) -> None:
        self.turns = list(turns)
        self.requests: list[RecordedRequest] = []
        self.chunk = chunk
        self._lock = threading.Lock()
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._openai, methods=["POST"]),
                Route("/chat/completions", self._openai, methods=["POST"]),
                Route("/v1/messages", self._anthropic, methods=["POST"]),
            ]
        )

    async def _next(self, request: Request) -> tuple[ScriptedTurn | None, dict[str, Any]]:
        body = await request.json()
        with self._lock:
            position = len(self.requests)
            self.requests.append(RecordedRequest(request.url.path, dict(request.headers), body))
        if position >= len(self.turns):
            return None, body
        source = self.turns[position]
        return (source(body) if callable(source) else source), body

    # -- OpenAI chat completions --------------------------------------------

    async def _openai(self, request: Request) -> Response:
        turn, body = await self._next(request)
        if turn is None or turn.status != 200:
            return _error(turn, "openai")
        calls = [_call(c, i) for i, c in enumerate(turn.tool_calls)]
        finish = "tool_calls" if calls else "stop"
        usage = {
            "prompt_tokens": turn.usage[0],
            "completion_tokens": turn.usage[1],
            "total_tokens": sum(turn.usage),
        }
        if body.get("stream"):
            return _sse(self._openai_chunks(turn, calls, finish, usage, body), turn.headers)
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                }
                for c in calls
            ]
        return JSONResponse(
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            },
            headers=dict(turn.headers),
        )

    async def _openai_chunks(
        self,
        turn: ScriptedTurn,
        calls: list[dict[str, Any]],
        finish: str,
        usage: dict[str, int],
        body: Mapping[str, Any],
    ) -> AsyncIterator[str]:
        def chunk(delta: dict[str, Any], reason: str | None = None) -> str:
            return _data(
                {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
                }
            )

        yield chunk({"role": "assistant", "content": ""})
        for piece in _pieces(turn.text, self.chunk):
            yield chunk({"content": piece})
        for i, call in enumerate(calls):
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["name"], "arguments": ""},
                        }
                    ]
                }
            )
            for piece in _pieces(call["arguments"], self.chunk):
                yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
        yield chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            yield _data({"id": "chatcmpl-scripted", "choices": [], "usage": usage})
        yield "data: [DONE]\n\n"

    # -- Anthropic Messages ---------------------------------------------------

    async def _anthropic(self, request: Request) -> Response:
        turn, body = await self._next(request)
        if turn is None or turn.status != 200:
            return _error(turn, "anthropic")
        refused = _refuse_deferred(body, request.headers.get("anthropic-beta", ""), turn)
        if refused is not None:
            return refused
        calls = [_call(c, i, prefix="toolu_") for i, c in enumerate(turn.tool_calls)]
        content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        content += _search_blocks(body, turn.tool_searches)
        content += [
            {
                "type": "tool_use",
                "id": c["id"],
                "name": c["name"],
                "input": json.loads(c["arguments"]),
            }
            for c in calls
        ]
        stop = turn.stop_reason or ("tool_use" if calls else "end_turn")
        usage = {"input_tokens": turn.usage[0], "output_tokens": turn.usage[1]}
        if body.get("stream"):
            return _sse(self._anthropic_events(content, stop, usage, body), turn.headers)
        return JSONResponse(
            {
                "id": "msg_scripted",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": content,
                "stop_reason": stop,
                "usage": usage,
            },
            headers=dict(turn.headers),
        )

    async def _anthropic_events(
        self,
        content: list[dict[str, Any]],
        stop: str,
        usage: dict[str, int],
        body: Mapping[str, Any],
    ) -> AsyncIterator[str]:
        def event(kind: str, data: dict[str, Any]) -> str:
            return f"event: {kind}\n" + _data({"type": kind, **data})

        yield event(
            "message_start",
            {
                "message": {
                    "id": "msg_scripted",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": body.get("model"),
                    "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1},
                }
            },
        )
        for i, block in enumerate(content):
            kind = block["type"]
            if kind == "text":
                yield event(
                    "content_block_start",
                    {"index": i, "content_block": {"type": "text", "text": ""}},
                )
                yield 'event: ping\ndata: {"type": "ping"}\n\n'
                for piece in _pieces(block["text"], self.chunk):
                    yield event(
                        "content_block_delta",
                        {"index": i, "delta": {"type": "text_delta", "text": piece}},
                    )
            elif kind in ("tool_use", "server_tool_use"):  # the input comes in JSON pieces
                yield event(
                    "content_block_start", {"index": i, "content_block": {**block, "input": {}}}
                )
                for piece in _pieces(json.dumps(block["input"]), self.chunk):
                    yield event(
                        "content_block_delta",
                        {"index": i, "delta": {"type": "input_json_delta", "partial_json": piece}},
                    )
            else:  # a server tool's result comes whole
                yield event("content_block_start", {"index": i, "content_block": block})
            yield event("content_block_stop", {"index": i})
        yield event(
            "message_delta",
            {"delta": {"stop_reason": stop}, "usage": {"output_tokens": usage["output_tokens"]}},
        )
        yield event("message_stop", {})


def _search_tool(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The request's tool-search tool (``type: tool_search_tool_...``), if it has one."""
    for tool in body.get("tools") or ():
        if isinstance(tool, Mapping) and str(tool.get("type", "")).startswith("tool_search_tool_"):
            return tool
    return None


def _refuse_deferred(body: Mapping[str, Any], beta: str, turn: ScriptedTurn) -> JSONResponse | None:
    """A 400 where the real API would answer one: deferred tools or a search tool without
    the beta header, deferred tools without a search tool, a search without a search tool,
    or a search that finds a tool the request does not carry."""
    tools = [t for t in body.get("tools") or () if isinstance(t, Mapping)]
    deferred = any(t.get("defer_loading") for t in tools)
    search = _search_tool(body)
    problem = None
    if (deferred or search is not None) and "advanced-tool-use-2025-11-20" not in beta:
        problem = "tool search and defer_loading need the anthropic-beta header"
    elif deferred and search is None:
        problem = "deferred tools need a tool search tool"
    elif search is not None and search.get("defer_loading"):
        problem = "the tool search tool cannot be deferred"
    elif turn.tool_searches and search is None:
        problem = "the script searches, but the request has no tool search tool"
    else:
        names = {t.get("name") for t in tools}
        for spec in turn.tool_searches:
            missing = [n for n in spec.get("found", ()) if n not in names]
            if missing:
                problem = f"the script finds tools the request lacks: {missing}"
    if problem is None:
        return None
    return JSONResponse(
        {"type": "error", "error": {"type": "invalid_request_error", "message": problem}},
        status_code=400,
    )


def _search_blocks(
    body: Mapping[str, Any], searches: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """``server_tool_use`` and ``tool_search_tool_result`` blocks, as the API writes them."""
    tool = _search_tool(body)
    name = str(tool.get("name")) if tool is not None else "tool_search_tool_bm25"
    blocks: list[dict[str, Any]] = []
    for i, spec in enumerate(searches):
        block_id = spec.get("id") or f"srvtoolu_{i}"
        key = "pattern" if "regex" in name else "query"
        query = spec.get("query", spec.get("pattern", ""))
        blocks.append(
            {"type": "server_tool_use", "id": block_id, "name": name, "input": {key: query}}
        )
        result: dict[str, Any]
        if spec.get("error"):
            result = {"type": "tool_search_tool_result_error", "error_code": spec["error"]}
        else:
            result = {
                "type": "tool_search_tool_search_result",
                "tool_references": [
                    {"type": "tool_reference", "tool_name": n} for n in spec.get("found", ())
                ],
            }
        blocks.append(
            {"type": "tool_search_tool_result", "tool_use_id": block_id, "content": result}
        )
    return blocks


def _call(spec: Mapping[str, Any], index: int, prefix: str = "call_") -> dict[str, Any]:
    arguments = spec.get("arguments", {})
    return {
        "id": spec.get("id") or f"{prefix}{index}",
        "name": spec["name"],
        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
    }


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _data(obj: Any) -> str:
    return f"data: {json.dumps(obj)}\n\n"


def _sse(body: AsyncIterator[str], headers: Mapping[str, str]) -> StreamingResponse:
    return StreamingResponse(body, media_type="text/event-stream", headers=dict(headers))


def _error(turn: ScriptedTurn | None, provider: str) -> JSONResponse:
    status = 500 if turn is None else turn.status
    message = "the script has no more turns" if turn is None else f"scripted error {status}"
    if provider == "anthropic":
        payload: dict[str, Any] = {
            "type": "error",
            "error": {"type": "api_error", "message": message},
        }
    else:
        payload = {"error": {"message": message, "type": "scripted", "code": status}}
    return JSONResponse(payload, status_code=status, headers=dict(turn.headers) if turn else {})
