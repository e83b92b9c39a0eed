"""A client for OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, llama.cpp, DashScope)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx
from toolcat.executor import ToolCall

from ._client import HttpModelClient, api_root, event_json
from ._common import MAX_REPLY_BYTES, ModelHTTPError, ModelResponseError, ModelTurn, Usage

if TYPE_CHECKING:
    from ._protocols import TextCallback

__all__ = ["OpenAIChatClient"]


class OpenAIChatClient(HttpModelClient):
    """Chat completions over HTTP, with tools, streaming and retries.

    ``base_url`` is the API root that ``/chat/completions`` is appended to
    (``https://api.openai.com/v1``, ``http://127.0.0.1:11434/v1`` for Ollama,
    ``https://dashscope.aliyuncs.com/compatible-mode/v1``). The key is read from
    the environment variable ``api_key_env`` when a request is sent; without a
    key no ``Authorization`` header is sent (local servers need none).

    >>> client = OpenAIChatClient("http://127.0.0.1:8000/v1", "my-model")
    >>> client.user_message("hi")
    {'role': 'user', 'content': 'hi'}
    """

    provider = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        extra_body: Mapping[str, Any] | None = None,
        stream_usage: bool = True,
        client: httpx.AsyncClient | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        self.stream_usage = stream_usage
        super().__init__(
            normalize_base_url(base_url),
            model,
            api_key_env=api_key_env,
            api_key=api_key,
            headers=headers,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            extra_body=extra_body,
            client=client,
            max_reply_bytes=max_reply_bytes,
        )
        # A bare host is used as given (as the OpenAI SDK does); if it answers 404 the
        # usual /v1 root is tried once and kept (Ollama, vLLM, llama.cpp all serve it).
        root = self._http.settings.base_url
        self._v1_fallback = root + "/v1" if httpx.URL(root).path in ("", "/") else None

    # -- one request ---------------------------------------------------------

    def _payload(self, messages: Sequence[Mapping[str, Any]], system: str | None) -> dict[str, Any]:
        return {"model": self.model, "messages": _with_system(messages, system)}

    def _tool_choice(self, choice: str) -> Any:
        if choice in ("auto", "none", "required"):
            return choice
        return {"type": "function", "function": {"name": choice}}

    async def _request(
        self,
        payload: dict[str, Any],
        tools: Sequence[Mapping[str, Any]],
        stream: bool,
        on_text: TextCallback | None,
    ) -> ModelTurn:
        if stream and self.stream_usage:
            payload["stream_options"] = {"include_usage": True}
        try:
            return await self._send(payload, stream, on_text)
        except ModelHTTPError as exc:
            if exc.status != 404 or self._v1_fallback is None:
                raise
            self._http.settings.base_url, self._v1_fallback = self._v1_fallback, None
            return await self._send(payload, stream, on_text)

    async def _send(
        self, payload: dict[str, Any], stream: bool, on_text: TextCallback | None
    ) -> ModelTurn:
        if stream:
            return await self._create_streaming(payload, on_text)
        data, attempts = await self._http.post_json("/chat/completions", payload, self._auth())
        return _parse_reply(data, self._http.url("/chat/completions"), attempts)

    async def _create_streaming(
        self, payload: dict[str, Any], on_text: TextCallback | None
    ) -> ModelTurn:
        url = self._http.url("/chat/completions")
        events, attempts = await self._http.post_stream("/chat/completions", payload, self._auth())
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        finish: str | None = None
        usage: Usage | None = None
        async for event in events:
            if event.data.strip() == "[DONE]":
                break
            chunk = event_json(event, url, "stream chunk")
            if isinstance(chunk.get("error"), dict):
                raise ModelResponseError(url, f"error in stream: {chunk['error'].get('message')}")
            if chunk.get("usage"):
                usage = _usage(chunk["usage"])
            for choice in chunk.get("choices") or ():
                delta = choice.get("delta") or {}
                piece = delta.get("content")
                if piece:
                    text.append(piece)
                    if on_text is not None:
                        on_text(piece)
                for position, part in enumerate(delta.get("tool_calls") or ()):
                    _merge_call_delta(calls, part, position)
                finish = choice.get("finish_reason") or finish
        raw_calls = [
            {
                "id": c["id"] or f"call_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for i, c in sorted(calls.items())
        ]
        message = {"role": "assistant", "content": "".join(text)}
        return _turn(message, raw_calls, finish, usage, attempts)

    def _auth(self) -> dict[str, str]:
        key = self._http.settings.key()
        return {"authorization": f"Bearer {key}"} if key else {}


def normalize_base_url(url: str) -> str:
    """The API root that ``/chat/completions`` is appended to (a full endpoint URL is cut back).

    >>> normalize_base_url("https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions")
    'https://dashscope.aliyuncs.com/compatible-mode/v1'
    """
    return api_root(url, "/chat/completions")


def _with_system(messages: Sequence[Mapping[str, Any]], system: str | None) -> list[Any]:
    out = [dict(m) for m in messages]
    if system and not (out and out[0].get("role") == "system"):
        out.insert(0, {"role": "system", "content": system})
    return out


def _merge_call_delta(
    calls: dict[int, dict[str, Any]], part: Mapping[str, Any], position: int
) -> None:
    index = part.get("index", position)
    slot = calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
    if part.get("id"):
        slot["id"] = part["id"]
    fn = part.get("function") or {}
    if fn.get("name"):
        slot["name"] += fn["name"]
    args = fn.get("arguments")
    if isinstance(args, str):
        slot["arguments"] += args
    elif args is not None:  # a server that sends the whole object at once
        slot["arguments"] += json.dumps(args)


def _parse_reply(data: Mapping[str, Any], url: str, attempts: int) -> ModelTurn:
    error = data.get("error")
    if error:  # some gateways answer 200 with an error body
        message = error.get("message") if isinstance(error, dict) else error
        raise ModelResponseError(url, f"error in reply: {message}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelResponseError(url, "reply has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ModelResponseError(url, "first choice has no message")
    raw_calls = []
    for i, call in enumerate(message.get("tool_calls") or ()):
        fn = call.get("function") or {}
        args = fn.get("arguments", "")
        raw_calls.append(
            {
                "id": call.get("id") or f"call_{i}",
                "type": "function",
                "function": {
                    "name": fn.get("name", ""),
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
        )
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep the text ones
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    assistant = {"role": "assistant", "content": content}
    usage = _usage(data["usage"]) if isinstance(data.get("usage"), dict) else None
    return _turn(assistant, raw_calls, choices[0].get("finish_reason"), usage, attempts)


def _turn(
    message: dict[str, Any],
    raw_calls: list[dict[str, Any]],
    finish: str | None,
    usage: Usage | None,
    attempts: int,
) -> ModelTurn:
    if raw_calls:
        message["tool_calls"] = raw_calls
    if message.get("content") is None:  # "" is accepted everywhere; null is not
        message["content"] = ""
    for c in raw_calls:  # no arguments at all means an empty object, not malformed JSON
        if not c["function"]["arguments"].strip():
            c["function"]["arguments"] = "{}"
    calls = tuple(
        ToolCall(c["function"]["name"], c["function"]["arguments"], c["id"]) for c in raw_calls
    )
    return ModelTurn(message, message.get("content") or "", calls, finish, usage, attempts=attempts)


def _usage(raw: Mapping[str, Any]) -> Usage:
    return Usage(raw.get("prompt_tokens"), raw.get("completion_tokens"))
