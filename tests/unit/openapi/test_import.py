"""Whole imports: refusing bad specs, skipping bad operations, refs across files, hints, report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from toolcat.loader.openapi import ImportOptions, import_openapi
from toolcat.loader.openapi._emit import catalog_document, render_catalog


def test_unreadable_and_unsupported_specs(tmp_path: Path) -> None:
    cases = {
        "missing.json": (None, "TC201"),
        "broken.json": ("{not json", "TC201"),
        "broken.yaml": ("a: [1, 2\n", "TC201"),
        "old.json": (json.dumps({"swagger": "1.2"}), "TC202"),
        "v4.yaml": ("openapi: 4.0.0\n", "TC202"),
        "plain.yaml": ("toolcat: 1\n", "TC202"),
    }
    for name, (text, code) in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        result = import_openapi(path)
        assert [d.code for d in result.diagnostics] == [code], name
        assert result.tools == [] and result.services == {}


def test_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(
        json.dumps({"openapi": "3.0.0", "info": {"title": "x" * 5000, "version": "1"}, "paths": {}})
    )
    result = import_openapi(path, ImportOptions(max_spec_bytes=1000))
    assert [d.code for d in result.diagnostics] == ["TC207"]
    assert "1,000" in result.diagnostics[0].message


def test_yaml_dates_and_integer_status_codes(tmp_path: Path) -> None:
    text = """
openapi: 3.0.0
info: {title: Dates, version: 1}
servers: [{url: "https://d.example.com"}]
paths:
  /d:
    get:
      operationId: d
      parameters:
        - {name: since, in: query, schema: {type: string, format: date, default: 2024-01-01}}
      responses:
        200:
          description: ok
          content: {application/json: {schema: {type: string}}}
"""
    path = tmp_path / "d.yaml"
    path.write_text(text)
    tool = import_openapi(path).tools[0]
    assert tool["parameters"]["since"]["default"] == "2024-01-01"
    assert tool["output_schema"] == {"type": "string"}


def test_unresolved_ref_skips_only_the_operations_using_it(spec3: Any, run_import: Any) -> None:
    doc = spec3(
        {
            "/a": {
                "get": {
                    "operationId": "a",
                    "parameters": [{"$ref": "#/components/parameters/Missing"}],
                    "responses": {},
                }
            },
            "/b": {
                "post": {
                    "operationId": "b",
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "other.json#/X"}}}
                    },
                    "responses": {},
                }
            },
            "/c": {
                "get": {
                    "operationId": "c",
                    "parameters": [{"$ref": "https://example.com/p.json"}],
                    "responses": {},
                }
            },
            "/ok": {"get": {"operationId": "ok", "responses": {}}},
        }
    )
    result = run_import(doc)
    assert [t["name"] for t in result.tools] == ["ok"]
    codes = {d.message.split(" ")[2]: d.code for d in result.diagnostics}
    assert codes == {"/a": "TC203", "/b": "TC203", "/c": "TC203"}
    reasons = {r.path: r.skipped for r in result.report}
    assert (
        "Missing" in reasons["/a"]
        and "does not exist" in reasons["/b"]
        and "network" in reasons["/c"]
    )
    assert len(result.tools) == len(result.report) - sum(1 for r in result.report if r.skipped)


def test_refs_into_other_files_and_outside_the_tree(tmp_path: Path) -> None:
    (tmp_path / "api" / "schemas").mkdir(parents=True)
    (tmp_path / "api" / "schemas" / "pet.yaml").write_text(
        "type: object\nproperties:\n  name: {type: string}\n  owner: {$ref: 'owner.yaml'}\n"
    )
    (tmp_path / "api" / "schemas" / "owner.yaml").write_text(
        "type: object\nproperties:\n  id: {type: integer}\n"
    )
    (tmp_path / "secret.yaml").write_text("type: string\n")
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "Files", "version": "1"},
        "paths": {
            "/pets": {
                "post": {
                    "operationId": "add",
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "schemas/pet.yaml"}}}
                    },
                    "responses": {},
                }
            },
            "/leak": {
                "post": {
                    "operationId": "leak",
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "../../secret.yaml"}}}
                    },
                    "responses": {},
                }
            },
        },
    }
    (tmp_path / "api" / "spec.json").write_text(json.dumps(spec))
    result = import_openapi(
        tmp_path / "api" / "spec.json", ImportOptions(ref_root=tmp_path / "api")
    )
    tools = {t["name"]: t for t in result.tools}
    assert tools["add"]["parameters"]["owner"]["properties"] == {"id": {"type": "integer"}}
    assert "leak" not in tools
    assert any("outside the $ref root" in (r.skipped or "") for r in result.report)


def test_hints_output_schema_and_description(spec3: Any, run_import: Any) -> None:
    resp = {
        "description": "ok",
        "content": {
            "application/json": {
                "schema": {"type": "object", "properties": {"id": {"type": "string"}}}
            }
        },
    }
    doc = spec3(
        {
            "/r": {
                "get": {
                    "operationId": "get_r",
                    "summary": "Get r",
                    "description": "Long text.",
                    "responses": {
                        "default": {"description": "x"},
                        "201": resp,
                        "200": {"description": "empty"},
                    },
                },
                "put": {"operationId": "put_r", "deprecated": True, "responses": {}},
                "delete": {"operationId": "del_r", "responses": {}},
                "post": {"operationId": "post_r", "responses": {}},
            }
        }
    )
    tools = {t["name"]: t for t in run_import(doc).tools}
    g = tools["get_r"]
    assert g["description"] == "Get r\n\nLong text."
    assert g["annotations"] == {
        "title": "Get r",
        "read_only": True,
        "destructive": False,
        "idempotent": True,
    }
    assert g["output_schema"]["properties"] == {"id": {"type": "string"}}
    assert tools["put_r"]["annotations"] == {
        "read_only": False,
        "destructive": True,
        "idempotent": True,
    }
    assert tools["put_r"]["description"].startswith("(Deprecated) PUT /r")
    assert tools["del_r"]["annotations"]["idempotent"] is True
    assert tools["post_r"]["annotations"]["idempotent"] is False


@pytest.mark.parametrize("media", ["text/json", "application/problem+json", "*/*"])
def test_a_response_in_another_json_media_type_gives_the_output_schema(
    spec3: Any, run_import: Any, media: str
) -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    ok = {"description": "ok", "content": {media: {"schema": schema}}}
    doc = spec3({"/r": {"get": {"operationId": "get_r", "responses": {"200": ok}}}})
    assert run_import(doc).tools[0]["output_schema"]["properties"] == schema["properties"]


def test_unsupported_methods_are_reported(spec3: Any, run_import: Any) -> None:
    doc = spec3(
        {
            "/q": {
                "query": {"operationId": "q", "responses": {}},
                "get": {"operationId": "g", "responses": {}},
            }
        }
    )
    doc["openapi"] = "3.2.0"
    result = run_import(doc)
    assert [t["name"] for t in result.tools] == ["g"]
    assert any("QUERY" in d.message for d in result.diagnostics if d.code == "TC204")


def test_rendered_yaml_is_the_same_documents(spec3: Any, run_import: Any, tmp_path: Path) -> None:
    doc = spec3(
        {"/r": {"get": {"operationId": "r", "description": "line one\nline two", "responses": {}}}}
    )
    result = run_import(doc)
    text = render_catalog(result, tmp_path / "spec.json")
    assert text.startswith("# Generated by `toolcat import openapi` from spec.json (OpenAPI 3.0).")
    assert "description: |-" in text or "description: |" in text
    loaded = yaml.safe_load(text)
    assert loaded == catalog_document(result)
    assert loaded["tools"] == [  # the writer leaves out what the catalog gives anyway
        {k: v for k, v in t.items() if k != "annotations"} for t in result.tools
    ]


@pytest.mark.parametrize("progress", [True, False])
def test_progress_only_when_asked(spec3: Any, tmp_path: Path, capsys: Any, progress: bool) -> None:
    paths = {f"/p{i}": {"get": {"operationId": f"p{i}", "responses": {}}} for i in range(120)}
    path = tmp_path / "many.json"
    path.write_text(json.dumps(spec3(paths)))
    result = import_openapi(path, progress=progress)
    assert len(result.tools) == 120
    err = capsys.readouterr().err
    assert ("120/120 operations" in err) is progress


TRICKY = [
    "yes", "on", "No", "y", "null", "~", "123", "1.5", "0x1F", "1e3", "", " lead", "trail ", "a: b",
    "a #b", "#x", "-x", "- x", "? x", "multi\nline", "multi\nline\n", "ends\n\n", "  indented\nx",
    "tab\tx", "line\u2028sep", "nel\x85", "日本語", "{braces}", "[x]", "@at", "`tick", "key:",
    "!tag", "&anchor", "*alias", "%pct", "'quote", '"dq', "a\\b", "$ref", "${VAR}", "a,b",
    "2024-01-01", "/pets/{petId}", "/a/{b}/c {d}", "/", "//x", "trailing space \nnext",
    "\nleading newline", "ctl\x07", "\ufeffbom", "<<",
]  # fmt: skip


@pytest.mark.parametrize("loader", ["CSafeLoader", "SafeLoader"])
def test_written_yaml_keeps_every_string_exactly(tmp_path: Path, loader: str) -> None:
    from toolcat.loader.openapi import ImportResult

    values = {f"k{i}": s for i, s in enumerate(TRICKY)}
    keyed = {s: i for i, s in enumerate(TRICKY) if s}
    tool = {"name": "t", "description": "x", "enum": TRICKY, "values": values, "keys": keyed,
            "nested": [[1, 2.5, None, True], {}, [], [{"a": [{"b": "c"}]}]]}  # fmt: skip
    from toolcat.loader.openapi._emit import _block

    lines: list[str] = []
    _block({"tools": [tool]}, 0, lines)  # the fast writer itself (no PyYAML fallback)
    assert yaml.load("\n".join(lines), Loader=getattr(yaml, loader))["tools"][0] == tool
    result = ImportResult(tools=[tool], services={"s": {"base_url": "https://x"}}, version="3.0")
    text = render_catalog(result, tmp_path / "spec.json")
    assert yaml.load(text, Loader=getattr(yaml, loader))["tools"][0] == tool


def test_yaml_alias_bombs_are_refused(tmp_path: Path) -> None:
    lines = [
        "openapi: 3.0.0",
        "info: {title: bomb, version: '1'}",
        "x0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
    ]
    for i in range(1, 9):
        prev = f"*a{i - 1}"
        lines.append(f"x{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append("paths: {}")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    result = import_openapi(path)
    assert [d.code for d in result.diagnostics] == ["TC207"]
    assert "aliases" in result.diagnostics[0].message
