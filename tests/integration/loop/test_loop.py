"""The feedback loop against scripted model endpoints and a real tool service, over sockets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest
from toolcat.executor import Executor, ExecutorSettings
from toolcat.executor.agent import (
    AgentLoop,
    AnthropicClient,
    LoopResult,
    LoopSettings,
    ModelHTTPError,
    OpenAIChatClient,
)
from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn

if TYPE_CHECKING:
    from toolcat.catalog import Catalog

    from .conftest import ToolService

PROVIDERS = ["openai", "anthropic"]


def run_loop(
    catalog: Any,
    service_url: str,
    turns: list[Any],
    *,
    provider: str = "openai",
    prompt: str = "question",
    run_kw: dict[str, Any] | None = None,
    client_kw: dict[str, Any] | None = None,
    **loop_kw: Any,
) -> tuple[LoopResult, ScriptedModel]:
    scripted = ScriptedModel(turns)
    with BackgroundServer(scripted.app) as endpoint:

        async def go() -> LoopResult:
            kw = {"api_key_env": None, "backoff": 0.01, **(client_kw or {})}
            client: Any = (
                AnthropicClient(endpoint.url, "m", **kw)
                if provider == "anthropic"
                else OpenAIChatClient(endpoint.url + "/v1", "m", **kw)
            )
            executor = Executor(catalog, ExecutorSettings(env={"SVC_URL": service_url}))
            try:
                loop = AgentLoop(client, executor, LoopSettings(catalog=catalog, **loop_kw))
                return await loop.arun(prompt, **(run_kw or {}))
            finally:
                await client.aclose()
                await executor.aclose()

        result = asyncio.run(go())
    return result, scripted


def tool_results_sent(provider: str, body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool results in a request, as (id, content, is_error) dicts, in order."""
    out = []
    for m in body["messages"]:
        if provider == "openai" and m.get("role") == "tool":
            out.append({"id": m["tool_call_id"], "content": m["content"], "is_error": None})
        if provider == "anthropic" and m.get("role") == "user" and isinstance(m["content"], list):
            out += [
                {
                    "id": b["tool_use_id"],
                    "content": b["content"],
                    "is_error": b.get("is_error", False),
                }
                for b in m["content"]
            ]
    return out


@pytest.mark.parametrize("provider", PROVIDERS)
def test_parallel_calls_run_concurrently_and_return_in_call_order(
    provider: str, catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    service, url = tool_service
    turns = [
        ScriptedTurn(
            tool_calls=[
                {"name": "slow_echo", "arguments": {"label": "first"}},
                {"name": "slow_echo", "arguments": {"label": "second"}},
            ]
        ),
        ScriptedTurn(text="both done"),
    ]
    result, model = run_loop(catalog, url, turns, provider=provider)
    assert result.stop_reason == "final_answer"
    assert result.final_text == "both done"
    assert service.max_inflight == 2  # the two calls were in flight together
    first, second = result.steps[0].results
    assert (first.ok, second.ok) == (True, True)
    assert json.loads(first.content)["echo"] == "first" or "first" in first.content
    assert "second" in second.content
    sent = tool_results_sent(provider, model.requests[1].body)
    assert [s["id"] for s in sent] == [c.id for c in result.steps[0].calls]
    assert "first" in sent[0]["content"] and "second" in sent[1]["content"]
    assert result.usage is not None and result.usage.input_tokens == 24


@pytest.mark.parametrize("provider", PROVIDERS)
def test_invalid_arguments_go_back_to_the_model_which_corrects_them(
    provider: str, catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    service, url = tool_service
    turns = [
        ScriptedTurn(tool_calls=[{"name": "get_item", "arguments": {"sku": 123}}]),
        ScriptedTurn(tool_calls=[{"name": "get_item", "arguments": {"sku": "A-1"}}]),
        ScriptedTurn(text="A-1 has 5 in stock"),
    ]
    result, model = run_loop(catalog, url, turns, provider=provider)
    bad, good = result.tool_results
    assert not bad.ok and bad.error is not None and bad.error.type == "invalid_arguments"
    assert "sku" in bad.content
    assert good.ok and good.status == 200
    assert service.requests == ["/items/A-1"]  # the invalid call never left the process
    sent = tool_results_sent(provider, model.requests[1].body)
    assert "sku" in sent[0]["content"]
    if provider == "anthropic":
        assert sent[0]["is_error"] is True
    assert result.final_text == "A-1 has 5 in stock"


def test_unknown_and_not_offered_tools_are_error_results(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    service, url = tool_service
    turns = [
        ScriptedTurn(
            tool_calls=[
                {"name": "get_itme", "arguments": {"sku": "A-1"}},
                {"name": "slow_echo", "arguments": {"label": "x"}},
                {"name": "get_item", "arguments": {"sku": "NONE"}},
            ]
        ),
        ScriptedTurn(text="sorry"),
    ]
    result, model = run_loop(catalog, url, turns, toolset="items")
    typo, not_offered, missing = result.tool_results
    assert typo.error is not None and typo.error.type == "unknown_tool"
    assert "get_item" in typo.content  # the closest name is suggested
    assert not_offered.error is not None and not_offered.error.type == "unknown_tool"
    assert "not offered" in not_offered.content
    assert missing.error is not None
    assert not missing.ok and missing.status == 404 and missing.error.type == "http_error"
    assert service.requests == ["/items/NONE"]
    offered = [t["function"]["name"] for t in model.requests[0].body["tools"]]
    assert offered == ["get_item"]
    assert result.stop_reason == "final_answer"


def test_per_request_tools_are_added_to_the_defaults(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    _, url = tool_service
    turns = [ScriptedTurn(text="ok")]
    result, model = run_loop(catalog, url, turns, toolset="items", run_kw={"tools": ["slow_echo"]})
    offered = [t["function"]["name"] for t in model.requests[0].body["tools"]]
    assert offered == ["get_item", "slow_echo"]
    assert result.tools_offered == ("get_item", "slow_echo")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_return_direct_result_is_the_answer(
    provider: str, catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    _, url = tool_service
    turns = [
        ScriptedTurn(tool_calls=[{"name": "lookup_answer", "arguments": {"question": "life"}}])
    ]
    result, model = run_loop(catalog, url, turns, provider=provider)
    assert result.stop_reason == "return_direct"
    assert "42" in result.final_text
    assert len(model.requests) == 1  # the model was not asked again


def test_return_direct_mixed_with_other_calls_continues(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    _, url = tool_service
    turns = [
        ScriptedTurn(
            tool_calls=[
                {"name": "lookup_answer", "arguments": {"question": "q"}},
                {"name": "get_item", "arguments": {"sku": "A-1"}},
            ]
        ),
        ScriptedTurn(text="combined"),
    ]
    result, model = run_loop(catalog, url, turns)
    assert result.stop_reason == "final_answer" and result.final_text == "combined"
    assert len(model.requests) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_iteration_limit_asks_once_more_with_tool_choice_none(
    provider: str, catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    service, url = tool_service
    call = {"name": "get_item", "arguments": {"sku": "A-1"}}
    turns = [
        ScriptedTurn(tool_calls=[call]),
        ScriptedTurn(tool_calls=[call]),
        ScriptedTurn(text="giving up with what I have"),
    ]
    result, model = run_loop(catalog, url, turns, provider=provider, max_iterations=2)
    assert result.stop_reason == "max_iterations"
    assert result.final_text == "giving up with what I have"
    choices = [r.body.get("tool_choice") for r in model.requests]
    if provider == "openai":
        assert choices == ["auto", "auto", "none"]
    else:
        assert choices == [{"type": "auto"}, {"type": "auto"}, {"type": "none"}]
    assert len(service.requests) == 2


def test_iteration_limit_when_the_model_ignores_tool_choice_none(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    service, url = tool_service
    call = {"name": "get_item", "arguments": {"sku": "A-1"}}
    turns = [ScriptedTurn(tool_calls=[call]), ScriptedTurn(text="still", tool_calls=[call])]
    result, _ = run_loop(catalog, url, turns, max_iterations=1)
    assert result.stop_reason == "max_iterations"
    assert len(service.requests) == 1  # the last calls were not run
    assert result.steps[-1].results[0].error is not None
    assert result.steps[-1].results[0].error.type == "refused_by_policy"


def test_named_tool_choice_applies_to_the_first_request_only(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    _, url = tool_service
    turns = [
        ScriptedTurn(tool_calls=[{"name": "get_item", "arguments": {"sku": "A-1"}}]),
        ScriptedTurn(text="done"),
    ]
    _, model = run_loop(catalog, url, turns, tool_choice="get_item")
    assert model.requests[0].body["tool_choice"] == {
        "type": "function",
        "function": {"name": "get_item"},
    }
    assert model.requests[1].body["tool_choice"] == "auto"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_streaming_text_and_tool_call_deltas(
    provider: str, catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    _, url = tool_service
    label = "a label long enough to be cut into many stream chunks"
    turns = [
        ScriptedTurn(
            text="Let me check.", tool_calls=[{"name": "slow_echo", "arguments": {"label": label}}]
        ),
        ScriptedTurn(text="The echo came back intact."),
    ]
    pieces: list[str] = []
    result, model = run_loop(
        catalog, url, turns, provider=provider, stream=True, on_text=pieces.append
    )
    assert all(r.body.get("stream") is True for r in model.requests)
    assert len(pieces) > 2 and "".join(pieces) == "Let me check.The echo came back intact."
    call = result.steps[0].calls[0]
    args = json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments
    assert args == {"label": label}
    assert result.tool_results[0].ok and label in result.tool_results[0].content
    assert result.final_text == "The echo came back intact."
    assert result.steps[0].reply.usage is not None


@pytest.mark.parametrize("provider", PROVIDERS)
def test_429_is_retried_after_retry_after(
    provider: str, catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    _, url = tool_service
    turns = [
        ScriptedTurn(status=429, headers={"Retry-After": "0"}),
        ScriptedTurn(status=503),
        ScriptedTurn(text="fine"),
    ]
    result, model = run_loop(catalog, url, turns, provider=provider)
    assert result.final_text == "fine"
    assert result.steps[0].reply.attempts == 3
    assert len(model.requests) == 3


def test_model_http_errors_raise_a_typed_error(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    _, url = tool_service
    turns = [ScriptedTurn(status=503), ScriptedTurn(status=503)]
    with pytest.raises(ModelHTTPError) as info:
        run_loop(catalog, url, turns, client_kw={"max_retries": 1})
    assert info.value.status == 503 and info.value.attempts == 2


def test_bad_request_is_not_retried(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    _, url = tool_service
    with pytest.raises(ModelHTTPError) as info:
        run_loop(catalog, url, [ScriptedTurn(status=400), ScriptedTurn(text="never")])
    assert info.value.status == 400 and info.value.attempts == 1


def test_trace_serializes_to_json(catalog: Catalog, tool_service: tuple[ToolService, str]) -> None:
    _, url = tool_service
    turns = [
        ScriptedTurn(tool_calls=[{"name": "get_item", "arguments": {"sku": "A-1"}}]),
        ScriptedTurn(text="done"),
    ]
    result, _ = run_loop(catalog, url, turns)
    trace = json.loads(json.dumps(result.to_dict(), default=str))
    assert trace["stop_reason"] == "final_answer"
    assert trace["steps"][0]["calls"][0]["name"] == "get_item"
    assert trace["steps"][0]["results"][0]["status"] == 200
    assert trace["usage"]["total_tokens"] == 38


def test_spans_nest_tool_calls_under_the_run(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _, url = tool_service
    scripted = ScriptedModel(
        [
            ScriptedTurn(
                tool_calls=[
                    {"name": "get_item", "arguments": {"sku": "A-1"}},
                    {"name": "get_item", "arguments": {"sku": "B-2"}},
                ]
            ),
            ScriptedTurn(text="done"),
        ]
    )
    with BackgroundServer(scripted.app) as endpoint:

        async def go() -> None:
            client = OpenAIChatClient(endpoint.url + "/v1", "model-x", api_key_env=None)
            executor = Executor(
                catalog, ExecutorSettings(env={"SVC_URL": url}, tracer_provider=provider)
            )
            try:
                await AgentLoop(
                    client, executor, LoopSettings(catalog=catalog, tracer_provider=provider)
                ).arun("q")
            finally:
                await client.aclose()
                await executor.aclose()

        asyncio.run(go())
    spans = {s.name: s for s in exporter.get_finished_spans()}
    finished = exporter.get_finished_spans()
    agent = spans["invoke_agent toolcat"]
    chats = [s for s in finished if s.name == "chat model-x"]
    assert all(s.attributes is not None for s in finished)
    tools = [
        s for s in finished if (s.attributes or {}).get("gen_ai.operation.name") == "execute_tool"
    ]
    assert len(chats) == 2 and len(tools) == 2
    assert agent.context is not None and agent.attributes is not None
    assert all(s.parent and s.parent.span_id == agent.context.span_id for s in chats + tools)
    assert chats[0].attributes is not None
    assert chats[0].attributes["gen_ai.usage.input_tokens"] == 12
    assert chats[0].attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert agent.attributes["gen_ai.provider.name"] == "openai"


def test_sequential_mode_runs_one_call_at_a_time(
    catalog: Catalog, tool_service: tuple[ToolService, str]
) -> None:
    service, url = tool_service
    turns = [
        ScriptedTurn(
            tool_calls=[
                {"name": "slow_echo", "arguments": {"label": "a"}},
                {"name": "slow_echo", "arguments": {"label": "b"}},
            ]
        ),
        ScriptedTurn(text="ok"),
    ]
    result, _ = run_loop(catalog, url, turns, concurrent=False)
    assert service.max_inflight == 1
    assert [r.ok for r in result.tool_results] == [True, True]
