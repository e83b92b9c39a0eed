"""The provider seam: every provider round-trips, and a new one is picked up everywhere."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from toolcat._errors import ToolcatError
from toolcat.catalog import Catalog, ToolDefinition
from toolcat.cli import main
from toolcat.executor import ToolCall, ToolResult, format_result, parse_calls
from toolcat.executor.providers import (
    PROVIDERS,
    ExportResult,
    Provider,
    ProviderName,
    UnknownProviderError,
    get,
    names,
    register,
    unregister,
)

# One model message per provider, calling `name` with `args` under `call_id`: the shape
# the provider's API sends. A provider registered without a row here fails the test below.
MESSAGES: dict[str, Callable[[str, dict[str, Any], str], Any]] = {
    "openai": lambda name, args, call_id: {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                    ],
                }
            }
        ]
    },
    "openai-responses": lambda name, args, call_id: {
        "output": [
            {"type": "message", "content": []},
            {
                "type": "function_call",
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(args),
            },
        ]
    },
    "anthropic": lambda name, args, call_id: {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Looking it up."},
            {"type": "tool_use", "id": call_id, "name": name, "input": args},
        ],
    },
    "gemini": lambda name, args, call_id: {
        "candidates": [
            {"content": {"parts": [{"functionCall": {"id": call_id, "name": name, "args": args}}]}}
        ]
    },
    "mcp": lambda name, args, call_id: {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": args},
    },
}


def test_the_typed_name_the_constant_and_the_registry_agree() -> None:
    assert get_args(ProviderName) == PROVIDERS == names()
    assert sorted(MESSAGES) == sorted(names())
    for name in names():
        provider = get(name)
        assert isinstance(provider, Provider)
        assert provider.name == name


@pytest.mark.parametrize("name", names())
def test_every_provider_round_trips(catalog: Catalog, name: str) -> None:
    provider = get(name)
    exported = provider.tools(catalog)
    assert isinstance(exported, ExportResult) and exported.provider == name
    text = json.dumps(exported.tools)  # plain JSON, as a request body takes it
    assert all(f'"{t.name}"' in text for t in catalog)
    assert "sk-live" not in text

    (call,) = provider.parse_calls(MESSAGES[name]("get_order", {"order_id": "A1"}, "c7"))
    args = json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments
    assert (call.name, args, call.id) == ("get_order", {"order_id": "A1"}, "c7")
    assert parse_calls(name, MESSAGES[name]("get_order", {"order_id": "A1"}, "c7")) == [call]

    ok = ToolResult(call, ok=True, content='{"id":"A1"}', status=200, data={"id": "A1"})
    message = provider.format_result(ok)
    assert message == format_result(name, ok)
    assert "A1" in json.dumps(message)
    if name != "mcp":  # a CallToolResult answers its request's id, outside the result
        assert "c7" in json.dumps(message)


def test_strict_is_accepted_only_where_the_provider_has_it(catalog: Catalog) -> None:
    for name in names():
        provider = get(name)
        if provider.supports_strict:
            assert provider.tools(catalog, strict=True).tools
        else:
            with pytest.raises(ValueError, match="strict"):
                provider.tools(catalog, strict=True)


def test_unknown_names_list_the_registered_ones() -> None:
    with pytest.raises(UnknownProviderError, match="unknown provider 'cohere'; choose one of: op"):
        get("cohere")
    with pytest.raises(ToolcatError) as caught:  # one except for every toolcat failure
        parse_calls("cohere", {})
    assert isinstance(caught.value, UnknownProviderError) and isinstance(caught.value, ValueError)
    assert caught.value.known == names()


# -- adding a provider: one object, one register() ------------------------------------


class Echo:
    """A toy API: tools are {"tool": name}, calls are [{"tool", "args", "id"}]."""

    name = "echo"
    supports_strict = False

    def tools(
        self,
        catalog: Catalog | Iterable[ToolDefinition],
        *,
        strict: bool = False,
        toolset: str | None = None,
    ) -> ExportResult:
        tools = catalog.toolset(toolset) if isinstance(catalog, Catalog) else tuple(catalog)
        return ExportResult(self.name, [{"tool": t.name} for t in tools])

    def parse_calls(self, message: Any) -> list[ToolCall]:
        return [ToolCall(m["tool"], m.get("args", {}), m.get("id")) for m in message]

    def format_result(self, result: ToolResult) -> dict[str, Any]:
        return {"echo": result.content, "to": result.call.id}


@pytest.fixture
def echo() -> Iterator[Echo]:
    provider = Echo()
    register(provider)
    try:
        yield provider
    finally:
        unregister(provider.name)


CATALOG = """\
toolcat: 1
services:
  orders: {base_url: "https://orders.example/api"}
tools:
  - name: get_order
    description: Look up one order.
    service: orders
    method: GET
    path: /orders/{order_id}
    parameters:
      order_id: {type: string}
"""


def test_a_registered_provider_is_picked_up_by_the_registry_and_the_cli(
    echo: Echo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert names()[-1] == "echo" and get("echo") is echo
    assert parse_calls("echo", [{"tool": "get_order", "id": "e1"}]) == [
        ToolCall("get_order", {}, "e1")
    ]
    result = ToolResult(ToolCall("get_order", {}, "e1"), ok=True, content="{}")
    assert format_result("echo", result) == {"echo": "{}", "to": "e1"}

    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG)
    assert main(["schema", str(path), "--provider", "echo"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"tool": "get_order"}]
    code = main(["schema", str(path), "--provider", "echo", "--strict"])
    assert code == 2 and "--strict applies to openai and openai-responses, not echo" in (
        capsys.readouterr().err
    )
    # chat needs a model client, which a shape module does not give: not among its choices
    assert main(["chat", str(path), "hi", "--base-url", "http://x", "--model", "m",
                 "--provider", "echo"]) == 2  # fmt: skip
    assert "invalid choice: 'echo'" in capsys.readouterr().err


def test_an_unregistered_provider_is_gone_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG)
    assert "echo" not in names()
    assert main(["schema", str(path), "--provider", "echo"]) == 2
    assert "invalid choice: 'echo'" in capsys.readouterr().err


def test_register_refuses_a_taken_name_and_a_non_provider(echo: Echo) -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(Echo())
    assert register(echo, replace=True) is echo
    with pytest.raises(ValueError, match="is not a Provider"):
        register(object())  # type: ignore[arg-type]


def test_the_cli_choices_cost_no_http_validation_or_loader_import() -> None:
    code = (
        "import sys, toolcat.executor.providers as p\n"
        "assert p.names()\n"
        "heavy = ['httpx', 'jsonschema', 'jinja2', 'pydantic', 'yaml', 'toolcat.loader']\n"
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
