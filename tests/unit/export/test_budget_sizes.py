"""The budget's sizes are json.dumps' whether orjson or json.dumps writes the text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from toolcat.catalog.common import freeze
from toolcat.catalog.schema import fit_schema, schema_size
from toolcat.catalog.schema._budget import _orjson_text


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


VALUES: list[Any] = [
    {"type": "string", "description": 'quotes " and \\ and \n\t\x01 and é ☃ \u2028'},
    {"enum": ["x,null", "$999,999.99", ":1.5", "[2e3"]},
    {"default": None},
    {"maximum": 1e-07, "minimum": 1e16},
    {"a": [1.5, 2]},
    {"a": float("nan"), "b": float("inf")},
    {"big": 2**70},
    {1: "non-string key"},
    {"s": "\ud800"},
    freeze({"type": "object", "properties": {"a": {"type": "integer", "maximum": 10}}}),
]


@pytest.mark.parametrize("value", VALUES)
def test_schema_size_is_the_length_of_json_dumps(value: Any) -> None:
    assert schema_size(value) == len(_dumps(value))
    text = _orjson_text(value)
    if text is not None:  # used only where it is the same text
        assert text.decode() == _dumps(value)


@pytest.mark.parametrize(
    ("value", "used"),
    [({"description": "1.5, null"}, True), ({"m": 1.5}, False), ({"d": None}, False)],
)
def test_orjson_text_is_used_where_no_float_or_null_stands(value: Any, used: bool) -> None:
    assert (_orjson_text(value) is not None) is used


def _wide(extra: dict[str, Any]) -> dict[str, Any]:
    leaf = {"type": "string", "description": "d" * 80, **extra}
    branch = {"type": "object", "description": "a branch", "properties": {"x": leaf, "y": leaf}}
    props = {f"p{i}": branch for i in range(30)}
    return {"type": "object", "required": ["p0"], "properties": props}


@pytest.mark.parametrize("extra", [{}, {"maximum": 1.5}, {"default": None}])
@pytest.mark.parametrize("budget", [400, 1500, 6000])
def test_fitting_is_the_same_on_either_path(
    extra: dict[str, Any], budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = freeze(_wide(extra))
    fast = fit_schema(schema, budget)
    assert fast.size_before == len(_dumps(schema))
    assert fast.size_after == len(_dumps(fast.schema))
    assert fast.collapsed
    monkeypatch.setattr("toolcat.catalog.schema._budget._orjson_text", lambda value: None)
    assert fit_schema(schema, budget) == fast
