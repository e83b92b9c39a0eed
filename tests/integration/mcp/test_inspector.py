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
