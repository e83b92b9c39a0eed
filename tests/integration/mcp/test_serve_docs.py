"""`toolcat serve --transport http --docs`: the catalog browser beside /mcp, read-only,
behind the same Host/Origin guard (a real server in a subprocess, real sockets)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
CATALOG = """\
toolcat: 1
services:
  warehouse: {base_url: "http://127.0.0.1:9"}
tools:
  - name: get_item
    description: One item by SKU.
    service: warehouse
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, description: The SKU}
"""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a running `toolcat serve --transport http --docs`."""
    path = tmp_path_factory.mktemp("docs") / "catalog.yaml"
    path.write_text(CATALOG)
    proc = subprocess.Popen(
        [*TOOLCAT, "serve", str(path), "--transport", "http", "--port", "0", "--docs"],
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stderr is not None
    found = None
    for _ in range(20):
        line = proc.stderr.readline()
        found = re.search(r"(http://\S+)/mcp", line)
        if found or not line:
            break
    try:
        if not found:
            pytest.fail("no ready line")
        yield found.group(1)
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stderr.close()


def test_the_pages_are_served_beside_mcp(base: str) -> None:
    with httpx.Client(timeout=10, follow_redirects=True) as client:
        index = client.get(f"{base}/docs/")
        assert index.status_code == 200 and "get_item" in index.text
        assert client.get(f"{base}/docs/tools/get_item.html").status_code == 200
        script = client.get(f"{base}/docs/assets/search-index.js")
        assert script.text.startswith("window.TOOLCAT_INDEX = ")
        assert client.get(f"{base}/docs/nothing.html").status_code == 404
        mcp = client.post(
            f"{base}/mcp",
            json=INITIALIZE,
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert mcp.status_code == 200


def test_the_pages_are_read_only_and_guarded(base: str) -> None:
    with httpx.Client(timeout=10) as client:
        assert client.post(f"{base}/docs/index.html", content=b"x").status_code == 405
        assert client.get(f"{base}/docs/", headers={"Host": "evil.example"}).status_code == 421
        refused = client.get(f"{base}/docs/", headers={"Origin": "https://evil.example"})
        assert refused.status_code == 403
        assert client.get(f"{base}/docs/../catalog.yaml").status_code == 404


def test_docs_needs_http(tmp_path: Path) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG)
    done = subprocess.run(
        [*TOOLCAT, "serve", str(path), "--docs"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "--docs needs --transport http" in done.stderr
