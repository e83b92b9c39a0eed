"""Output schemas are computed only for a caller that takes them: the export is the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import Catalog
from toolcat.executor.providers import export_catalog, get, names
from toolcat.loader import LoadResult, load_catalog

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Orders", "version": "1"},
    "servers": [{"url": "https://orders.example.com"}],
    "paths": {
        "/orders/{id}": {
            "get": {
                "operationId": "getOrder",
                "summary": "One order",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "the order",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"order": {"$ref": "#/components/schemas/Order"}},
                                }
                            }
                        },
                    }
                },
            }
        }
    },
    "components": {
        "schemas": {
            "Order": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "total_marker": {"type": "integer"}},
            }
        }
    },
}


def _result(tmp_path: Path, **keywords: Any) -> LoadResult:
    spec = tmp_path / "orders.json"
    spec.write_text(json.dumps(SPEC))
    result = load_catalog([spec], **keywords)
    assert result.catalog is not None, result.diagnostics
    return result


def _load(tmp_path: Path, **keywords: Any) -> Catalog:
    catalog = _result(tmp_path, **keywords).catalog
    assert catalog is not None
    return catalog


def test_without_output_schemas_imported_tools_have_none(tmp_path: Path) -> None:
    full = _result(tmp_path)
    lean = _result(tmp_path, output_schemas=False)
    assert full.catalog is not None and lean.catalog is not None
    assert "total_marker" in json.dumps(full.catalog["getOrder"].output_schema)
    assert lean.catalog["getOrder"].output_schema is None
    assert [d.code for d in lean.diagnostics] == [d.code for d in full.diagnostics]


@pytest.mark.parametrize("name", names())
def test_a_provider_says_truly_whether_it_writes_output_schemas(tmp_path: Path, name: str) -> None:
    provider = get(name)
    full = export_catalog(_load(tmp_path), name).tools
    lean = export_catalog(_load(tmp_path, output_schemas=False), name).tools
    writes = "total_marker" in json.dumps(full)
    assert provider.carries_output_schemas is writes  # type: ignore[attr-defined]
    if not writes:  # what toolcat schema relies on: the same export either way
        assert lean == full
