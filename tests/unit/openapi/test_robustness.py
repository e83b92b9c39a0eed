"""Real-world spec mistakes never fail a whole import, and what is written always loads."""

from __future__ import annotations

from typing import Any

import pytest


def test_defaults_and_enum_values_that_break_their_schema_are_dropped(
    spec3: Any, run_import: Any, compile_result: Any
) -> None:
    doc = spec3(
        {
            "/x": {
                "get": {
                    "operationId": "x",
                    "parameters": [
                        {
                            "name": "limit",
                            "in": "query",
                            "schema": {"type": "integer", "default": "10"},
                        },
                        {
                            "name": "sort",
                            "in": "query",
                            "schema": {
                                "type": "string",
                                "enum": ["asc", 1, "desc"],
                                "default": "up",
                            },
                        },
                        {
                            "name": "ok",
                            "in": "query",
                            "schema": {"type": "integer", "default": 5, "enum": [5, 6]},
                        },
                    ],
                    "responses": {},
                }
            }
        }
    )
    result = run_import(doc)
    params = result.tools[0]["parameters"]
    assert "default" not in params["limit"]
    assert params["sort"]["enum"] == ["asc", "desc"] and "default" not in params["sort"]
    assert params["ok"]["default"] == 5 and params["ok"]["enum"] == [5, 6]
    assert len(result.report[0].notes) == 4  # the last: the arguments given a description
    compile_result(result)  # the loader accepts what is left


@pytest.mark.parametrize(
    ("path", "reason"),
    [("pets", "does not start with '/'"), ("/pets/{pet id}", "not a plain name")],
)
def test_paths_the_catalog_cannot_express_skip_the_operation(
    spec3: Any, run_import: Any, path: str, reason: str
) -> None:
    doc = spec3(
        {
            path: {"get": {"operationId": "bad", "responses": {}}},
            "/ok": {"get": {"operationId": "ok", "responses": {}}},
        }
    )
    result = run_import(doc)
    assert [t["name"] for t in result.tools] == ["ok"]
    assert reason in result.report[0].skipped


@pytest.mark.parametrize(
    "servers",
    [
        [{"url": "{scheme}://api.example.com"}],
        [{"url": "ws://api.example.com"}],
    ],
)
def test_unusable_server_urls_become_a_variable(
    spec3: Any, run_import: Any, compile_result: Any, servers: Any
) -> None:
    result = run_import(
        spec3({"/x": {"get": {"operationId": "x", "responses": {}}}}, servers=servers)
    )
    assert result.services["test_api"]["base_url"] == "${TEST_API_BASE_URL}"
    assert [d.code for d in result.diagnostics] == ["TC205"]
    compile_result(result)


def test_odd_shapes_are_skipped_or_ignored_never_raised(
    spec3: Any, run_import: Any, compile_result: Any
) -> None:
    doc = spec3(
        {
            "/a": {
                "get": {
                    "operationId": "a",
                    "parameters": [{"name": "p", "in": {"x": 1}}],
                    "responses": {},
                }
            },
            "/b": {
                "get": {
                    "operationId": "b",
                    "tags": "notalist",
                    "parameters": "nope",
                    "responses": [],
                }
            },
            "/c": {
                "post": {
                    "operationId": "c",
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"type": [{"x": 1}], "items": []}}
                        }
                    },
                    "responses": {},
                }
            },
            "/d": "not an item",
            "/e": {"get": True},
        },
        security="nope",
        servers=[{"url": 5}],
    )
    result = run_import(doc)
    names = [t["name"] for t in result.tools]
    assert names == ["b", "c"]
    assert {r.path for r in result.report if r.skipped} == {"/a", "/e"}
    compile_result(result)


def test_recursive_yaml_aliases_skip_the_operation(tmp_path: Any) -> None:
    from toolcat.loader.openapi import import_openapi

    text = """
openapi: 3.0.0
info: {title: Loop, version: "1"}
servers: [{url: "https://l.example.com"}]
paths:
  /loop:
    post:
      operationId: loop
      requestBody:
        content:
          application/json:
            schema: &s {type: object, properties: {next: *s}}
      responses: {}
  /fine:
    get: {operationId: fine, responses: {}}
"""
    path = tmp_path / "loop.yaml"
    path.write_text(text)
    result = import_openapi(path, progress=False)
    assert [t["name"] for t in result.tools] == ["fine"]
    assert "nest too deeply" in (result.report[0].skipped or "")


def test_patterns_python_cannot_compile_are_left_out(spec3: Any, one_tool: Any) -> None:
    schema = {"type": "string", "pattern": "(?<word>[a-z]+)", "default": "abc"}
    ok = {"type": "string", "pattern": "^[a-z]+$"}
    doc = spec3(
        {
            "/p": {
                "get": {
                    "operationId": "p",
                    "parameters": [
                        {"name": "a", "in": "query", "schema": schema},
                        {"name": "b", "in": "query", "schema": ok},
                    ],
                    "responses": {},
                }
            }
        }
    )
    params = one_tool(doc)["parameters"]
    assert "pattern" not in params["a"] and params["a"]["default"] == "abc"
    assert params["b"]["pattern"] == "^[a-z]+$"
