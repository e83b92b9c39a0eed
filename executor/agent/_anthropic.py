"""A client for the Anthropic Messages API, with tools, streaming events and retries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx
from toolcat.catalog.common import thaw
from toolcat.executor import ToolCall
from toolcat.executor.providers import get as get_provider
from toolcat.executor.providers.anthropic import (
    MAX_DEFERRED_TOOLS,
    TOOL_SEARCH_BETA,
    SearchVariant,
)

from ._client import HttpModelClient, api_root, event_json
from ._common import MAX_REPLY_BYTES, ModelResponseError, ModelTurn, Usage, parse_json_object

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor import ToolResult

    from ._protocols import TextCallback

__all__ = ["AnthropicClient"]

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicClient(HttpModelClient):
    """The Messages API (``POST {base_url}/v1/messages``).

    The key is read from ``api_key_env`` (``ANTHROPIC_API_KEY``) and sent as
    ``x-api-key``; ``max_tokens`` is required by the API and defaults to 4096.

    >>> AnthropicClient("https://api.anthropic.com", "claude-sonnet-4-5").provider
    'anthropic'
    """

    provider = "anthropic"
    #: The most tools a request with the API's own tool search may carry.
    max_deferred_tools = MAX_DEFERRED_TOOLS

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = "ANTHROPIC_API_KEY",
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_tokens: int = 4096,
        extra_body: Mapping[str, Any] | None = None,
        client: httpx.AsyncClient | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        self.max_tokens = max_tokens
        super().__init__(
            api_root(base_url, "/messages", "/v1"),  # the root, .../v1 or .../v1/messages
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

    def deferred_tool_specs(
        self,
        tools: Sequence[ToolDefinition],
        pinned: Sequence[str] = (),
        variant: SearchVariant = "bm25",
    ) -> list[dict[str, Any]]:
        """The tools for the API's own tool search: the search tool, the ``pinned`` tools,
        then every other tool with ``defer_loading: true`` (``create`` then sends the
        beta header that turns it on): the ``anthropic`` export with ``defer``."""
        export = get_provider(self.provider).tools(tools, defer=variant, pinned=pinned)  # type: ignore[call-arg]
        specs: list[dict[str, Any]] = thaw(export.tools)
        return specs

    def result_messages(self, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        # All results of one turn go back in one user message, in call order.
        return [{"role": "user", "content": super().result_messages(results)}]

    def _payload(self, messages: Sequence[Mapping[str, Any]], system: str | None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": [dict(m) for m in messages],
        }
        if system:
            payload["system"] = system
        return payload

    def _tool_choice(self, choice: str) -> dict[str, str]:
        if choice in ("auto", "none"):
            return {"type": choice}
        if choice == "required":
            return {"type": "any"}
        return {"type": "tool", "name": choice}

    async def _request(
        self,
        payload: dict[str, Any],
        tools: Sequence[Mapping[str, Any]],
        stream: bool,
        on_text: TextCallback | None,
    ) -> ModelTurn:
        if stream:
            return await self._create_streaming(payload, on_text, _needs_beta(tools))
        data, attempts = await self._http.post_json(
            "/v1/messages", payload, self._headers(_needs_beta(tools))
        )
        return _parse_message(data, self._http.url("/v1/messages"), attempts)

    async def _create_streaming(
        self, payload: dict[str, Any], on_text: TextCallback | None, beta: bool = False
    ) -> ModelTurn:
        url = self._http.url("/v1/messages")
        events, attempts = await self._http.post_stream(
            "/v1/messages", payload, self._headers(beta)
        )
        blocks: dict[int, dict[str, Any]] = {}
        partial: dict[int, list[str]] = {}
        stop: str | None = None
        input_tokens: int | None = None
        output_tokens: int | None = None
        async for event in events:
            data = event_json(event, url, "event")
            kind = data.get("type") or event.event
            if kind == "message_start":
                usage = (data.get("message") or {}).get("usage") or {}
                input_tokens = usage.get("input_tokens", input_tokens)
                output_tokens = usage.get("output_tokens", output_tokens)
            elif kind == "content_block_start":
                block = dict(data.get("content_block") or {})
                blocks[data.get("index", len(blocks))] = block
                if block.get("type") == "text" and block.get("text") and on_text is not None:
                    on_text(block["text"])
            elif kind == "content_block_delta":
                index = data.get("index", 0)
                delta = data.get("delta") or {}
                block = blocks.setdefault(index, {"type": "text", "text": ""})
                if delta.get("type") == "text_delta":
                    block["text"] = block.get("text", "") + delta.get("text", "")
                    if on_text is not None and delta.get("text"):
                        on_text(delta["text"])
                elif delta.get("type") == "input_json_delta":
                    partial.setdefault(index, []).append(delta.get("partial_json", ""))
                elif delta.get("type") == "thinking_delta":
                    block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
                elif delta.get("type") == "signature_delta":
                    block["signature"] = delta.get("signature", "")
            elif kind == "message_delta":
                stop = (data.get("delta") or {}).get("stop_reason") or stop
                output_tokens = (data.get("usage") or {}).get("output_tokens", output_tokens)
            elif kind == "error":
                err = data.get("error") or {}
                raise ModelResponseError(url, f"error event: {err.get('message', data)}")
            elif kind == "message_stop":
                break
        for index, pieces in partial.items():
            blocks[index]["input"] = parse_json_object("".join(pieces))
        content = [blocks[i] for i in sorted(blocks)]
        message = {"role": "assistant", "content": content}
        usage = (
            None
            if input_tokens is None and output_tokens is None
            else Usage(input_tokens, output_tokens)
        )
        return _turn(message, stop, usage, attempts)

    def _headers(self, beta: bool = False) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        key = self._http.settings.key()
        if key:
            headers["x-api-key"] = key
        if beta:  # joined to an anthropic-beta header given with --header, under its name
            configured = self._http.settings.headers
            name = next((n for n in configured if n.lower() == "anthropic-beta"), "anthropic-beta")
            have = [v.strip() for v in configured.get(name, "").split(",") if v.strip()]
            headers[name] = ",".join(
                have if TOOL_SEARCH_BETA in have else [*have, TOOL_SEARCH_BETA]
            )
        return headers


def _needs_beta(tools: Sequence[Mapping[str, Any]]) -> bool:
    """Tool search is in beta: a request with deferred tools or a search tool needs the header."""
    return any(
        t.get("defer_loading") or str(t.get("type", "")).startswith("tool_search_tool_")
        for t in tools
    )


def _parse_message(data: Mapping[str, Any], url: str, attempts: int) -> ModelTurn:
    content = data.get("content")
    if not isinstance(content, list):
        if data.get("type") == "error":
            raise ModelResponseError(url, str((data.get("error") or {}).get("message", data)))
        raise ModelResponseError(url, "reply has no content list")
    raw_usage = data.get("usage") if isinstance(data.get("usage"), dict) else None
    usage = None
    if raw_usage:
        usage = Usage(raw_usage.get("input_tokens"), raw_usage.get("output_tokens"))
    message = {"role": "assistant", "content": [dict(b) for b in content if isinstance(b, dict)]}
    return _turn(message, data.get("stop_reason"), usage, attempts)


def _turn(
    message: dict[str, Any], stop: str | None, usage: Usage | None, attempts: int
) -> ModelTurn:
    text = "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")
    calls = []
    for block in message["content"]:
        if block.get("type") != "tool_use":
            continue
        arguments = block.get("input")
        calls.append(
            ToolCall(block.get("name", ""), {} if arguments is None else arguments, block.get("id"))
        )
        if not isinstance(arguments, dict):  # broken streamed JSON: the API wants an object back
            block["input"] = {}
    return ModelTurn(message, text, tuple(calls), stop, usage, attempts=attempts)
