"""`toolcat serve` under the MCP Inspector CLI, a real third-party MCP client.

Skips unless the Inspector is installed: set MCP_INSPECTOR to its ``mcp-inspector``
binary (``npm install @modelcontextprotocol/inspector@2.12.0`` in any folder, then
``node_modules/.bin/mcp-inspector``) or put it on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

INSPECTOR = os.environ.get("MCP_INSPECTOR") or shutil.which("mcp-inspector")
pytestmark = pytest.mark.skipif(
    not INSPECTOR,
    reason="MCP Inspector CLI not installed (set MCP_INSPECTOR to node_modules/.bin/mcp-inspector)",
)


def inspector(args: list[str], catalog: Path, env: dict[str, str]) -> dict[str, Any]:
    import subprocess

    assert INSPECTOR is not None
    server = [sys.executable, "-m", "toolcat.cli", "serve", str(catalog)]
    proc = subprocess.run(
        [INSPECTOR, "--cli", *args, "-e", f"WAREHOUSE_URL={env['WAREHOUSE_URL']}", "--", *server],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    answer: dict[str, Any] = json.loads(
        proc.stdout[: proc.stdout.rindex("}") + 1].split('\n{"error"')[0]
    )
    return answer


def test_inspector_lists_and_calls_tools(catalog_file: Path, serve_env: dict[str, str]) -> None:
    listed = inspector(["--method", "tools/list"], catalog_file, serve_env)
    assert [t["name"] for t in listed["tools"]] == ["get_item", "create_order"]
    assert listed["tools"][0]["outputSchema"]["type"] == "object"
    called = inspector(
        ["--method", "tools/call", "--tool-name", "get_item", "--tool-arg", "sku=G-STEEL-10"],
        catalog_file,
        serve_env,
    )
    assert called["isError"] is False and called["structuredContent"]["stock"] == 7


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_cannot_confirm_so_the_call_is_refused_and_says_why(
    era: str, catalog_file: Path, serve_env: dict[str, str], warehouse: str
) -> None:
    """The Inspector CLI declares no elicitation capability (it shows no form), in either
    era: a confirm: true tool is refused unsent, with the way out; with --yes it runs."""
    import subprocess

    import httpx

    assert INSPECTOR is not None

    def stock() -> int:
        value: int = httpx.get(f"{warehouse}/items/B-BOLT-M6").json()["stock"]
        return value

    def order(*serve_args: str) -> subprocess.CompletedProcess[str]:
        server = [sys.executable, "-m", "toolcat.cli", "serve", str(catalog_file), *serve_args]
        call = ["--method", "tools/call", "--tool-name", "create_order"]
        args = ["sku=B-BOLT-M6", "quantity=1", "customer=ACME"]
        return subprocess.run(
            [
                INSPECTOR,
                "--cli",
                "--protocol-era",
                era,
                *call,
                "--tool-arg",
                *args,
                "-e",
                f"WAREHOUSE_URL={warehouse}",
                "--",
                *server,
            ],
            capture_output=True,
            text=True,
            timeout=90,
            env=serve_env,
        )

    before = stock()
    refused = order()
    assert refused.returncode != 0 and "tool_is_error" in refused.stderr
    assert "not_confirmed" in refused.stdout and "--yes" in refused.stdout
    assert stock() == before  # not sent
    ran = order("--yes")
    assert ran.returncode == 0, ran.stderr
    assert '"status": "created"' in ran.stdout and stock() == before - 1
