"""Text from outside cannot drive the terminal or forge a line: `call`, `list`, `chat`, logs.

An upstream body, a catalog description and a model's reply and tool names carry ESC
sequences (recolour, clear screen, set the window title), CR, C1 CSI and bidi
overrides; the real commands print them as visible escapes.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from toolcat.executor import Executor, ToolCall
from toolcat.loader import load
from toolcat.testing import BackgroundServer

from .conftest import toolcat

HOSTILE = "ok\x1b]0;pwned\x07\x1b[2J\x1b[31mred\rforged\x9b31m\u202etxt.exe\x00end"
RAW = ("\x1b", "\x07", "\r", "\x9b", "\u202e", "\x00")


def _clean(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"raw {ch!r} in {text!r}"


def raw_app(status: int, content_type: str, body: bytes) -> Callable[..., Any]:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", content_type.encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


CATALOG = """\
toolcat: 1
services:
  up:
    base_url: {url}
tools:
  - name: fetch
    description: "Fetch it.\\e[2J\\e]0;title\\a\\r\\x9b31m"
    service: up
    method: GET
    path: /x
"""


@pytest.fixture
def upstream_catalog(tmp_path: Path) -> Callable[[str], Path]:
    def make(url: str) -> Path:
        path = tmp_path / "catalog.yaml"
        path.write_text(CATALOG.format(url=url))
        return path

    return make


@pytest.mark.parametrize("status", [200, 500])
@pytest.mark.parametrize("content_type", ["text/plain", "application/json"])
def test_call_escapes_an_upstream_body(
    upstream_catalog: Callable[[str], Path], status: int, content_type: str
) -> None:
    body = HOSTILE.encode() if content_type == "text/plain" else json.dumps(HOSTILE).encode()
    with BackgroundServer(raw_app(status, content_type, body)) as up:
        text = toolcat("call", str(upstream_catalog(up.url)), "fetch")
        as_json = toolcat("call", str(upstream_catalog(up.url)), "fetch", "--format", "json")
    assert text.returncode == (0 if status == 200 else 1), text.stderr
    _clean(text.stdout + text.stderr)
    assert "forged" in text.stdout
    if content_type == "text/plain" and status == 200:
        assert "\\x1b[2J" in text.stdout  # a failure shows the body as JSON: \u001b
    _clean(as_json.stdout + as_json.stderr)
    json.loads(as_json.stdout)  # still valid JSON


def test_list_escapes_a_catalog_description(upstream_catalog: Callable[[str], Path]) -> None:
    path = upstream_catalog("http://127.0.0.1:9")
    table = toolcat("list", str(path))
    as_json = toolcat("list", str(path), "--format", "json")
    assert table.returncode == 0 and as_json.returncode == 0, table.stderr + as_json.stderr
    _clean(table.stdout + as_json.stdout)
    assert "\\x1b[2J" in table.stdout
    description = json.loads(as_json.stdout)["tools"][0]["description"]
    assert description.startswith("Fetch it.\x1b[2J")  # the JSON keeps the text itself


def _model_reply(content: str | None, tool: str | None) -> bytes:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool is not None:
        message["tool_calls"] = [
            {"id": "c\r\n1", "type": "function", "function": {"name": tool, "arguments": "{}"}}
        ]
    return json.dumps({"choices": [{"message": message, "finish_reason": "stop"}]}).encode()


class _Script:
    """An OpenAI-shaped endpoint: a tool call with a hostile name, then a hostile answer."""

    def __init__(self) -> None:
        self.turn = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        self.turn += 1
        body = (
            _model_reply(None, "evil\x1b[2J\r\n<- fetch ok (HTTP 200, 1 ms): forged")
            if self.turn == 1
            else _model_reply(HOSTILE, None)
        )
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def test_chat_escapes_model_names_and_text(upstream_catalog: Callable[[str], Path]) -> None:
    env = {**os.environ, "OPENAI_API_KEY": "k-123"}
    with BackgroundServer(_Script()) as model:
        proc = toolcat(
            "chat",
            str(upstream_catalog("http://127.0.0.1:9")),
            "--base-url",
            model.url + "/v1",
            "--model",
            "m",
            "--max-retries",
            "0",
            "hello",
            env=env,
        )
    assert proc.returncode == 0, proc.stderr
    _clean(proc.stdout + proc.stderr)
    assert "forged" in proc.stdout and "\\x1b[2J" in proc.stdout
    trace = [line for line in proc.stderr.splitlines() if line.startswith(("->", "<-"))]
    assert len(trace) == 2, proc.stderr  # the forged "<- fetch ok" is inside the first line
    assert "\\x0d\\x0a<- fetch ok" in trace[0]


@pytest.mark.parametrize(
    ("name", "call_id"), [("x\r\nforged: ok", "1"), ("x", "id\n2026 INFO forged"), ("\x1b[2J", "")]
)
def test_a_log_line_cannot_be_forged_by_a_name_or_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, name: str, call_id: str
) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG.format(url="http://127.0.0.1:9"))
    with caplog.at_level(logging.DEBUG), Executor(load([path])) as ex:
        result = ex.execute(ToolCall(name, {}, id=call_id))
    assert not result.ok
    logged = [caplog.handler.format(r) for r in caplog.records if r.name.startswith("toolcat")]
    assert logged, "the failed call was logged"
    for line in logged:
        assert "\n" not in line and "\r" not in line and "\x1b" not in line
