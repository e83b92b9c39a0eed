"""examples/app.py, the front-door example of the README, against the sample service and a model."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn, make_service

REPO = Path(__file__).resolve().parents[3]
APP = REPO / "examples" / "app.py"


def test_the_example_app_runs_the_calls_of_each_reply_and_prints_the_answer() -> None:
    model = ScriptedModel(
        [
            ScriptedTurn(
                tool_calls=[
                    {"name": "get_item", "arguments": {"sku": "G-STEEL-10"}},
                    {"name": "get_item", "arguments": {"sku": "NOPE"}},
                ]
            ),
            ScriptedTurn(text="7 steel gadgets are left."),
        ]
    )
    with BackgroundServer(make_service()) as service, BackgroundServer(model.app) as endpoint:
        env = {**os.environ, "WAREHOUSE_URL": service.url}
        proc = subprocess.run(
            [
                sys.executable,
                str(APP),
                str(REPO / "examples" / "demo"),
                f"{endpoint.url}/v1/chat/completions",
                "How many steel gadgets?",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "7 steel gadgets are left.\n"
    second = model.requests[1].body["messages"]
    results = [m for m in second if m["role"] == "tool"]
    assert [r["tool_call_id"] for r in results] == [c["id"] for c in second[1]["tool_calls"]]
    assert json.loads(results[0]["content"])["sku"] == "G-STEEL-10"
    assert '"type": "http_error"' in results[1]["content"] or "404" in results[1]["content"]
    first_tools = {t["function"]["name"] for t in model.requests[0].body["tools"]}
    assert "get_item" in first_tools


def test_the_example_app_uses_only_the_front_door_in_15_lines_of_code() -> None:
    tree = ast.parse(APP.read_text())
    toolcat_imports = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        and any(
            "toolcat" in (a.name if isinstance(n, ast.Import) else (n.module or ""))
            for a in n.names
        )
    ]
    assert [ast.unparse(n) for n in toolcat_imports] == ["import toolcat"]
    code = [
        line
        for line in APP.read_text().splitlines()
        if line.strip() and not line.strip().startswith(("#", '"""', "import "))
    ]
    assert len(code) <= 15, code


def test_the_readme_python_section_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    readme = (REPO / "README.md").read_text()
    block = re.search(r"## From Python\n.*?```python\n(.+?)\n```", readme, flags=re.S)
    assert block is not None
    reply = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_item", "arguments": '{"sku": "G-STEEL-10"}'},
            }
        ],
    }
    with BackgroundServer(make_service()) as service:
        monkeypatch.setenv("WAREHOUSE_URL", service.url)
        monkeypatch.chdir(REPO)
        scope: dict[str, Any] = {"reply": reply}
        exec(compile(block.group(1), "README.md", "exec"), scope)
    assert scope["tools"] and scope["results"][0].ok
    [message] = scope["messages"]
    assert message["tool_call_id"] == "call_1"
    assert json.loads(message["content"])["sku"] == "G-STEEL-10"
