"""Schema conversion: allOf, oneOf, discriminator, nullable, readOnly, recursion, kept keywords."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from toolcat.catalog.common import thaw


def _post(schema: dict[str, Any], components: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Test API", "version": "1"},
        "paths": {
            "/things": {
                "post": {
                    "operationId": "makeThing",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": schema}},
                    },
                    "responses": {
                        "201": {
                            "description": "ok",
                            "content": {"application/json": {"schema": schema}},
                        }
                    },
                }
            }
        },
    }
    if components:
        doc["components"] = {"schemas": components}
    return doc


def _input(tool: dict[str, Any]) -> dict[str, Any]:
    placement = {
        "in",
        "name",
        "required",
        "style",
        "explode",
        "allow_reserved",
        "content_type",
        "file",
    }
    props = {
        a: {k: v for k, v in p.items() if k not in placement}
        for a, p in tool.get("parameters", {}).items()
    }
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if tool.get("definitions"):
        schema["$defs"] = tool["definitions"]
    thawed: dict[str, Any] = thaw(schema)
    return thawed


def test_allof_parts_are_merged_into_one_object(one_tool: Any) -> None:
    components = {
        "Base": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
    }
    schema = {
        "allOf": [
            {"$ref": "#/components/schemas/Base"},
            {
                "type": "object",
                "required": ["size"],
                "properties": {"size": {"type": "integer", "minimum": 1}},
            },
        ]
    }
    tool = one_tool(_post(schema, components))
    params = tool["parameters"]
    assert set(params) == {"id", "size"}
    assert params["size"]["minimum"] == 1
    assert params["id"]["required"] is True and params["size"]["required"] is True
    assert "definitions" not in tool


def test_conflicting_allof_is_kept_as_allof(one_tool: Any) -> None:
    schema = {"allOf": [{"type": "string", "maxLength": 3}, {"type": "string", "maxLength": 5}]}
    tool = one_tool(_post(schema))
    body = tool["parameters"][tool["body_argument"]]
    assert [p["maxLength"] for p in body["allOf"]] == [3, 5]


def test_oneof_anyof_kept_and_discriminator_tags_each_variant(one_tool: Any) -> None:
    components = {
        "Cat": {
            "type": "object",
            "properties": {"kind": {"type": "string"}, "purrs": {"type": "boolean"}},
        },
        "Dog": {
            "type": "object",
            "properties": {"kind": {"type": "string"}, "barks": {"type": "boolean"}},
        },
    }
    schema = {
        "type": "object",
        "properties": {
            "pet": {
                "oneOf": [
                    {"$ref": "#/components/schemas/Cat"},
                    {"$ref": "#/components/schemas/Dog"},
                ],
                "discriminator": {
                    "propertyName": "kind",
                    "mapping": {"cat": "#/components/schemas/Cat"},
                },
            },
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        },
    }
    tool = one_tool(_post(schema, components))
    pet = tool["parameters"]["pet"]
    assert "discriminator" not in pet
    consts = [v["properties"]["kind"]["const"] for v in pet["oneOf"]]
    assert consts == ["cat", "Dog"]  # mapping first, else the schema name
    assert all("kind" in v["required"] for v in pet["oneOf"])
    assert tool["parameters"]["either"]["anyOf"] == [{"type": "string"}, {"type": "integer"}]
    validator = Draft202012Validator(_input(tool)["properties"]["pet"])
    assert validator.is_valid({"kind": "cat", "purrs": True})
    assert not validator.is_valid({"kind": "parrot"})


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string", "nullable": True}, {"type": ["string", "null"]}),
        (
            {"type": "string", "enum": ["a"], "nullable": True},
            {"type": ["string", "null"], "enum": ["a", None]},
        ),
        ({"type": "integer", "nullable": False}, {"type": "integer"}),
    ],
)
def test_nullable_becomes_a_type_union(
    one_tool: Any, schema: dict[str, Any], expected: dict[str, Any]
) -> None:
    tool = one_tool(_post({"type": "object", "properties": {"v": schema}}))
    got = {
        k: v
        for k, v in tool["parameters"]["v"].items()
        if k not in ("in", "required", "description")
    }
    assert got == expected


def test_nullable_without_type_becomes_anyof_null(one_tool: Any) -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": True}},
    }
    tool = one_tool(_post(schema))
    assert {"type": "null"} in tool["parameters"]["v"]["anyOf"]


def test_readonly_left_out_of_inputs_and_writeonly_out_of_outputs(one_tool: Any) -> None:
    schema = {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "string", "readOnly": True},
            "name": {"type": "string"},
            "password": {"type": "string", "writeOnly": True},
        },
    }
    tool = one_tool(_post(schema))
    assert set(tool["parameters"]) == {"name", "password"}
    out = tool["output_schema"]
    assert set(out["properties"]) == {"id", "name"}


def test_formats_bounds_defaults_enums_examples_are_kept(one_tool: Any) -> None:
    prop = {
        "type": "integer",
        "format": "int32",
        "minimum": 0,
        "maximum": 10,
        "default": 3,
        "enum": [1, 3, 5],
        "example": 5,
        "x-internal": "dropped",
        "xml": {"name": "n"},
    }
    tool = one_tool(_post({"type": "object", "properties": {"n": prop}}))
    n = tool["parameters"]["n"]
    assert n["format"] == "int32" and n["minimum"] == 0 and n["maximum"] == 10
    assert n["default"] == 3 and n["enum"] == [1, 3, 5] and n["examples"] == [5]
    assert "x-internal" not in n and "xml" not in n


def test_boolean_exclusive_bounds_become_numbers(one_tool: Any) -> None:
    prop = {
        "type": "number",
        "minimum": 0,
        "exclusiveMinimum": True,
        "maximum": 9,
        "exclusiveMaximum": False,
    }
    n = one_tool(_post({"type": "object", "properties": {"n": prop}}))["parameters"]["n"]
    assert n["exclusiveMinimum"] == 0 and "minimum" not in n
    assert n["maximum"] == 9 and "exclusiveMaximum" not in n


def test_recursive_schema_becomes_defs_and_is_finite(one_tool: Any) -> None:
    components = {
        "Node": {
            "type": "object",
            "properties": {
                "value": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
            },
        },
        "Unused": {"type": "string"},
    }
    schema = {"type": "object", "properties": {"root": {"$ref": "#/components/schemas/Node"}}}
    tool = one_tool(_post(schema, components))
    assert tool["parameters"]["root"]["$ref"] == "#/$defs/Node"
    assert set(tool["definitions"]) == {"Node"}  # only what it reaches
    node = tool["definitions"]["Node"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    full = _input(tool)
    Draft202012Validator.check_schema(full)
    ok = {"root": {"value": "a", "children": [{"value": "b", "children": []}]}}
    assert Draft202012Validator(full).is_valid(ok)


def test_mutual_recursion_keeps_every_needed_definition(one_tool: Any) -> None:
    components = {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
        "B": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}},
    }
    tool = one_tool(
        _post(
            {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}}, components
        )
    )
    full = _input(tool)
    Draft202012Validator.check_schema(full)
    text = repr(full)
    for name in ("A", "B"):
        if f"#/$defs/{name}" in text:
            assert name in full["$defs"]
    assert Draft202012Validator(full).is_valid({"a": {"b": {"a": {}}}})


def test_openapi_31_type_arrays_and_const_are_kept(one_tool: Any) -> None:
    doc = _post({"type": "object", "properties": {"v": {"type": ["string", "null"], "const": "x"}}})
    doc["openapi"] = "3.1.0"
    v = one_tool(doc)["parameters"]["v"]
    assert v["type"] == ["string", "null"] and v["const"] == "x"


def test_a_schema_object_met_again_is_converted_once(tmp_path: Any) -> None:
    """A parameter shared through a $ref brings the same inline schema object to every
    operation: it is converted once. One that holds a $ref is converted each time (what a
    $ref becomes can change as the import learns which schemas are recursive)."""
    from toolcat.loader.openapi._refs import Resolver
    from toolcat.loader.openapi._schemas import IN, SchemaConverter

    doc = {"components": {"schemas": {"Id": {"type": "string"}}}}
    spec = tmp_path / "spec.json"
    resolver = Resolver(spec, doc, root_dir=tmp_path, max_bytes=1 << 20)
    converter = SchemaConverter(resolver, "3.0.3")
    plain = {"type": "integer", "minimum": 1, "nullable": True}
    first, _ = converter.convert(plain, str(spec), IN)
    again, _ = converter.convert(plain, str(spec), IN)
    assert again is first
    equal, _ = converter.convert(dict(plain), str(spec), IN)  # another object: its own
    assert equal == first and equal is not first
    with_ref = {"type": "object", "properties": {"id": {"$ref": "#/components/schemas/Id"}}}
    one, _ = converter.convert(with_ref, str(spec), IN)
    two, _ = converter.convert(with_ref, str(spec), IN)
    assert one == two and one is not two
