"""OpenAI strict mode: closed objects, all required, optional nullable, keywords in descriptions."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from toolcat.catalog import Catalog
from toolcat.catalog.schema import (
    NotStrictable,
    check_strict_schema,
    strip_strict_nulls,
    to_strict_schema,
)
from toolcat.executor.providers import export_catalog


def obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required is not None:
        out["required"] = required
    out.update(extra)
    return out


def test_optional_becomes_nullable_and_everything_required() -> None:
    schema = obj(
        {
            "q": {"type": "string"},
            "limit": {"type": "integer"},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "multi": {"type": ["string", "integer"]},
        },
        ["q"],
    )
    out = to_strict_schema(schema).schema
    assert out["required"] == ["q", "limit", "kind", "multi"]
    assert out["additionalProperties"] is False
    assert out["properties"]["q"] == {"type": "string"}
    assert out["properties"]["limit"] == {"type": ["integer", "null"]}
    assert out["properties"]["kind"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert out["properties"]["multi"] == {"type": ["string", "integer", "null"]}
    assert check_strict_schema(out) == []


def test_optional_ref_and_untyped_enum_become_anyof_with_null() -> None:
    schema = obj(
        {
            "addr": {"$ref": "#/$defs/Address"},
            "color": {"enum": ["red", "blue"], "description": "Paint"},
        },
        [],
        **{"$defs": {"Address": obj({"city": {"type": "string"}}, ["city"])}},
    )
    out = to_strict_schema(schema).schema
    assert out["properties"]["addr"] == {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]}
    assert out["properties"]["color"] == {
        "anyOf": [{"enum": ["red", "blue"]}, {"type": "null"}],
        "description": "Paint",
    }
    assert out["$defs"]["Address"]["additionalProperties"] is False
    assert check_strict_schema(out) == []


def test_nested_objects_in_items_anyof_and_defs_are_closed() -> None:
    inner = obj({"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}, ["sku"])
    schema = obj(
        {
            "lines": {"type": "array", "items": inner},
            "either": {"anyOf": [inner, {"type": "string"}]},
        },
        ["lines", "either"],
    )
    out = to_strict_schema(schema).schema
    item = out["properties"]["lines"]["items"]
    assert item["additionalProperties"] is False
    assert item["required"] == ["sku", "qty"]
    assert item["properties"]["qty"] == {"type": ["integer", "null"], "minimum": 1}
    assert out["properties"]["either"]["anyOf"][0]["additionalProperties"] is False
    assert check_strict_schema(out) == []


@pytest.mark.parametrize(
    "keyword, value, text",
    [
        ("minLength", 3, "minLength: 3"),
        ("maxLength", 9, "maxLength: 9"),
        ("default", "x", "default: x"),
        ("examples", ["a", "b"], 'examples: ["a", "b"]'),
        ("format", "uri", "format: uri"),
    ],
)
def test_unsupported_keywords_move_into_the_description(
    keyword: str, value: Any, text: str
) -> None:
    schema = obj({"s": {"type": "string", "description": "Name", keyword: value}}, ["s"])
    result = to_strict_schema(schema)
    prop = result.schema["properties"]["s"]
    assert keyword not in prop
    assert prop["description"] == f"Name ({text})"
    assert any(p == "/properties/s" and text in m for p, m in result.notes)


def test_supported_keywords_are_kept() -> None:
    props = {
        "when": {"type": "string", "format": "date-time", "pattern": "^2"},
        "n": {"type": "number", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 0.5},
        "xs": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
    }
    out = to_strict_schema(obj(props, list(props))).schema
    assert out["properties"] == props
    assert check_strict_schema(out) == []


def test_recursion_via_defs_is_kept_as_refs() -> None:
    node = obj(
        {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
        },
        ["name", "children"],
    )
    schema = obj({"root": {"$ref": "#/$defs/Node"}}, ["root"], **{"$defs": {"Node": node}})
    out = to_strict_schema(schema).schema
    assert out["properties"]["root"] == {"$ref": "#/$defs/Node"}
    assert out["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert check_strict_schema(out) == []


def test_definitions_become_defs_and_refs_follow() -> None:
    schema = obj({"a": {"$ref": "#/definitions/A"}}, ["a"], definitions={"A": {"type": "string"}})
    out = to_strict_schema(schema).schema
    assert out["properties"]["a"] == {"$ref": "#/$defs/A"}
    assert out["$defs"] == {"A": {"type": "string"}}


def test_ref_with_siblings_is_inlined() -> None:
    schema = obj(
        {"a": {"$ref": "#/$defs/A", "description": "An A"}},
        ["a"],
        **{"$defs": {"A": {"type": "string", "maxLength": 3}}},
    )
    out = to_strict_schema(schema).schema
    assert out["properties"]["a"] == {"type": "string", "description": "An A (maxLength: 3)"}
    assert check_strict_schema(out) == []


def test_one_of_const_and_all_of() -> None:
    schema = obj(
        {
            "mode": {"oneOf": [{"const": "fast"}, {"const": "slow"}]},
            "both": {
                "allOf": [
                    obj({"a": {"type": "string"}}, ["a"]),
                    obj({"b": {"type": "integer"}}, ["b"]),
                ]
            },
        },
        ["mode", "both"],
    )
    out = to_strict_schema(schema).schema
    assert out["properties"]["mode"] == {"anyOf": [{"enum": ["fast"]}, {"enum": ["slow"]}]}
    both = out["properties"]["both"]
    assert both["required"] == ["a", "b"] and both["additionalProperties"] is False
    assert check_strict_schema(out) == []


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "object"},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"description": "anything"},
        {},
    ],
)
def test_free_form_values_cannot_be_strict(prop: dict[str, Any]) -> None:
    with pytest.raises(NotStrictable):
        to_strict_schema(obj({"p": prop}, ["p"]))


def test_a_tool_that_cannot_be_strict_is_sent_with_strict_false(tool_factory: Any) -> None:
    free = tool_factory("free", "POST", {"meta": {"type": "object"}})
    ok = tool_factory("ok", "GET", {"q": {"type": "string"}})
    result = export_catalog(Catalog([free, ok], []), "openai", strict=True)
    flags = {t["function"]["name"]: t["function"]["strict"] for t in result.tools}
    assert flags == {"free": False, "ok": True}
    assert result.tools[0]["function"]["parameters"]["properties"]["meta"] == {"type": "object"}
    assert any(n.tool == "free" and "strict: false" in n.message for n in result.notes)


def test_tool_without_arguments_is_strict() -> None:
    out = to_strict_schema({"type": "object", "properties": {}}).schema
    assert out == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert check_strict_schema(out) == []


@pytest.mark.parametrize(
    "schema, problem",
    [
        ({"type": "array", "items": {"type": "string"}}, "root must"),
        (obj({"a": {"type": "string"}}, ["a"]), "additionalProperties must be false"),
        (obj({"a": {"type": "string"}}, [], additionalProperties=False), "required must list"),
        (
            obj({"a": {"type": "string", "minLength": 1}}, ["a"], additionalProperties=False),
            "minLength",
        ),
        (
            obj({"a": {"type": "string", "format": "uri"}}, ["a"], additionalProperties=False),
            "format 'uri'",
        ),
        (obj({"a": {"$ref": "#/$defs/X"}}, ["a"], additionalProperties=False), "does not resolve"),
        (obj({"a": {"description": "x"}}, ["a"], additionalProperties=False), "no type"),
        (obj({"a": {"type": "array"}}, ["a"], additionalProperties=False), "array without items"),
        (obj({"a": {"type": "str"}}, ["a"], additionalProperties=False), "unknown type 'str'"),
    ],
)
def test_checker_reports_each_broken_rule(schema: dict[str, Any], problem: str) -> None:
    problems = check_strict_schema(schema)
    assert any(problem in p for p in problems), problems


def test_checker_counts_nesting_depth() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        schema = obj({"x": schema}, ["x"], additionalProperties=False)
    assert any("nested deeper" in p for p in check_strict_schema(schema))


def test_strict_export_of_the_fixture_catalog_passes_the_checker(catalog: Catalog) -> None:
    for item in export_catalog(catalog, "openai-responses", strict=True).tools:
        assert item["strict"] is True
        assert check_strict_schema(item["parameters"]) == []


STRIP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "q": {"type": "string"},
        "must": {"type": "string"},
        "maybe": {"type": ["string", "null"]},
        "addr": {"$ref": "#/$defs/Address"},
        "lines": {"type": "array", "items": {"$ref": "#/$defs/Address"}},
        "any": {},
    },
    "required": ["must"],
    "$defs": {
        "Address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            "required": ["city"],
        }
    },
}


def test_strip_strict_nulls_undoes_the_forced_nulls_at_every_depth() -> None:
    args: dict[str, Any] = {
        "q": None,
        "must": None,
        "maybe": None,
        "addr": {"city": "Oslo", "zip": None},
        "lines": [{"city": "Bergen", "zip": None}, {"city": None}],
        "any": None,
        "extra": None,
    }
    out = strip_strict_nulls(STRIP_SCHEMA, args)
    assert out == {
        "must": None,  # required: left for validation to report
        "maybe": None,  # its schema accepts null
        "addr": {"city": "Oslo"},
        "lines": [{"city": "Bergen"}, {"city": None}],
        "any": None,
        "extra": None,  # unknown: left for validation to report
    }
    assert args["q"] is None and args["addr"]["zip"] is None  # the input is unchanged


def test_strict_round_trip_arguments_validate_against_the_original_schema() -> None:
    import jsonschema

    schema = {**STRIP_SCHEMA, "properties": dict(STRIP_SCHEMA["properties"])}
    del schema["properties"]["any"]  # free-form: not strict-able
    strict = to_strict_schema(schema).schema
    answer = {"q": None, "must": "x", "maybe": None, "addr": {"city": "Oslo", "zip": None}}
    answer["lines"] = None
    jsonschema.validate(answer, strict)  # what a strict model may send...
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(answer, schema)  # ...fails the tool's own schema
    jsonschema.validate(strip_strict_nulls(schema, answer), schema)


def test_openapi_nullable_becomes_a_null_type_and_annotations_go_quietly() -> None:
    schema = obj(
        {
            "a": {"type": "string", "nullable": True, "readOnly": True},
            "b": {"$ref": "#/$defs/X", "nullable": True},
            "c": {"type": "string", "nullable": False, "deprecated": True},
        },
        ["a", "b", "c"],
        **{"$defs": {"X": {"type": "string"}}},
    )
    out = to_strict_schema(schema).schema
    assert out["properties"]["a"] == {"type": ["string", "null"]}
    assert out["properties"]["b"] == {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}]}
    assert out["properties"]["c"] == {"type": "string", "description": "(deprecated: true)"}
    assert check_strict_schema(out) == []
    assert strip_strict_nulls(schema, {"a": None, "b": None}) == {"a": None, "b": None}


def test_untyped_anyof_members_that_only_refine_move_to_the_description() -> None:
    body = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
    }
    result = to_strict_schema(obj({"body": body}, ["body"]))
    out = result.schema["properties"]["body"]
    assert "anyOf" not in out
    assert out["description"] == '(anyOf: [{"required": ["a"]}, {"required": ["b"]}])'
    assert check_strict_schema(result.schema) == []


def test_checker_limits_enum_values_and_total_name_size() -> None:
    many = obj({"e": {"type": "string", "enum": [f"v{i}" for i in range(1001)]}}, ["e"])
    many["additionalProperties"] = False
    assert any("enum values" in p for p in check_strict_schema(many))
    long = obj({"e": {"type": "string", "enum": ["x" * 60_001, "y" * 60_001]}}, ["e"])
    long["additionalProperties"] = False
    assert any("characters of names" in p for p in check_strict_schema(long))


def test_a_chain_of_refs_with_siblings_is_inlined_to_the_end() -> None:
    defs = {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string", "minLength": 2}}
    schema = obj({"a": {"$ref": "#/$defs/A", "description": "An A"}}, ["a"], **{"$defs": defs})
    out = to_strict_schema(schema).schema
    assert out["properties"]["a"] == {"type": "string", "description": "An A (minLength: 2)"}
    assert check_strict_schema(out) == []


def test_nulls_are_undone_inside_anyof_branches_and_allof_members() -> None:
    """The schemas pydantic writes (FastMCP servers): ``Optional[list[Filter]]`` is an
    ``anyOf`` of an array and null, a model with defaults under it; an argument `toolcat
    import` wraps in ``allOf`` (its own ``required`` list) is optional and not nullable."""
    import enum

    import jsonschema
    import pydantic

    class Color(enum.Enum):
        red = "red"
        blue = "blue"

    class Filter(pydantic.BaseModel):
        field: str
        op: Literal["eq", "lt", "gt"] = "eq"
        value: int | str | None = None

    class Node(pydantic.BaseModel):
        label: str
        weight: float | None = None
        children: list[Node] = []

    class Args(pydantic.BaseModel):
        root: Node
        filters: list[Filter] | None = None
        mode: Color | None = None

    schema = Args.model_json_schema()
    schema["properties"]["author"] = {
        "description": "Who.",
        "allOf": [
            {
                "type": "object",
                "properties": {"name": {"type": "string"}, "nick": {"type": "string"}},
                "required": ["name"],
            }
        ],
    }
    strict = to_strict_schema(schema).schema
    answer = {
        "root": {
            "label": "a",
            "weight": None,
            "children": [{"label": "b", "weight": 1.0, "children": []}],
        },
        "filters": [{"field": "x", "op": None, "value": None}],
        "mode": None,
        "author": {"name": "n", "nick": None},
    }
    jsonschema.validate(answer, strict)  # what a strict model may send...
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(answer, schema)  # ...fails the tool's own schema
    stripped = strip_strict_nulls(schema, answer)
    jsonschema.validate(stripped, schema)
    assert stripped["filters"] == [{"field": "x", "value": None}]  # value accepts null
    assert stripped["author"] == {"name": "n"}
    assert strip_strict_nulls(schema, {**answer, "author": None}).keys() == {
        "root",
        "filters",
        "mode",
    }
