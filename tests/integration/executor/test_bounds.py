"""Bounded resources against an upstream that misbehaves on purpose, over real loopback
sockets: compression bombs (stacked and single), corrupt or unknown encodings, headers
trickled one byte at a time."""

from __future__ import annotations

import asyncio
import gzip
import socket
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from toolcat.executor import Executor, ToolCall, ToolResult
from toolcat.loader import load
from toolcat.tests.support import CatalogFiles, RawServer, zeros_gzip
from toolcat.tests.support import RawHandler as Handler

_CAP = 10_000_000  # the default max_response_bytes
_MEMORY_BOUND = 100_000_000  # a sanity bound on peak Python memory for one call


def _answer(body: bytes, encoding: str, ctype: str = "application/json") -> Handler:
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Encoding: {encoding}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()

    def handler(conn: socket.socket) -> None:
        conn.sendall(head + body)

    return handler


@pytest.fixture(scope="module")
def stacked_bomb() -> bytes:
    # 200 MB of zeros, gzipped twice: about 1 KB on the wire, 20 times the cap decoded
    return gzip.compress(zeros_gzip(200 << 20))


@pytest.fixture(scope="module")
def single_bomb() -> bytes:
    return zeros_gzip(200 << 20)  # about 200 KB on the wire


def _run(tmp_path: Path, handler: Handler, mode: str, timeout: str = "10") -> ToolResult:
    srv = RawServer(handler)
    try:
        path = tmp_path / "catalog.yaml"
        path.write_text(
            f"toolcat: 1\nservices:\n  up:\n    base_url: {srv.url}\n    timeout: {timeout}\n"
            "tools:\n  - name: fetch\n    description: Fetch.\n    service: up\n"
            "    method: GET\n    path: /x\n"
        )
        catalog = load([path])
        call = ToolCall("fetch", {})
        if mode == "sync":
            with Executor(catalog, env={}) as ex:
                return ex.execute(call)

        async def go() -> ToolResult:
            async with Executor(catalog, env={}) as ex:
                return await ex.aexecute(call)

        return asyncio.run(go())
    finally:
        srv.close()


def _measured(run: Callable[[], ToolResult]) -> tuple[ToolResult, int]:
    tracemalloc.start()
    try:
        result = run()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("encoding", ["gzip, gzip", "gzip,x-gzip", "deflate, gzip"])
def test_a_stacked_encoding_is_refused_without_decoding_it(
    tmp_path: Path, stacked_bomb: bytes, mode: str, encoding: str
) -> None:
    result, peak = _measured(lambda: _run(tmp_path, _answer(stacked_bomb, encoding), mode))
    assert result.error is not None and result.error.type == "invalid_response", result.content
    assert "only one layer" in result.error.msg and result.status == 200
    assert peak < _MEMORY_BOUND, f"peak {peak:,} bytes"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_single_layer_bomb_stops_at_the_cap_on_decoded_bytes(
    tmp_path: Path, single_bomb: bytes, mode: str
) -> None:
    assert len(single_bomb) < _CAP  # the wire size alone passes the cap
    result, peak = _measured(lambda: _run(tmp_path, _answer(single_bomb, "gzip"), mode))
    assert result.error is not None and result.error.type == "response_too_large", result.content
    assert f"{_CAP} bytes" in result.error.msg and result.status == 200
    assert peak < _MEMORY_BOUND, f"peak {peak:,} bytes"


def _deflate_raw(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


GOOD = b'{"ok": true, "n": [1, 2, 3]}'


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "body,encoding",
    [
        (gzip.compress(GOOD), "gzip"),
        (gzip.compress(GOOD), "X-GZIP"),
        (gzip.compress(GOOD[:10]) + gzip.compress(GOOD[10:]), "gzip"),  # two members
        (zlib.compress(GOOD), "deflate"),
        (_deflate_raw(GOOD), "deflate"),
        (GOOD, "identity"),
        (gzip.compress(GOOD), "identity, gzip"),
    ],
    ids=["gzip", "x-gzip", "members", "zlib", "raw-deflate", "identity", "identity-gzip"],
)
def test_one_layer_is_decoded(tmp_path: Path, mode: str, body: bytes, encoding: str) -> None:
    result = _run(tmp_path, _answer(body, encoding), mode)
    assert result.ok and result.data == {"ok": True, "n": [1, 2, 3]}, result.content


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "body,encoding,says",
    [
        (b"not gzip at all, just text", "gzip", "corrupt"),
        (gzip.compress(GOOD)[:-12], "gzip", "ends early"),
        (b"\x00\x01garbage", "deflate", "corrupt"),
        (GOOD, "br", "'br'"),
        (GOOD, "compress", "'compress'"),
        (GOOD, "zstd", "'zstd'"),
    ],
    ids=["bad-gzip", "cut-gzip", "bad-deflate", "br", "compress", "zstd"],
)
def test_a_body_that_cannot_be_decoded_is_a_typed_error(
    tmp_path: Path, mode: str, body: bytes, encoding: str, says: str
) -> None:
    result = _run(tmp_path, _answer(body, encoding), mode)
    assert result.error is not None and result.error.type == "invalid_response", result.content
    assert says in result.error.msg and result.status == 200


def test_accept_encoding_is_what_the_decoder_undoes(
    server: Any, catalog_files: CatalogFiles
) -> None:
    url, state = server
    catalog = catalog_files.catalog(
        f"toolcat: 1\nservices:\n  api:\n    base_url: {url}\n"
        "tools:\n  - name: echo\n    description: Echo.\n    service: api\n"
        "    method: GET\n    path: /echo\n"
    )
    with Executor(catalog, env={}) as ex:
        assert ex.execute(ToolCall("echo", {})).ok
    headers = dict(state.seen[-1]["headers"])
    assert headers["accept-encoding"] == "gzip, deflate"


def _trickle_headers(conn: socket.socket) -> None:
    for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000:
        conn.sendall(bytes([byte]))
        time.sleep(0.2)


@pytest.fixture()
def slow_server() -> Iterator[RawServer]:
    srv = RawServer(_trickle_headers)
    yield srv
    srv.close()


def _trickle_body(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
    for _ in range(10_000):
        conn.sendall(b"a")
        time.sleep(0.2)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "handler,timeout",
    [
        (_trickle_headers, "1"),
        (_trickle_headers, "{connect: 1, read: 1, total: 1}"),
        (_trickle_body, "1"),
    ],
    ids=["headers", "headers-phases", "body"],
)
def test_a_trickling_server_cannot_outlast_the_total_timeout(
    tmp_path: Path, mode: str, handler: Handler, timeout: str
) -> None:
    start = time.monotonic()
    result = _run(tmp_path, handler, mode, timeout=timeout)
    took = time.monotonic() - start
    assert result.error is not None and result.error.type == "timeout", result.content
    assert took < 5, f"a 1 s call ran {took:.1f} s"  # a generous bound, not a speed test


def test_the_total_timeout_holds_through_toolcat_call(tmp_path: Path) -> None:
    import subprocess
    import sys

    srv = RawServer(_trickle_headers)
    try:
        path = tmp_path / "catalog.yaml"
        path.write_text(
            f"toolcat: 1\nservices:\n  up:\n    base_url: {srv.url}\n    timeout: 1\n"
            "tools:\n  - name: fetch\n    description: Fetch.\n    service: up\n"
            "    method: GET\n    path: /x\n"
        )
        start = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "toolcat.cli", "call", str(path), "fetch"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        took = time.monotonic() - start
    finally:
        srv.close()
    assert done.returncode == 1 and "timeout" in done.stderr, done.stdout + done.stderr
    assert took < 15, f"`toolcat call` with a 1 s timeout ran {took:.1f} s"


CAPPED = """
toolcat: 1
services:
  api:
    base_url: {url}
    max_response_chars: 500
tools:
  - name: big
    description: Many items.
    service: api
    method: GET
    path: /big
    parameters:
      n: {{type: integer, description: how many}}
"""


@pytest.mark.parametrize("provider", ["mcp", "gemini", "openai", "anthropic"])
@pytest.mark.parametrize("n", [50_000, 1])
def test_max_response_chars_bounds_every_shape_the_model_reads(
    server: Any, catalog_files: CatalogFiles, provider: str, n: int
) -> None:
    import json

    from toolcat.executor import format_result

    url, _ = server
    with Executor(catalog_files.catalog(CAPPED.format(url=url)), env={}) as ex:
        result = ex.execute(ToolCall("big", {"n": n}))
    assert result.ok and len(result.data["items"]) == n  # the caller still gets all the data
    shape = json.dumps(format_result(provider, result))
    if n == 1:  # under the cap: nothing changes, structured shapes keep the data
        assert not result.truncated and "item 0" in shape
        if provider == "mcp":
            assert format_result(provider, result)["structuredContent"] == result.data
        return
    assert result.truncated and len(json.dumps(result.data)) > 1_000_000
    assert len(shape) < 1_000, f"{provider}: {len(shape):,} characters under a 500 cap"
    assert "truncated" in shape
    if provider == "mcp":
        assert "structuredContent" not in format_result(provider, result)
