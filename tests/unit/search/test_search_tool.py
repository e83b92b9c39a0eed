"""The search_tools tool: its arguments, its answer, and what it may return."""

from __future__ import annotations

import json
from typing import Any

import pytest
from toolcat.executor import MAX_SEARCH_RESULTS, ToolCall, run_search_tool

from .test_search import SMALL


@pytest.mark.parametrize(
    "arguments, found",
    [
        ({"query": "weather in Paris"}, ["getWeatherForecast"]),
        ('{"query": "list issues", "limit": 1}', ["issues_list"]),
        ({"query": "list issues", "limit": None}, None),  # null means the default
        ({"query": "zzzz"}, []),
        ({"query": ""}, []),
    ],
)
def test_answers(arguments: Any, found: list[str] | None) -> None:
    result, names = run_search_tool(SMALL, ToolCall("search_tools", arguments))
    assert result.ok
    doc = json.loads(result.content)
    assert [t["name"] for t in doc["tools"]] == list(names)
    if found is not None:
        assert list(names)[: len(found)] == found
    assert ("note" in doc) == (not names)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ("{not json", "not valid JSON"),
        ({"limit": 3}, "'query' must be a string"),
        ({"query": "x", "limit": 0}, f"from 1 to {MAX_SEARCH_RESULTS}"),
        ({"query": "x", "limit": True}, f"from 1 to {MAX_SEARCH_RESULTS}"),
        ({"query": "x", "limit": MAX_SEARCH_RESULTS + 1}, f"from 1 to {MAX_SEARCH_RESULTS}"),
        ({"query": "x", "extra": 1}, "unknown argument 'extra'"),
    ],
)
def test_bad_arguments_are_error_results(arguments: Any, message: str) -> None:
    result, names = run_search_tool(SMALL, ToolCall("search_tools", arguments))
    assert not result.ok and names == ()
    assert message in result.content


def test_only_the_searchable_tools_and_schemas_on_request() -> None:
    call = ToolCall("search_tools", {"query": "issues repository weather"})
    _, names = run_search_tool(SMALL, call, ["getWeatherForecast"])
    assert names == ("getWeatherForecast",)
    result, _ = run_search_tool(SMALL, call, ["getWeatherForecast"], schemas=True)
    tool = json.loads(result.content)["tools"][0]
    assert tool["input_schema"]["properties"]["city"]["type"] == "string"
