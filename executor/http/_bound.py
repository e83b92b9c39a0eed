"""A context-bound parameter's wire name carries the context's value only.

A parameter filled from the caller's context (``from: claims.tenant``) is the one
value the model may not choose. Another argument must not send a second value under
its wire name: a free-form object in the query (``?tenant=acme&tenant=globex``: many
servers read the last, or both), a second header, cookie or form field of that name,
or a JSON body key that replaces it. :func:`doubled_context_name` looks at the
request as rendered, so it holds whatever the serialization rules produce.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from toolcat.catalog import ParameterBinding, ParamLocation
from toolcat.executor._calls import ToolError
from toolcat.executor._plan import ToolPlan

from ._styles import query_pairs

__all__ = ["doubled_context_name"]


def _same(name: str, wire: str) -> bool:
    """``name`` is read as ``wire``: exactly, or as PHP and Rack read ``wire[]``/``wire[k]``."""
    return name == wire or name.startswith(wire + "[")


def _count(names: Iterable[str], wire: str) -> int:
    return sum(1 for name in names if _same(name, wire))


def _query_names(text: str) -> list[str]:
    return [k for k, _ in parse_qsl(text, keep_blank_values=True)]


def _cookie_names(headers: Iterable[tuple[str, Any]]) -> list[str]:
    names: list[str] = []
    for name, value in headers:
        if name.lower() == "cookie":
            text = value.decode() if isinstance(value, bytes) else value
            names += [part.split("=", 1)[0].strip() for part in text.split(";")]
    return names


def _own(b: ParameterBinding, value: Any) -> int:
    """How many times the bound parameter itself sends its wire name."""
    if b.location is ParamLocation.QUERY:
        pairs: list[str] = []
        query_pairs(b, value, pairs)
        return _count(_query_names("&".join(pairs)), b.wire_name)
    return 0 if value is None else 1


def _sent(b: ParameterBinding, draft: Any) -> int | None:
    """How many times the request sends ``b``'s wire name in ``b``'s place (``None``: a
    JSON body, checked by value instead)."""
    if b.location is ParamLocation.QUERY:
        return _count(_query_names(draft.url.query.decode("ascii", "replace")), b.wire_name)
    if b.location is ParamLocation.HEADER:
        wire = b.wire_name.lower()
        return sum(1 for name, _ in draft.headers if name.lower() == wire)
    if b.location is ParamLocation.COOKIE:
        return _count(_cookie_names(draft.headers), b.wire_name)
    if draft.data is not None or draft.files is not None:  # multipart
        names = [*(draft.data or {}), *(name for name, _ in draft.files or ())]
        return _count(names, b.wire_name)
    media = next((str(v) for k, v in draft.headers if k.lower() == "content-type"), "")
    media = media.split(";")[0].strip().lower()
    if media == "application/x-www-form-urlencoded" and draft.content is not None:
        return _count(_query_names(draft.content.decode("utf-8", "replace")), b.wire_name)
    if media.endswith(("/json", "+json")):
        return None
    return 0  # a text or binary body is one document: it has no names to double


def doubled_context_name(plan: ToolPlan, args: Mapping[str, Any], draft: Any) -> ToolError | None:
    """The refusal when ``draft`` (rendered from ``args``, the context's values filled)
    sends a context-bound parameter's wire name with anything but the context's value."""
    bound = plan.tool.context_arguments
    if not bound:
        return None
    for b in plan.command.parameters:
        if b.argument not in bound or b.location is ParamLocation.PATH:
            continue
        value = args.get(b.argument)
        sent = _sent(b, draft)
        if sent is None:  # JSON: one key per name, so the value must be the context's
            body = json.loads(draft.content) if draft.content else None  # json.dumps wrote it
            doubled = (
                isinstance(body, dict)
                and b.wire_name in body
                and (value is None or body[b.wire_name] != value)
            )
        else:
            doubled = sent > _own(b, value)
        if doubled:
            return ToolError(
                "refused_by_policy",
                f"the arguments would also send {b.location.value} parameter "
                f"{b.wire_name!r}, which this tool fills from the caller's context "
                f"({bound[b.argument]}); nothing was sent",
            )
    return None
