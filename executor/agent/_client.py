"""The HTTP model clients' common part: everything but the wire format of one API.

``OpenAIChatClient`` (_openai) and ``AnthropicClient`` (_anthropic) subclass
:class:`HttpModelClient` and say only what differs: the request's first keys, the
tool-choice shape, and how a reply (or its event stream) reads.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx
from toolcat.catalog.common import thaw
from toolcat.executor.providers import get as get_provider

from ._common import (
    MAX_REPLY_BYTES,
    HttpModelTransport,
    HttpSettings,
    ModelResponseError,
    ModelTurn,
    SseEvent,
)

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor import ToolResult

    from ._protocols import TextCallback

__all__ = ["HttpModelClient", "api_root", "event_json"]


class HttpModelClient:
    """What the HTTP model clients share: the transport, the request's common keys, the
    tool list and result shapes of the client's ``provider``, timing, closing.

    A client says how its request starts (:meth:`_payload`), how it names a tool choice
    (:meth:`_tool_choice`) and how it sends the request and reads the reply
    (:meth:`_request`); :meth:`create` adds the tools, ``extra_body`` and ``stream``.
    """

    provider: str

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None,
        api_key: str | None,
        headers: Mapping[str, str] | None,
        timeout: float,
        max_retries: int,
        backoff: float,
        extra_body: Mapping[str, Any] | None,
        client: httpx.AsyncClient | None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        if max_reply_bytes < 1:
            raise ValueError("max_reply_bytes must be at least 1")
        self.model = model
        self.extra_body = dict(extra_body or {})
        settings = HttpSettings(
            base_url,
            api_key_env=api_key_env,
            api_key=api_key,
            headers=dict(headers or {}),
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_reply_bytes=max_reply_bytes,
        )
        self._http = HttpModelTransport(settings, client)

    def user_message(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}

    def tool_specs(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        specs: list[dict[str, Any]] = thaw(get_provider(self.provider).tools(tools).tools)
        return specs

    def result_messages(self, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        shapes = get_provider(self.provider)
        return [shapes.format_result(r) for r in results]

    async def create(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]],
        tool_choice: str,
        system: str | None = None,
        stream: bool = False,
        on_text: TextCallback | None = None,
    ) -> ModelTurn:
        payload = self._payload(messages, system)
        if tools:
            payload["tools"] = list(tools)
            payload["tool_choice"] = self._tool_choice(tool_choice)
        payload.update(self.extra_body)
        if stream:
            payload["stream"] = True
        started = time.perf_counter()
        turn = await self._request(payload, tools, stream, on_text)
        return replace(turn, elapsed=time.perf_counter() - started)

    def _payload(self, messages: Sequence[Mapping[str, Any]], system: str | None) -> dict[str, Any]:
        """The request's first keys: the model, the messages (with ``system``)."""
        raise NotImplementedError

    def _tool_choice(self, choice: str) -> Any:
        """``auto``, ``none``, ``required`` or a tool's name, as the API writes it."""
        raise NotImplementedError

    async def _request(
        self,
        payload: dict[str, Any],
        tools: Sequence[Mapping[str, Any]],
        stream: bool,
        on_text: TextCallback | None,
    ) -> ModelTurn:
        """Send ``payload`` and read the reply (``stream``: event by event)."""
        raise NotImplementedError

    async def aclose(self) -> None:
        await self._http.aclose()


def api_root(url: str, *suffixes: str) -> str:
    """``url`` without a trailing slash and without each of ``suffixes`` it ends with, in
    order: the API root that a client appends its endpoint's path to.

    >>> api_root("https://api.anthropic.com/v1/messages/", "/messages", "/v1")
    'https://api.anthropic.com'
    """
    url = url.strip().rstrip("/")
    for suffix in suffixes:
        if url.endswith(suffix):
            url = url[: -len(suffix)]
    return url


def event_json(event: SseEvent, url: str, what: str) -> Any:
    """The JSON of one server-sent event; a ``ModelResponseError`` when it is none."""
    try:
        return json.loads(event.data)
    except ValueError as exc:
        raise ModelResponseError(url, f"{what} is not JSON: {event.data[:200]}") from exc
