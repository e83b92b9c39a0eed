"""Caps on what a model may send: reply bytes, calls per turn, over real sockets."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from toolcat.executor import Executor
from toolcat.executor.agent import (
    MAX_CALLS_PER_TURN,
    MAX_REPLY_BYTES,
    AgentLoop,
    AnthropicClient,
    LoopSettings,
    ModelResponseError,
    OpenAIChatClient,
)
from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn

from .test_loop import run_loop, tool_results_sent

if TYPE_CHECKING:
    from .conftest import ToolService

REPO = Path(__file__).resolve().parents[3]
HUGE = 48 * 1024 * 1024  # what the endpoint would send (a bounded stream, so a failing test ends)
CAP = 1024 * 1024
_CHUNK = b"x" * 65536


def _event(path: str) -> bytes:
    """One valid streamed text event of about 64 KB, in the shape of the path's protocol."""
    text = "y" * 65000
    data: dict[str, Any] = {"choices": [{"index": 0, "delta": {"content": text}}]}
    if path.endswith("/messages"):
        delta = {"type": "text_delta", "text": text}
        data = {"type": "content_block_delta", "index": 0, "delta": delta}
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def _huge_app(kind: str) -> Starlette:
    """An endpoint whose reply is HUGE bytes: one JSON string, one SSE line, or many events."""

    async def body(path: str) -> AsyncIterator[bytes]:
        head = {"json": b'{"choices": "', "line": b"data: ", "events": b""}[kind]
        piece = _event(path) if kind == "events" else _CHUNK
        yield head
        for _ in range(HUGE // len(piece)):
            yield piece

    async def reply(request: Request) -> Response:
        await request.body()
        media = "application/json" if kind == "json" else "text/event-stream"
        return StreamingResponse(body(request.url.path), media_type=media)

    return Starlette(
        routes=[
            Route("/v1/chat/completions", reply, methods=["POST"]),
            Route("/v1/messages", reply, methods=["POST"]),
        ]
    )


def _ask(url: str, provider: str, stream: bool, **kw: Any) -> BaseException:
    async def go() -> None:
        client: Any = (
            AnthropicClient(url, "m", api_key_env=None, max_retries=0, **kw)
            if provider == "anthropic"
            else OpenAIChatClient(url + "/v1", "m", api_key_env=None, max_retries=0, **kw)
        )
        try:
            await client.create(
                [client.user_message("hi")], tools=[], tool_choice="auto", stream=stream
            )
        finally:
            await client.aclose()

    with pytest.raises(ModelResponseError) as info:
        asyncio.run(go())
    return info.value


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(("kind", "stream"), [("json", False), ("line", True), ("events", True)])
def test_a_huge_reply_is_cut_at_the_cap_in_bounded_memory(
    provider: str, kind: str, stream: bool
) -> None:
    with BackgroundServer(_huge_app(kind)) as endpoint:
        tracemalloc.start()
        try:
            error = _ask(endpoint.url, provider, stream, max_reply_bytes=CAP)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert f"larger than {CAP} bytes" in str(error)
    assert peak < 8 * CAP, peak  # the endpoint sent up to 48 MB


def test_a_declared_length_over_the_cap_is_refused_unread() -> None:
    model = ScriptedModel([ScriptedTurn(text="z" * 5000)])
    with BackgroundServer(model.app) as endpoint:
        error = _ask(endpoint.url, "openai", False, max_reply_bytes=1000)
    assert "larger than 1000 bytes" in str(error) and "max_reply_bytes" in str(error)


def test_a_reply_under_the_cap_still_works(catalog: Any) -> None:
    for stream in (False, True):
        result, _ = run_loop(
            catalog, "http://127.0.0.1:9", [ScriptedTurn(text="fine " * 100)], stream=stream
        )
        assert result.final_text == ("fine " * 100).strip() or result.final_text == "fine " * 100
    assert MAX_REPLY_BYTES == 16 * 1024 * 1024


def test_the_cap_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_reply_bytes"):
        OpenAIChatClient("http://127.0.0.1:9/v1", "m", max_reply_bytes=0)


def test_chat_reports_an_oversized_reply_in_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["WAREHOUSE_URL"] = "http://127.0.0.1:9"
    with BackgroundServer(_huge_app("line")) as endpoint:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "toolcat.cli",
                "chat",
                str(REPO / "examples" / "demo"),
                "hi",
                "--base-url",
                endpoint.url + "/v1",
                "--model",
                "m",
                "--stream",
                "--max-retries",
                "0",
                "--max-reply-bytes",
                str(CAP),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"larger than {CAP} bytes" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_calls_past_the_per_turn_cap_are_refused_unsent(
    catalog: Any, tool_service: tuple[ToolService, str], provider: str
) -> None:
    service, url = tool_service
    cap = 5
    calls = [{"name": "get_item", "arguments": {"sku": f"S-{i}"}} for i in range(cap + 50)]
    result, model = run_loop(
        catalog,
        url,
        [ScriptedTurn(tool_calls=calls), ScriptedTurn(text="done")],
        provider=provider,
        max_calls_per_turn=cap,
    )
    assert len(service.requests) == cap
    assert result.final_text == "done"
    results = result.steps[0].results
    assert len(results) == cap + 50 and all(r.ok for r in results[:cap])
    refused = results[cap:]
    assert all(r.error is not None and r.error.type == "refused_by_policy" for r in refused)
    assert f"at most {cap} tool calls" in refused[0].content and '"error"' in refused[0].content
    sent = tool_results_sent(provider, model.requests[1].body)
    assert len(sent) == cap + 50  # every call gets its answer, in order


def test_the_default_calls_cap(catalog: Any, tool_service: tuple[ToolService, str]) -> None:
    service, url = tool_service
    calls = [{"name": "get_item", "arguments": {"sku": "D-1"}}] * (MAX_CALLS_PER_TURN + 3)
    run_loop(catalog, url, [ScriptedTurn(tool_calls=calls), ScriptedTurn(text="ok")])
    assert len(service.requests) == MAX_CALLS_PER_TURN
    with pytest.raises(ValueError, match="max_calls_per_turn"):
        AgentLoop(
            OpenAIChatClient("http://127.0.0.1:9/v1", "m"),
            Executor(catalog),
            LoopSettings(catalog=catalog, max_calls_per_turn=0),
        )
