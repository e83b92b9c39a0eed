"""One nesting limit: deep arguments and deep upstream JSON are typed errors, never a crash.

``RecursionError`` used to escape from ``json.loads`` as an ``internal`` result.
The upstream is a real HTTP server on loopback answering with deep JSON.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog.common import MAX_NESTING_DEPTH
from toolcat.executor import Executor, ExecutorSettings, ToolCall, parse_arguments
from toolcat.loader import load


def _deep_list(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


class _Upstream(BaseHTTPRequestHandler):
    body = b"{}"
    hits = 0

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def do_POST(self) -> None:  # noqa: N802
        self.do_GET()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[tuple[Executor, type[_Upstream]]]:
    handler = type("Handler", (_Upstream,), {"hits": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    catalog = tmp_path / "c.yaml"
    catalog.write_text(
        f"toolcat: 1\nservices:\n  up: {{base_url: 'http://127.0.0.1:{server.server_port}'}}\n"
        "tools:\n  - name: fetch\n    description: Fetch.\n    service: up\n"
        "    method: GET\n    path: /x\n"
        "  - name: post\n    description: Post.\n    service: up\n    method: POST\n"
        "    path: /x\n    parameters:\n      doc: {type: object, in: body, description: d}\n",
        encoding="utf-8",
    )
    try:
        with Executor(load([catalog]), ExecutorSettings(env={})) as ex:
            yield ex, handler
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("depth", [MAX_NESTING_DEPTH + 1, 2_000, 200_000])
def test_deep_upstream_json_is_a_typed_upstream_error(
    upstream: tuple[Executor, type[_Upstream]], depth: int
) -> None:
    ex, handler = upstream
    handler.body = b"[" * depth + b"]" * depth
    result = ex.execute(ToolCall("fetch", {}))
    assert result.error is not None and result.error.type == "invalid_response", result.content
    assert "nest" in result.error.msg


def test_upstream_json_within_the_limit_is_read(
    upstream: tuple[Executor, type[_Upstream]],
) -> None:
    ex, handler = upstream
    handler.body = json.dumps({"a": _deep_list(MAX_NESTING_DEPTH - 1)}).encode()
    result = ex.execute(ToolCall("fetch", {}))
    assert result.ok, result.content


@pytest.mark.parametrize("depth", [MAX_NESTING_DEPTH + 1, 2_000, 200_000])
def test_deep_argument_json_is_invalid_arguments_and_nothing_is_sent(
    upstream: tuple[Executor, type[_Upstream]], depth: int
) -> None:
    ex, handler = upstream
    raw = '{"doc": {"a": ' + "[" * depth + "]" * depth + "}}"
    result = ex.execute(ToolCall("post", raw))
    assert result.error is not None and result.error.type == "invalid_arguments", result.content
    assert "nesting limit" in result.error.msg
    assert handler.hits == 0


def test_deep_arguments_as_a_mapping_are_invalid_arguments() -> None:
    bad = parse_arguments({"doc": {"a": _deep_list(MAX_NESTING_DEPTH + 5)}})
    assert not isinstance(bad, dict) and bad.type == "invalid_arguments"
    fine = parse_arguments({"doc": {"a": _deep_list(10)}})
    assert isinstance(fine, dict)
