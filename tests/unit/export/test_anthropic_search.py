"""Anthropic's own tool search: the request's tools and the tools a reply's searches found."""

from __future__ import annotations

import pytest
from toolcat.executor.providers import get
from toolcat.executor.providers.anthropic import (
    MAX_DEFERRED_TOOLS,
    deferred_tools,
    found_tools,
    tool_search_tool,
)

REPLY = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Looking."},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
         "input": {"query": "weather"}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
         "content": {"type": "tool_search_tool_search_result",
                     "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"},
                                         {"type": "tool_reference", "tool_name": "get_time"}]}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_2",
         "content": {"type": "tool_search_tool_result_error", "error_code": "unavailable"}},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
    ],
}  # fmt: skip


def test_search_tool_first_pins_loaded_the_rest_deferred() -> None:
    specs = [{"name": n, "input_schema": {"type": "object"}} for n in ("a", "b", "c")]
    tools = deferred_tools(specs, ["c"], "regex")
    assert tools == [
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
        {"name": "c", "input_schema": {"type": "object"}},
        {"name": "a", "input_schema": {"type": "object"}, "defer_loading": True},
        {"name": "b", "input_schema": {"type": "object"}, "defer_loading": True},
    ]
    assert "defer_loading" not in specs[0]  # the specs given are not changed


def test_limits_and_variants() -> None:
    with pytest.raises(ValueError, match="more than the 10000"):
        deferred_tools([{"name": f"t{i}"} for i in range(MAX_DEFERRED_TOOLS + 1)])
    with pytest.raises(ValueError, match="bm25 or regex"):
        tool_search_tool("fuzzy")  # type: ignore[arg-type]


def test_server_blocks_are_found_tools_never_calls() -> None:
    assert found_tools(REPLY) == ["get_weather", "get_time"]
    assert found_tools(REPLY["content"]) == ["get_weather", "get_time"]
    assert found_tools({"content": "text only"}) == []
    calls = get("anthropic").parse_calls(REPLY)
    assert [(c.name, c.id) for c in calls] == [("get_weather", "toolu_1")]
