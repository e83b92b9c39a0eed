"""The one nesting limit for documents and values: catalogs, specs, arguments, upstream JSON.

Python's ``json`` and every walk over a parsed value recurse once (or more) per
level, so a document nested 200,000 deep used to end in ``RecursionError``.
Loaders report a value past :data:`MAX_NESTING_DEPTH` as a located
diagnostic, the executor as ``invalid_arguments`` or ``invalid_response``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_NESTING_DEPTH", "loads_json", "too_deep"]

# The most levels of objects and arrays a catalog, spec, argument or upstream
# JSON value may nest. Real API descriptions stay under 40; Python's own
# recursion limit (1000 frames) must keep room for the walks over a value.
MAX_NESTING_DEPTH = 256


def too_deep(value: Any, limit: int = MAX_NESTING_DEPTH) -> bool:
    """Whether an object or array in ``value`` sits deeper than ``limit`` levels.

    Walked iteratively (no recursion), each container once; scalars cost nothing.

    >>> too_deep({"a": [[1]]}, 2), too_deep({"a": [1]}, 2)
    (True, False)
    """
    stack: list[tuple[int, Any]] = [(0, value)]
    seen: set[int] = set()
    while stack:
        depth, item = stack.pop()
        if depth >= limit:
            return True
        if id(item) in seen:  # a value that contains itself (YAML aliases in specs)
            continue
        seen.add(id(item))
        below = depth + 1
        children = item.values() if isinstance(item, dict) else item
        stack.extend((below, v) for v in children if isinstance(v, dict | list | tuple))
    return False


def _deep_offset(text: str, limit: int) -> int:
    """Where the text's brackets first nest past ``limit`` (strings skipped), else 0."""
    depth = 0
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return i
        elif ch in "]}":
            depth -= 1
    return 0


def loads_json(
    text: str | bytes,
    limit: int = MAX_NESTING_DEPTH,
    *,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """``json.loads``, but a value nested past ``limit`` is a located ``JSONDecodeError``.

    ``RecursionError`` never escapes: a document deeper than Python can parse is
    reported the same way, at the bracket that passes the limit.
    ``object_pairs_hook`` is ``json.loads``' own (readers use it to find duplicate keys).
    """
    try:
        value = json.loads(text, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        value = None
    else:
        if not isinstance(value, dict | list) or not too_deep(value, limit):
            return value
    shown = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    raise json.JSONDecodeError(
        f"nested deeper than {limit} levels (the nesting limit)",
        shown,
        _deep_offset(shown, limit),
    )
