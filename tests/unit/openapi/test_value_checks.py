"""The importer's fast default/enum check agrees with jsonschema whenever it answers."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from toolcat.loader.openapi._args import _fast

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
def test_fast_check_agrees_with_jsonschema(value: Any, schema: dict[str, Any]) -> None:
    verdict = _fast(value, schema)
    if verdict is not None:
        assert verdict == Draft202012Validator(schema).is_valid(value), (value, schema)
