"""The feedback loop on tools of an upstream MCP server: `toolcat.load` + `Executor` +
`AgentLoop`, a scripted model endpoint and the SDK test upstream as a stdio subprocess."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import toolcat
from toolcat.executor import Executor
from toolcat.executor.agent import AgentLoop, LoopSettings, OpenAIChatClient
from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn
from toolcat.tests.support.mcp_asker import tool_definitions as asker_tools
from toolcat.tests.support.mcp_catalogs import mcp_catalog, upstream_command
from toolcat.tests.support.mcp_upstream import tool_definitions


def test_the_loop_runs_upstream_tools_and_the_model_reads_their_text(tmp_path: Path) -> None:
    wanted = {"echo", "image", "fail"}
    path = tmp_path / "catalog.yaml"
    path.write_text(
        mcp_catalog(
            {"up": {"command": upstream_command("mcp_upstream")}},
            {"up": [t for t in tool_definitions() if t["name"] in wanted]},
        )
    )
    catalog = toolcat.load(path)  # the MCP servers come from the configuration
    turns = [
        ScriptedTurn(
            tool_calls=[
                {"name": "up_echo", "arguments": {"text": "hello"}},
                {"name": "up_image", "arguments": {}},
                {"name": "up_fail", "arguments": {"message": "no such city"}},
            ]
        ),
        ScriptedTurn(text="done"),
    ]
    scripted = ScriptedModel(turns)
    with BackgroundServer(scripted.app) as endpoint:

        async def go() -> Any:
            client = OpenAIChatClient(endpoint.url + "/v1", "m", api_key_env=None, backoff=0.01)
            async with Executor(catalog) as executor:
                try:
                    loop = AgentLoop(client, executor, LoopSettings(catalog=catalog))
                    return await loop.arun("say hello")
                finally:
                    await client.aclose()

        result = asyncio.run(go())
    assert result.final_text == "done"
    echo, image, failed = result.steps[0].results
    assert (echo.ok, echo.content) == (True, "hello")
    assert image.ok and "a pixel" in image.content  # the text form, for a model
    assert not failed.ok and failed.error is not None
    assert failed.error.type == "upstream_error" and "no such city" in failed.content
    sent = [m for m in scripted.requests[1].body["messages"] if m.get("role") == "tool"]
    assert [m["content"] for m in sent][0] == "hello"
    assert all(isinstance(m["content"], str) for m in sent)


def test_chat_runs_upstream_tools_and_stops_the_upstream_when_it_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "asker.pid"
    path = tmp_path / "catalog.yaml"
    path.write_text(
        mcp_catalog(
            {
                "up": {"command": upstream_command("mcp_upstream")},
                "ask": {
                    "command": upstream_command("mcp_asker"),
                    "env": {"MCP_ASKER_PID_FILE": str(pid_file)},
                },
            },
            {
                "up": [t for t in tool_definitions() if t["name"] == "echo"],
                "ask": [t for t in asker_tools() if t["name"] == "ask"],
            },
        )
    )
    turns = [
        ScriptedTurn(
            tool_calls=[
                {"name": "up_echo", "arguments": {"text": "ping"}},
                {"name": "ask_ask", "arguments": {}},
            ]
        ),
        ScriptedTurn(text="all done"),
    ]
    model = ScriptedModel(turns)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    with BackgroundServer(model.app) as endpoint:
        argv = ["chat", str(path), "go", "--base-url", endpoint.url + "/v1", "--model", "m"]
        proc = subprocess.run(
            [sys.executable, "-m", "toolcat.cli", *argv],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    assert (proc.returncode, proc.stdout.strip()) == (0, "all done"), proc.stderr
    sent = [m["content"] for m in model.requests[1].body["messages"] if m.get("role") == "tool"]
    assert sent == ["ping", "declined"]  # no one to ask in a chat: the upstream hears no
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and _state(pid) != "Z":
        assert time.monotonic() < deadline, "the stdio upstream outlived toolcat chat"
        time.sleep(0.1)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return "gone"
