"""Tool calls and results: what the executor takes and gives back, whatever the provider."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, get_args

from toolcat._errors import ToolcatError
from toolcat.catalog import FrozenDict

__all__ = [
    "CallStopped",
    "ERROR_TYPES",
    "ErrorType",
    "MAX_ECHOED_NAME_CHARS",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "echo_name",
    "format_result",
    "parse_calls",
]

#: The most characters of a model-chosen tool name echoed back in an error, a result,
#: a log line (no catalog name is that long); the rest is cut with a marker.
MAX_ECHOED_NAME_CHARS = 128

#: Every ``ToolError.type`` the executor produces (a typo is a type error).
ErrorType = Literal[
    "unknown_tool",
    "invalid_json",
    "invalid_arguments",
    "refused_by_policy",
    "forbidden",
    "not_confirmed",
    "rate_limited",
    "unavailable",
    "in_progress",
    "missing_variable",
    "http_error",
    "timeout",
    "connection_error",
    "response_too_large",
    "invalid_response",
    "nonconforming_response",
    "upstream_error",
    "tool_changed",
    "cancelled",
    "internal",
]

#: The same, as a tuple (documentation tables, tests).
ERROR_TYPES: tuple[ErrorType, ...] = get_args(ErrorType)

_EMPTY: Mapping[str, str] = MappingProxyType({})


def echo_name(name: object) -> str:
    """``name`` as it may be echoed: cut to ``MAX_ECHOED_NAME_CHARS`` with a marker.

    >>> echo_name("x" * 130).endswith("xx…[+2 chars]")
    True
    """
    text = name if isinstance(name, str) else str(name)
    if len(text) <= MAX_ECHOED_NAME_CHARS:
        return text
    return f"{text[:MAX_ECHOED_NAME_CHARS]}…[+{len(text) - MAX_ECHOED_NAME_CHARS} chars]"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call of a tool by a model: the arguments are a JSON string or an object."""

    name: str
    arguments: str | Mapping[str, Any]
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolError:
    """What went wrong with a call; ``loc`` is the path inside the arguments, if any."""

    type: ErrorType
    msg: str
    loc: tuple[str | int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "msg": self.msg}
        if self.loc:
            out["loc"] = list(self.loc)
        return out


class CallStopped(ToolcatError):
    """The base of the executor's internal control flow: a step that stops a call with
    ``error`` (and the HTTP ``status``, if a response came), which becomes its result."""

    def __init__(self, error: ToolError, status: int | None = None) -> None:
        super().__init__(error.msg)
        self.error = error
        self.status = status


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call: ``content`` is the text the model reads.

    ``data`` is the parsed response (after ``select``), ``errors`` is empty when ``ok``.
    ``truncated``: ``content`` was cut at ``max_response_chars`` while ``data`` is whole,
    so no shape the model reads may carry ``data`` (MCP's ``structuredContent``, Gemini's
    ``functionResponse`` carry the cut ``content`` instead). ``blocks``: a tool of an
    upstream MCP server gives its content blocks as the upstream gave them (text, image,
    audio, resource_link, resource), for MCP clients; ``content`` is their text form.
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
    truncated: bool = False
    # what the runtime noticed besides the result (a response that breaks the spec)
    notes: tuple[str, ...] = ()
    blocks: tuple[FrozenDict, ...] = ()

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
            **({"notes": list(self.notes)} if self.notes else {}),
        }


# -- provider shapes (kept here as function-style wrappers over the registry) --------


def parse_calls(provider: str, payload: Any) -> list[ToolCall]:
    """The tool calls in one model turn, in the provider's own shape.

    ``payload`` may be a whole response, one message/content, or a list of
    calls; SDK objects with ``model_dump()`` are accepted too. The same as
    ``toolcat.executor.providers.get(provider).parse_calls(payload)``.

    >>> parse_calls("anthropic", [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}])
    [ToolCall(name='f', arguments={}, id='t1')]
    """
    from .providers import get  # here, not on top: the providers import this module

    return get(provider).parse_calls(payload)


def format_result(provider: str, result: ToolResult) -> dict[str, Any]:
    """The result as the provider takes it back: a message, item, block or part.

    The same as ``toolcat.executor.providers.get(provider).format_result(result)``.

    >>> r = ToolResult(ToolCall("f", {}, "c1"), ok=True, content="42", data=42)
    >>> format_result("openai", r)
    {'role': 'tool', 'tool_call_id': 'c1', 'content': '42'}
    """
    from .providers import get

    return get(provider).format_result(result)
