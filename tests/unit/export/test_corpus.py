"""Real OpenAPI specs of the shared corpus export to every provider without breaking a rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog.schema import check_strict_schema
from toolcat.catalog.schema._gemini import GEMINI_KEYWORDS
from toolcat.executor.providers import PROVIDERS, export_catalog
from toolcat.loader import load_catalog

# Small specs only: the whole area's tests stay fast.
SPECS = ["httpbin-swagger2.json", "train-travel-openapi3.1.yaml"]


def keywords(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        found |= set(node)
        for sub in (node.get("properties") or {}).values():
            found |= keywords(sub)
        for sub in [node.get("items"), *(node.get("anyOf") or [])]:
            found |= keywords(sub)
    return found


@pytest.mark.parametrize("spec", SPECS)
def test_spec_exports_follow_each_providers_rules(corpus_dir: Path, spec: str) -> None:
    path = corpus_dir / spec
    if not path.exists():
        pytest.skip(f"{spec} is not in this corpus")
    result = load_catalog([path], progress=False)
    assert result.catalog is not None, [str(d) for d in result.errors][:3]
    catalog = result.catalog
    assert len(catalog) > 0
    strict = export_catalog(catalog, "openai", strict=True)
    for item in strict.tools:
        fn = item["function"]
        if fn["strict"]:
            assert check_strict_schema(fn["parameters"]) == [], fn["name"]
        else:
            assert any(n.tool == fn["name"] and "strict: false" in n.message for n in strict.notes)
    gemini = export_catalog(catalog, "gemini").tools
    for decl in gemini[0]["functionDeclarations"]:
        assert keywords(decl.get("parameters")) <= GEMINI_KEYWORDS, decl["name"]
    for provider in PROVIDERS:
        assert len(export_catalog(catalog, provider).tools) in (1, len(catalog))
