"""Undoing strict mode's nulls: an optional property that strict mode made required and
nullable comes back from the model as ``null``, which means "absent" (see
:func:`~toolcat.catalog.schema.to_strict_schema`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["strip_strict_nulls"]


def strip_strict_nulls(schema: Mapping[str, Any], arguments: Any) -> Any:  # noqa: C901  one walk of arguments beside their schema: objects, arrays, $refs, nulls
    """``arguments`` without the ``null`` values strict mode forced on optional properties.

    A property whose value is ``None``, that ``schema`` (the tool's own input
    schema, not the strict one) does not require and whose own schema does not
    accept ``null``, is dropped, at any depth of nested objects and arrays, through
    ``$ref``s, ``allOf`` members and the ``anyOf``/``oneOf`` member a value is for
    (``Optional[list[Model]]`` is ``anyOf: [array of Model, null]``).
    Every other value is kept as it is. Returns a new value; ``arguments`` is
    not changed.

    >>> schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    >>> strip_strict_nulls(schema, {"q": None})
    {}
    """
    defs: Mapping[str, Any] = {}
    for key in ("definitions", "$defs"):
        if isinstance(schema.get(key), Mapping):
            defs = {**defs, **schema[key]}

    def resolve(s: Any, hops: int = 0) -> Any:
        while isinstance(s, Mapping) and isinstance(s.get("$ref"), str) and hops < 32:
            name = s["$ref"].rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            target = schema if s["$ref"] == "#" else defs.get(name)
            if not isinstance(target, Mapping):
                return s
            s, hops = target, hops + 1
        return s

    def accepts_null(s: Any, depth: int = 0) -> bool:
        s = resolve(s)
        if depth > 64 or not isinstance(s, Mapping):
            return True
        parts = s.get("allOf")
        if isinstance(parts, list) and not all(accepts_null(p, depth + 1) for p in parts):
            return False
        types = s.get("type")
        if types is None and "enum" not in s and "const" not in s:
            members = [*(s.get("anyOf") or ()), *(s.get("oneOf") or ())]
            return not members or any(accepts_null(m, depth + 1) for m in members)
        if types == "null" or (isinstance(types, list) and "null" in types):
            return True
        if s.get("nullable") is True:
            return True
        return None in (s.get("enum") or ()) or ("const" in s and s["const"] is None)

    def branch(s: Mapping[str, Any], value: Any) -> Any:
        """The one ``anyOf``/``oneOf`` member ``value`` is meant for: of the members
        of its kind (object or array), the only one, else the only object member whose
        properties hold every key of ``value``; ``None`` when that is not clear."""
        members = [resolve(m) for m in [*(s.get("anyOf") or ()), *(s.get("oneOf") or ())]]
        if isinstance(value, dict):
            kind = [m for m in members if isinstance(m, Mapping) and _object_like(m)]
            if len(kind) > 1:
                kind = [m for m in kind if set(value) <= set(m.get("properties") or {})]
        else:
            kind = [m for m in members if isinstance(m, Mapping) and "items" in m]
        return kind[0] if len(kind) == 1 else None

    def walk(s: Any, value: Any, depth: int, also_required: frozenset[str] = frozenset()) -> Any:
        s = resolve(s)
        if depth > 64 or not isinstance(s, Mapping) or not isinstance(value, dict | list):
            return value
        required = also_required | set(s.get("required") or ())
        parts = [resolve(p) for p in s.get("allOf") or () if isinstance(s.get("allOf"), list)]
        for part in parts:  # what a sibling member requires stays, null or not
            if isinstance(part, Mapping) and isinstance(part.get("required"), list):
                required |= set(part["required"])
        for part in parts:
            value = walk(part, value, depth + 1, frozenset(required))
        chosen = branch(s, value)
        if chosen is not None:
            value = walk(chosen, value, depth + 1)
        props = s.get("properties")
        if isinstance(value, dict) and isinstance(props, Mapping):
            out = {}
            for key, item in value.items():
                sub = props.get(key)
                if item is None and sub is not None and key not in required:
                    if not accepts_null(sub):
                        continue
                out[key] = walk(sub, item, depth + 1) if sub is not None else item
            return out
        if isinstance(value, list) and isinstance(s.get("items"), Mapping):
            return [walk(s["items"], item, depth + 1) for item in value]
        return value

    return walk(schema, arguments, 0)


def _object_like(schema: Mapping[str, Any]) -> bool:
    types = schema.get("type")
    return (
        "properties" in schema
        or types == "object"
        or (isinstance(types, list) and "object" in types)
    )
