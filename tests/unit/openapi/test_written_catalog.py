"""What `toolcat import openapi` writes: each definition once, the options, the import policy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from toolcat.catalog.common import thaw
from toolcat.cli._app import main
from toolcat.loader import load_catalog
from toolcat.loader.openapi import catalog_document

ADDRESS = {
    "type": "object",
    "description": "A postal address.",
    "properties": {
        "line1": {"type": "string", "description": "Street and number."},
        "city": {"type": "string", "description": "The city."},
        "country": {"type": "string", "description": "Two-letter country code."},
    },
}
NODE = {  # recursive: a definition in the input schema too
    "type": "object",
    "description": "A tree node.",
    "properties": {
        "name": {"type": "string", "description": "Its name."},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
    },
}
NODE_REF = {"$ref": "#/components/schemas/Node"}
PET = {
    "type": "object",
    "description": "A pet.",
    "properties": {
        "id": {"type": "string", "readOnly": True},
        "name": {"type": "string"},
        "home": {"$ref": "#/components/schemas/Address"},
        "tree": {"$ref": "#/components/schemas/Node"},
    },
}


HTML = "<p>Lists the <code>pets</code>.</p><ul><li>newest first</li></ul>"


def _ok(schema: str) -> dict[str, Any]:
    return {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": schema}}}}
    }


def _spec(spec3: Any) -> dict[str, Any]:
    inline_address = dict(ADDRESS)  # written inline in two operations, as Stripe does
    body = {
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The name."},
                        "address": inline_address,
                        "tree": {"$ref": "#/components/schemas/Node"},
                    },
                }
            }
        }
    }
    doc: dict[str, Any] = spec3(
        {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "summary": "List pets",
                    "description": HTML,
                    "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer"}}],
                    "requestBody": {  # only {} could be sent: left out
                        "content": {
                            "application/x-www-form-urlencoded": {
                                "schema": {
                                    "type": "object",
                                    "properties": {},
                                    "additionalProperties": False,
                                }
                            }
                        }
                    },
                    "responses": _ok("#/components/schemas/Pet"),
                },
                "post": {
                    "operationId": "createPet",
                    "description": "Create a pet.",
                    "requestBody": body,
                    "responses": _ok("#/components/schemas/Pet"),
                },
            },
            "/pets/{petId}": {
                "put": {
                    "operationId": "replacePet",
                    "description": "Replace a pet.",
                    "parameters": [
                        {
                            "name": "petId",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ],
                    "requestBody": body,
                    "responses": _ok("#/components/schemas/Pet"),
                },
                "delete": {
                    "operationId": "deletePet",
                    "description": "Delete a pet.",
                    "parameters": [
                        {
                            "name": "petId",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ],
                    "responses": {"204": {"description": "gone"}},
                },
            },
        },
        components={"schemas": {"Pet": PET, "Address": ADDRESS, "Node": NODE}},
    )
    return doc


@pytest.fixture
def spec_file(tmp_path: Path, spec3: Any) -> Path:
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(_spec(spec3)), encoding="utf-8")
    return path


def _write(spec: Path, out: Path, *flags: str) -> dict[str, Any]:
    assert main(["import", "openapi", str(spec), "-o", str(out), "-q", *flags]) == 0
    loaded = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _bodies(doc: dict[str, Any]) -> list[str]:
    return [json.dumps(b, sort_keys=True) for b in (doc.get("definitions") or {}).values()]


def test_each_definition_is_written_once(spec_file: Path, tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "pets.yaml"
    doc = _write(spec_file, out)
    bodies = _bodies(doc)
    assert bodies and len(bodies) == len(set(bodies)), "a definition written twice"
    for tool in doc["tools"]:
        assert "definitions" not in tool
        assert "$defs" not in (tool.get("output_schema") or {})
    # the inline address of both bodies is one shared definition, referred to twice
    text = out.read_text(encoding="utf-8")
    refs = [
        t["parameters"]["address"] for t in doc["tools"] if "address" in t.get("parameters", {})
    ]
    assert len(refs) == 2 and refs[0] == refs[1] and "$ref" in refs[0]
    assert text.count("Street and number.") == 1
    # it loads clean, with lint, and the tools carry the $defs they reach
    result = load_catalog([out])
    assert result.catalog is not None and not result.diagnostics, [
        str(d) for d in result.diagnostics
    ]
    create = result.catalog["createPet"]
    assert set(create.input_schema["$defs"]) >= {"Node"}
    out_defs = thaw(create.output_schema)["$defs"]
    assert {"Pet", "Address", "Node"} <= {n.split("_")[0] for n in out_defs}
    capsys.readouterr()


def test_writing_leaves_the_import_as_it_was(spec3: Any, run_import: Any) -> None:
    # the writer copies only what it changes (the holders of repeated schemas, renamed
    # definitions): the imported tools and their shared schemas stay as they were
    def body(i: int) -> dict[str, Any]:  # each shipping its own, the address inside alike
        note = {"type": "string", "description": f"A note for order kind {i}."}
        to = {"type": "object", "properties": {"address": ADDRESS, "name": {"type": "string"}}}
        shipping = {"type": "object", "properties": {"to": to, "note": note}}
        return {"type": "object", "properties": {"shipping": shipping, "tree": NODE_REF}}

    ops = {
        f"/orders{i}": {
            "post": {
                "operationId": f"order{i}",
                "requestBody": {"content": {"application/json": {"schema": body(i)}}},
                "responses": _ok("#/components/schemas/Pet"),
            }
        }
        for i in (1, 2)
    }
    schemas = {"Pet": PET, "Address": ADDRESS, "Node": NODE}
    result = run_import(spec3(ops, components={"schemas": schemas}))
    imported = json.dumps(result.tools, sort_keys=True)
    doc = catalog_document(result)
    assert json.dumps(result.tools, sort_keys=True) == imported
    assert catalog_document(result) == doc
    for tool in doc["tools"]:  # the recipient inside each shipping is one definition
        assert set(tool["parameters"]["shipping"]["properties"]["to"]) == {"$ref"}
    assert sum("Street and number." in json.dumps(d) for d in doc["definitions"].values()) == 1


def test_inline_and_shared_load_to_the_same_tools(
    spec_file: Path, tmp_path: Path, capsys: Any
) -> None:
    shared, inline = tmp_path / "shared.yaml", tmp_path / "inline.yaml"
    _write(spec_file, shared)
    doc = _write(spec_file, inline, "--output-schemas", "inline")
    assert "definitions" not in doc
    assert any("$defs" in (t.get("output_schema") or {}) for t in doc["tools"])
    a, b = load_catalog([shared]).catalog, load_catalog([inline]).catalog
    assert a is not None and b is not None
    for tool in a:
        assert tool.command == b[tool.name].command
        assert (tool.output_schema is None) == (b[tool.name].output_schema is None)
    none = _write(spec_file, tmp_path / "none.yaml", "--output-schemas", "none")
    assert not any("output_schema" in t for t in none["tools"])
    capsys.readouterr()


def test_defaults_policy_descriptions_and_base_url(
    spec_file: Path, tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "pets.yaml"
    doc = _write(spec_file, out)
    header = out.read_text(encoding="utf-8").splitlines()[:5]
    assert header[0].startswith("# Generated by `toolcat import openapi` from pets.json")
    assert header[3].startswith("# Options: --output-schemas shared")
    assert "confirm: true for every method that is not safe" in header[4]
    tools = {t["name"]: t for t in doc["tools"]}
    assert [n for n, t in tools.items() if t.get("confirm") is True] == [
        "createPet",
        "replacePet",
        "deletePet",
    ]
    assert "confirm" not in tools["listPets"]
    listed = tools["listPets"]
    assert listed["description"] == "List pets\n\nLists the `pets`.\n\n- newest first"
    assert "body_argument" not in listed and set(listed["parameters"]) == {"limit"}
    assert listed["parameters"]["limit"]["description"] == "The 'limit' query parameter."
    assert doc["services"]["test_api"]["base_url"] == (
        "${TEST_API_BASE_URL:-https://api.example.com/v1}"
    )
    assert main(["validate", "--fail-on", "warning", str(out)]) == 0
    capsys.readouterr()


def test_options_change_what_is_written(spec_file: Path, tmp_path: Path, capsys: Any) -> None:
    doc = _write(
        spec_file,
        tmp_path / "pets.yaml",
        "--confirm-methods",
        "delete",
        "--naming",
        "snake_case",
        "--base-url-style",
        "fixed",
        "--descriptions",
        "keep",
        "--description-max",
        "40",
    )
    tools = {t["name"]: t for t in doc["tools"]}
    assert set(tools) == {"list_pets", "create_pet", "replace_pet", "delete_pet"}
    assert tools["delete_pet"]["confirm"] is True
    assert tools["create_pet"]["confirm"] is False  # a write the policy leaves unconfirmed
    assert doc["services"]["test_api"]["base_url"] == "https://api.example.com/v1"
    described = tools["list_pets"]["description"]
    assert described.startswith("List pets") and described.endswith("…") and len(described) <= 40
    assert "<p>" in described or len(described) < 20
    capsys.readouterr()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--confirm-methods", "FETCH"], "--confirm-methods 'FETCH'"),
        (["--description-max", "5"], "--description-max must be between"),
    ],
)
def test_bad_options_are_one_line(
    spec_file: Path, tmp_path: Path, capsys: Any, flags: list[str], message: str
) -> None:
    assert main(["import", "openapi", str(spec_file), "-o", str(tmp_path / "x.yaml"), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "x.yaml").exists()


def test_entry_options_give_the_same_tools_as_the_command(
    spec_file: Path, tmp_path: Path, capsys: Any
) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "toolcat: 1\nopenapi:\n  - spec: pets.json\n    naming: snake_case\n"
        "    confirm_methods: [DELETE]\n    output_schemas: none\n    base_url_style: fixed\n",
        encoding="utf-8",
    )
    entry = load_catalog([catalog])
    assert entry.catalog is not None and not entry.diagnostics, [str(d) for d in entry.diagnostics]
    written = tmp_path / "written.yaml"
    _write(
        spec_file,
        written,
        "--naming",
        "snake_case",
        "--confirm-methods",
        "DELETE",
        "--output-schemas",
        "none",
        "--base-url-style",
        "fixed",
    )
    again = load_catalog([written])
    assert again.catalog is not None and not again.diagnostics
    assert [t.name for t in entry.catalog] == [t.name for t in again.catalog]
    for tool in entry.catalog:
        other = again.catalog[tool.name]
        assert (tool.confirm, tool.output_schema) == (other.confirm, other.output_schema)
    assert entry.catalog.services["test_api"].base_url == "https://api.example.com/v1"
    capsys.readouterr()


def test_a_bad_entry_option_is_located(spec_file: Path, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "toolcat: 1\nopenapi:\n  - spec: pets.json\n    output_schemas: everywhere\n",
        encoding="utf-8",
    )
    result = load_catalog([catalog])
    assert result.catalog is None
    (found,) = [d for d in result.diagnostics if d.severity == "error"]
    assert found.line == 4 and "output_schemas" in found.message


def test_html_that_nests_too_deeply_is_kept_as_written() -> None:
    from toolcat.loader.openapi._text import markdown_text, within

    deep = "<ul>" + "<li><ul>" * 3000 + "</ul>"
    assert markdown_text(deep) == deep  # no RecursionError: the operation is not lost
    assert markdown_text("<p>a <b>b</b></p>") == "a **b**"
    assert markdown_text("Markdown *stays*\n\n- as written") == "Markdown *stays*\n\n- as written"
    assert within("word " * 100, 40).endswith("…") and len(within("word " * 100, 40)) <= 40
