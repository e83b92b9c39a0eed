"""The one nesting limit for documents and values: catalogs, specs, arguments, upstream JSON.

Python's ``json`` and every walk over a parsed value recurse once (or more) per
level, so a document nested 200,000 deep used to end in ``RecursionError``.
Loaders report a value past :data:`MAX_NESTING_DEPTH` as a located
diagnostic, the executor as ``invalid_arguments`` or ``invalid_response``.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "MAX_NESTING_DEPTH",
    "RECURSION_HEADROOM",
    "loads_json",
    "recursion_headroom",
    "too_deep",
]

# The most levels of objects and arrays a catalog, spec, argument or upstream
# JSON value may nest. Real API descriptions stay under 40; Python's own
# recursion limit (1000 frames) must keep room for the walks over a value.
MAX_NESTING_DEPTH = 256

# Python frames allowed while a schema or value up to MAX_NESTING_DEPTH is walked by code
# that recurses per level (jsonschema checks a schema against the 2020-12 metaschema with
# about 8 frames per level: a 250-deep schema needs about 2,000, over Python's default 1,000).
# 256 levels at up to 39 frames each; each frame of these walks is small on the C stack.
RECURSION_HEADROOM = 10_000

_headroom_lock = threading.Lock()
_headroom_users = 0
_headroom_saved = 0


@contextlib.contextmanager
def recursion_headroom() -> Iterator[None]:
    """Python's recursion limit is at least :data:`RECURSION_HEADROOM` inside this block.

    Counted across threads: the limit is raised when the first block opens and put back
    when the last one closes (unless someone else changed it meanwhile). Inputs are held
    to :data:`MAX_NESTING_DEPTH`, so the frames used stay far below the limit.
    """
    global _headroom_users, _headroom_saved
    with _headroom_lock:
        if _headroom_users == 0:
            _headroom_saved = sys.getrecursionlimit()
            if _headroom_saved < RECURSION_HEADROOM:
                sys.setrecursionlimit(RECURSION_HEADROOM)
        _headroom_users += 1
    try:
        yield
    finally:
        with _headroom_lock:
            _headroom_users -= 1
            if _headroom_users == 0 and sys.getrecursionlimit() == max(
                _headroom_saved, RECURSION_HEADROOM
            ):
                sys.setrecursionlimit(_headroom_saved)


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


def _tree_too_deep(value: Any, limit: int) -> bool:
    """:func:`too_deep` for what ``json.loads`` returns: a tree of dicts and lists that
    shares no container, so each level is walked once, without the bookkeeping of a
    ``seen`` set, which is most of the cost on a large spec."""
    level = [value]
    depth = 0
    while level:
        if depth >= limit:
            return True
        below: list[Any] = []
        add = below.append
        for item in level:
            for v in item.values() if type(item) is dict else item:
                kind = type(v)
                if kind is dict or kind is list:
                    add(v)
        level = below
        depth += 1
    return False


def _within(value: Any, limit: int) -> bool:
    """Whether ``json.loads``' ``value`` nests at most ``limit`` levels.

    orjson (Rust, a core dependency) writes a value nested at most 254 levels and refuses
    deeper ones: where it writes this one, it is within any limit from 254 up, proven
    faster than :func:`_tree_too_deep` walks it (orjson's walk runs in Rust). Where
    orjson refuses the value (too deep for it, an integer past 64 bits, a lone surrogate),
    the walk tells.
    """
    if limit >= _ORJSON_DEPTH:
        try:
            import orjson

            orjson.dumps(value)
        except (ImportError, TypeError, ValueError):  # orjson.JSONEncodeError: a TypeError
            pass
        else:
            return True
    return not _tree_too_deep(value, limit)


# the most levels orjson writes (tests/unit/test_depth_tree.py holds it to that)
_ORJSON_DEPTH = 254


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
        if not isinstance(value, dict | list) or _within(value, limit):
            return value
    shown = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    raise json.JSONDecodeError(
        f"nested deeper than {limit} levels (the nesting limit)",
        shown,
        _deep_offset(shown, limit),
    )
