"""cli/_json writes exactly what json.dumps(indent=2, ensure_ascii=False) writes, through orjson
where orjson writes the same text."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import FrozenDict, FrozenList
from toolcat.cli._json import dumps_indented


class _Text(str):
    pass


CASES: list[Any] = [
    None,
    True,
    0,
    -7,
    10**30,
    1.5,
    1e300,
    -0.0,
    math.nan,
    math.inf,
    -math.inf,
    "",
    'é \u2028 \x00 " \\ \n 😀',
    [],
    {},
    [[]],
    {"a": {}},
    {"a": [1, {"b": None}], "c": "d"},
    (1, 2),
    FrozenDict({"a": FrozenList([1, "x"])}),
    {"k": _Text("sub")},
    {1: "int key"},
    {None: 1, True: 2, 1.5: 3},
    [{"a": [[[{"b": 1}]]]}],
]


@pytest.mark.parametrize("value", CASES, ids=repr)
def test_same_text_as_json_dumps(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def _random(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(8 if depth < 5 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randint(-(10**12), 10**12)
    if kind == 2:
        return rng.uniform(-1e6, 1e6)
    if kind in (3, 4):
        return "".join(rng.choice('ab"\\\n\té😀\x01') for _ in range(rng.randrange(6)))
    if kind == 5:
        return [_random(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": _random(rng, depth + 1) for i in range(rng.randrange(4))}


def test_random_values() -> None:
    rng = random.Random(8)
    for _ in range(300):
        value = _random(rng, 0)
        assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_a_cycle_raises_as_json_does() -> None:
    value: list[Any] = []
    value.append(value)
    with pytest.raises(ValueError, match="Circular"):
        dumps_indented(value)


def test_stripe_export(corpus_dir: Path) -> None:
    from toolcat.executor.providers import get
    from toolcat.loader import load_catalog

    catalog = load_catalog([corpus_dir / "stripe-spec3.json"]).catalog
    assert catalog is not None
    tools = get("openai").tools(catalog).tools
    assert dumps_indented(tools) == json.dumps(tools, indent=2, ensure_ascii=False)


MORE: list[Any] = [
    1e-05,
    2.5e-5,
    {"multipleOf": 1e-7, "maximum": 1e16},
    [math.nan],
    {"a": [math.inf]},
    2**64,
    -(2**63) - 1,
    "\ud800 lone surrogate",
    {"deep": json.loads("[" * 300 + "]" * 300)},
]


@pytest.mark.parametrize("value", MORE, ids=repr)
def test_what_orjson_writes_differently_still_reads_as_json_dumps(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_non_json_values_are_refused_as_json_dumps_refuses_them() -> None:
    import dataclasses
    import datetime

    @dataclasses.dataclass
    class Point:
        x: int

    for value in ({"p": Point(1)}, [datetime.date(2026, 1, 1)], {"s": {1, 2}}):
        with pytest.raises(TypeError, match="not JSON serializable"):
            json.dumps(value)
        with pytest.raises(TypeError, match="not JSON serializable"):
            dumps_indented(value)


@pytest.mark.parametrize("encoding", ["utf-8", "UTF_8", "latin-1"])
def test_write_indented_writes_json_dumps_text(encoding: str) -> None:
    import io

    from toolcat.cli._json import write_indented

    value = [{"name": "t\u00e9", "n": [1, 2], "deep": {"x": None}}, {"f": 0.5}]
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding)
    stream.write("before\n")  # still in the text layer: it must come first
    write_indented(value, stream)
    stream.write("after\n")
    stream.flush()
    expected = "before\n" + json.dumps(value, indent=2, ensure_ascii=False) + "\nafter\n"
    assert raw.getvalue() == expected.encode(encoding)


def test_write_indented_to_a_stream_without_a_buffer() -> None:
    import io

    from toolcat.cli._json import write_indented

    out = io.StringIO()
    write_indented({"a": "\u2603"}, out)
    assert out.getvalue() == json.dumps({"a": "\u2603"}, indent=2, ensure_ascii=False) + "\n"


def test_orjson_writes_values_whose_floats_read_alike_and_only_those() -> None:
    from toolcat.cli._json import _orjson_indented

    assert _orjson_indented({"a": [1, "é", None, True, {"b": []}], "c": 0.5}) is not None
    for value in ({"a": 1e-05}, [math.nan], {"x": [{"y": math.inf}]}, {1: "int key"}, 2**64):
        assert _orjson_indented(value) is None
