"""Parameters: merging, every location, clashes renamed reversibly, styles recorded, 2.0 formats."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.catalog import ParamLocation


def test_operation_parameter_wins_over_path_level(spec3: Any, one_tool: Any) -> None:
    doc = spec3(
        {
            "/items/{id}": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "limit",
                        "in": "query",
                        "description": "path-level",
                        "schema": {"type": "integer"},
                    },
                ],
                "get": {
                    "operationId": "getItem",
                    "parameters": [
                        {
                            "name": "limit",
                            "in": "query",
                            "description": "operation-level",
                            "schema": {"type": "integer", "maximum": 5},
                        }
                    ],
                    "responses": {"200": {"description": "ok"}},
                },
            }
        }
    )
    params = one_tool(doc)["parameters"]
    assert params["limit"]["description"] == "operation-level" and params["limit"]["maximum"] == 5
    assert params["id"] == {
        "in": "path",
        "required": True,
        "description": "The {id} segment of the path /items/{id}.",
        "type": "string",
    }


def test_every_location_and_clashes_renamed_reversibly(
    spec3: Any, run_import: Any, compile_result: Any
) -> None:
    doc = spec3(
        {
            "/items/{id}": {
                "put": {
                    "operationId": "putItem",
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "integer"},
                        },
                        {"name": "id", "in": "query", "schema": {"type": "string"}},
                        {"name": "id", "in": "header", "schema": {"type": "string"}},
                        {"name": "id", "in": "cookie", "schema": {"type": "string"}},
                        {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                        {"name": "Accept", "in": "header", "schema": {"type": "string"}},
                    ],
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"name": {"type": "string"}},
                                }
                            }
                        }
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            }
        }
    )
    result = run_import(doc)
    params = result.tools[0]["parameters"]
    assert list(params) == ["id", "id_query", "id_header", "id_cookie", "X-Trace", "name"]
    assert params["id_query"]["name"] == "id" and params["id_query"]["in"] == "query"
    assert "Accept" not in params  # OpenAPI: Accept/Content-Type/Authorization headers are ignored
    tool = compile_result(result)["putItem"]
    wire = {(b.location, b.wire_name): b.argument for b in tool.command.parameters}
    assert wire[(ParamLocation.PATH, "id")] == "id"
    assert wire[(ParamLocation.QUERY, "id")] == "id_query"
    assert wire[(ParamLocation.HEADER, "id")] == "id_header"
    assert wire[(ParamLocation.COOKIE, "id")] == "id_cookie"
    assert wire[(ParamLocation.BODY, "name")] == "name"
    # the same spec imports to the same names every time
    assert list(run_import(doc).tools[0]["parameters"]) == list(params)


def test_unsafe_argument_names_keep_the_wire_name(spec3: Any, one_tool: Any) -> None:
    doc = spec3(
        {
            "/s": {
                "get": {
                    "operationId": "s",
                    "parameters": [
                        {"name": "page[size]", "in": "query", "schema": {"type": "integer"}}
                    ],
                    "responses": {},
                }
            }
        }
    )
    params = one_tool(doc)["parameters"]
    assert params == {
        "page_size": {
            "in": "query",
            "name": "page[size]",
            "required": False,
            "description": "The 'page[size]' query parameter.",
            "type": "integer",
        }
    }


STYLES = [
    ("query", "form", False),
    ("query", "spaceDelimited", False),
    ("query", "pipeDelimited", False),
    ("query", "deepObject", True),
    ("path", "simple", True),
    ("path", "label", False),
    ("path", "matrix", True),
    ("header", "simple", False),
    ("cookie", "form", True),
]


@pytest.mark.parametrize(("location", "style", "explode"), STYLES)
def test_style_and_explode_are_recorded(
    spec3: Any, run_import: Any, compile_result: Any, location: str, style: str, explode: bool
) -> None:
    path = "/x/{v}" if location == "path" else "/x"
    schema = (
        {"type": "object", "properties": {"a": {"type": "string"}}}
        if style == "deepObject"
        else {"type": "array", "items": {"type": "string"}}
    )
    param = {
        "name": "v",
        "in": location,
        "required": True,
        "style": style,
        "explode": explode,
        "schema": schema,
    }
    if location == "query":
        param["allowReserved"] = True
    doc = spec3({path: {"get": {"operationId": "op", "parameters": [param], "responses": {}}}})
    result = run_import(doc)
    arg = result.tools[0]["parameters"]["v"]
    assert (arg["style"], arg["explode"]) == (style, explode)
    binding = compile_result(result)["op"].command.parameters[0]
    assert (binding.style, binding.explode, binding.allow_reserved) == (
        style,
        explode,
        location == "query",
    )


def test_parameter_described_by_content(spec3: Any, one_tool: Any) -> None:
    doc = spec3(
        {
            "/q": {
                "get": {
                    "operationId": "q",
                    "parameters": [
                        {
                            "name": "filter",
                            "in": "query",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"a": {"type": "integer"}},
                                    }
                                }
                            },
                        }
                    ],
                    "responses": {},
                }
            }
        }
    )
    f = one_tool(doc)["parameters"]["filter"]
    assert f["content_type"] == "application/json" and f["properties"] == {"a": {"type": "integer"}}


def test_undeclared_path_variable_becomes_a_string_argument(spec3: Any, run_import: Any) -> None:
    doc = spec3({"/u/{user}": {"get": {"operationId": "u", "responses": {}}}})
    result = run_import(doc)
    assert result.tools[0]["parameters"]["user"] == {
        "in": "path",
        "required": True,
        "description": "The {user} segment of the path /u/{user}.",
        "type": "string",
    }
    assert result.report[0].notes


def test_optional_object_parameter_with_required_keys_is_wrapped(
    spec3: Any, run_import: Any, compile_result: Any
) -> None:
    obj = {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}
    doc = spec3(
        {
            "/o": {
                "get": {
                    "operationId": "o",
                    "parameters": [
                        {"name": "opt", "in": "query", "style": "deepObject", "schema": obj},
                        {
                            "name": "req",
                            "in": "query",
                            "required": True,
                            "style": "deepObject",
                            "schema": obj,
                        },
                    ],
                    "responses": {},
                }
            }
        }
    )
    result = run_import(doc)
    tool = compile_result(result)["o"]
    assert tool.input_schema["required"] == ["req"]
    assert tool.input_schema["properties"]["req"]["required"] == ["a"]
    assert tool.input_schema["properties"]["opt"]["allOf"][0]["required"] == ["a"]


def test_a_required_object_argument_with_a_default_stays_required(
    spec3: Any, run_import: Any, compile_result: Any
) -> None:
    # Its schema's `required` list and its `default` both stand where the catalog reads
    # "required" (the list is the schema's, and a default makes an argument optional):
    # written as they are, the argument came out optional (VTEX's gift card API).
    obj = {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "string"}},
        "default": {"id": "c-1"},
    }
    body = {"type": "object", "required": ["client"], "properties": {"client": obj}}
    doc = spec3(
        {
            "/cards": {
                "post": {
                    "operationId": "search",
                    "requestBody": {"content": {"application/json": {"schema": body}}},
                    "responses": {},
                }
            }
        }
    )
    tool = compile_result(run_import(doc))["search"]
    assert tool.input_schema["required"] == ["client"]
    assert tool.input_schema["properties"]["client"]["allOf"][0]["required"] == ["id"]


SWAGGER_PARAMS = [
    ("csv", "form", False),
    ("ssv", "spaceDelimited", False),
    ("pipes", "pipeDelimited", False),
    ("multi", "form", True),
]


@pytest.mark.parametrize(("fmt", "style", "explode"), SWAGGER_PARAMS)
def test_swagger2_collection_formats(run_import: Any, fmt: str, style: str, explode: bool) -> None:
    doc = {
        "swagger": "2.0",
        "info": {"title": "t", "version": "1"},
        "host": "api.example.com",
        "paths": {
            "/x": {
                "get": {
                    "operationId": "x",
                    "parameters": [
                        {
                            "name": "ids",
                            "in": "query",
                            "type": "array",
                            "items": {"type": "integer"},
                            "collectionFormat": fmt,
                        }
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    ids = run_import(doc).tools[0]["parameters"]["ids"]
    assert (ids["style"], ids["explode"]) == (style, explode)
    assert ids["items"] == {"type": "integer"}


def test_swagger2_tsv_skips_the_operation_with_a_reason(run_import: Any) -> None:
    doc = {
        "swagger": "2.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/x": {
                "get": {
                    "operationId": "x",
                    "parameters": [
                        {
                            "name": "ids",
                            "in": "query",
                            "type": "array",
                            "items": {"type": "string"},
                            "collectionFormat": "tsv",
                        }
                    ],
                    "responses": {},
                }
            },
            "/y": {"get": {"operationId": "y", "responses": {}}},
        },
    }
    result = run_import(doc)
    assert [t["name"] for t in result.tools] == ["y"]
    skipped = [d for d in result.diagnostics if d.code == "TC204"]
    assert len(skipped) == 1 and "GET /x (x)" in skipped[0].message and "tsv" in skipped[0].message


def _with_header(method: str, header: str) -> dict[str, Any]:
    return {
        "/charges": {
            method: {
                "operationId": "charge",
                "parameters": [{"name": header, "in": "header", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}},
            }
        }
    }


def test_an_idempotency_key_header_becomes_the_tools_idempotency_key(
    spec3: Any, one_tool: Any, run_import: Any, compile_result: Any
) -> None:
    tool = one_tool(spec3(_with_header("post", "Idempotency-Key")))
    argument = tool["idempotency_key"]
    assert tool["parameters"][argument]["in"] == "header"
    result = run_import(spec3(_with_header("post", "Idempotency-Key")))
    assert compile_result(result).tools["charge"].idempotency_key == argument
    # a safe method is never recorded; another header is not a key
    assert "idempotency_key" not in one_tool(spec3(_with_header("get", "Idempotency-Key")))
    assert "idempotency_key" not in one_tool(spec3(_with_header("post", "X-Request-Id")))
