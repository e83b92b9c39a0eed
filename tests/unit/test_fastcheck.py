"""The one fast schema path answers exactly as jsonschema does, or declines."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolcat.catalog import INTEGER_FORMATS, compile_check, freeze, integer_format_check

FORMATS = jsonschema.FormatChecker()  # the executor's kind: jsonschema's formats plus int32/int64
for _fmt in INTEGER_FORMATS:
    FORMATS.checks(_fmt)(integer_format_check(_fmt))
ASSERTED = frozenset(FORMATS.checkers)

OBJ = {"type": "object"}
INT = {"type": "integer"}

# (schema, value, valid): every keyword the fast path knows, both ways
TABLE: list[tuple[Any, Any, bool]] = [
    ({}, {"any": [1]}, True),
    ({"type": "string"}, "x", True),
    ({"type": "string"}, 1, False),
    (INT, 3, True),
    (INT, 3.0, True),  # 2020-12: a float with no fraction is an integer
    (INT, 3.5, False),
    (INT, True, False),
    ({"type": "number"}, True, False),
    ({"type": "boolean"}, 0, False),
    ({"type": "null"}, None, True),
    ({"type": ["string", "null"]}, None, True),
    ({"type": ["string", "null"]}, 0, False),
    ({"enum": ["a", "b"]}, "b", True),
    ({"enum": ["a", "b"]}, "c", False),
    ({"enum": [1, [True]]}, 1.0, True),
    ({"enum": [1, [True]]}, True, False),
    ({"enum": [1, [True]]}, [1], False),
    ({"const": {"a": [1]}}, {"a": [1.0]}, True),
    ({"const": False}, 0, False),
    ({"minimum": 1, "maximum": 3}, 3, True),
    ({"minimum": 1, "maximum": 3}, 0, False),
    ({"minimum": 1}, "not a number", True),
    ({"exclusiveMinimum": 1}, 1, False),
    ({"exclusiveMaximum": 1.5}, 1.4, True),
    ({"minLength": 2, "maxLength": 3}, "ab", True),
    ({"minLength": 2}, "é", False),
    ({"maxLength": 1}, "😀", True),  # code points, not bytes
    ({"pattern": "^a[0-9]+$"}, "a12", True),
    ({"pattern": "b"}, "abc", True),  # search, not match
    ({"pattern": "^b"}, "abc", False),
    ({"items": INT, "minItems": 1, "maxItems": 2}, [1, 2], True),
    ({"items": INT}, [1, "2"], False),
    ({"minItems": 1}, [], False),
    ({"uniqueItems": True}, [1, "1", True], True),
    ({"uniqueItems": True}, [1, 1.0], False),
    ({"uniqueItems": True}, [{"a": 1}, {"a": True}], True),
    ({"uniqueItems": True}, [[1], [1]], False),
    ({"uniqueItems": False}, [1, 1], True),
    ({**OBJ, "required": ["a"]}, {"a": None}, True),
    ({**OBJ, "required": ["a"]}, {}, False),
    ({**OBJ, "properties": {"a": INT}}, {"a": "1"}, False),
    ({**OBJ, "properties": {"a": INT}, "additionalProperties": False}, {"b": 1}, False),
    ({**OBJ, "properties": {"a": INT}, "additionalProperties": INT}, {"a": 1, "b": 2}, True),
    ({**OBJ, "additionalProperties": INT}, {"b": "2"}, False),
    ({"minProperties": 1, "maxProperties": 1}, {"a": 1}, True),
    ({"maxProperties": 1}, {"a": 1, "b": 2}, False),
    ({"allOf": [INT, {"minimum": 2}]}, 1, False),
    ({"anyOf": [INT, {"type": "string"}]}, "x", True),
    ({"anyOf": [INT, {"type": "string"}]}, None, False),
    ({"oneOf": [INT, {"type": "number"}]}, 1, False),  # both match
    ({"oneOf": [INT, {"type": "number"}]}, 1.5, True),
    ({"$defs": {"A": INT}, "properties": {"a": {"$ref": "#/$defs/A"}}}, {"a": 1}, True),
    ({"$defs": {"A": INT}, "properties": {"a": {"$ref": "#/$defs/A"}}}, {"a": "1"}, False),
    (
        {"$defs": {"T": {"type": "array", "items": {"$ref": "#/$defs/T"}}}, "$ref": "#/$defs/T"},
        [[[]], []],
        True,
    ),
    (
        {"$defs": {"T": {"type": "array", "items": {"$ref": "#/$defs/T"}}}, "$ref": "#/$defs/T"},
        [[1]],
        False,
    ),
    ({"definitions": {"A": INT}, "$ref": "#/definitions/A", "minimum": 5}, 3, False),
    ({"type": "string", "format": "email"}, "not an email", True),  # annotation by default
    ({"nullable": True, "example": 1, "x-anything": 2, "description": "d"}, "x", True),
    (True, 1, True),
]

# (schema, value, valid) with the executor's formats asserted
WITH_FORMATS: list[tuple[dict[str, Any], Any, bool]] = [
    ({"type": "integer", "format": "int64"}, 2**53 - 1, True),
    ({"type": "integer", "format": "int64"}, 2**53, False),
    ({"type": "integer", "format": "int64"}, -(2**53) + 1, True),
    ({"type": "integer", "format": "int32"}, 2**31, False),
    ({"type": "integer", "format": "int32"}, -(2**31), True),
    ({"type": "number", "format": "int32"}, 1e19, False),
    ({"format": "int32"}, "text", True),
    ({"type": "string", "format": "password"}, "x", True),  # a format no one checks
]

DECLINED = [
    {"type": "string", "format": "email"},  # with formats asserted: jsonschema checks it
    {"properties": {"a": {"$ref": "other.json#/A"}}},
    {"$ref": "#/$defs/Missing"},
    {"$id": "https://x.test/a", "$defs": {"A": {"$id": "b"}}, "$ref": "#/$defs/A"},
    {"multipleOf": 0.1},
    {"if": INT, "then": {"minimum": 1}},
    {"not": INT},
    {"prefixItems": [INT]},
    {"patternProperties": {"^a": INT}},
    {"descripton": "a typo: an unknown keyword"},
    {"type": "strin"},
    {"pattern": "("},
    {"minLength": 1.5},
    {"items": [INT]},
    {"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"},  # would never end
    {
        "$defs": {"A": {"anyOf": [INT, {"$ref": "#/$defs/B"}]}, "B": {"$ref": "#/$defs/A"}},
        "$ref": "#/$defs/A",
    },
]


def test_a_recursive_schema_and_a_very_deep_value() -> None:
    check = compile_check({"$defs": {"T": {"items": {"$ref": "#/$defs/T"}}}, "$ref": "#/$defs/T"})
    assert check is not None
    value: list[Any] = []
    for _ in range(sys.getrecursionlimit()):
        value = [value]
    assert check(value) is False  # "not sure": the caller asks jsonschema


@pytest.mark.parametrize(("schema", "value", "valid"), TABLE)
def test_verdicts(schema: Any, value: Any, valid: bool) -> None:
    check = compile_check(schema)
    assert check is not None
    assert jsonschema.Draft202012Validator(schema).is_valid(value) is valid  # the table is right
    assert check(value) is valid
    frozen = compile_check(freeze(schema))  # imported schemas and their defaults are frozen
    assert frozen is not None and frozen(freeze(value)) is valid


@pytest.mark.parametrize(("schema", "value", "valid"), WITH_FORMATS)
def test_verdicts_with_formats(schema: Any, value: Any, valid: bool) -> None:
    check = compile_check(schema, formats=ASSERTED)
    assert check is not None
    reference = jsonschema.Draft202012Validator(schema, format_checker=FORMATS)
    assert reference.is_valid(value) is valid
    assert check(value) is valid


@pytest.mark.parametrize("schema", DECLINED)
def test_declines(schema: Any) -> None:
    assert compile_check(schema, formats=ASSERTED) is None


# The differential test: generated schemas x generated values, fast path vs jsonschema.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.0, 1.5, -2.5, 2**31, 2**53, 2**63]),
    st.sampled_from(["", "a", "ab", "b", "aé", "1"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
    ),
    max_leaves=8,
)
leaf_keywords: dict[str, st.SearchStrategy[Any]] = {
    "type": st.one_of(
        st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"]),
        st.lists(st.sampled_from(["string", "integer", "null", "array"]), min_size=1, max_size=2),
    ),
    "enum": st.lists(values, min_size=1, max_size=3),
    "const": values,
    "minimum": st.integers(-2, 2) | st.sampled_from([0.5, 2**53]),
    "maximum": st.integers(-2, 2) | st.just(1.5),
    "exclusiveMinimum": st.integers(-2, 2),
    "exclusiveMaximum": st.just(1.0) | st.integers(-2, 2),
    "minLength": st.integers(0, 2),
    "maxLength": st.integers(0, 2),
    "pattern": st.sampled_from(["^a", "b", "^[a-z]*$", "\\d"]),
    "minItems": st.integers(0, 2),
    "maxItems": st.integers(0, 2),
    "uniqueItems": st.booleans(),
    "minProperties": st.integers(0, 2),
    "maxProperties": st.integers(0, 2),
    "required": st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True),
    "format": st.sampled_from(["int32", "int64", "email", "ipv4", "date-time", "password"]),
    "description": st.just("prose"),
    "nullable": st.booleans(),
    "x-extra": values,
    "$ref": st.just("#/$defs/A"),  # resolves only where $defs are drawn; may loop: declined
}


@st.composite
def schemas(draw: Any, depth: int = 0) -> Any:
    if depth > 0 and draw(st.integers(0, 9)) == 0:
        return draw(st.booleans())
    keys = draw(st.lists(st.sampled_from(sorted(leaf_keywords)), max_size=3, unique=True))
    schema = {k: draw(leaf_keywords[k]) for k in keys}
    if depth < 2:
        for key in draw(
            st.lists(
                st.sampled_from(["items", "properties", "additionalProperties", "of"]),
                max_size=2,
                unique=True,
            )
        ):
            if key == "properties":
                schema[key] = {"a": draw(schemas(depth + 1)), "b": draw(schemas(depth + 1))}
            elif key == "of":
                of = draw(st.sampled_from(["allOf", "anyOf", "oneOf"]))
                schema[of] = draw(st.lists(schemas(depth + 1), min_size=1, max_size=3))
            else:
                schema[key] = draw(schemas(depth + 1))
    if depth == 0 and draw(st.booleans()):
        schema["$defs"] = {"A": draw(schemas(1))}
        schema.setdefault("properties", {})["c"] = {"$ref": "#/$defs/A"}
    return schema


@settings(max_examples=300, deadline=None)
@given(schemas(), st.lists(values, min_size=1, max_size=4), st.booleans())
def test_differential_against_jsonschema(schema: Any, instances: list[Any], asserted: bool) -> None:
    formats = ASSERTED if asserted else ()
    check = compile_check(schema, formats=formats)
    if check is None:
        return
    reference = jsonschema.Draft202012Validator(
        schema, format_checker=FORMATS if asserted else None
    )
    for value in instances:
        assert check(value) == reference.is_valid(value), (schema, value)


def _strategies() -> Any:
    name = "toolcat_executor_test_strategies"
    if name not in sys.modules:
        path = Path(__file__).parent / "executor" / "strategies.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def corpus_schemas(corpus_dir: Path) -> list[Any]:
    from toolcat.catalog import thaw
    from toolcat.loader import load_catalog

    found = []
    for name in ("stripe-spec3.json", "train-travel-openapi3.1.yaml", "httpbin-swagger2.json"):
        result = load_catalog([corpus_dir / name], progress=False)
        assert result.catalog is not None
        found += [thaw(tool.input_schema) for tool in result.catalog]
    return found


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_corpus_tool_schemas(corpus_schemas: list[Any], data: Any) -> None:
    # real tool schemas (Stripe's 417 operations and two more specs), valid and mutated arguments
    schema = data.draw(st.sampled_from(corpus_schemas))
    check = compile_check(schema, formats=ASSERTED)
    if check is None:
        return
    value = data.draw(_strategies().from_schema(schema) | values)
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        value = dict(value)
        value[data.draw(st.sampled_from(sorted(value)))] = data.draw(values)
    reference = jsonschema.Draft202012Validator(schema, format_checker=FORMATS)
    assert check(value) == reference.is_valid(value)


def test_most_corpus_tool_schemas_take_the_fast_path(corpus_schemas: list[Any]) -> None:
    fast = sum(compile_check(s, formats=ASSERTED) is not None for s in corpus_schemas)
    assert fast / len(corpus_schemas) > 0.8
