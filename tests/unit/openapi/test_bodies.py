"""Request bodies: media types, lifting properties vs one body argument, multipart files."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.catalog import ParamLocation


def _op(
    spec3: Any, content: dict[str, Any], required: bool = True, params: list[Any] | None = None
) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": "send",
        "requestBody": {"required": required, "content": content},
        "responses": {},
    }
    if params:
        op["parameters"] = params
    doc: dict[str, Any] = spec3({"/send": {"post": op}})
    return doc


OBJ = {
    "type": "object",
    "required": ["a"],
    "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
}


@pytest.mark.parametrize(
    "media",
    [
        "application/json",
        "application/merge-patch+json",
        "application/json; charset=utf-8",
        "text/json",
    ],
)
def test_json_object_bodies_are_lifted(
    spec3: Any, run_import: Any, compile_result: Any, media: str
) -> None:
    result = run_import(_op(spec3, {media: {"schema": OBJ}}))
    tool = result.tools[0]
    assert tool["parameters"]["a"] == {
        "in": "body",
        "required": True,
        "description": "The 'a' field of the request body.",  # the spec gives none
        "type": "string",
    }
    assert tool["parameters"]["b"]["required"] is False
    assert "body_argument" not in tool
    compiled = compile_result(result)["send"]
    assert compiled.command.body is not None
    assert compiled.command.body.media_type == media.split(";")[0]
    assert {b.wire_name for b in compiled.command.bindings(ParamLocation.BODY)} == {"a", "b"}


# the spec's `required` on requestBody (absent, false, true) x what the body schema requires
ITEM = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}
TREE = {  # refers to itself: the body stays one argument, required by what Tree requires
    "type": "object",
    "required": ["kids"],
    "properties": {"kids": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}},
}
FREE = {"type": "object", "properties": {"data": {"type": "object"}}}


@pytest.mark.parametrize(
    "rb_required, schema, components, expected",
    [
        # a body schema that lists required properties: those are required arguments,
        # whatever the requestBody says (many specs never write `required: true`)
        (None, OBJ, None, {"a": True, "b": False}),
        (False, OBJ, None, {"a": True, "b": False}),
        (True, OBJ, None, {"a": True, "b": False}),
        (None, {"$ref": "#/components/schemas/Item"}, {"Item": ITEM}, {"title": True}),
        (None, {"allOf": [{"$ref": "#/components/schemas/Item"}]}, {"Item": ITEM}, {"title": True}),
        (None, {"$ref": "#/components/schemas/Tree"}, {"Tree": TREE}, {"body": True}),
        # a body that requires no property stays as optional as the spec says
        (None, FREE, None, {"data": False}),
        (True, FREE, None, {"data": False}),
        (None, {"type": "array", "items": {"type": "string"}}, None, {"body": False}),
        (True, {"type": "array", "items": {"type": "string"}}, None, {"body": True}),
        (None, {**ITEM, "additionalProperties": True}, None, {"body": True}),
    ],
)
def test_required_body_properties_stay_required(
    spec3: Any,
    run_import: Any,
    compile_result: Any,
    rb_required: bool | None,
    schema: dict[str, Any],
    components: dict[str, Any] | None,
    expected: dict[str, bool],
) -> None:
    rb: dict[str, Any] = {"content": {"application/json": {"schema": schema}}}
    if rb_required is not None:
        rb["required"] = rb_required
    op = {"operationId": "send", "requestBody": rb, "responses": {}}
    extra = {"components": {"schemas": components}} if components else {}
    result = run_import(spec3({"/send": {"post": op}}, **extra))
    compiled = compile_result(result)["send"]
    required = set(compiled.input_schema.get("required", ()))
    assert {name: name in required for name in expected} == expected
    assert set(compiled.input_schema["properties"]) == set(expected)


@pytest.mark.parametrize(
    "schema, components, expected",
    [
        ({"$ref": "#/components/schemas/Item"}, {"Item": ITEM}, True),
        (OBJ, None, True),
        (FREE, None, False),
        ({"$ref": "#/components/schemas/Gone"}, {"Item": ITEM}, False),  # says nothing
    ],
)
def test_a_text_body_whose_schema_requires_properties_is_required(
    spec3: Any,
    run_import: Any,
    compile_result: Any,
    schema: dict[str, Any],
    components: dict[str, Any] | None,
    expected: bool,
) -> None:
    # AWS's query APIs: an XML body, never `required: true`, whose schema needs elements
    rb = {"content": {"text/xml": {"schema": schema}}}
    op = {"operationId": "send", "requestBody": rb, "responses": {}}
    extra = {"components": {"schemas": components}} if components else {}
    compiled = compile_result(run_import(spec3({"/send": {"post": op}}, **extra)))["send"]
    assert compiled.input_schema["properties"]["body"]["type"] == "string"
    assert ("body" in compiled.input_schema["required"]) is expected


def test_body_clashing_with_a_parameter_stays_whole(
    spec3: Any, run_import: Any, compile_result: Any
) -> None:
    doc = _op(
        spec3,
        {"application/json": {"schema": OBJ}},
        params=[{"name": "a", "in": "query", "schema": {"type": "string"}}],
    )
    result = run_import(doc)
    tool = result.tools[0]
    assert tool["body_argument"] == "body"
    assert tool["parameters"]["body"]["properties"]["a"] == {"type": "string"}
    compiled = compile_result(result)["send"]
    assert compiled.command.body.argument == "body"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"type": "string"}},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {
            "oneOf": [
                {"type": "object", "properties": {"x": {"type": "string"}}},
                {"type": "string"},
            ]
        },
    ],
)
def test_non_liftable_bodies_use_one_body_argument(
    spec3: Any, one_tool: Any, schema: dict[str, Any]
) -> None:
    tool = one_tool(_op(spec3, {"application/json": {"schema": schema}}, required=False))
    assert tool["body_argument"] == "body"
    assert tool["parameters"]["body"]["required"] is False


def test_multipart_file_parts(spec3: Any, run_import: Any, compile_result: Any) -> None:
    schema = {
        "type": "object",
        "required": ["file"],
        "properties": {"file": {"type": "string", "format": "binary"}, "note": {"type": "string"}},
    }
    result = run_import(_op(spec3, {"multipart/form-data": {"schema": schema}}))
    tool = result.tools[0]
    assert tool["content_type"] == "multipart/form-data"
    assert tool["parameters"]["file"]["file"] is True
    compiled = compile_result(result)["send"]
    assert compiled.command.body.binary_fields == ("file",)
    assert compiled.command.body.media_type == "multipart/form-data"
    from jsonschema import Draft202012Validator

    v = Draft202012Validator(compiled.input_schema)
    assert v.is_valid({"file": "plain text"})
    assert v.is_valid(
        {"file": {"filename": "a.png", "content_base64": "AAE=", "content_type": "image/png"}}
    )


def test_form_urlencoded(spec3: Any, one_tool: Any) -> None:
    tool = one_tool(_op(spec3, {"application/x-www-form-urlencoded": {"schema": OBJ}}))
    assert tool["content_type"] == "application/x-www-form-urlencoded"
    assert set(tool["parameters"]) == {"a", "b"}


@pytest.mark.parametrize(
    ("media", "expected"),
    [
        ("text/plain", {"type": "string"}),
        ("application/octet-stream", {"type": "string", "contentEncoding": "base64"}),
    ],
)
def test_text_and_binary_bodies(
    spec3: Any, one_tool: Any, media: str, expected: dict[str, Any]
) -> None:
    tool = one_tool(_op(spec3, {media: {"schema": {"type": "string", "format": "binary"}}}))
    assert tool["content_type"] == media
    body = tool["parameters"][tool["body_argument"]]
    assert {k: body[k] for k in expected} == expected


def test_json_preferred_when_several_media_types(spec3: Any, one_tool: Any) -> None:
    tool = one_tool(
        _op(spec3, {"application/xml": {"schema": OBJ}, "application/json": {"schema": OBJ}})
    )
    assert "content_type" not in tool and "a" in tool["parameters"]


def test_unsupported_required_body_skips_only_that_operation(spec3: Any, run_import: Any) -> None:
    doc = _op(spec3, {"application/vnd.acme.widget": {"schema": OBJ}})
    doc["paths"]["/other"] = {"get": {"operationId": "other", "responses": {}}}
    result = run_import(doc)
    assert [t["name"] for t in result.tools] == ["other"]
    [diag] = [d for d in result.diagnostics if d.code == "TC204"]
    assert "POST /send (send)" in diag.message and "application/vnd.acme.widget" in diag.message
    assert result.report[0].skipped and result.report[0].tool is None


def test_unsupported_optional_body_is_left_out(spec3: Any, one_tool: Any) -> None:
    tool = one_tool(_op(spec3, {"application/vnd.acme.widget": {"schema": OBJ}}, required=False))
    assert "parameters" not in tool


def test_swagger2_body_and_formdata(run_import: Any, compile_result: Any) -> None:
    doc = {
        "swagger": "2.0",
        "info": {"title": "t", "version": "1"},
        "host": "h.example",
        "consumes": ["application/json"],
        "paths": {
            "/pets": {
                "post": {
                    "operationId": "addPet",
                    "parameters": [{"name": "pet", "in": "body", "required": True, "schema": OBJ}],
                    "responses": {},
                }
            },
            "/upload": {
                "post": {
                    "operationId": "upload",
                    "consumes": ["multipart/form-data"],
                    "parameters": [
                        {"name": "file", "in": "formData", "type": "file", "required": True},
                        {"name": "meta", "in": "formData", "type": "string"},
                    ],
                    "responses": {},
                }
            },
        },
    }
    result = run_import(doc)
    tools = {t["name"]: t for t in result.tools}
    assert tools["addPet"]["parameters"]["a"]["required"] is True
    assert tools["upload"]["content_type"] == "multipart/form-data"
    assert tools["upload"]["parameters"]["file"]["file"] is True
    assert compile_result(result)["upload"].command.body.binary_fields == ("file",)


def test_form_encoding_styles_are_recorded(
    spec3: Any, run_import: Any, compile_result: Any
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "card": {"type": "object", "properties": {"n": {"type": "string"}}},
            "meta": {"type": "object"},
        },
    }
    content = {
        "application/x-www-form-urlencoded": {
            "schema": schema,
            "encoding": {
                "card": {"style": "deepObject", "explode": True},
                "meta": {"contentType": "application/json"},
            },
        }
    }
    result = run_import(_op(spec3, content))
    params = result.tools[0]["parameters"]
    assert (params["card"]["style"], params["card"]["explode"]) == ("deepObject", True)
    assert params["meta"]["content_type"] == "application/json"
    bindings = {b.argument: b for b in compile_result(result)["send"].command.parameters}
    assert (
        bindings["card"].style == "deepObject"
        and bindings["meta"].content_type == "application/json"
    )
