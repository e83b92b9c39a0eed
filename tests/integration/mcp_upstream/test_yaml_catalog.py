"""The front door with no extra setup: ``toolcat.load`` a YAML catalog with an
``mcp_servers:`` entry, and the ``Executor`` runs its tools (renames, fixed arguments,
context-bound arguments filled from the caller, never from the model, the server's result
budget, the secrets of its environment masked in results)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import toolcat
from toolcat.catalog import mcp_pin
from toolcat.executor import Executor, ExecutorSettings, ToolCall, ToolContext
from toolcat.tests.support.mcp_upstream import tool_definitions

LISTED = {t["name"]: t for t in tool_definitions()}


def _catalog(tmp_path: Path) -> Path:
    text = f"""\
toolcat: 1
mcp_servers:
  up:
    command: [{json.dumps(sys.executable)}, -m, toolcat.tests.support.mcp_upstream]
    env: {{GREETING: "${{GREETING}}", API_TOKEN: "${{UP_TOKEN}}", DSN: "db://me:${{DB_PASSWORD}}@db"}}
    timeout: 60
    max_response_chars: 300
tools:
  - name: plus_forty
    description: Add forty to a number.
    mcp: {{server: up, tool: add, pin: "{mcp_pin(LISTED["add"])}", arguments: {{x: a}},
           fixed: {{b: 40}}}}
    parameters:
      x: {{type: integer}}
  - name: whoami
    description: Who is calling.
    mcp: {{server: up, tool: echo, pin: "{mcp_pin(LISTED["echo"])}"}}
    parameters:
      text: {{type: string, from: context.user_id}}
  - name: greeting
    description: The greeting the server was given.
    mcp: {{server: up, tool: env, pin: "{mcp_pin(LISTED["env"])}", fixed: {{name: GREETING}}}}
  - name: token
    description: The server's key (what an upstream may echo of its environment).
    mcp: {{server: up, tool: env, pin: "{mcp_pin(LISTED["env"])}", fixed: {{name: API_TOKEN}}}}
  - name: dsn
    description: The server's database address.
    mcp: {{server: up, tool: env, pin: "{mcp_pin(LISTED["env"])}", fixed: {{name: DSN}}}}
  - name: many_xs
    description: A long text.
    mcp: {{server: up, tool: big, pin: "{mcp_pin(LISTED["big"])}"}}
    parameters:
      n: {{type: integer}}
"""
    path = tmp_path / "catalog.yaml"
    path.write_text(text)
    return path


def test_a_loaded_catalog_runs_its_mcp_tools(tmp_path: Path) -> None:
    catalog = toolcat.load(_catalog(tmp_path))
    env = {"GREETING": "hello", "UP_TOKEN": "tok-4f9a1c", "DB_PASSWORD": "pw-77x1"}
    settings = ExecutorSettings(env=env)
    with Executor(catalog, settings) as executor:
        plus = executor.execute(ToolCall("plus_forty", {"x": 2}))
        assert plus.ok and plus.content == "42", plus.content
        me = executor.execute(
            ToolCall("whoami", {}), context=ToolContext.make(values={"user_id": "u-7"})
        )
        assert me.ok and me.content == "u-7"
        chosen = executor.execute(ToolCall("whoami", {"text": "someone else"}))
        assert chosen.error is not None and chosen.error.type == "invalid_arguments"
        greeting = executor.execute(ToolCall("greeting", {}))
        assert json.loads(greeting.content) == "hello"
        # an entry named like a key, or a variable named like one, is masked in results;
        # other values the server was given (a greeting, a path) are not
        assert json.loads(executor.execute(ToolCall("token", {})).content) == "***"
        assert json.loads(executor.execute(ToolCall("dsn", {})).content) == "db://me:***@db"
        long = executor.execute(ToolCall("many_xs", {"n": 1000}))  # the server's budget: 300
        assert long.ok and long.truncated and long.content.startswith("x" * 300)
        assert "truncated: 700 of 1000 characters omitted" in long.content
        assert executor.mcp.pool.status()["up"].refused == {}
