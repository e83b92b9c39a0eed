"""loads_json's depth check walks the parsed tree level by level: the same verdicts as too_deep."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from toolcat.catalog._depth import _tree_too_deep
from toolcat.catalog.common import MAX_NESTING_DEPTH, loads_json, too_deep


def _nested(depth: int) -> str:
    return "[" * (depth - 1) + '{"a": 1}' + "]" * (depth - 1)


@pytest.mark.parametrize("depth", [1, 2, MAX_NESTING_DEPTH - 1, MAX_NESTING_DEPTH])
def test_at_the_limit_loads(depth: int) -> None:
    assert loads_json(_nested(depth)) is not None


@pytest.mark.parametrize("depth", [MAX_NESTING_DEPTH + 1, MAX_NESTING_DEPTH + 40])
def test_past_the_limit_is_refused(depth: int) -> None:
    with pytest.raises(json.JSONDecodeError, match="nesting limit"):
        loads_json(_nested(depth))


def _tree(rng: random.Random, depth: int) -> Any:
    if depth > 12 or rng.random() < 0.25:
        return rng.choice([1, "x", None, [], {}])
    if rng.random() < 0.5:
        return [_tree(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {str(i): _tree(rng, depth + 1) for i in range(rng.randrange(3))}


def test_same_verdicts_as_too_deep() -> None:
    rng = random.Random(3)
    for _ in range(400):
        value = [_tree(rng, 0)]  # loads_json walks only a list or dict
        for limit in (1, 2, 3, 5, 8, 13):
            assert _tree_too_deep(value, limit) == too_deep(value, limit), (value, limit)


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_orjson_writes_no_value_deeper_than_the_depth_the_fast_check_trusts(kind: str) -> None:
    orjson = pytest.importorskip("orjson")
    from toolcat.catalog._depth import _ORJSON_DEPTH, _within

    for depth in range(_ORJSON_DEPTH - 3, MAX_NESTING_DEPTH + 4):
        value: Any = 1
        for _ in range(depth):
            value = [value] if kind == "list" else {"a": value}
        try:
            orjson.dumps(value)
        except TypeError:
            written = False
        else:
            written = True
        assert written == (depth <= _ORJSON_DEPTH), depth
        for limit in (_ORJSON_DEPTH, MAX_NESTING_DEPTH, MAX_NESTING_DEPTH + 1):
            assert _within(value, limit) == (not too_deep(value, limit)), (depth, limit)


def test_values_orjson_refuses_are_walked() -> None:
    big = [[2**70, "\ud800"]] * 3  # an integer past 64 bits, a lone surrogate
    assert loads_json(json.dumps(big)) == big
    deep = "[" * 300 + "1" + "]" * 300
    with pytest.raises(json.JSONDecodeError, match="nesting limit"):
        loads_json(deep)
    assert loads_json(deep, limit=400) is not None
