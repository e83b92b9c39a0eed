"""What one JSON Schema says, read for a diff: its types, bounds, values and local ``$ref``s.

Small pure helpers of :mod:`._diff_schema`'s walk; none of them compares two schemas.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

__all__ = [
    "Bound",
    "TEXT_KEYS",
    "as_mapping",
    "as_seq",
    "bound_of",
    "canonical",
    "core_of",
    "covered",
    "divides",
    "fraction",
    "has_ref",
    "is_number",
    "is_tighter",
    "item_name",
    "lookup",
    "member",
    "open_schema",
    "pointer",
    "short_text",
    "show_bound",
    "strings_in",
    "types_of",
    "values_by_text",
]

# keywords a model reads but that accept or refuse nothing
TEXT_KEYS = frozenset(
    {"description", "title", "examples", "example", "default", "deprecated", "$comment"}
    | {"readOnly", "writeOnly", "contentMediaType", "contentEncoding"}
)


def pointer(*parts: str | int) -> str:
    """A JSON Pointer (RFC 6901) from its unescaped parts: ``pointer("a/b", 0) == "/a~1b/0"``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def short_text(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def lookup(root: Any, ref: str) -> Any:
    """The value a local ref (``#/...``) points at inside ``root``, or ``None``."""
    if not ref.startswith("#"):
        return None
    node = root
    for raw in ref[1:].split("/")[1:] if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def core_of(schema: Any, skip: str) -> Any:
    """``schema`` without the keywords that accept or refuse nothing (and ``skip``)."""
    if not isinstance(schema, Mapping):
        return schema
    return {
        k: v
        for k, v in schema.items()
        if k != skip and k not in TEXT_KEYS and not k.startswith("x-")
    }


def has_ref(node: Any) -> bool:
    if isinstance(node, Mapping):
        return "$ref" in node or any(has_ref(v) for v in node.values())
    if isinstance(node, list | tuple):
        return any(has_ref(v) for v in node)
    return False


def member(root: Any, key: str) -> Any:
    return root.get(key) if isinstance(root, Mapping) else None


def as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def as_seq(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def strings_in(value: Any) -> set[str]:
    return {v for v in as_seq(value) if isinstance(v, str)}


def open_schema(value: Any) -> Any:
    """An absent subschema accepts anything: the same as ``{}``."""
    return {} if value is None or value is True else value


def item_name(names: tuple[str, ...]) -> str:
    return f"{names[-1]}[]" if names else "[]"


def types_of(schema: Mapping[str, Any]) -> frozenset[str] | None:
    raw = schema.get("type")
    if raw is None:
        return None
    found = {raw} if isinstance(raw, str) else {t for t in as_seq(raw) if isinstance(t, str)}
    if schema.get("nullable") is True:
        found.add("null")
    return frozenset(found)


def covered(kind: str, types: frozenset[str]) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def values_by_text(values: Any) -> dict[str, Any]:
    return {canonical(v): v for v in as_seq(values)}


Bound = tuple[Fraction, bool, str]  # value, exclusive, the keyword that set it


def bound_of(schema: Mapping[str, Any], inclusive: str, exclusive: str, side: str) -> Bound | None:
    found: list[Bound] = []
    value = schema.get(inclusive)
    flag = schema.get(exclusive)
    exact = fraction(value)
    if exact is not None:
        found.append((exact, flag is True, inclusive))  # draft 4: a boolean flag
    exact = fraction(flag)
    if exact is not None:
        found.append((exact, True, exclusive))
    if not found:
        return None
    best = found[0]
    for candidate in found[1:]:
        if is_tighter(candidate, best, side):
            best = candidate
    return best


def is_tighter(a: Bound, b: Bound, side: str) -> bool:
    """Whether bound ``a`` refuses some value that ``b`` accepts (same side)."""
    if a[0] != b[0]:
        return a[0] > b[0] if side == "lower" else a[0] < b[0]
    return a[1] and not b[1]


def show_bound(bound: Bound | None, side: str) -> str:
    if bound is None:
        return "none"
    op = (">" if side == "lower" else "<") + ("" if bound[1] else "=")
    value = bound[0]
    return f"{op} {value.numerator if value.denominator == 1 else float(value)}"


def divides(new: Any, old: Any) -> bool:
    """Whether every multiple of ``old`` is a multiple of ``new`` (the change widens)."""
    old_exact, new_exact = fraction(old), fraction(new)
    if old_exact is None or new_exact is None or new_exact == 0:
        return False
    return (old_exact / new_exact).denominator == 1


def fraction(value: Any) -> Fraction | None:
    """``value`` as an exact number, or ``None`` (not a number, or infinite)."""
    if not is_number(value):
        return None
    try:
        return Fraction(str(value))
    except (ValueError, OverflowError):
        return None
