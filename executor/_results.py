"""Shape a response (or a failure) into the result the model reads and the caller inspects."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError
from toolcat.catalog.common import MAX_NESTING_DEPTH, too_deep

from ._arguments import format_loc
from ._calls import ToolCall, ToolError, ToolResult
from ._plan import ToolPlan
from ._redact import Redactor
from ._templates import TemplateFailure

if TYPE_CHECKING:
    from .http._dispatch import Reply

__all__ = ["error_result", "shape_reply", "truncate"]

_EXCERPT = 500
# Response headers worth showing: the rest is transport noise.
_KEEP = frozenset(
    {
        "content-type",
        "content-length",
        "location",
        "retry-after",
        "etag",
        "last-modified",
        "link",
        "x-request-id",
        "x-total-count",
    }
)
_KEEP_PREFIXES = ("x-ratelimit-", "ratelimit-")


def truncate(text: str, limit: int) -> str:
    """``text`` cut at ``limit`` characters, with a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    return f"{text[:limit]}\n[... truncated: {cut} of {len(text)} characters omitted]"


def _headers(reply: Reply, redactor: Redactor) -> Mapping[str, str]:
    """The headers worth showing, each value with the call's secrets masked (an upstream
    may echo a token in ``Link`` or ``X-Request-Id``)."""
    kept = {
        k: redactor(v) if redactor else v
        for k, v in reply.headers.items()
        if k in _KEEP or k.startswith(_KEEP_PREFIXES)
    }
    return MappingProxyType(kept)


def _is_json(ctype: str) -> bool:
    return ctype.endswith("/json") or ctype.endswith("+json") or ctype == "application/x-ndjson"


def _is_text(ctype: str) -> bool:
    return (
        ctype.startswith("text/")
        or ctype.endswith("xml")
        or ctype
        in ("application/javascript", "application/x-www-form-urlencoded", "application/yaml")
    )


class _TooDeep(ToolcatError):
    """Upstream JSON nested deeper than Python can parse."""


def _decode(reply: Reply, redactor: Redactor) -> tuple[Any, str | None]:
    """(data, text): parsed JSON or text; binary bodies are summarized (text is None)."""
    full_type = reply.headers.get("content-type", "")
    ctype = full_type.split(";")[0].strip().lower()
    body = reply.body
    if not body:
        return None, ""
    textual = _is_json(ctype) or _is_text(ctype)
    if not textual and ctype:
        return {"content_type": ctype, "size": len(body)}, None
    try:
        text = body.decode(_charset(full_type) or "utf-8")
    except (UnicodeDecodeError, LookupError):
        if textual:
            text = body.decode("utf-8", errors="replace")
        else:
            return {"content_type": ctype or "application/octet-stream", "size": len(body)}, None
    if redactor:
        text = redactor(text)
    if _is_json(ctype) or (not ctype and text[:1] in "{["):
        try:
            data = json.loads(text)
        except ValueError:
            pass
        except RecursionError:
            raise _TooDeep from None
        else:
            # a C-speed count first: only a body with enough brackets can be too deep
            if text.count("[") + text.count("{") > MAX_NESTING_DEPTH and too_deep(data):
                raise _TooDeep
            return data, text
    return text, text


def _charset(ctype: str) -> str | None:
    if ";" not in ctype:
        return None
    for part in ctype.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset":
            return value.strip().strip('"') or None
    return None


def _dump(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def shape_reply(
    call: ToolCall, plan: ToolPlan, reply: Reply, redactor: Redactor, elapsed: float
) -> ToolResult:
    """The result of a response: 2xx/3xx are ``ok``; 4xx/5xx are ``http_error`` with an excerpt."""
    try:
        data, text = _decode(reply, redactor)
    except _TooDeep:
        return error_result(
            call,
            [
                ToolError(
                    "invalid_response",
                    f"the response's JSON nests deeper than {MAX_NESTING_DEPTH} levels "
                    "(the nesting limit)",
                )
            ],
            status=reply.status,
            elapsed=elapsed,
        )
    headers = _headers(reply, redactor)
    if text is None:
        summary = f"binary response: {data['content_type']}, {data['size']} bytes (not shown)"
    if reply.status >= 400:
        excerpt: Any
        if text is None:
            excerpt = summary
        elif isinstance(data, dict | list) and len(text) <= _EXCERPT:
            excerpt = data  # small JSON error bodies stay JSON, so the model reads them as such
        else:
            excerpt = truncate(text, _EXCERPT)
        reason = f" {reply.reason}" if reply.reason else ""
        msg = f"HTTP {reply.status}{reason}"
        if reply.reason and "retry" in reply.reason:
            msg = f"HTTP {reply.status}; {reply.reason}"
        return error_result(
            call,
            [ToolError("http_error", msg)],
            status=reply.status,
            data=data,
            excerpt=excerpt,
            headers=headers,
            elapsed=elapsed,
        )
    if plan.selector is not None:
        try:
            data = plan.selector(data, reply.status, headers)
        except TemplateFailure as exc:
            return error_result(
                call,
                [ToolError("internal", redactor(exc.msg))],
                status=reply.status,
                headers=headers,
                elapsed=elapsed,
            )
        content = _dump(data) if data is not None else "null"
    elif text is None:
        content = summary
    elif isinstance(data, str):
        content = data
    else:
        content = text if len(text) <= plan.max_chars else _dump(data)
    if not content and reply.status == 204:
        content = "(no content)"
    return ToolResult(
        call,
        ok=True,
        content=truncate(content, plan.max_chars),
        status=reply.status,
        data=data,
        headers=headers,
        elapsed=elapsed,
        return_direct=plan.tool.return_direct,
        truncated=len(content) > plan.max_chars,
    )


def error_result(
    call: ToolCall,
    errors: Sequence[ToolError],
    *,
    status: int | None = None,
    data: Any = None,
    excerpt: Any = None,
    headers: Mapping[str, str] | None = None,
    elapsed: float = 0.0,
    extra: Mapping[str, Any] | None = None,
) -> ToolResult:
    """An error result; its content is a short JSON object the model can act on.

    Every error text a model reads has this shape (docs/executor.md), whether
    the executor or the agent loop wrote it.

    >>> error_result(ToolCall("f", {}), [ToolError("timeout", "too slow")]).content
    '{"error": {"type": "timeout", "message": "too slow"}}'
    """
    first = errors[0]
    payload: dict[str, Any] = {"type": first.type, "message": first.msg}
    if status is not None:
        payload["status"] = status
    if len(errors) > 1 or first.loc:
        payload["details"] = [
            {"loc": format_loc(e.loc), "msg": e.msg} if e.loc else {"msg": e.msg} for e in errors
        ]
    if excerpt not in (None, ""):
        payload["body"] = excerpt
    if extra:
        payload.update(extra)
    content = json.dumps({"error": payload}, ensure_ascii=False)
    return ToolResult(
        call,
        ok=False,
        content=content,
        status=status,
        data=data,
        errors=tuple(errors),
        headers=headers if headers is not None else MappingProxyType({}),
        elapsed=elapsed,
    )
