"""Tool calls and results, and their shapes in each provider's messages."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = [
    "ERROR_TYPES",
    "PROVIDERS",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "format_result",
    "parse_calls",
]

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini", "mcp")

#: Every ``ToolError.type`` the executor produces.
ERROR_TYPES = (
    "unknown_tool",
    "invalid_json",
    "invalid_arguments",
    "refused_by_policy",
    "not_confirmed",
    "missing_variable",
    "http_error",
    "timeout",
    "connection_error",
    "response_too_large",
    "internal",
)

_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call of a tool by a model: the arguments are a JSON string or an object."""

    name: str
    arguments: str | Mapping[str, Any]
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolError:
    """What went wrong with a call; ``loc`` is the path inside the arguments, if any."""

    type: str
    msg: str
    loc: tuple[str | int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "msg": self.msg}
        if self.loc:
            out["loc"] = list(self.loc)
        return out


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call: ``content`` is the text the model reads.

    ``data`` is the parsed response (after ``select``), ``errors`` is empty when ``ok``.
    """

    call: ToolCall
    ok: bool
    content: str
    status: int | None = None
    data: Any = None
    errors: tuple[ToolError, ...] = ()
    headers: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    elapsed: float = 0.0
    return_direct: bool = False

    @property
    def error(self) -> ToolError | None:
        """The first error, or ``None`` for a successful call."""
        return self.errors[0] if self.errors else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (``toolcat call --format json``)."""
        return {
            "tool": self.call.name,
            "id": self.call.id,
            "ok": self.ok,
            "status": self.status,
            "data": self.data,
            "content": self.content,
            "errors": [e.to_dict() for e in self.errors],
            "headers": dict(self.headers),
            "elapsed": round(self.elapsed, 6),
        }


# -- parsing -------------------------------------------------------------------


def parse_calls(provider: str, payload: Any) -> list[ToolCall]:
    """The tool calls in one model turn, in the provider's own shape.

    ``payload`` may be a whole response, one message/content, or a list of
    calls; SDK objects with ``model_dump()`` are accepted too.

    >>> parse_calls("anthropic", [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}])
    [ToolCall(name='f', arguments={}, id='t1')]
    """
    payload = _plain(payload)
    if provider == "openai":
        return _parse_openai(payload)
    if provider == "openai-responses":
        return _parse_responses(payload)
    if provider == "anthropic":
        return _parse_anthropic(payload)
    if provider == "gemini":
        return _parse_gemini(payload)
    if provider == "mcp":
        return _parse_mcp(payload)
    raise ValueError(f"unknown provider {provider!r}; expected one of: {', '.join(PROVIDERS)}")


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _need(obj: Any, key: str, what: str) -> Any:
    if not isinstance(obj, Mapping) or key not in obj:
        raise ValueError(f"{what} has no {key!r}")
    return obj[key]


def _parse_openai(payload: Any) -> list[ToolCall]:
    if isinstance(payload, Mapping):
        if "choices" in payload:
            choices = payload["choices"] or []
            payload = choices[0].get("message", {}) if choices else {}
        payload = payload.get("tool_calls") or []
    calls = []
    for item in payload:
        fn = _need(item, "function", "an OpenAI tool call")
        calls.append(
            ToolCall(
                _need(fn, "name", "an OpenAI function call"),
                fn.get("arguments", "{}"),
                item.get("id"),
            )
        )
    return calls


def _parse_responses(payload: Any) -> list[ToolCall]:
    if isinstance(payload, Mapping):
        payload = payload.get("output", [payload])
    return [
        ToolCall(
            _need(item, "name", "a function_call item"),
            item.get("arguments", "{}"),
            item.get("call_id") or item.get("id"),
        )
        for item in payload
        if isinstance(item, Mapping) and item.get("type") == "function_call"
    ]


def _parse_anthropic(payload: Any) -> list[ToolCall]:
    if isinstance(payload, Mapping):
        payload = payload.get("content", [payload])
    if isinstance(payload, str):
        return []
    return [
        ToolCall(
            _need(block, "name", "a tool_use block"),
            block.get("input", {}),
            block.get("id"),
        )
        for block in payload
        if isinstance(block, Mapping) and block.get("type") == "tool_use"
    ]


def _parse_gemini(payload: Any) -> list[ToolCall]:
    if isinstance(payload, Mapping):
        if "candidates" in payload:
            candidates = payload["candidates"] or []
            payload = candidates[0].get("content", {}) if candidates else {}
        payload = payload.get("parts", [payload])
    calls = []
    for part in payload:
        if not isinstance(part, Mapping):
            continue
        fc = part.get("functionCall") or part.get("function_call")
        if fc is None:
            continue
        calls.append(
            ToolCall(_need(fc, "name", "a functionCall"), fc.get("args") or {}, fc.get("id"))
        )
    return calls


def _parse_mcp(payload: Any) -> list[ToolCall]:
    items = payload if isinstance(payload, list) else [payload]
    calls = []
    for item in items:
        request_id = None
        if isinstance(item, Mapping) and "params" in item:
            request_id = item.get("id")
            item = item["params"]
        args = item.get("arguments") if isinstance(item, Mapping) else None
        calls.append(
            ToolCall(
                _need(item, "name", "an MCP tools/call"),
                {} if args is None else args,
                None if request_id is None else str(request_id),
            )
        )
    return calls


# -- formatting ----------------------------------------------------------------


def format_result(provider: str, result: ToolResult) -> dict[str, Any]:
    """The result as the provider takes it back: a message, item, block or part.

    >>> r = ToolResult(ToolCall("f", {}, "c1"), ok=True, content="42", data=42)
    >>> format_result("openai", r)
    {'role': 'tool', 'tool_call_id': 'c1', 'content': '42'}
    """
    call_id = result.call.id or ""
    if provider == "openai":
        return {"role": "tool", "tool_call_id": call_id, "content": result.content}
    if provider == "openai-responses":
        return {"type": "function_call_output", "call_id": call_id, "output": result.content}
    if provider == "anthropic":
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": result.content,
        }
        if not result.ok:
            block["is_error"] = True
        return block
    if provider == "gemini":
        response: dict[str, Any]
        if result.ok:
            data = result.data if result.data is not None else result.content
            response = data if isinstance(data, dict) else {"result": data}
        else:
            response = {"error": _error_object(result)}
        fr: dict[str, Any] = {"name": result.call.name, "response": response}
        if result.call.id:
            fr["id"] = result.call.id
        return {"functionResponse": fr}
    if provider == "mcp":
        out: dict[str, Any] = {
            "content": [{"type": "text", "text": result.content}],
            "isError": not result.ok,
        }
        if result.ok and isinstance(result.data, dict):
            out["structuredContent"] = result.data
        return out
    raise ValueError(f"unknown provider {provider!r}; expected one of: {', '.join(PROVIDERS)}")


def _error_object(result: ToolResult) -> dict[str, Any]:
    try:
        parsed = json.loads(result.content)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and "error" in parsed:
        return dict(parsed["error"]) if isinstance(parsed["error"], dict) else parsed
    first = result.error
    return {"type": first.type if first else "internal", "message": result.content}
