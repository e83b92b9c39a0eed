"""OpenAPI Overlay 1.0 on imports, ``rules:`` for many operations, per-operation overrides."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolcat.cli._app import main
from toolcat.loader import LoadResult, load_catalog
from toolcat.loader.openapi import ImportOptions, import_openapi
from toolcat.tests.support import http_command

SPEC = """\
openapi: 3.0.3
info: {title: Shop, version: "1"}
servers: [{url: "https://shop.example.com/v1"}]
paths:
  /items:
    get:
      operationId: listItems
      tags: [items]
      summary: List items.
      parameters: [{name: limit, in: query, schema: {type: integer}}]
      responses: {"200": {description: ok}}
    post:
      {operationId: createItem, tags: [items], summary: Create an item., responses: {"201": {}}}
  /items/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get: {operationId: getItem, tags: [items], summary: Get an item., responses: {"200": {}}}
    delete:
      {operationId: deleteItem, tags: [admin], summary: Delete an item., responses: {"204": {}}}
  /admin/stats:
    get: {operationId: adminStats, tags: [admin], summary: Statistics., responses: {"200": {}}}
"""


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    (tmp_path / "spec.yaml").write_text(SPEC)
    return tmp_path


def _load(folder: Path, entry: str, overlay: str | None = None) -> LoadResult:
    if overlay is not None:
        (folder / "overlay.yaml").write_text(overlay)
    catalog = folder / "catalog.yaml"
    catalog.write_text("toolcat: 1\nopenapi:\n  - spec: spec.yaml\n" + entry)
    return load_catalog([catalog], progress=False)


def _found(result: LoadResult) -> list[str]:
    return [f"{Path(d.file).name}:{d.line}:{d.column} {d.code}" for d in result.diagnostics]


OVERLAY = """\
overlay: 1.0.0
info: {title: Team changes, version: "1"}
actions:
  - target: $.paths['/items'].get
    description: a description the model reads better
    update: {summary: List every item in the shop.}
  - target: $.paths.*[?@.operationId == 'createItem']
    update: {x-toolcat-confirm: true, summary: Add an item to the shop.}
  - target: $.paths['/admin/stats']
    remove: true
  - target: $.paths['/items'].get.parameters
    update: {name: cursor, in: query, schema: {type: string}}
"""


def test_an_overlay_changes_the_spec_before_import(shop: Path) -> None:
    result = _load(shop, "    overlays: [overlay.yaml]\n", OVERLAY)
    assert result.diagnostics == ()
    assert result.catalog is not None
    assert result.catalog["listItems"].description == "List every item in the shop."
    assert result.catalog["createItem"].description == "Add an item to the shop."
    assert result.catalog["createItem"].confirm  # the overlay's x-toolcat-confirm
    assert "adminStats" not in [t.name for t in result.catalog]
    assert set(result.catalog["listItems"].input_schema["properties"]) == {"limit", "cursor"}


def test_overlays_apply_in_order_and_leave_the_callers_document_alone(shop: Path) -> None:
    from toolcat.loader.openapi._overlay import apply_overlays, read_overlay

    (shop / "a.yaml").write_text(
        "overlay: 1.0.0\ninfo: {title: a, version: '1'}\nactions:\n"
        "  - {target: '$.info', update: {title: First, contact: {name: a, url: u}}}\n"
        "  - {target: '$.tags', update: [{name: x}, {name: y}]}\n"
    )
    (shop / "b.yaml").write_text(
        "overlay: 1.0.1\ninfo: {title: b, version: '1'}\nactions:\n"
        "  - {target: '$.info', update: {title: Second, contact: {name: b}}}\n"
        "  - {target: '$.tags[?@.name == \"x\"]', remove: true}\n"
    )
    doc: dict[str, Any] = {"info": {"title": "T", "contact": {"email": "e"}}, "tags": []}
    before = json.dumps(doc)
    out: list[Any] = []
    overlays = [read_overlay(shop / n, 1 << 20, out) for n in ("a.yaml", "b.yaml")]
    assert out == [] and all(overlays)
    changed = apply_overlays(doc, [o for o in overlays if o], out)
    assert out == []
    assert changed == {
        "info": {"title": "Second", "contact": {"email": "e", "name": "b", "url": "u"}},
        "tags": [{"name": "y"}],
    }
    assert json.dumps(doc) == before


@pytest.mark.parametrize(
    ("overlay", "expected"),
    [
        (
            "overlay: 2.0.0\ninfo: {title: t, version: '1'}\n"
            "actions: [{target: $, remove: true}]\n",
            "overlay.yaml:1:10 TC061",
        ),
        (
            "overlay: 1.0.0\ninfo: {title: t}\nactions: [{target: $.a, update: {}}]\n",
            "overlay.yaml:2:7 TC061",
        ),
        (
            "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.paths[?\n"
            "    update: {}\n",
            "overlay.yaml:4:22 TC062",
        ),
        (
            "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.info\n",
            "overlay.yaml:4:5 TC061",
        ),
        (
            "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.info\n"
            "    update: {}\n    merge: true\n",
            "overlay.yaml:6:5 TC061",
        ),
        (
            "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n"
            "  - target: $.info.title\n    update: {a: 1}\n",
            "overlay.yaml:4:13 TC063",
        ),
        (
            "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.nothing\n"
            "    update: {a: 1}\n",
            "overlay.yaml:4:13 TC220",
        ),
        ("overlay: 1.0.0\ninfo: [\n", "overlay.yaml:3:1 TC060"),
    ],
)
def test_overlay_problems_are_located_in_the_overlay(
    shop: Path, overlay: str, expected: str
) -> None:
    result = _load(shop, "    overlays: [overlay.yaml]\n", overlay)
    assert _found(result) == [expected]


def test_a_missing_overlay_is_placed_at_the_entry(shop: Path) -> None:
    result = _load(shop, "    overlays: [overlay.yaml, gone.yaml]\n", OVERLAY)
    assert _found(result) == ["catalog.yaml:4:30 TC060"]
    assert result.catalog is None


def test_rules_apply_in_order_and_overrides_win(shop: Path) -> None:
    entry = """\
    rules:
      - match: {methods: [post, DELETE]}
        confirm: true
        toolsets: [writes]
      - match: {tags: [items]}
        description_prefix: "[shop]"
        timeout: 5
        retry: {attempts: 3}
      - match: {paths: ["/admin/*"]}
        exclude: true
      - match: {operations: ["get*"]}
        toolsets: [reads]
        confirm: true
    tools:
      getItem: {description: Fetch one item by id., confirm: false, timeout: {read: 2}}
      deleteItem:
        return_direct: true
        headers: {X-Team: ops}
        parameters: {id: {description: The item's id., pattern: "^[0-9]+$"}}
        annotations: {title: Remove an item}
"""
    result = _load(shop, entry)
    assert result.diagnostics == ()
    catalog = result.catalog
    assert catalog is not None
    assert sorted(t.name for t in catalog) == ["createItem", "deleteItem", "getItem", "listItems"]
    assert catalog.toolsets == {"writes": ("createItem", "deleteItem"), "reads": ("getItem",)}
    assert catalog["createItem"].confirm and catalog["deleteItem"].confirm
    assert not catalog["listItems"].confirm
    assert catalog["listItems"].description == "[shop] List items."
    listed = http_command(catalog["listItems"])
    assert listed.timeouts is not None and listed.timeouts.total == 5
    assert listed.retry is not None and listed.retry.attempts == 3
    get = catalog["getItem"]  # the override wins over rules 2 and 4
    assert get.description == "Fetch one item by id." and not get.confirm
    timeouts = http_command(get).timeouts
    assert timeouts is not None and timeouts.read == 2
    delete = catalog["deleteItem"]
    assert http_command(delete).headers["X-Team"] == "ops"
    assert delete.return_direct and not get.return_direct
    assert delete.input_schema["properties"]["id"]["pattern"] == "^[0-9]+$"
    assert delete.annotations.title == "Remove an item"
    assert delete.description == "Delete an item."  # rule 2 matches tag items only


def test_rule_toolsets_join_the_catalogs_own(shop: Path) -> None:
    entry = "    rules: [{match: {methods: [GET]}, toolsets: [reads]}]\n"
    entry += "toolsets:\n  reads: [createItem]\n"
    result = _load(shop, entry)
    assert result.catalog is not None, _found(result)
    assert result.catalog.toolsets["reads"] == ("createItem", "listItems", "getItem", "adminStats")


def test_rule_findings_are_located_in_the_entry(shop: Path) -> None:
    entry = """\
    rules:
      - match: {tags: [nothing]}
        confirm: true
      - match: {methods: [GET]}
"""
    result = _load(shop, entry)
    assert _found(result) == ["catalog.yaml:7:9 TC064", "catalog.yaml:5:9 TC221"]
    assert [d.severity for d in result.diagnostics] == ["error", "warning"]


def test_rules_and_overrides_are_validated_like_written_tools(shop: Path) -> None:
    entry = """\
    rules:
      - match: {methods: [GET]}
        timeout: -1
    tools:
      getItem: {retry: {attempts: 50}}
      listItems: {method: FETCH, parameters: {limit: {in: nowhere}}}
"""
    found = _found(_load(shop, entry))
    assert found == [
        "catalog.yaml:6:18 TC008",
        "catalog.yaml:8:35 TC008",
        "catalog.yaml:9:27 TC008",
        "catalog.yaml:9:59 TC008",
    ], found


def test_the_api_applies_overlays_and_rules(shop: Path) -> None:
    (shop / "overlay.yaml").write_text(OVERLAY)
    options = ImportOptions(
        overlays=(shop / "overlay.yaml",),
        rules=({"match": {"methods": ["GET"]}, "exclude": True},),
    )
    result = import_openapi(shop / "spec.yaml", options, progress=False)
    assert [t["name"] for t in result.tools] == ["createItem", "deleteItem"]
    assert [r.skipped for r in result.report if r.skipped] == ["left out by rule 1"] * 2


def test_the_cli_applies_overlays(shop: Path, tmp_path: Path, capsys: Any) -> None:
    (shop / "overlay.yaml").write_text(OVERLAY)
    out = tmp_path / "out.yaml"
    args = ["import", "openapi", str(shop / "spec.yaml"), "--overlay", str(shop / "overlay.yaml")]
    assert main([*args, "-o", str(out), "-q"]) == 0
    written = load_catalog([out], progress=False)
    assert written.catalog is not None
    assert written.catalog["listItems"].description == "List every item in the shop."
    (shop / "bad.yaml").write_text("overlay: 1.0.0\n")
    capsys.readouterr()
    assert main([*args, "--overlay", str(shop / "bad.yaml"), "-o", str(tmp_path / "x.yaml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.yaml:1:1: error TC061" in err[0], err
    assert not (tmp_path / "x.yaml").exists()
