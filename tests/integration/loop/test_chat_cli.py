"""`toolcat chat` as a subprocess against a scripted model endpoint and the sample service."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn, make_service

REPO = Path(__file__).resolve().parents[3]
CATALOG = str(REPO / "examples" / "demo")
TOOLCAT = [sys.executable, "-m", "toolcat.cli", "chat", CATALOG]


@pytest.fixture(scope="module")
def warehouse() -> Iterator[str]:
    with BackgroundServer(make_service()) as server:
        yield server.url


def chat(
    args: list[str],
    turns: list[ScriptedTurn],
    warehouse: str,
    *,
    stdin: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], ScriptedModel]:
    model = ScriptedModel(turns)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"WAREHOUSE_URL": warehouse, **(extra_env or {})})
    with BackgroundServer(model.app) as endpoint:
        argv = [a.replace("{url}", endpoint.url) for a in args]
        proc = subprocess.run(
            [*TOOLCAT, *argv], capture_output=True, text=True, timeout=60, env=env, input=stdin
        )
    return proc, model


TWO_TURNS = [
    ScriptedTurn(tool_calls=[{"name": "get_item", "arguments": {"sku": "G-STEEL-10"}}]),
    ScriptedTurn(text="7 steel gadgets are left."),
]


def test_chat_answers_on_stdout_and_traces_tools_on_stderr(warehouse: str) -> None:
    proc, model = chat(
        [
            "How many steel gadgets?",
            "--base-url",
            "{url}/v1",
            "--model",
            "m1",
            "--api-key-env",
            "CHAT_KEY",
            "--header",
            "X-Team: ops",
            "--system",
            "be brief",
            "--extra-body",
            '{"temperature": 0}',
            "--max-tokens",
            "300",
        ],
        TWO_TURNS,
        warehouse,
        extra_env={"CHAT_KEY": "sk-test-123"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "7 steel gadgets are left.\n"
    assert '-> get_item {"sku": "G-STEEL-10"}' in proc.stderr
    assert "<- get_item ok (HTTP 200" in proc.stderr
    first = model.requests[0]
    assert first.headers["authorization"] == "Bearer sk-test-123"
    assert first.headers["x-team"] == "ops"
    assert first.body["model"] == "m1"
    assert first.body["temperature"] == 0 and first.body["max_tokens"] == 300
    assert first.messages[0] == {"role": "system", "content": "be brief"}
    assert {t["function"]["name"] for t in first.body["tools"]} == {
        "get_item",
        "place_order",
        "search_items",
        "order_status",
    }
    assert "sk-test-123" not in proc.stderr


def test_chat_streams_with_anthropic_and_reads_the_prompt_from_stdin(warehouse: str) -> None:
    proc, model = chat(
        [
            "--base-url",
            "{url}",
            "--model",
            "claude",
            "--provider",
            "anthropic",
            "--stream",
            "--toolset",
            "warehouse_readonly",
        ],
        TWO_TURNS,
        warehouse,
        stdin="How many steel gadgets?\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "7 steel gadgets are left."
    assert all(r.path == "/v1/messages" and r.body["stream"] for r in model.requests)
    assert model.requests[0].messages[0] == {"role": "user", "content": "How many steel gadgets?"}
    assert {t["name"] for t in model.requests[0].body["tools"]} == {
        "get_item",
        "search_items",
        "order_status",
    }


def test_chat_json_trace(warehouse: str) -> None:
    proc, _ = chat(
        ["--base-url", "{url}/v1", "--model", "m", "--format", "json", "q"], TWO_TURNS, warehouse
    )
    assert proc.returncode == 0, proc.stderr
    trace = json.loads(proc.stdout)
    assert trace["stop_reason"] == "final_answer"
    assert trace["steps"][0]["results"][0]["data"]["stock"] == 7
    assert trace["usage"]["total_tokens"] == 38


def test_chat_model_failure_is_one_line_exit_1(warehouse: str) -> None:
    proc, model = chat(
        ["q", "--base-url", "{url}/v1", "--model", "m", "--max-retries", "0"],
        [ScriptedTurn(status=500)],
        warehouse,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("toolcat: model endpoint http://127.0.0.1:")
    assert "HTTP 500" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert len(model.requests) == 1


def test_chat_unset_key_variable_is_exit_2(warehouse: str) -> None:
    proc, model = chat(
        ["q", "--base-url", "{url}/v1", "--model", "m", "--api-key-env", "TOOLCAT_TEST_UNSET_KEY"],
        [],
        warehouse,
    )
    assert proc.returncode == 2
    assert "TOOLCAT_TEST_UNSET_KEY is not set" in proc.stderr
    assert model.requests == []


def test_streamed_text_before_tool_calls_ends_its_line(warehouse: str) -> None:
    turns = [
        ScriptedTurn(
            text="Checking.", tool_calls=[{"name": "get_item", "arguments": {"sku": "G-STEEL-10"}}]
        ),
        ScriptedTurn(text="7 left."),
    ]
    proc, _ = chat(["--base-url", "{url}/v1", "--model", "m", "--stream", "q"], turns, warehouse)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Checking.\n7 left.\n"


def test_the_default_key_variable_is_used_and_a_401_without_key_says_so(warehouse: str) -> None:
    proc, model = chat(
        ["--base-url", "{url}/v1", "--model", "m", "q"],
        [ScriptedTurn(text="hi")],
        warehouse,
        extra_env={"OPENAI_API_KEY": "sk-from-env"},
    )
    assert proc.returncode == 0 and proc.stdout == "hi\n"
    assert model.requests[0].headers["authorization"] == "Bearer sk-from-env"
    proc, model = chat(
        ["--base-url", "{url}/v1", "--model", "m", "q"], [ScriptedTurn(status=401)], warehouse
    )
    assert proc.returncode == 1
    assert "authorization" not in model.requests[0].headers
    assert "no key was sent: OPENAI_API_KEY is not set; see --api-key-env" in proc.stderr
