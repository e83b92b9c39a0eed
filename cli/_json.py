"""``json.dumps(value, indent=2, ensure_ascii=False)``'s text, written by orjson where it can.

orjson's ``OPT_INDENT_2`` writes the standard library's text for JSON values except
floats: it spells ``1e-05`` as ``0.00001`` and writes NaN and the infinities as
``null``. So a value whose floats all read alike both ways (schemas rarely hold any)
is written by orjson; any other value, and whatever orjson refuses (a non-string key,
an integer past 64 bits, a lone surrogate, nesting past 255 levels, a type that is not
JSON), by ``json.dumps`` itself. What ``toolcat schema`` prints is the same either way.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["dumps_indented", "write_indented"]

# dataclasses and datetimes are not JSON: orjson refuses them, and json.dumps says so
_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
_MAX_DEPTH = 255  # orjson's limit
_LEAVES = frozenset({str, int, bool, type(None)})  # what the walk need not visit


def dumps_indented(value: Any) -> str:
    """The text of ``json.dumps(value, indent=2, ensure_ascii=False)``."""
    fast = _orjson_indented(value)
    return fast.decode() if fast is not None else json.dumps(value, indent=2, ensure_ascii=False)


def write_indented(value: Any, stream: Any) -> None:
    """Write :func:`dumps_indented` and a newline to ``stream`` (a text stream).

    Where orjson writes the text and the stream encodes UTF-8, its bytes go to the
    stream's buffer as they are, after what the text layer holds.
    """
    fast = _orjson_indented(value)
    buffer = getattr(stream, "buffer", None)
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    if fast is not None and buffer is not None and encoding in ("utf-8", "utf8"):
        stream.flush()
        buffer.write(fast + b"\n")
        return
    stream.write(dumps_indented(value) + "\n")


def _orjson_indented(value: Any) -> bytes | None:
    """orjson's text of ``value`` where it is ``json.dumps``' text, else None."""
    if not _floats_read_alike(value):
        return None
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return None


def _floats_read_alike(value: Any) -> bool:
    """Whether every float in ``value`` has the same text from orjson as from ``json``
    (and ``value`` nests at most as deep as orjson goes, so a cycle ends the walk)."""
    level: list[Any] = [value]
    for _ in range(_MAX_DEPTH + 1):
        below: list[Any] = []
        for item in level:
            if type(item) is float:
                if item != item or orjson.dumps(item) != float.__repr__(item).encode():
                    return False
                continue
            if isinstance(item, dict):
                items: Any = item.values()
            elif isinstance(item, list | tuple):
                items = item
            else:
                continue  # a leaf, or not JSON (which orjson refuses)
            for v in items:
                if type(v) not in _LEAVES:
                    below.append(v)
        if not below:
            return True
        level = below
    return False
