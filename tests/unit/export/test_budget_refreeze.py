"""fit_schema's result reuses the unchanged frozen parts of its input, and is all frozen."""

from __future__ import annotations

import json
from typing import Any

from toolcat.catalog import FrozenDict, FrozenList
from toolcat.catalog.common import freeze
from toolcat.catalog.schema import fit_schema


def _all_frozen(value: Any) -> bool:
    if isinstance(value, dict):
        return type(value) is FrozenDict and all(_all_frozen(v) for v in value.values())
    if isinstance(value, list):
        return type(value) is FrozenList and all(_all_frozen(v) for v in value)
    return True


def test_unchanged_parts_are_the_inputs_own_and_the_text_is_a_fresh_freeze() -> None:
    big = {"type": "string", "description": "x" * 300}
    schema = freeze(
        {
            "type": "object",
            "required": ["id", "tags"],
            "properties": {
                "id": {"type": "string", "enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "extra": {"type": "object", "properties": {"a": big, "b": big}},
            },
        }
    )
    result = fit_schema(schema, 300)
    assert result.collapsed == ("/properties/extra",)
    assert _all_frozen(result.schema)
    props = result.schema["properties"]
    assert props["id"] is schema["properties"]["id"]
    assert props["tags"] is schema["properties"]["tags"]
    assert props["extra"] is not schema["properties"]["extra"]
    assert "collapsed" in props["extra"]["description"]
    fresh = freeze(json.loads(json.dumps(result.schema)))
    assert json.dumps(result.schema) == json.dumps(fresh)
