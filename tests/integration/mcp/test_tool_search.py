"""`toolcat serve --tool-search` through the official MCP client SDK, over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]


def params(args: list[str], env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=TOOLCAT[0], args=[*TOOLCAT[1:], "serve", *args], env=env)


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def test_lists_pins_and_search_tools_and_calls_any_tool(
    catalog_file: Path, serve_env: dict[str, str], tmp_path: Path
) -> None:
    args = [str(catalog_file), "--tool-search", "--pin", "create_order"]

    async def session() -> None:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with (
                stdio_client(params(args, serve_env), errlog) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                listed = {t.name: t for t in (await s.list_tools()).tools}
                assert list(listed) == ["create_order", "search_tools"]
                assert listed["search_tools"].input_schema["required"] == ["query"]

                found = await s.call_tool("search_tools", {"query": "item stock by SKU"})
                assert found.is_error is False
                tools: list[dict[str, Any]] = json.loads(text(found))["tools"]
                assert tools[0]["name"] == "get_item"
                assert tools[0]["input_schema"]["required"] == ["sku"]

                # a tool that tools/list does not show is still callable
                ok = await s.call_tool("get_item", {"sku": "W-BLUE-01"})
                assert ok.is_error is False
                assert ok.structured_content is not None
                assert ok.structured_content["stock"] == 42

                bad = await s.call_tool("search_tools", {"query": 5})
                assert bad.is_error is True and "invalid_arguments" in text(bad)
                empty = await s.call_tool("search_tools", {"query": "天气 " * 10_000})
                assert empty.is_error is False and json.loads(text(empty))["tools"] == []

    anyio.run(session)


def test_without_tool_search_search_tools_is_unknown(
    catalog_file: Path, serve_env: dict[str, str], tmp_path: Path
) -> None:
    async def session() -> None:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with (
                stdio_client(params([str(catalog_file)], serve_env), errlog) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                names = [t.name for t in (await s.list_tools()).tools]
                assert "search_tools" not in names
                missing = await s.call_tool("search_tools", {"query": "item"})
                assert missing.is_error is True and "unknown_tool" in text(missing)

    anyio.run(session)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--tool-search", "--pin", "nope"], "unknown tool 'nope'"),
        (["--pin", "get_item"], "--pin needs --tool-search"),
    ],
)
def test_bad_pins_are_one_line_exit_2(catalog_file: Path, extra: list[str], message: str) -> None:
    proc = subprocess.run(
        [*TOOLCAT, "serve", str(catalog_file), *extra], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
