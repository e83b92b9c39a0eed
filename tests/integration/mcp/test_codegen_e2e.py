"""The Python package `toolcat codegen` writes for the demo calls a real `toolcat serve`.

The server fronts the sample warehouse service on 127.0.0.1 and wants an API key; the
program a model would write is type-checked with mypy --strict (and a wrong argument is
caught), then run against it.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DEMO = REPO / "examples" / "demo" / "catalog.yaml"
TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
KEY = "codegen-key-0123456789"

PROGRAM = """
import asyncio
import json

from api import ToolCallError, connect, search, warehouse


async def main() -> None:
    async with connect():
        found = await warehouse.search_items({"q": "widget", "limit": 2})
        sku: str = found["items"][0]["sku"]
        stock: int = found["items"][0]["stock"]
        item = await warehouse.get_item({"sku": sku})
        hits = await search("look up one item by its sku")
        try:
            await warehouse.get_item({"sku": "NOPE"})
            missing = ""
        except ToolCallError as exc:
            missing = str(exc)
    print(json.dumps({"sku": sku, "stock": stock, "item": item, "missing": missing,
                      "hits": [t.get("function") for t in hits["tools"]]}))


asyncio.run(main())
"""


@pytest.fixture
def served(serve_env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    log = tmp_path / "serve.log"
    hashed = "sha256:" + hashlib.sha256(KEY.encode()).hexdigest()
    with socket.socket() as probe:  # with authentication, serve wants its URL: a fixed port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    with open(log, "w") as errors:
        proc = subprocess.Popen(
            [*TOOLCAT, "serve", str(DEMO), "--transport", "http", "--port", str(port)]
            + ["--resource", url, "--tool-search", "--api-key-hash", f"bot={hashed}"],
            stderr=errors,
            env=serve_env,
        )
    try:
        deadline = time.monotonic() + 60
        while url not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.timeout(600)
def test_the_generated_package_calls_serve_with_types(
    served: str, serve_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "gen"
    made = run(
        [*TOOLCAT, "codegen", "--lang", "python", str(DEMO), "-o", str(out)] + ["--package", "api"],
        tmp_path,
        serve_env,
    )
    assert made.returncode == 0, made.stderr
    (out / "program.py").write_text(PROGRAM)
    (out / "wrong.py").write_text(
        "from api import warehouse\n\n\nasync def f() -> None:\n"
        '    await warehouse.get_item({"sku": 1})\n'
    )
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental"]
    checked = run([*mypy, "program.py"], out, serve_env)
    assert checked.returncode == 0, checked.stdout
    wrong = run([*mypy, "wrong.py"], out, serve_env)
    assert wrong.returncode == 1 and 'TypedDict item "sku" has type "str"' in wrong.stdout

    env = {**serve_env, "PYTHONPATH": str(out), "TOOLCAT_MCP_URL": served}
    ran = run([sys.executable, "program.py"], out, {**env, "TOOLCAT_MCP_TOKEN": KEY})
    assert ran.returncode == 0, ran.stderr[-3000:]
    answer = json.loads(ran.stdout)
    assert answer["sku"] == answer["item"]["sku"] and isinstance(answer["stock"], int)
    assert "404" in answer["missing"]
    assert "warehouse.get_item" in answer["hits"]

    refused = run([sys.executable, "program.py"], out, env)  # no token: the server refuses (401)
    assert refused.returncode != 0, refused.stdout
    assert "error response" in refused.stderr or "401" in refused.stderr  # the SDK's words
