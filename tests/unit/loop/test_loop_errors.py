"""Every error text the agent loop gives the model is the executor's JSON error object."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import httpx
import pytest
from toolcat.catalog import Catalog, ToolDefinition
from toolcat.executor import Executor, ToolCall, ToolResult, format_result
from toolcat.executor.agent import AgentLoop, ModelTurn
from toolcat.tests.support import CatalogFiles

CATALOG = """\
toolcat: 1
services:
  shop: {base_url: "http://shop.test"}
tools:
  - name: get_item
    description: One item by SKU.
    service: shop
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, pattern: "^[A-Z0-9-]+$"}
  - name: delete_item
    description: Remove an item.
    service: shop
    method: DELETE
    path: /items/{sku}
    parameters:
      sku: {type: string}
toolsets:
  read: [get_item]
"""

SECRET = "https://user:hunter2@db.internal/prod"


class OneCallModel:
    """Asks for ``calls`` once, then answers; records what it was sent."""

    provider = "openai"
    model = "scripted"

    def __init__(self, *calls: ToolCall) -> None:
        self.calls = calls
        self.seen: list[Sequence[Mapping[str, Any]]] = []

    def user_message(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}

    def tool_specs(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        return [{"name": t.name} for t in tools]

    def result_messages(self, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        return [format_result("openai", r) for r in results]

    async def create(self, messages: Sequence[Mapping[str, Any]], **_: Any) -> ModelTurn:
        self.seen.append(list(messages))
        if len(self.seen) == 1:
            return ModelTurn({"role": "assistant", "content": ""}, "", self.calls)
        return ModelTurn({"role": "assistant", "content": "done"}, "done")

    async def aclose(self) -> None:
        return None


class BrokenExecutor(Executor):
    async def aexecute_many(self, calls: Iterable[ToolCall], **_: Any) -> list[ToolResult]:
        raise RuntimeError(f"cannot open {SECRET}")


@pytest.fixture
def catalog(catalog_files: CatalogFiles) -> Catalog:
    return catalog_files.catalog(CATALOG, "shop.yaml")


def _unreachable(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no request may be sent: {request.url}")


def _run(catalog: Catalog, *calls: ToolCall, executor: type[Executor] = Executor) -> list[Any]:
    """The tool messages the model read after its tool calls."""
    model = OneCallModel(*calls)
    client = httpx.AsyncClient(transport=httpx.MockTransport(_unreachable))
    loop = AgentLoop(model, executor(catalog, async_client=client, env={}), toolset="read")
    loop.run("go")
    asyncio.run(client.aclose())
    return [m for m in model.seen[1] if m.get("role") == "tool"]


def _error(message: Mapping[str, Any]) -> dict[str, Any]:
    body = json.loads(message["content"])
    assert set(body) == {"error"}
    error: dict[str, Any] = body["error"]
    assert isinstance(error["type"], str) and isinstance(error["message"], str)
    return error


@pytest.mark.parametrize(
    "call,kind,words",
    [
        (ToolCall("get_itme", {"sku": "A-1"}, "c1"), "unknown_tool", "no tool named"),
        (ToolCall("delete_item", {"sku": "A-1"}, "c1"), "unknown_tool", "not offered"),
        (ToolCall("get_item", {"sku": "a b"}, "c1"), "invalid_arguments", "sku"),
        (ToolCall("get_item", "{not json", "c1"), "invalid_json", "JSON"),
    ],
)
def test_the_model_reads_the_json_error_object(
    catalog: Catalog, call: ToolCall, kind: str, words: str
) -> None:
    (message,) = _run(catalog, call)
    error = _error(message)
    assert error["type"] == kind and words in message["content"]


def test_an_internal_failure_shows_only_the_exception_type(
    catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="toolcat.agent"):
        first, second = _run(
            catalog,
            ToolCall("get_item", {"sku": "A-1"}, "c1"),
            ToolCall("delete_item", {"sku": "A-1"}, "c2"),
            executor=BrokenExecutor,
        )
    error = _error(first)
    assert error == {"type": "internal", "message": "the executor failed: RuntimeError"}
    assert "hunter2" not in first["content"]
    assert _error(second)["type"] == "unknown_tool"  # the not-offered call is not affected
    # the detail is logged for the operator, with its traceback
    (record,) = [r for r in caplog.records if r.name == "toolcat.agent"]
    assert record.exc_info is not None and SECRET in str(record.exc_info[1])


def test_the_iteration_limit_refusal_is_json_too(catalog: Catalog) -> None:
    from toolcat.executor.agent._loop import _not_run

    result = _not_run(ToolCall("get_item", {}, "c1"))
    assert json.loads(result.content)["error"]["type"] == "refused_by_policy"
