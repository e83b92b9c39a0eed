"""`serve --docs` with an access policy: each caller's pages show the tools it may call,
and no other (a real server in a subprocess, real sockets, API keys)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
KEYS = {"reader": "reader-key-0123456789abcdef", "nobody": "nobody-key-0123456789abcdef"}
KEYS["writer"] = "writer-key-0123456789abcdef"


def _hash(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


CATALOG = """\
toolcat: 1
services:
  shop: {base_url: "http://127.0.0.1:9"}
tools:
  - name: get_item
    description: One item by SKU.
    service: shop
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, description: The SKU}
  - name: purge_warehouse_zebra
    description: Deletes every item of the warehouse.
    service: shop
    method: DELETE
    path: /items
    confirm: false
server:
  resource: http://toolcat.test/mcp
  auth:
    api_keys:
{keys}
  access:
    - {name: readers, when: {api_key: reader}, allow: {tools: [get_item]}}
    - {name: writers, when: {api_key: writer}, allow: {tools: ["*"]}}
"""
CATALOG = CATALOG.replace(
    "{keys}", "".join(f"      - {{name: {n}, hash: '{_hash(k)}'}}\n" for n, k in KEYS.items())
)
HIDDEN = "purge_warehouse_zebra"
PAGES = ["", "assets/tools.js", "assets/search-index.js", "assets/index/0.js"]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("docs-access") / "catalog.yaml"
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


def _get(base: str, who: str, page: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {KEYS[who]}"}
    with httpx.Client(timeout=30, follow_redirects=True, headers=headers) as client:
        return client.get(f"{base}/docs/{page}")


@pytest.mark.parametrize("who", ["reader", "nobody"])
def test_a_caller_sees_only_the_tools_it_may_call(base: str, who: str) -> None:
    for page in PAGES:
        answer = _get(base, who, page)
        assert answer.status_code == 200, page
        assert HIDDEN not in answer.text and "warehouse" not in answer.text.lower(), page
    assert _get(base, who, f"tools/{HIDDEN}.html").status_code == 404
    shown = _get(base, who, "tools/get_item.html").status_code
    assert shown == (200 if who == "reader" else 404)


def test_a_caller_allowed_everything_sees_everything(base: str) -> None:
    assert HIDDEN in _get(base, "writer", "").text
    assert _get(base, "writer", f"tools/{HIDDEN}.html").status_code == 200
    assert HIDDEN not in _get(base, "reader", "assets/tools.js").text


def test_no_pages_without_a_key(base: str) -> None:
    with httpx.Client(timeout=10) as client:
        assert client.get(f"{base}/docs/").status_code == 401
