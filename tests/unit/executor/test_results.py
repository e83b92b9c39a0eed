"""Result shaping: JSON or text, binary summaries, select, truncation, error excerpts."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from toolcat.catalog import ResponseSpec
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.executor._results import truncate


def _result(f: Any, answer: httpx.Response, **command: Any) -> Any:
    max_chars = command.pop("max_chars", 20000)
    cat = f.catalog(f.tool(**command), max_response_chars=max_chars)
    rec = f.Recorder(lambda q: answer)
    with Executor(cat, ExecutorSettings(client=rec.client(), env={})) as ex:
        return ex.execute(ToolCall("t", {}, "id-1"))


def test_json_response(f: Any) -> None:
    result = _result(
        f, httpx.Response(200, json={"a": [1, 2]}, headers={"x-request-id": "r1", "server": "x"})
    )
    assert (
        result.ok and result.data == {"a": [1, 2]} and json.loads(result.content) == {"a": [1, 2]}
    )
    assert dict(result.headers) == {
        "content-length": "11",
        "content-type": "application/json",
        "x-request-id": "r1",
    }
    assert result.return_direct is False and result.elapsed > 0


def test_text_and_empty_responses(f: Any) -> None:
    result = _result(f, httpx.Response(200, text="plain words"))
    assert result.data == "plain words" and result.content == "plain words"
    result = _result(f, httpx.Response(204))
    assert result.ok and result.data is None and result.content == "(no content)"


def test_binary_is_summarized_never_dumped(f: Any) -> None:
    result = _result(
        f,
        httpx.Response(200, content=b"\x00\x01" * 500, headers={"content-type": "application/pdf"}),
    )
    assert result.data == {"content_type": "application/pdf", "size": 1000}
    assert result.content == "binary response: application/pdf, 1000 bytes (not shown)"


def test_undecodable_body_without_type_is_binary(f: Any) -> None:
    result = _result(f, httpx.Response(200, content=b"\xff\xfe\xfa"))
    assert result.data == {"content_type": "application/octet-stream", "size": 3}


@pytest.mark.parametrize(
    "select,expected",
    [
        ("{{ body.order }}", {"id": 7}),
        ("body.order.id", 7),
        ("{{ status }}", 200),
        ("order {{ body.order.id }} ({{ headers['content-type'] }})", "order 7 (application/json)"),
        ("{{ body.missing }}", None),
        ("{{ body['items'] | map(attribute='n') | list }}", [1, 2]),
    ],
)
def test_select(f: Any, select: str, expected: Any) -> None:
    response = httpx.Response(200, json={"order": {"id": 7}, "items": [{"n": 1}, {"n": 2}]})
    result = _result(f, response, response=ResponseSpec(select=select))
    assert result.ok and result.data == expected


def test_select_is_sandboxed(f: Any) -> None:
    response = httpx.Response(200, json={"a": 1})
    result = _result(
        f,
        response,
        response=ResponseSpec(select="{{ body.__class__.__mro__[1].__subclasses__() }}"),
    )
    assert not result.ok and result.error.type == "internal"


def test_truncation_marker(f: Any) -> None:
    assert truncate("abcdef", 10) == "abcdef"
    assert (
        truncate("abcdefghij" * 3, 10) == "abcdefghij\n[... truncated: 20 of 30 characters omitted]"
    )
    result = _result(f, httpx.Response(200, text="x" * 500), max_chars=100)
    assert result.content.startswith("x" * 100) and "truncated: 400 of 500" in result.content
    assert result.data == "x" * 500
    tool_limit = _result(
        f, httpx.Response(200, text="x" * 500), response=ResponseSpec(max_chars=50)
    )
    assert "truncated: 450 of 500" in tool_limit.content


def test_http_errors_carry_status_and_bounded_excerpt(f: Any) -> None:
    result = _result(f, httpx.Response(404, json={"detail": "no such order"}))
    assert not result.ok and result.status == 404
    assert result.error.type == "http_error" and result.error.msg == "HTTP 404 Not Found"
    assert json.loads(result.content) == {
        "error": {
            "type": "http_error",
            "message": "HTTP 404 Not Found",
            "status": 404,
            "body": {"detail": "no such order"},
        }
    }
    result = _result(f, httpx.Response(500, text="boom " * 1000))
    body = json.loads(result.content)["error"]["body"]
    assert body.startswith("boom boom") and "truncated: 4500 of 5000" in body


def test_return_direct_is_passed_on(f: Any) -> None:
    cat = f.catalog(f.tool(return_direct=True))
    with Executor(cat, ExecutorSettings(client=f.Recorder().client(), env={})) as ex:
        assert ex.execute(ToolCall("t", {})).return_direct is True
