"""Hypothesis strategies for arguments, generated from a tool's JSON Schema."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from hypothesis import strategies as st
from toolcat.executor._arguments import INTEGER_FORMATS, sealed_validator

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)

# hypothesis-jsonschema 0.23.1 fails on object schemas with current hypothesis ("'many' object
# has no attribute 'more'"), so this small strategy covers the schema keywords tools use.


def _strategy(schema: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:  # noqa: C901  a hypothesis strategy per JSON Schema keyword, one branch each
    if schema is True or schema == {} or schema is None:
        return JSON
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _strategy(root.get("$defs", {}).get(name, {}), root, depth + 1)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_strategy(s, root, depth + 1) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, root, depth) for k in kind])
    if kind == "string":
        if schema.get("format") in FORMATS:
            return FORMATS[schema["format"]]
        return st.text(min_size=schema.get("minLength", 0), max_size=schema.get("maxLength", 12))
    if kind == "integer":
        low, high = INTEGER_FORMATS.get(schema.get("format", ""), (None, None))
        low = schema.get("minimum", low)
        high = schema.get("maximum", high)
        return st.integers(low, high)
    if kind == "number":
        return st.floats(
            schema.get("minimum"), schema.get("maximum"), allow_nan=False, allow_infinity=False
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = _strategy(schema.get("items", {}), root, depth + 1)
        return st.lists(
            items, min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 3), 3)
        )
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        extra = schema.get("additionalProperties", True)
        fixed = st.fixed_dictionaries(
            {k: _strategy(v, root, depth + 1) for k, v in props.items() if k in required},
            optional={
                k: _strategy(v, root, depth + 1) for k, v in props.items() if k not in required
            },
        )
        if extra is False or props or depth > 2:
            return fixed
        values = JSON if extra is True else _strategy(extra, root, depth + 1)
        return st.dictionaries(st.text(max_size=5), values, max_size=3)
    return JSON


FORMATS: dict[str, st.SearchStrategy[str]] = {
    "uuid": st.uuids().map(str),
    "date-time": st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat()),
    "date": st.dates().map(str),
    "email": st.emails(),
    "ipv4": st.ip_addresses(v=4).map(str),
}


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    validator = sealed_validator(schema, formats=True)
    return _strategy(schema, schema).filter(validator.is_valid)
