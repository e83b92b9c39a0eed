"""Gemini's OpenAPI-subset schema: refs inlined, null -> nullable, dropped keywords reported."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.catalog import Catalog
from toolcat.catalog.schema import to_gemini_schema
from toolcat.catalog.schema._gemini import GEMINI_KEYWORDS
from toolcat.executor.providers import export_catalog


def keywords(node: Any) -> set[str]:
    """Every key used as a schema keyword anywhere in a converted schema."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key == "properties":
                for sub in value.values():
                    found |= keywords(sub)
            elif key == "items":
                found |= keywords(value)
            elif key == "anyOf":
                for sub in value:
                    found |= keywords(sub)
    return found


def test_refs_are_inlined_and_defs_removed() -> None:
    schema = {
        "type": "object",
        "properties": {"addr": {"$ref": "#/$defs/Address", "description": "Where"}},
        "required": ["addr"],
        "$defs": {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }
    result = to_gemini_schema(schema)
    assert result.schema == {
        "type": "object",
        "properties": {
            "addr": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "description": "Where",
            }
        },
        "required": ["addr"],
    }
    assert result.notes == ()  # a translation that keeps the meaning is not a note


def test_recursion_is_cut_off_at_a_bounded_depth() -> None:
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    result = to_gemini_schema(schema)
    depth, node = 0, result.schema["properties"]["tree"]
    while "properties" in node:
        node = node["properties"]["kids"]["items"]
        depth += 1
    assert depth == 2
    assert node["type"] == "object" and "not expanded further" in node["description"]
    assert any("cut off" in m for _, m in result.notes)


def test_recursion_through_all_of_is_cut_off_too() -> None:
    # AWS Connect's Expression: itself again inside allOf, beside an annotation; the refs of
    # allOf members were inlined without being counted, so the export recursed without end
    schema = {
        "type": "object",
        "properties": {"filter": {"$ref": "#/$defs/Expression"}},
        "$defs": {
            "Expression": {
                "type": "object",
                "properties": {
                    "and": {
                        "type": "array",
                        "items": {"allOf": [{"$ref": "#/$defs/Expression"}, {"description": "x"}]},
                    },
                    "value": {"type": "string"},
                },
            }
        },
    }
    result = to_gemini_schema(schema)
    depth, node = 0, result.schema["properties"]["filter"]
    while "and" in node.get("properties", {}):
        node = node["properties"]["and"]["items"]
        depth += 1
    assert depth <= 3
    assert any("recursion through #/$defs/Expression cut off" in m for _, m in result.notes)


@pytest.mark.parametrize(
    "prop, expected",
    [
        ({"type": ["string", "null"]}, {"type": "string", "nullable": True}),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, {"type": "integer", "nullable": True}),
        (
            {"oneOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]},
            {"type": "string", "nullable": True},
        ),
        (
            {"type": "string", "enum": ["a", None]},
            {"type": "string", "enum": ["a"], "nullable": True},
        ),
        (
            {"type": ["string", "integer"]},
            {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        ),
    ],
)
def test_null_becomes_nullable(prop: dict[str, Any], expected: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"p": prop}, "$defs": {"S": {"type": "string"}}}
    assert to_gemini_schema(schema).schema["properties"]["p"] == expected


def test_unsupported_keywords_are_dropped_and_reported() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "n": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 5},
            "u": {"type": "string", "format": "uri", "minLength": 1},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "k": {"const": "fixed"},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "map": {"type": "object", "additionalProperties": {"type": "string"}},
            "when": {"type": "string", "format": "date-time", "examples": ["2024-01-01T00:00:00Z"]},
        },
    }
    result = to_gemini_schema(schema)
    props = result.schema["properties"]
    assert keywords(result.schema) <= GEMINI_KEYWORDS
    assert props["n"] == {"type": "integer", "description": "(exclusiveMinimum: 0; multipleOf: 5)"}
    assert props["u"] == {"type": "string", "minLength": 1, "description": "(format: uri)"}
    assert props["tags"]["description"] == "(uniqueItems: true)"
    assert props["k"] == {"enum": ["fixed"], "type": "string"}
    assert props["level"] == {"type": "integer", "description": "(one of [1, 2, 3])"}
    assert props["map"] == {
        "type": "object",
        "description": '(additional properties allowed, each {"type": "string"})',
    }
    assert props["when"] == {
        "type": "string",
        "format": "date-time",
        "example": "2024-01-01T00:00:00Z",
    }
    messages = [f"{p} {m}" for p, m in result.notes]
    assert any("/properties/n moved to the description" in m for m in messages)
    assert any("/properties/map moved to the description" in m for m in messages)
    assert any("$schema dropped" in m for m in messages)


def test_export_hands_back_the_notes_per_tool(tool_factory: Any) -> None:
    tool = tool_factory("t", "GET", {"n": {"type": "integer", "exclusiveMinimum": 0}})
    result = export_catalog(Catalog([tool], []), "gemini")
    assert any(n.tool == "t" and n.pointer == "/properties/n" for n in result.notes)
    assert "exclusiveMinimum" in str(result.notes[0]) or any(
        "exclusiveMinimum" in n.message for n in result.notes
    )


def test_untyped_anyof_members_that_only_refine_move_to_the_description() -> None:
    body = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "oneOf": [{"required": ["a"]}, {"not": {"required": ["a"]}}],
    }
    result = to_gemini_schema({"type": "object", "properties": {"body": body}})
    out = result.schema["properties"]["body"]
    assert "anyOf" not in out and "oneOf" not in out
    assert out["description"].startswith('(oneOf: [{"required": ["a"]}')
    assert not any("oneOf rewritten" in m for _, m in result.notes)


def test_missing_types_are_inferred_or_reported() -> None:
    schema = {
        "type": "object",
        "properties": {
            "obj": {"properties": {"a": {"type": "string"}}},
            "arr": {"items": {"type": "integer"}},
            "any": {},
        },
    }
    result = to_gemini_schema(schema)
    props = result.schema["properties"]
    assert props["obj"]["type"] == "object" and props["arr"]["type"] == "array"
    assert props["any"] == {}
    assert ("/properties/any", "a schema without a type (any value) left untyped") in result.notes


def test_a_name_gemini_may_reject_is_noted(tool_factory: Any) -> None:
    result = export_catalog(
        Catalog([tool_factory("9lives"), tool_factory("ok_name")], []), "gemini"
    )
    assert [n.tool for n in result.notes if "starts with a letter" in n.message] == ["9lives"]
