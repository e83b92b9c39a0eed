"""Model clients against httpx.MockTransport: retries, errors, stream assembly, key handling."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from toolcat.executor.agent import (
    AnthropicClient,
    ModelConnectionError,
    ModelHTTPError,
    ModelResponseError,
    OpenAIChatClient,
)


def make(handler: Any, provider: str = "openai", **kw: Any) -> Any:
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    kw = {"backoff": 0.0, **kw}
    if provider == "anthropic":
        return AnthropicClient("http://model.test", "m", client=client, **kw)
    return OpenAIChatClient("http://model.test/v1", "m", client=client, **kw)


def create(model: Any, **kw: Any) -> Any:
    return asyncio.run(
        model.create([model.user_message("hi")], **{"tools": [], "tool_choice": "auto", **kw})
    )


@pytest.mark.parametrize(
    "headers,expected",
    [
        ({"retry-after": "2"}, 2.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "3600"}, 60.0),  # retry_after_cap: wait the cap, then try again
        ({"retry-after": "soon"}, 0.0),  # ignored: the backoff (0 here) applies
    ],
)
def test_429_waits_what_the_server_asks(
    monkeypatch: pytest.MonkeyPatch, headers: dict[str, str], expected: float
) -> None:
    """The wait comes from toolcat.executor's retry module (tests/unit/executor/test_retry.py)."""
    sleeps: list[float] = []

    class _Asyncio:  # the client's own asyncio: patching asyncio.sleep itself would also
        # record the sleeps of every other event loop alive in the process (a session's
        # uvicorn thread ticks with asyncio.sleep), which made this test fail at random
        async def sleep(self, seconds: float) -> None:
            sleeps.append(seconds)

        def __getattr__(self, name: str) -> object:
            return getattr(asyncio, name)

    monkeypatch.setattr("toolcat.executor.agent._common.asyncio", _Asyncio())
    answers = [httpx.Response(429, headers=headers), httpx.Response(200, json=_OPENAI_REPLY)]
    create(make(lambda request: answers.pop(0)))
    assert sleeps == [expected]


_OPENAI_REPLY = {
    "choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]
}


def test_key_from_env_is_sent_and_never_in_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-very-secret")
    seen: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        return httpx.Response(401, json={"error": {"message": "bad key"}})

    with pytest.raises(ModelHTTPError) as info:
        create(make(handler, api_key_env="MY_KEY"))
    assert seen == ["Bearer sk-very-secret"]
    assert info.value.status == 401 and "bad key" in str(info.value)
    assert "sk-very-secret" not in str(info.value)


def test_no_key_no_auth_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"choices": [{"message": {"content": "hi"}}]})

    turn = create(make(handler, headers={"X-Team": "ops"}))
    assert turn.text == "hi" and turn.usage is None
    assert "authorization" not in seen[0].headers and seen[0].headers["x-team"] == "ops"


def test_connection_errors_are_retried_then_typed() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise httpx.ConnectError("refused")

    with pytest.raises(ModelConnectionError) as info:
        create(make(handler, max_retries=2))
    assert len(calls) == 3 and info.value.attempts == 3


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"choices": []}'])
def test_malformed_replies_raise_response_error(body: bytes) -> None:
    with pytest.raises(ModelResponseError):
        create(make(lambda r: httpx.Response(200, content=body)))


def test_openai_stream_assembles_interleaved_tool_call_deltas() -> None:
    chunks = [
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "a", "function": {"name": "f", "arguments": ""}},
                            {"index": 1, "id": "b", "function": {"name": "g", "arguments": '{"y"'}},
                        ]
                    }
                }
            ]
        },
        {
            "choices": [
                {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"x": 1'}}]}}
            ]
        },
        {"choices": [{"delta": {"tool_calls": [{"index": 1, "function": {"arguments": ": 2}"}}]}}]},
        {
            "choices": [
                {
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]},
                    "finish_reason": "tool_calls",
                }
            ]
        },
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    body += ": keep-alive\n\ndata: [DONE]\n\n"
    model = make(
        lambda r: httpx.Response(
            200, content=body.encode(), headers={"content-type": "text/event-stream"}
        )
    )
    turn = create(model, stream=True)
    assert [(c.id, c.name, json.loads(c.arguments)) for c in turn.tool_calls] == [
        ("a", "f", {"x": 1}),
        ("b", "g", {"y": 2}),
    ]
    assert turn.finish_reason == "tool_calls"
    assert turn.message["content"] == "" and len(turn.message["tool_calls"]) == 2


def test_anthropic_stream_error_event_raises() -> None:
    body = (
        'event: message_start\ndata: {"type": "message_start", "message": {"usage": {}}}\n\n'
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
        '"message": "Overloaded"}}\n\n'
    )
    model = make(lambda r: httpx.Response(200, content=body.encode()), provider="anthropic")
    with pytest.raises(ModelResponseError, match="Overloaded"):
        create(model, stream=True)


def test_anthropic_headers_and_base_url_with_v1() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200,
            json={
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 3, "output_tokens": 1},
            },
        )

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    model = AnthropicClient("http://model.test/v1", "m", api_key="k", client=client)
    turn = create(model, system="be brief")
    assert str(seen[0].url) == "http://model.test/v1/messages"
    assert seen[0].headers["x-api-key"] == "k" and seen[0].headers["anthropic-version"]
    assert json.loads(seen[0].content)["system"] == "be brief"
    assert turn.text == "ok" and turn.usage is not None and turn.usage.total_tokens == 4


@pytest.mark.parametrize(
    "given,expected",
    [
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"),
        (
            "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
        ),
        ("https://example.test/openai", "https://example.test/openai"),
    ],
)
def test_openai_base_url_is_normalized(given: str, expected: str) -> None:
    from toolcat.executor.agent import normalize_base_url

    assert normalize_base_url(given) == expected


@pytest.mark.parametrize(
    "base", ["http://model.test", "http://model.test/v1", "http://model.test/v1/messages"]
)
def test_anthropic_base_url_forms(base: str) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json={"content": [], "stop_reason": "end_turn"})

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    create(AnthropicClient(base, "m", client=client))
    assert seen == ["http://model.test/v1/messages"]


@pytest.mark.parametrize(
    "served,base,expected",
    [
        (
            "/v1/chat/completions",
            "http://model.test",
            ["/chat/completions", "/v1/chat/completions", "/v1/chat/completions"],
        ),
        ("/chat/completions", "http://model.test", ["/chat/completions", "/chat/completions"]),
        ("/api/chat/completions", "http://model.test/api", ["/api/chat/completions"] * 2),
    ],
)
def test_bare_host_tries_v1_once_on_404(served: str, base: str, expected: list[str]) -> None:
    paths: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.path)
        if request.url.path != served:
            return httpx.Response(404, json={"error": {"message": "not found"}})
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    model = OpenAIChatClient(base, "m", client=client)
    assert create(model).text == "ok" and create(model).text == "ok"
    assert paths == expected


def test_404_without_a_bare_host_is_an_error() -> None:
    model = make(lambda r: httpx.Response(404, json={"error": {"message": "no such model"}}))
    with pytest.raises(ModelHTTPError, match="no such model"):
        create(model)


def test_empty_arguments_mean_an_empty_object() -> None:
    reply = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "ping", "arguments": ""},
                        }
                    ],
                }
            }
        ]
    }
    turn = create(make(lambda r: httpx.Response(200, json=reply)))
    assert turn.tool_calls[0].arguments == "{}"
    assert turn.message["tool_calls"][0]["function"]["arguments"] == "{}"


def test_an_error_body_with_status_200_is_a_response_error() -> None:
    body = {"error": {"message": "quota exceeded"}}
    with pytest.raises(ModelResponseError, match="quota exceeded"):
        create(make(lambda r: httpx.Response(200, json=body)))
