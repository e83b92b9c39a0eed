"""An ``openapi:`` entry's per-operation overrides reach the imported tool as written."""

from __future__ import annotations

from pathlib import Path

from toolcat.loader import load_catalog

SPEC = """\
openapi: 3.0.3
info: {title: Shop, version: "1"}
servers: [{url: "https://shop.example.com/v1"}]
paths:
  /items:
    get:
      operationId: listItems
      summary: List items.
      parameters: [{name: limit, in: query, schema: {type: integer}}]
      responses: {"200": {description: ok}}
"""


def test_a_null_schema_keyword_of_an_overridden_parameter_is_kept(tmp_path: Path) -> None:
    """``default: null`` is JSON Schema, not an unset field: the override keeps it, while
    a field given as null (``description: null``) sets nothing."""
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "toolcat: 1\nopenapi:\n  - spec: spec.yaml\n    tools:\n      listItems:\n"
        "        description: null\n        parameters:\n"
        "          limit: {type: [integer, 'null'], default: null, in: query, description: N.}\n",
        encoding="utf-8",
    )
    result = load_catalog([catalog], progress=False)
    assert result.catalog is not None, result.diagnostics
    tool = result.catalog["listItems"]
    assert tool.description == "List items."
    limit = {"type": ["integer", "null"], "default": None, "description": "N."}
    assert tool.input_schema["properties"] == {"limit": limit}
