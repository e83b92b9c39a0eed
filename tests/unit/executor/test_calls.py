"""Tool calls in and results out, in each provider's shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from toolcat.executor import ToolCall, ToolError, ToolResult, format_result, parse_calls

OK = ToolResult(
    ToolCall("get_order", {"id": "1"}, "c1"),
    ok=True,
    content='{"id":"1"}',
    status=200,
    data={"id": "1"},
)
LIST = ToolResult(ToolCall("list", {}, "c2"), ok=True, content="[1,2]", status=200, data=[1, 2])
ERR = ToolResult(
    ToolCall("get_order", {}, "c3"),
    ok=False,
    content=json.dumps({"error": {"type": "http_error", "message": "HTTP 404", "status": 404}}),
    status=404,
    errors=(ToolError("http_error", "HTTP 404"),),
)


class Model:
    """An SDK object (pydantic-like): parse_calls accepts anything with model_dump()."""

    def __init__(self, data: Any) -> None:
        self.data = data

    def model_dump(self) -> Any:
        return self.data


OPENAI_MESSAGE: dict[str, Any] = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}},
        {"id": "call_2", "type": "function", "function": {"name": "b", "arguments": "{}"}},
    ],
}

PARSE_CASES = [
    ("openai", OPENAI_MESSAGE, [("a", '{"x": 1}', "call_1"), ("b", "{}", "call_2")]),
    (
        "openai",
        {"choices": [{"message": OPENAI_MESSAGE}]},
        [("a", '{"x": 1}', "call_1"), ("b", "{}", "call_2")],
    ),
    ("openai", OPENAI_MESSAGE["tool_calls"][:1], [("a", '{"x": 1}', "call_1")]),
    ("openai", Model(OPENAI_MESSAGE), [("a", '{"x": 1}', "call_1"), ("b", "{}", "call_2")]),
    ("openai", {"role": "assistant", "content": "hi"}, []),
    (
        "openai-responses",
        {
            "output": [
                {"type": "message", "content": []},
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_9",
                    "name": "a",
                    "arguments": '{"y":2}',
                },
            ]
        },
        [("a", '{"y":2}', "call_9")],
    ),
    (
        "anthropic",
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "let me look"},
                {"type": "tool_use", "id": "toolu_1", "name": "a", "input": {"x": 1}},
            ],
        },
        [("a", {"x": 1}, "toolu_1")],
    ),
    (
        "anthropic",
        [Model({"type": "tool_use", "id": "toolu_2", "name": "b", "input": {}})],
        [("b", {}, "toolu_2")],
    ),
    (
        "gemini",
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": "ok"},
                            {"functionCall": {"name": "a", "args": {"x": 1}, "id": "g1"}},
                            {"function_call": {"name": "b"}},
                        ],
                    }
                }
            ]
        },
        [("a", {"x": 1}, "g1"), ("b", {}, None)],
    ),
    (
        "mcp",
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "a", "arguments": {"x": 1}},
        },
        [("a", {"x": 1}, "7")],
    ),
    ("mcp", {"name": "b"}, [("b", {}, None)]),
]


@pytest.mark.parametrize("provider,payload,expected", PARSE_CASES)
def test_parse_calls(provider: str, payload: Any, expected: list[tuple[Any, ...]]) -> None:
    calls = parse_calls(provider, payload)
    assert [(c.name, c.arguments, c.id) for c in calls] == expected


def test_parse_rejects_unknown_provider_and_malformed_calls() -> None:
    with pytest.raises(ValueError, match="unknown provider 'cohere'"):
        parse_calls("cohere", {})
    with pytest.raises(ValueError, match="has no 'function'"):
        parse_calls("openai", [{"id": "x"}])


def test_format_openai_and_responses() -> None:
    assert format_result("openai", OK) == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": '{"id":"1"}',
    }
    assert format_result("openai-responses", ERR) == {
        "type": "function_call_output",
        "call_id": "c3",
        "output": ERR.content,
    }


def test_format_anthropic_marks_errors() -> None:
    assert format_result("anthropic", OK) == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": '{"id":"1"}',
    }
    assert format_result("anthropic", ERR)["is_error"] is True


def test_format_gemini_response_is_an_object() -> None:
    assert format_result("gemini", OK) == {
        "functionResponse": {"name": "get_order", "response": {"id": "1"}, "id": "c1"}
    }
    assert format_result("gemini", LIST)["functionResponse"]["response"] == {"result": [1, 2]}
    err = format_result("gemini", ERR)["functionResponse"]["response"]
    assert err == {"error": {"type": "http_error", "message": "HTTP 404", "status": 404}}


def test_format_mcp_call_tool_result() -> None:
    assert format_result("mcp", OK) == {
        "content": [{"type": "text", "text": '{"id":"1"}'}],
        "isError": False,
        "structuredContent": {"id": "1"},
    }
    assert "structuredContent" not in format_result("mcp", LIST)
    assert format_result("mcp", ERR)["isError"] is True


def test_result_helpers() -> None:
    assert OK.error is None and ERR.error == ToolError("http_error", "HTTP 404")
    as_dict = ERR.to_dict()
    assert as_dict["ok"] is False and as_dict["errors"] == [
        {"type": "http_error", "msg": "HTTP 404"}
    ]
    json.dumps(as_dict)
