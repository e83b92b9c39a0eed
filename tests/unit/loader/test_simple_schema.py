"""The schema fast path never vouches for what jsonschema would reject."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from toolcat.catalog import compile_check
from toolcat.loader._schemas import KNOWN_KEYWORDS
from toolcat.loader._simple_schema import is_simple_valid


def conforms(value: Any, schema: Any) -> bool:
    """What the loader asks of a default or an enum value: the one fast schema path."""
    check = compile_check(schema)
    return check is not None and check(value)


META = Draft202012Validator(
    Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5),
    st.sampled_from(["", "a", "open", "closed", "3"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=6,
)
types = st.sampled_from(
    ["string", "integer", "number", "boolean", "null", "array", "object", "strin", 3]
)
keyword_values = {
    "type": st.one_of(types, st.lists(types, max_size=3)),
    "description": st.one_of(st.text(max_size=3), st.integers()),
    "minimum": st.one_of(st.integers(-3, 3), st.floats(-3, 3), st.booleans(), st.text(max_size=1)),
    "maximum": st.one_of(st.integers(-3, 3), st.floats(-3, 3)),
    "exclusiveMinimum": st.integers(-3, 3),
    "minLength": st.one_of(st.integers(-1, 3), st.floats(0, 3)),
    "maxLength": st.integers(0, 3),
    "minItems": st.integers(0, 2),
    "maxItems": st.integers(-1, 2),
    "uniqueItems": st.booleans(),
    "enum": st.one_of(st.lists(scalars, max_size=3), scalars),
    "const": scalars,
    "default": values,
    "required": st.lists(st.sampled_from(["a", "b", 1]), max_size=3),
    "additionalProperties": st.booleans(),
    "format": st.sampled_from(["date", "email", 3]),
    "pattern": st.sampled_from(["^a", "("]),
    "multipleOf": st.sampled_from([0, 2, 0.5]),
    "descripton": st.text(max_size=2),
    "$ref": st.sampled_from(["#/$defs/A", "#", "other.json#/x", "#/a b", 3]),
    "nullable": st.one_of(st.booleans(), st.integers()),
    "examples": st.one_of(st.lists(scalars, max_size=2), scalars),
    "contentMediaType": st.sampled_from(["application/json", 4]),
    "dependentRequired": st.one_of(
        st.dictionaries(
            st.sampled_from(["a", "b"]), st.lists(st.sampled_from(["a", "b", 1]), max_size=3)
        ),
        scalars,
    ),
    "minContains": st.integers(-1, 2),
    "patternProperties": st.just({"^a": {"type": "string"}}),
    "$id": st.sampled_from(["x", 3]),
}
subschema_keywords = ("items", "not", "contains", "additionalProperties", "if")
list_keywords = ("anyOf", "allOf", "oneOf", "prefixItems")


@st.composite
def schemas(draw: Any, depth: int = 0) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(sorted(keyword_values)), max_size=4, unique=True))
    schema = {k: draw(keyword_values[k]) for k in keys}
    if depth < 2 and draw(st.booleans()):
        schema["items"] = draw(schemas(depth + 1))
    if depth < 2 and draw(st.booleans()):
        schema["properties"] = {"a": draw(schemas(depth + 1))}
    if depth < 2 and draw(st.booleans()):
        schema[draw(st.sampled_from(subschema_keywords))] = draw(
            st.one_of(schemas(depth + 1), st.booleans(), st.integers())
        )
    if depth < 2 and draw(st.booleans()):
        schema[draw(st.sampled_from(list_keywords))] = draw(
            st.one_of(st.lists(schemas(depth + 1), max_size=2), schemas(depth + 1))
        )
    if depth < 1 and draw(st.booleans()):
        schema["$defs"] = {"A": draw(schemas(depth + 1))}
    return schema


@settings(max_examples=300, deadline=None)
@given(schemas())
def test_simple_valid_implies_metaschema_valid(schema: dict[str, Any]) -> None:
    if is_simple_valid(schema, KNOWN_KEYWORDS):
        assert list(META.iter_errors(schema)) == []


@settings(max_examples=400, deadline=None)
@given(schemas(), values)
def test_conforms_implies_valid(schema: dict[str, Any], value: Any) -> None:
    if is_simple_valid(schema, KNOWN_KEYWORDS) and conforms(value, schema):
        assert list(Draft202012Validator(schema).iter_errors(value)) == []


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "integer", "minimum": 1}, 3),
        ({"type": "string", "enum": ["a", "b"]}, "a"),
        ({"type": "array", "items": {"type": "string"}}, ["x"]),
        ({"type": ["string", "null"]}, None),
    ],
)
def test_common_schemas_take_the_fast_path(schema: dict[str, Any], value: Any) -> None:
    assert is_simple_valid(schema, KNOWN_KEYWORDS) and conforms(value, schema)


def test_bad_pattern_is_reported(tmp_path: Any) -> None:
    from toolcat.loader._schemas import SchemaChecker

    (issue,) = SchemaChecker().check({"type": "string", "pattern": "("})
    assert issue.code == "TC022"


@settings(max_examples=300, deadline=None)
@given(schemas(), values)
def test_frozen_schemas_get_the_same_answers(schema: dict[str, Any], value: Any) -> None:
    # imported schemas are frozen (read-only dict/list subclasses): same fast path
    from toolcat.catalog import freeze

    frozen, frozen_value = freeze(schema), freeze(value)
    valid = is_simple_valid(schema, KNOWN_KEYWORDS)
    assert is_simple_valid(frozen, KNOWN_KEYWORDS) == valid
    if valid:  # conforms() is asked only about schemas the fast path found valid
        assert conforms(frozen_value, frozen) == conforms(value, schema)
