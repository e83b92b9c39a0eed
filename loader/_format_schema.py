"""The catalog format's own JSON Schema (draft 2020-12), generated from the file models.

Checked in at ``schemas/toolcat-catalog-v1.schema.json`` (a test fails when it
is stale) and printed by ``toolcat catalog-schema``; editors use it through a
``# yaml-language-server: $schema=...`` comment.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["SCHEMA_ID", "catalog_json_schema", "render_catalog_json_schema"]

SCHEMA_ID = "https://toolcat.dev/schemas/toolcat-catalog-v1.schema.json"


def catalog_json_schema() -> dict[str, Any]:
    """The JSON Schema of catalog format version 1."""
    from ._models import CatalogFileDoc

    generated = CatalogFileDoc.model_json_schema(by_alias=True, mode="validation")
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
    }
    schema.update(generated)
    schema["description"] = (
        "A toolcat catalog file: HTTP services, the tools that call them, toolsets and "
        "OpenAPI imports. Parameters hold JSON Schema beside their placement keys."
    )
    return schema


def render_catalog_json_schema() -> str:
    """The schema as the checked-in file holds it (2-space JSON, final newline)."""
    return json.dumps(catalog_json_schema(), indent=2, ensure_ascii=False) + "\n"
