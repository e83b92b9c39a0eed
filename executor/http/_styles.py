"""OpenAPI parameter serialization: values to path, query, header and cookie text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from toolcat.catalog import ParameterBinding

__all__ = ["cookie_text", "header_text", "path_quote", "path_value", "query_pairs", "to_text"]

_RESERVED_OK = ":/?[]@!$'()*+,;="  # allowReserved: RFC 3986 reserved, minus "&" and "#"
_PATH_RESERVED_OK = ":/[]@!$'()*+,;="  # allowReserved in a path: reserved, minus "?" and "#"
_COOKIE_SAFE = "!#$&'()*+-./:<=>?@[]^_`{|}~"  # cookie-octet, minus "%" (so values round-trip)


def to_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def path_quote(value: Any) -> str:
    return quote(to_text(value), safe="")


def _path_quote_reserved(value: Any) -> str:
    return quote(to_text(value), safe=_PATH_RESERVED_OK)


def path_value(b: ParameterBinding, value: Any) -> str:
    """The path text of ``value``; ``allow_reserved`` leaves ``/`` and the other reserved
    characters but ``?`` and ``#`` as they are (the caller refuses dot segments)."""
    q = _path_quote_reserved if b.allow_reserved else path_quote
    if b.content_type is not None:
        return q(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
    style = b.style or "simple"
    explode = bool(b.explode)
    if isinstance(value, list):
        items = [q(v) for v in value]
        if style == "label":
            return "." + ("." if explode else ",").join(items)
        if style == "matrix":
            name = path_quote(b.wire_name)
            if explode:
                return "".join(f";{name}={v}" for v in items) or f";{name}"
            return f";{name}=" + ",".join(items)
        return ",".join(items)
    if isinstance(value, Mapping):
        pairs = [(q(k), q(v)) for k, v in value.items()]
        if style == "label":
            if explode:
                return "".join(f".{k}={v}" for k, v in pairs)
            return "." + ",".join(f"{k},{v}" for k, v in pairs)
        if style == "matrix":
            if explode:
                return "".join(f";{k}={v}" for k, v in pairs)
            return f";{path_quote(b.wire_name)}=" + ",".join(f"{k},{v}" for k, v in pairs)
        if explode:
            return ",".join(f"{k}={v}" for k, v in pairs)
        return ",".join(f"{k},{v}" for k, v in pairs)
    text = q(value)
    if style == "label":
        return "." + text
    if style == "matrix":
        return f";{path_quote(b.wire_name)}" + (f"={text}" if text else "")
    return text


def query_pairs(b: ParameterBinding, value: Any, out: list[str]) -> None:
    safe = _RESERVED_OK if b.allow_reserved else ""

    def q(v: Any) -> str:
        return quote(to_text(v), safe=safe)

    name = quote(b.wire_name, safe="[]")
    if value is None:
        return
    if b.content_type is not None:
        out.append(f"{name}={q(json.dumps(value, separators=(',', ':'), ensure_ascii=False))}")
        return
    style = b.style or "form"
    explode = True if b.explode is None and style == "form" else bool(b.explode)
    if style == "deepObject":
        _deep(name, value, q, out)
        return
    sep = {"spaceDelimited": "%20", "pipeDelimited": "|"}.get(style, ",")
    if isinstance(value, list):
        if explode:
            out.extend(f"{name}={q(v)}" for v in value)
        else:
            out.append(f"{name}=" + sep.join(q(v) for v in value))
    elif isinstance(value, Mapping):
        if explode:
            out.extend(f"{quote(str(k), safe='')}={q(v)}" for k, v in value.items())
        else:
            out.append(f"{name}=" + sep.join(f"{q(k)}{sep}{q(v)}" for k, v in value.items()))
    else:
        out.append(f"{name}={q(value)}")


def _deep(prefix: str, value: Any, q: Any, out: list[str]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _deep(f"{prefix}[{quote(str(k), safe='')}]", v, q, out)
    elif isinstance(value, list):
        # OpenAPI leaves arrays in deepObject undefined; this is the bracket convention that
        # Stripe, Rack, PHP and qs read: name[]=a for items, name[0][k]=v for objects in arrays.
        for i, v in enumerate(value):
            if isinstance(v, Mapping | list):
                _deep(f"{prefix}[{i}]", v, q, out)
            else:
                _deep(f"{prefix}[]", v, q, out)
    elif value is not None:
        out.append(f"{prefix}={q(value)}")


def header_text(b: ParameterBinding, value: Any) -> str:
    """Header and cookie values: OpenAPI ``simple`` style, unencoded."""
    if b.content_type is not None:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, list):
        return ",".join(to_text(v) for v in value)
    if isinstance(value, Mapping):
        if b.explode:
            return ",".join(f"{k}={to_text(v)}" for k, v in value.items())
        return ",".join(f"{k},{to_text(v)}" for k, v in value.items())
    return to_text(value)


def cookie_text(b: ParameterBinding, value: Any) -> str:
    """Cookie values: ``form`` style, each item encoded so it cannot end the cookie."""

    def c(v: Any) -> str:
        return quote(to_text(v), safe=_COOKIE_SAFE)

    if b.content_type is not None:
        return c(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
    if isinstance(value, list):
        return ",".join(c(v) for v in value)
    if isinstance(value, Mapping):
        return ",".join(f"{c(k)},{c(v)}" for k, v in value.items())
    return c(value)
