"""The drain gate tells new requests from replies without the network (issue 12, item 3)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from toolcat.executor.mcp_server._health import SHUTTING_DOWN, DrainGate, Lifecycle

Message = dict[str, Any]


async def _through(gate: DrainGate, method: str, body: bytes) -> list[Message]:
    """Send one request (its body in two chunks) through ``gate``; what it answered."""
    sent: list[Message] = []
    chunks = [body[:5], body[5:]]

    async def receive() -> Message:
        chunk = chunks.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": "/mcp", "headers": []}
    await gate(scope, receive, send)
    return sent


def _gate(draining: bool) -> DrainGate:
    lifecycle = Lifecycle()
    lifecycle.draining = draining
    return DrainGate(_app_not_reached, lifecycle, "/mcp/")


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x"}},
        {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}},
        [{"jsonrpc": "2.0", "method": "notifications/x"}, {"id": 3, "method": "tools/call"}],
    ],
)
def test_new_sessions_and_calls_are_refused_while_draining(message: Any) -> None:
    gate = _gate(True)
    gate.app = _app_not_reached
    sent = anyio.run(_through, gate, "POST", json.dumps(message).encode())
    start, body = sent
    assert start["status"] == 503
    assert (b"retry-after", b"5") in start["headers"]
    error = json.loads(body["body"])
    assert error["id"] == 3 and error["error"]["code"] == SHUTTING_DOWN


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 9, "result": {"action": "accept"}},  # an elicitation answer
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
    ],
)
def test_replies_notifications_and_listing_pass_whole(message: Any) -> None:
    gate = _gate(True)
    read: list[bytes] = []
    gate.app = _reading(read)
    raw = json.dumps(message).encode()
    sent = anyio.run(_through, gate, "POST", raw)
    assert sent[0]["status"] == 200
    assert b"".join(read) == raw  # the app reads the body the gate peeked at, unchanged


def test_a_new_stream_is_refused_and_nothing_is_gated_before_a_drain() -> None:
    gate = _gate(True)
    gate.app = _app_not_reached
    sent = anyio.run(_through, gate, "GET", b"")
    assert sent[0]["status"] == 503
    open_gate = _gate(False)
    open_gate.app = _reading([])
    sent = anyio.run(_through, open_gate, "POST", b'{"id": 1, "method": "tools/call"}')
    assert sent[0]["status"] == 200


async def _app_not_reached(scope: Message, receive: Any, send: Any) -> None:
    raise AssertionError("a refused request reached the app")


def _reading(read: list[bytes]) -> Any:
    async def app(scope: Message, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            read.append(message["body"])
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})

    return app
