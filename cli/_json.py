"""``json.dumps(value, indent=2, ensure_ascii=False)``, the same text many times faster.

The standard library's C encoder does not indent, so with ``indent`` every value
goes through its pure-Python generators: a third of ``toolcat schema``'s time on
Stripe's spec. orjson (Rust) writes the same text for JSON values, except for
floats: it writes ``1e-05`` as ``0.00001``, and NaN and the infinities as ``null``.
So a value is first walked for floats (containers only; floats are rare in
schemas): when every float reads the same both ways, orjson writes the text.
Otherwise, or for what orjson refuses (a non-string key, an integer past 64 bits,
a lone surrogate, nesting past 255, any non-JSON type), this module's own writer
appends to one list; any value it is not sure to write exactly as ``json.dumps``
would (a subclass of str, a non-string key, a cycle) is handed to ``json.dumps``
itself. tests/unit/cli/test_json_output.py holds all three to ``json.dumps``.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

from toolcat._errors import ToolcatError

__all__ = ["dumps_indented", "write_indented"]


class _Unsure(ToolcatError):
    """A value this writer does not write; ``json.dumps`` writes the text instead."""


def dumps_indented(value: Any, indent: int = 2) -> str:
    """The text of ``json.dumps(value, indent=indent, ensure_ascii=False)``."""
    fast = _orjson_indented(value) if indent == 2 else None
    return fast.decode() if fast is not None else _dumps(value, indent)


def write_indented(value: Any, stream: Any) -> None:
    """Write :func:`dumps_indented` and a newline to ``stream`` (a text stream).

    Where orjson writes the text and the stream encodes UTF-8, its bytes go to the
    stream's buffer as they are: a 1.4 MB export is not decoded to text and encoded back.
    """
    fast = _orjson_indented(value)
    buffer = getattr(stream, "buffer", None)
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    if fast is not None and buffer is not None and encoding in ("utf-8", "utf8"):
        stream.flush()  # what the text layer holds goes first
        buffer.write(fast + b"\n")
        return
    stream.write((fast.decode() if fast is not None else _dumps(value, 2)) + "\n")


def _orjson_indented(value: Any) -> bytes | None:
    """orjson's indented text of ``value`` where it is json.dumps' own, else None."""
    if not _floats_read_alike(value):
        return None
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        return orjson.dumps(value, default=_refuse, option=_ORJSON_OPTIONS)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return None


def _dumps(value: Any, indent: int) -> str:
    """This module's own writer, or json.dumps where it is unsure."""
    out: list[str] = []
    try:
        _write(value, out, "\n", " " * indent)
    except (_Unsure, RecursionError):
        return json.dumps(value, indent=indent, ensure_ascii=False)
    return "".join(out)


_ORJSON_OPTIONS = 1 | 2048 | 512
"""``orjson.OPT_INDENT_2 | OPT_PASSTHROUGH_DATACLASS | OPT_PASSTHROUGH_DATETIME`` (written
out, so that importing this module imports no orjson): dataclasses and datetimes go to
``default``, which refuses them, as ``json.dumps`` does."""


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_LEAVES = frozenset({str, int, bool, type(None)})


def _floats_read_alike(value: Any) -> bool:
    """Whether every float in ``value`` has the same text from orjson as from ``json``
    (and ``value`` nests at most 255 levels, orjson's limit, so a cycle ends the walk)."""
    level: list[Any] = [value]
    for _ in range(256):
        below: list[Any] = []
        push = below.append
        for item in level:
            if type(item) is float:
                if not _float_reads_alike(item):
                    return False
                continue
            if isinstance(item, dict):
                items: Any = item.values()
            elif isinstance(item, list | tuple):
                items = item
            else:
                continue  # a leaf, or not JSON (orjson's default refuses that)
            for v in items:
                if type(v) not in _LEAVES:
                    push(v)
        if not below:
            return True
        level = below
    return False


def _float_reads_alike(v: float) -> bool:
    import orjson

    return v == v and orjson.dumps(v) == float.__repr__(v).encode()


def _float(v: float) -> str:
    if v != v:
        return "NaN"
    if v == float("inf"):
        return "Infinity"
    if v == float("-inf"):
        return "-Infinity"
    return float.__repr__(v)


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    kind = type(v)
    if kind is int:
        return int.__repr__(v)
    if kind is float:
        return _float(v)
    raise _Unsure


def _write(v: Any, out: list[str], newline: str, step: str) -> None:
    """Append ``v``'s text; strings and other scalars inside containers are written in
    the loops, so only containers recurse."""
    add = out.append
    if type(v) is str:
        add(encode(v))
    elif isinstance(v, dict):
        if not v:
            add("{}")
            return
        inner = newline + step
        sep = "{" + inner
        for key, item in v.items():
            if type(key) is not str:
                raise _Unsure
            add(sep)
            add(encode(key))
            add(": ")
            if type(item) is str:
                add(encode(item))
            elif isinstance(item, dict | list | tuple):
                _write(item, out, inner, step)
            else:
                add(_scalar(item))
            sep = "," + inner
        add(newline + "}")
    elif isinstance(v, list | tuple):
        if not v:
            add("[]")
            return
        inner = newline + step
        sep = "[" + inner
        for item in v:
            add(sep)
            if type(item) is str:
                add(encode(item))
            elif isinstance(item, dict | list | tuple):
                _write(item, out, inner, step)
            else:
                add(_scalar(item))
            sep = "," + inner
        add(newline + "]")
    else:
        add(_scalar(v))


encode = encode_basestring
