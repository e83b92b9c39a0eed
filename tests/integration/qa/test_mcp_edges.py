"""`toolcat serve` under the MCP SDK's client, in the ways clients and models get calls wrong.

Tool failures are ``isError`` results the model can read; only a request that
breaks the protocol itself (arguments that are not an object) is a JSON-RPC error,
and the server keeps serving after it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from .conftest import TOOLCAT


def text(result: types.CallToolResult) -> str:
    """The text of the result's first content block (toolcat answers with one text block)."""
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def error_type(result: Any) -> str:
    assert result.is_error is True
    return str(json.loads(text(result))["error"]["type"])


async def exercise(s: ClientSession) -> None:
    await s.initialize()
    # arguments left out, or null: the tool says which argument is missing
    arguments: dict[str, Any] | None
    for arguments in (None, {}):
        missing = await s.call_tool("get_item", arguments)
        assert error_type(missing) == "invalid_arguments"
        assert "sku" in text(missing)
    assert error_type(await s.call_tool("get_item", {"sku": None})) == "invalid_arguments"
    assert (
        error_type(await s.call_tool("get_item", {"sku": "A", "extra": 1})) == "invalid_arguments"
    )
    typo = await s.call_tool("get_itme", {"sku": "W-BLUE-01"})
    assert error_type(typo) == "unknown_tool" and "get_item" in text(typo)
    assert error_type(await s.call_tool("", {})) == "unknown_tool"
    # a huge argument is refused before anything is sent, and fast
    with anyio.fail_after(10):
        huge = await s.call_tool("get_item", {"sku": "x" * 2_000_000})
    assert error_type(huge) == "refused_by_policy"
    # arguments that are not an object break the protocol: an error, and the server lives on
    for raw in (["W-BLUE-01"], "W-BLUE-01"):
        params = types.CallToolRequestParams.model_construct(name="get_item", arguments=raw)
        with pytest.raises(Exception, match="[Ii]nvalid"):
            await s.send_request(types.CallToolRequest(params=params), types.CallToolResult)
    # concurrent calls each get their own answer
    results: dict[int, Any] = {}

    async def one(i: int) -> None:
        results[i] = await s.call_tool("get_item", {"sku": "W-BLUE-01" if i % 2 else "NOPE"})

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            for i in range(24):
                tg.start_soon(one, i)
    for i, result in results.items():
        if i % 2:
            assert result.is_error is False
            assert json.loads(text(result))["sku"] == "W-BLUE-01"
        else:
            assert error_type(result) == "http_error" and "404" in text(result)
    assert len(results) == 24
    assert sorted(t.name for t in (await s.list_tools()).tools) == ["get_item", "list_items"]


@pytest.mark.filterwarnings("ignore::UserWarning")  # the SDK warns when it serializes raw args
def test_stdio_answers_bad_calls_with_is_error_results(
    catalog_file: Path, serve_env: dict[str, str], tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=[*TOOLCAT[1:], "serve", str(catalog_file)], env=serve_env
    )

    async def session() -> None:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with stdio_client(params, errlog) as (r, w), ClientSession(r, w) as s:
                await exercise(s)

    anyio.run(session)
    assert "Traceback" not in (tmp_path / "stderr.log").read_text()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_http_answers_bad_calls_with_is_error_results(
    catalog_file: Path, serve_env: dict[str, str]
) -> None:
    import subprocess

    proc = subprocess.Popen(
        [*TOOLCAT, "serve", str(catalog_file), "--transport", "http", "--port", "0"],
        env=serve_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        url = line.split(" on ", 1)[1].split(" ", 1)[0]

        async def session() -> None:
            async with streamable_http_client(url) as (r, w, *_), ClientSession(r, w) as s:
                await exercise(s)

        anyio.run(session)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        assert proc.stderr is not None
        rest = proc.stderr.read()
        proc.stderr.close()
    assert "Traceback" not in rest


def test_watch_survives_a_deleted_and_a_binary_catalog_then_reloads(
    catalog_file: Path, serve_env: dict[str, str]
) -> None:
    import subprocess

    good = catalog_file.read_text()
    proc = subprocess.Popen(
        [
            *TOOLCAT,
            "serve",
            str(catalog_file),
            "--transport",
            "http",
            "--port",
            "0",
            "--watch",
            "--poll-interval",
            "0.1",
        ],
        env=serve_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        url = proc.stderr.readline().split(" on ", 1)[1].split(" ", 1)[0]

        async def names(s: ClientSession) -> list[str]:
            return sorted(t.name for t in (await s.list_tools()).tools)

        async def session() -> None:
            async with streamable_http_client(url) as (r, w, *_), ClientSession(r, w) as s:
                await s.initialize()
                for damage in (
                    lambda: catalog_file.unlink(),
                    lambda: catalog_file.write_bytes(b"\xff\xfe\x00junk"),
                ):
                    damage()
                    await anyio.sleep(0.6)
                    assert await names(s) == ["get_item", "list_items"]
                    ok = await s.call_tool("get_item", {"sku": "W-BLUE-01"})
                    assert ok.is_error is False
                catalog_file.write_text(good.replace("list_items", "all_items"))
                with anyio.fail_after(10):
                    while await names(s) != ["all_items", "get_item"]:
                        await anyio.sleep(0.1)

        anyio.run(session)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        assert proc.stderr is not None
        log = proc.stderr.read()
        proc.stderr.close()
    assert "Traceback" not in log
    assert "no such file or directory" in log and "not UTF-8" in log
    assert "catalog reloaded: 2 tools" in log
