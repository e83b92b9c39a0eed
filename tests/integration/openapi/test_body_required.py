"""A Directus-like spec: its bodies never say `required: true`, yet their schemas require
properties. The imported tools require those arguments, so every request a model can make
conforms to the spec (`toolcat test --conformance`); a body that requires nothing stays optional,
and a required one is still sent. JSON under other media types (merge patch, text/json) is read
as JSON on both sides."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from toolcat.cli import main

pytest.importorskip("openapi_core")  # the conformance extra

SPEC = """\
openapi: 3.0.1
info: {title: Directus-like, version: 1.0.0}
servers: [{url: "https://directus.example"}]
paths:
  /auth/login:
    post:
      operationId: login
      summary: Retrieve a temporary access token and refresh token.
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [email, password]
              properties:
                email: {type: string, format: email, example: admin@example.com}
                password: {type: string, description: Password of the user.}
                mode: {type: string, enum: [json, cookie, session]}
      responses:
        "200": {description: Successful request}
  /items/{collection}:
    post:
      operationId: createItem
      summary: Create a new item in the given collection.
      parameters:
        - {name: collection, in: path, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Item"}
      responses:
        "200": {description: Successful request}
    patch:
      operationId: updateItems
      summary: Update multiple items at the same time.
      parameters:
        - {name: collection, in: path, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                data: {type: object}
                keys: {type: array, items: {type: string}}
      responses:
        "200": {description: Successful request}
  /folders:
    post:
      operationId: createFolder
      summary: Create a new folder.
      requestBody:
        content:
          application/json:
            schema:
              allOf:
                - {$ref: "#/components/schemas/Folder"}
                - {type: object, properties: {parent: {type: string, format: uuid}}}
      responses:
        "200": {description: Successful request}
  /credentials:
    put:
      operationId: createCredential
      summary: A required body whose properties are all optional (sent as {} at least).
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                name: {type: string}
      responses:
        "200": {description: Successful request}
  /items/{collection}/{id}:
    patch:
      operationId: patchItem
      summary: A JSON merge patch.
      parameters:
        - {name: collection, in: path, required: true, schema: {type: string}}
        - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        content:
          application/merge-patch+json:
            schema: {$ref: "#/components/schemas/Item"}
      responses:
        "200": {description: Successful request}
  /scans:
    put:
      operationId: createScan
      summary: A body offered only as text/json, JSON under an older name.
      requestBody:
        content:
          text/json:
            schema:
              type: object
              required: [targets]
              properties:
                targets: {type: string}
      responses:
        "200": {description: Successful request}
components:
  schemas:
    Item:
      type: object
      required: [title]
      properties:
        title: {type: string}
        status: {type: string, enum: [draft, published]}
    Folder:
      type: object
      required: [name]
      properties:
        name: {type: string, description: Name of the folder.}
"""

REQUIRED = {
    "login": ["email", "password"],
    "createItem": ["collection", "title"],
    "updateItems": ["collection"],
    "createFolder": ["name"],
    "createCredential": [],
    "patchItem": ["collection", "id", "title"],
    "createScan": ["targets"],
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_imported_tools_require_what_the_body_requires_and_conform(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "directus.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    catalog = tmp_path / "directus-tools.yaml"
    code, _, err = run(capsys, "import", "openapi", str(spec), "-o", str(catalog))
    assert code == 0, err
    code, out, _ = run(capsys, "schema", str(catalog), "--provider", "mcp")
    assert code == 0
    import json

    tools = {t["name"]: t["inputSchema"] for t in json.loads(out)}
    assert {n: sorted(s.get("required", [])) for n, s in tools.items()} == {
        n: sorted(r) for n, r in REQUIRED.items()
    }
    code, out, err = run(capsys, "test", str(catalog), "--conformance", "--spec", str(spec))
    assert code == 0, out + err
    assert "conformance: 7 tools, 7 passed, 0 failed" in err


def test_an_openapi_entry_conforms_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "directus.yaml").write_text(SPEC, encoding="utf-8")
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(yaml.safe_dump({"toolcat": 1, "openapi": [{"spec": "directus.yaml"}]}))
    code, out, err = run(capsys, "test", str(catalog), "--conformance")
    assert code == 0, out + err
    assert "conformance: 7 tools, 7 passed, 0 failed" in err
