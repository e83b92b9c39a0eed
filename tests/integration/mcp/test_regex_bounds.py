"""Catastrophic schema regexes (issue 10): `toolcat serve` over HTTP stays responsive.

Python's backtracking ``re`` needs about 2**n steps for ``^(a+)+$`` against n ``a``
and a ``!`` (27 of them held serve's event loop for 15-18 s); 40 would take days.
The patterns run on a linear-time engine (jsonschema-rs's regex) now, so these calls
are answered at once and another client is served alongside them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
EVIL = "a" * 40 + "!"

CATALOG = Path(__file__).resolve().parents[2] / "data" / "catalogs" / "regex-bounds.yaml"


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def _start(catalog: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*TOOLCAT, "serve", str(catalog), "--transport", "http", "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    seen: list[str] = []
    found = None
    for _ in range(20):  # the ready line, after any warnings the server printed first
        seen.append(proc.stderr.readline())
        found = re.search(r"http://127\.0\.0\.1:\d+/mcp", seen[-1])
        if found or not seen[-1]:
            break
    assert found, seen
    return proc, found.group(0)


def test_catastrophic_patterns_are_answered_while_another_client_is_served(
    tmp_path: Path, serve_env: dict[str, str]
) -> None:
    proc, url = _start(CATALOG, serve_env)
    answers: dict[str, Any] = {}

    async def attacker() -> None:
        async with streamable_http_client(url) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            answers["find_item"] = await s.call_tool("find_item", {"sku": EVIL})
            answers["label_item"] = await s.call_tool(
                "label_item", {"sku": "W-BLUE-01", "labels": {EVIL: "x"}}
            )
            answers["batch_items"] = await s.call_tool(
                "batch_items", {"sku": "W-BLUE-01", "filters": {"names": ["b", EVIL]}}
            )

    async def bystander() -> None:
        async with streamable_http_client(url) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            answers["get_item"] = [
                await s.call_tool("get_item", {"sku": "G-STEEL-10"}) for _ in range(3)
            ]

    async def both() -> None:
        # loose: the old engine needs days for these; the linear-time one answers in milliseconds
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(attacker)
                tg.start_soon(bystander)

    try:
        anyio.run(both)
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr:
            proc.stderr.close()
    for result in answers["get_item"]:
        assert result.is_error is False, _text(result)
    found = answers["find_item"]
    assert found.is_error is True
    assert "invalid_arguments" in _text(found) and "does not match" in _text(found)
    labelled = answers["label_item"]
    assert labelled.is_error is True and "invalid_arguments" in _text(labelled)
    assert "labels" in _text(labelled)
    batch = answers["batch_items"]
    assert batch.is_error is True and "filters.names[1]" in _text(batch)
