"""`toolcat serve` driven by the MCP SDK's own client, over stdio and streamable HTTP."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]


def stdio_params(args: list[str], env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=TOOLCAT[0], args=[*TOOLCAT[1:], "serve", *args], env=env)


def dump(result: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True)
    return dumped


def text(result: types.CallToolResult) -> str:
    """The text of the result's first content block (toolcat answers with one text block)."""
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def test_stdio_lists_tools_and_calls_them_through_the_executor(
    catalog_file: Path, serve_env: dict[str, str], tmp_path: Path
) -> None:
    async def session() -> None:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with (
                stdio_client(stdio_params([str(catalog_file)], serve_env), errlog) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                listed = {t.name: dump(t) for t in (await s.list_tools()).tools}
                assert set(listed) == {"get_item", "create_order"}
                item = listed["get_item"]
                assert item["inputSchema"]["required"] == ["sku"]
                assert item["outputSchema"]["required"] == ["sku", "stock"]
                assert item["annotations"]["readOnlyHint"] is True
                assert listed["create_order"]["annotations"]["destructiveHint"] is True

                ok = await s.call_tool("get_item", {"sku": "W-BLUE-01"})
                assert ok.is_error is False
                assert ok.structured_content["sku"] == "W-BLUE-01"
                assert ok.structured_content["stock"] == 42
                assert json.loads(text(ok))["name"] == "Blue widget"

                bad = await s.call_tool("get_item", {"sku": 7})
                assert bad.is_error is True and "invalid_arguments" in text(bad)

                missing = await s.call_tool("get_itme", {"sku": "X"})
                assert missing.is_error is True and "get_item" in text(missing)

                upstream = await s.call_tool("get_item", {"sku": "NOPE"})
                assert upstream.is_error is True and "404" in text(upstream)

                # confirm: true tools are refused unless the server runs with --yes
                refused = await s.call_tool(
                    "create_order", {"sku": "W-BLUE-01", "quantity": 1, "customer": "A"}
                )
                assert refused.is_error is True and "not_confirmed" in text(refused)

    anyio.run(session)


def test_http_transport_with_a_toolset_and_watch(
    catalog_file: Path, serve_env: dict[str, str]
) -> None:
    proc = subprocess.Popen(
        [
            *TOOLCAT,
            "serve",
            str(catalog_file),
            "--transport",
            "http",
            "--port",
            "0",
            "--toolset",
            "readonly",
            "--watch",
            "--poll-interval",
            "0.1",
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=serve_env,
    )
    changed: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.append(message)

    try:
        assert proc.stderr is not None
        seen = []
        for _ in range(20):  # the ready line, after any warnings the server printed first
            seen.append(proc.stderr.readline())
            found = re.search(r"http://127\.0\.0\.1:\d+/mcp", seen[-1])
            if found or not seen[-1]:
                break
        assert found, seen
        url = found.group(0)

        async def session() -> None:
            async with (
                streamable_http_client(url) as (r, w),
                ClientSession(r, w, message_handler=on_message) as s,
            ):
                await s.initialize()
                assert [t.name for t in (await s.list_tools()).tools] == ["get_item"]
                ok = await s.call_tool("get_item", {"sku": "G-STEEL-10"})
                assert ok.is_error is False and ok.structured_content["stock"] == 7
                hidden = await s.call_tool(
                    "create_order", {"sku": "W-BLUE-01", "quantity": 1, "customer": "A"}
                )
                assert hidden.is_error is True and "unknown_tool" in text(hidden)
                # --watch over HTTP: the edit reaches the client on its standalone stream
                catalog_file.write_text(
                    catalog_file.read_text().replace(
                        "readonly: [get_item]", "readonly: [get_item, create_order]"
                    )
                )
                with anyio.fail_after(10):
                    while not changed:
                        await anyio.sleep(0.05)
                names = [t.name for t in (await s.list_tools()).tools]
                assert names == ["get_item", "create_order"]

        anyio.run(session)
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr:
            proc.stderr.close()


def test_watch_reloads_good_edits_and_keeps_the_last_good_catalog(
    catalog_file: Path, serve_env: dict[str, str], tmp_path: Path
) -> None:
    changed: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.append(message.method)

    async def wait_for(count: int, seconds: float = 10.0) -> None:
        with anyio.fail_after(seconds):
            while len(changed) < count:
                await anyio.sleep(0.05)

    original = catalog_file.read_text()
    errlog_path = tmp_path / "stderr.log"

    async def session() -> None:
        args = [str(catalog_file), "--watch", "--poll-interval", "0.1"]
        with open(errlog_path, "w") as errlog:
            async with (
                stdio_client(stdio_params(args, serve_env), errlog) as (r, w),
                ClientSession(r, w, message_handler=on_message) as s,
            ):
                init = await s.initialize()
                assert init.capabilities.tools is not None
                assert init.capabilities.tools.list_changed is True
                assert len((await s.list_tools()).tools) == 2

                # A good edit: a third tool appears and the client is told.
                catalog_file.write_text(
                    original.replace(
                        "toolsets:",
                        "  - name: get_order\n    description: One order.\n"
                        "    service: warehouse\n    method: GET\n    path: /orders/{order_id}\n"
                        "    parameters:\n      order_id: {type: string, description: The id}\n"
                        "toolsets:",
                    )
                )
                await wait_for(1)
                names = {t.name for t in (await s.list_tools()).tools}
                assert names == {"get_item", "create_order", "get_order"}

                # A broken edit: diagnostics on stderr, no notification, old tools kept.
                catalog_file.write_text(original.replace("method: GET", "method: FETCH"))
                with anyio.fail_after(10):  # reported once the write has settled (--settle)
                    while "reload failed" not in errlog_path.read_text():
                        await anyio.sleep(0.05)
                assert len(changed) == 1
                names = {t.name for t in (await s.list_tools()).tools}
                assert names == {"get_item", "create_order", "get_order"}
                ok = await s.call_tool("get_item", {"sku": "W-BLUE-01"})
                assert ok.is_error is False

                # Fixed again: reloaded, notified.
                catalog_file.write_text(original)
                await wait_for(2)
                assert len((await s.list_tools()).tools) == 2

    anyio.run(session)
    log = errlog_path.read_text()
    assert "reload failed, still serving the last good catalog" in log
    assert re.search(r"catalog\.yaml:\d+:\d+: error TC\d+", log), log


def test_a_broken_catalog_is_refused_with_its_diagnostics(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("toolcat: 1\ntools:\n  - name: x\n    method: GET\n")
    proc = subprocess.run(
        [*TOOLCAT, "serve", str(path)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 1
    assert "broken.yaml:" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("toolcat: cannot serve")


def test_an_unknown_toolset_is_one_line_exit_2(catalog_file: Path) -> None:
    proc = subprocess.run(
        [*TOOLCAT, "serve", str(catalog_file), "--toolset", "nope"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("toolcat: unknown toolset 'nope'; the catalog has: readonly")


@pytest.mark.parametrize("missing", ["does-not-exist.yaml"])
def test_a_missing_path_is_one_line_exit_2(missing: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        [*TOOLCAT, "serve", str(tmp_path / missing)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_watch_notifies_2026_clients_through_subscriptions_listen(
    catalog_file: Path, serve_env: dict[str, str]
) -> None:
    from mcp import Client

    params = stdio_params([str(catalog_file), "--watch", "--poll-interval", "0.1"], serve_env)

    async def session() -> None:
        async with Client(params) as client:
            assert client.session.protocol_version == "2026-07-28"
            async with client.listen(tools_list_changed=True) as sub:
                catalog_file.write_text(
                    catalog_file.read_text().replace(
                        "description: One item by SKU.", "description: One item by its SKU."
                    )
                )
                with anyio.fail_after(10):
                    async for event in sub:
                        assert type(event).__name__ == "ToolsListChanged"
                        break
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["get_item"].description == "One item by its SKU."

    anyio.run(session)


def test_confirm_tools_ask_the_client_through_elicitation(
    catalog_file: Path, serve_env: dict[str, str]
) -> None:
    answers: list[Literal["accept", "decline"]] = ["accept", "decline"]
    asked: list[str] = []

    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        action = answers.pop(0)
        return types.ElicitResult(
            action=action, content={"confirm": True} if action == "accept" else None
        )

    async def session() -> None:
        async with (
            stdio_client(stdio_params([str(catalog_file)], serve_env)) as (r, w),
            ClientSession(r, w, elicitation_callback=elicit) as s,
        ):
            await s.initialize()
            args = {"sku": "B-BOLT-M6", "quantity": 2, "customer": "ACME"}
            ran = await s.call_tool("create_order", args)
            assert ran.is_error is False and ran.structured_content["status"] == "created"
            refused = await s.call_tool("create_order", args)
            assert refused.is_error is True and "not_confirmed" in text(refused)

    anyio.run(session)
    assert len(asked) == 2 and asked[0].startswith("Run create_order with {")
    assert '"customer": "ACME"' in asked[0]
