"""Bugs found importing APIs.guru's directory (benchmarks/stress_import.py): one small spec each."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog.schema import check_strict_schema
from toolcat.executor import Executor, PreparedRequest, ToolCall
from toolcat.executor.providers import export_catalog
from toolcat.loader.openapi import ImportResult, import_openapi


def _strict_export(catalog: Any) -> list[dict[str, Any]]:
    """The OpenAI strict export; every tool sent as strict must pass the strict checker."""
    tools = [item["function"] for item in export_catalog(catalog, "openai", strict=True).tools]
    for function in tools:
        if function["strict"]:
            assert check_strict_schema(function["parameters"]) == [], function["name"]
    return tools


def _post(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "post": {
            "operationId": "create",
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": schema}},
            },
            "responses": {"200": {"description": "ok"}},
        }
    }


def test_recursive_ref_beside_a_description_exports_strict_without_recursing(
    spec3: Callable[..., dict[str, Any]],
    run_import: Callable[..., ImportResult],
    compile_result: Callable[[ImportResult], Any],
) -> None:
    # AWS Cost Explorer: Expression.Not is allOf [$ref Expression, {description}].
    expression = {
        "type": "object",
        "properties": {
            "Or": {"type": "array", "items": {"$ref": "#/components/schemas/Expression"}},
            "Not": {
                "allOf": [
                    {"$ref": "#/components/schemas/Expression"},
                    {"description": "Return results that do not match."},
                ]
            },
            "Key": {"type": "string"},
        },
    }
    doc = spec3(
        {"/monitors": _post({"$ref": "#/components/schemas/Body"})},
        components={
            "schemas": {
                "Expression": expression,
                "Body": {
                    "type": "object",
                    "properties": {"Filter": {"$ref": "#/components/schemas/Expression"}},
                },
            }
        },
    )
    result = run_import(doc)
    assert len(result.tools) == 1
    (function,) = _strict_export(compile_result(result))
    assert function["strict"] is True
    defs = function["parameters"]["$defs"]
    # The recursion stays a $ref (unrolled at most once), never expanded without end.
    assert '"#/$defs/Expression"' in json.dumps(defs["Expression"]["properties"]["Not"])


def test_schema_nested_deeper_than_strict_allows_is_sent_non_strict(
    spec3: Callable[..., dict[str, Any]],
    run_import: Callable[..., ImportResult],
    compile_result: Callable[[ImportResult], Any],
) -> None:
    # Google APIs: request bodies nested 11+ objects deep (OpenAI strict allows 10).
    leaf: dict[str, Any] = {"type": "string"}
    for i in range(12):
        leaf = {"type": "object", "properties": {f"level{i}": leaf}}
    doc = spec3({"/deep": _post(leaf)})
    result = run_import(doc)
    (function,) = _strict_export(compile_result(result))
    assert function["strict"] is False


def test_shallow_schema_stays_strict(
    spec3: Callable[..., dict[str, Any]],
    run_import: Callable[..., ImportResult],
    compile_result: Callable[[ImportResult], Any],
) -> None:
    leaf: dict[str, Any] = {"type": "string"}
    for i in range(3):
        leaf = {"type": "object", "properties": {f"level{i}": leaf}}
    (function,) = _strict_export(compile_result(run_import(spec3({"/deep": _post(leaf)}))))
    assert function["strict"] is True


def test_pattern_python_warns_about_imports_quietly(
    spec3: Callable[..., dict[str, Any]],
    run_import: Callable[..., ImportResult],
) -> None:
    # "[[a-z]" makes re emit FutureWarning (possible nested set); under -W error that was
    # an exception that skipped the operation as "unexpected FutureWarning".
    param = {"name": "q", "in": "query", "schema": {"type": "string", "pattern": "^[[a-z]+$"}}
    doc = spec3(
        {"/s": {"get": {"parameters": [param], "responses": {"200": {"description": "ok"}}}}}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = run_import(doc)
    assert [r.skipped for r in result.report] == [None]
    assert result.tools[0]["parameters"]["q"]["pattern"] == "^[[a-z]+$"


def test_yaml_specs_read_as_yaml_1_2_with_string_keys(tmp_path: Path) -> None:
    # YAML 1.1 (PyYAML's default) made a property named `on` the key True, `enum: [yes, no]`
    # booleans under `type: string`, `12:30` the integer 750 and `010` eight.
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "openapi: 3.0.3\n"
        "info: {title: T, version: 1}\n"
        "servers: [{url: 'https://api.example.com'}]\n"
        "paths:\n"
        "  /t:\n"
        "    post:\n"
        "      operationId: create\n"
        "      parameters:\n"
        "        - {name: mode, in: query, schema: {type: string, enum: [yes, no, on, off]}}\n"
        "        - {name: at, in: query, schema: {type: string, example: 12:30}}\n"
        "        - {name: n, in: query, schema: {type: integer, default: 010}}\n"
        "      requestBody:\n"
        "        required: true\n"
        "        content:\n"
        "          application/json:\n"
        "            schema:\n"
        "              type: object\n"
        "              required: [on]\n"
        "              properties: {on: {type: string}, 'off': {type: boolean, default: true}}\n"
        "      responses: {200: {description: ok}}\n",
        encoding="utf-8",
    )
    result = import_openapi(spec, progress=False)
    (tool,) = result.tools
    params = tool["parameters"]
    assert params["mode"]["enum"] == ["yes", "no", "on", "off"]
    assert params["at"]["examples"] == ["12:30"]
    assert params["n"]["default"] == 10  # YAML 1.1: octal 8
    assert params["on"] == {
        "in": "body",
        "required": True,
        "description": "The 'on' field of the request body.",
        "type": "string",
    }
    assert params["off"]["default"] is True


def _body_op(content: dict[str, Any]) -> dict[str, Any]:
    return {
        "post": {
            "operationId": "send",
            "requestBody": {"required": True, "content": content},
            "responses": {"200": {"description": "ok"}},
        }
    }


@pytest.mark.parametrize(
    "media", ["text/xml", "application/xml", "application/soap+xml", "application/x-yaml"]
)
def test_text_and_binary_bodies_of_any_subtype_import_as_one_argument(
    media: str,
    spec3: Callable[..., dict[str, Any]],
    run_import: Callable[..., ImportResult],
    compile_result: Callable[[ImportResult], Any],
) -> None:
    # 117 operations of APIs.guru's specs take only text/xml; others image/png or application/pdf.
    # (15 more take only application/xml, and some application/x-yaml or +xml types.)
    xml = {media: {"schema": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    png = {"image/png": {"schema": {"type": "string", "format": "binary"}}}
    doc = spec3({"/xml": _body_op(xml), "/png": _body_op(png)})
    doc["paths"]["/png"]["post"]["operationId"] = "upload"
    result = run_import(doc)
    assert [r.skipped for r in result.report] == [None, None]
    tools = {t["name"]: t for t in result.tools}
    assert tools["send"]["content_type"] == media
    assert tools["send"]["body_argument"] == "body"
    assert tools["send"]["parameters"]["body"]["type"] == "string"
    assert tools["upload"]["content_type"] == "image/png"
    assert tools["upload"]["parameters"]["body"]["contentEncoding"] == "base64"
    catalog = compile_result(result)
    with Executor(catalog, env={}) as ex:
        sent = ex.prepare(ToolCall("send", {"body": "<a>x</a>"}))
        assert isinstance(sent, PreparedRequest), sent
        assert dict(sent.headers)["Content-Type"] == media
        assert sent.body == "<a>x</a>"


def test_body_media_types_nothing_can_send_still_skip_with_the_reason(
    spec3: Callable[..., dict[str, Any]], run_import: Callable[..., ImportResult]
) -> None:
    doc = spec3({"/j": _body_op({"application/x-protobuf": {}, "image/*": {}})})
    result = run_import(doc)
    (report,) = result.report
    assert (
        report.skipped
        == "its request body media types (application/x-protobuf, image/*) are not supported"
    )
    assert [d.code for d in result.diagnostics] == ["TC204"]


def test_an_empty_media_type_is_named_in_the_skip_reason(
    spec3: Callable[..., dict[str, Any]], run_import: Callable[..., ImportResult]
) -> None:
    # Six operations of APIs.guru's specs have `content: {"": ...}`; the reason read "types ()".
    (report,) = run_import(spec3({"/e": _body_op({"": {"schema": {"type": "string"}}})})).report
    assert report.skipped == "its request body media types ('') are not supported"


def test_a_body_over_strict_modes_property_limit_is_sent_non_strict(
    spec3: Callable[..., dict[str, Any]],
    run_import: Callable[..., ImportResult],
    compile_result: Callable[[ImportResult], Any],
) -> None:
    # DocuSign's envelope bodies reach 13,000 properties (OpenAI strict allows 5,000).
    inner = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(60)}}
    body = {"type": "object", "properties": {f"o{i}": inner for i in range(90)}}
    (function,) = _strict_export(compile_result(run_import(spec3({"/big": _post(body)}))))
    assert function["strict"] is False
