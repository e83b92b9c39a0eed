"""`toolcat serve` with a Redis: two real server processes share one quota and one set of
idempotency records (calls through the MCP SDK's client), /readyz follows Redis, and a
malformed or unreachable Redis at start is one line and exit status 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from .conftest import Counts, RedisProcess, catalog_yaml, free_port

pytestmark = pytest.mark.timeout(120)

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
SERVER = """\
server:
  quotas:
    - name: orders
      tools: [create_order]
      rate: 4/hour
  redis:
    url: ${TEST_REDIS_URL}
    prefix: PREFIX
"""


class Served:
    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc = proc
        self.url = url
        self.base = url.rsplit("/", 1)[0]
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def ready(self) -> dict[str, Any]:
        with httpx.Client(timeout=10) as client:
            body: dict[str, Any] = client.get(self.base + "/readyz").json()
            return body

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self._reader.join(10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


@pytest.fixture
def started() -> Iterator[list[Served]]:
    servers: list[Served] = []
    yield servers
    for s in servers:
        s.stop()


def _serve(catalog: Path, redis_url: str, *flags: str) -> Served:
    env = {**os.environ, "TEST_REDIS_URL": redis_url}
    proc = subprocess.Popen(
        [*TOOLCAT, "serve", str(catalog), "--transport", "http", "--port", "0", *flags],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    found = None
    for _ in range(20):
        line = proc.stderr.readline()
        found = re.search(r"http://\S+/mcp", line)
        if found or not line:
            break
    if found is None:
        proc.kill()
        proc.wait(10)
        pytest.fail(f"no ready line: {line!r}")
    return Served(proc, found.group(0))


async def _orders(url: str, keys: list[str | None]) -> list[Any]:
    async with (
        create_mcp_http_client() as http,
        streamable_http_client(url, http_client=http) as (r, w),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        await session.list_tools()
        out = []
        for n, key in enumerate(keys):
            args: dict[str, str] = {"item": f"i{n}"}
            if key is not None:
                args["request_id"] = key
            out.append(await session.call_tool("create_order", args))
        return out


def orders(url: str, *keys: str | None) -> list[Any]:
    """Call create_order once per key (``None``: no key) in one MCP session."""
    wanted: list[str | None] = list(keys)
    result: list[Any] = anyio.run(_orders, url, wanted)
    return result


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def test_two_serve_processes_share_quota_and_records(
    tmp_path: Path,
    service: tuple[str, Counts],
    redis_server: RedisProcess,
    prefix: str,
    started: list[Served],
) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(catalog_yaml(service[0], SERVER.replace("PREFIX", f'"{prefix}"')))
    a = _serve(catalog, redis_server.url)
    started.append(a)
    b = _serve(catalog, redis_server.url)
    started.append(b)
    assert a.ready()["shared_state"] == "reachable"
    # the same key on both replicas: sent once; then two more orders use up the quota
    first = orders(a.url, "k-1")
    again = orders(b.url, "k-1", "k-2")
    assert service[1].orders == 2 and service[1].keys == ["k-1", "k-2"]
    assert _text(again[0]) == _text(first[0])
    # quotas are checked first: the replayed call took a token too, so this is the fourth
    third = orders(a.url, None)
    assert not third[0].is_error
    over = orders(b.url, None) + orders(a.url, None)
    for result in over:
        assert result.is_error and "rate_limited" in _text(result)
    assert service[1].orders == 3


def test_readiness_follows_redis(
    tmp_path: Path, service: tuple[str, Counts], prefix: str, started: list[Served]
) -> None:
    own = RedisProcess(tmp_path)
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(catalog_yaml(service[0], SERVER.replace("PREFIX", f'"{prefix}"')))
    served = _serve(catalog, own.url)
    started.append(served)
    assert served.ready()["status"] == "ready"
    own.kill()
    import time

    deadline = time.monotonic() + 10
    while served.ready()["status"] == "ready":  # asked at most once a second
        assert time.monotonic() < deadline
        time.sleep(0.1)
    body = served.ready()
    assert body["shared_state"] == "unreachable" and body["catalog_loaded"] is True
    results = orders(served.url, "k")  # fail closed, no traceback
    assert results[0].is_error and "unavailable" in _text(results[0])
    assert service[1].orders == 0
    served.stop()
    assert not any("Traceback" in line for line in served.lines), served.lines


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("redis-host:6379", "the Redis URL is malformed: it must start with redis://"),
        ("redis://127.0.0.1:PORT/0", "cannot reach Redis at redis://127.0.0.1:PORT/0: "),
    ],
    ids=["malformed", "unreachable"],
)
def test_a_bad_redis_at_start_is_one_line(
    tmp_path: Path, service: tuple[str, Counts], url: str, words: str
) -> None:
    port = str(free_port())
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(catalog_yaml(service[0]))
    done = subprocess.run(
        [*TOOLCAT, "serve", str(catalog), "--redis", url.replace("PORT", port)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TOOLCAT_NO_COLOR": "1"},
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("toolcat: cannot serve: ")
    assert words.replace("PORT", port) in lines[0]
