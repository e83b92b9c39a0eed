"""The importer drops the defaults and enum values that break their own schema, judged as
jsonschema judges them."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from toolcat.loader.openapi._args import _conforms, conforming

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False),
    st.text(max_size=4),
)
values = st.one_of(scalars, st.lists(scalars, max_size=3))
types = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])
schemas = st.fixed_dictionaries(
    {},
    optional={
        "type": st.one_of(types, st.lists(types, min_size=1, max_size=3, unique=True)),
        "enum": st.lists(scalars, min_size=1, max_size=3),
        "const": scalars,
        "minimum": st.integers(-3, 3),
        "maximum": st.integers(-3, 3),
        "exclusiveMinimum": st.integers(-3, 3),
        "maxLength": st.integers(0, 3),
        "minLength": st.integers(0, 3),
        "maxItems": st.integers(0, 2),
        "items": st.fixed_dictionaries({}, optional={"type": types, "maximum": st.integers(-3, 3)}),
        "description": st.just("d"),
        "format": st.just("int32"),
    },
)


@settings(max_examples=400, deadline=None)
@given(value=values, schema=schemas)
def test_the_check_agrees_with_jsonschema(value: Any, schema: dict[str, Any]) -> None:
    assert _conforms(value, schema, {}) == Draft202012Validator(schema).is_valid(value), (
        value,
        schema,
    )


def test_enum_values_and_a_default_that_break_the_schema_are_left_out_with_notes() -> None:
    notes: list[str] = []
    schema = {"type": "integer", "maximum": 100, "enum": [1, 500, "x"], "default": 500}
    out = conforming(schema, {}, notes, "argument 'per_page'")
    assert out == {"type": "integer", "maximum": 100, "enum": [1]}
    assert notes == [
        "argument 'per_page': enum values that break the schema were left out",
        "argument 'per_page': the default 500 breaks the schema; left out",
    ]
    assert schema["default"] == 500  # the spec's own schema is not changed


def test_a_schema_that_refers_to_a_definition_is_checked_against_it() -> None:
    defs = {"Size": {"type": "string", "enum": ["s", "m"]}}
    notes: list[str] = []
    out = conforming({"$ref": "#/$defs/Size", "default": "xl"}, defs, notes, "argument 'size'")
    assert out == {"$ref": "#/$defs/Size"}
    assert conforming({"$ref": "#/$defs/Size", "default": "m"}, defs, [], "x")["default"] == "m"


def test_values_that_conform_are_kept_and_the_schema_returned_as_is() -> None:
    schema = {"type": "string", "enum": ["a", "b"], "default": "a"}
    notes: list[str] = []
    assert conforming(schema, {}, notes, "argument 'mode'") == schema
    assert notes == []
