"""The bundled example catalogs export cleanly to every provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import Catalog
from toolcat.catalog.schema import check_strict_schema
from toolcat.catalog.schema._gemini import GEMINI_KEYWORDS
from toolcat.executor.providers import PROVIDERS, export_catalog
from toolcat.loader import load

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture(
    scope="module",
    params=sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.yaml")),
)
def example(request: pytest.FixtureRequest) -> Catalog:
    return load([EXAMPLES / request.param])


def keywords(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        found |= set(node)
        for sub in (node.get("properties") or {}).values():
            found |= keywords(sub)
        for sub in [node.get("items"), *(node.get("anyOf") or [])]:
            found |= keywords(sub)
    return found


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_strict_exports_pass_the_checker(example: Catalog, provider: str) -> None:
    result = export_catalog(example, provider, strict=True)
    assert len(result.tools) == len(example) > 0
    for item in result.tools:
        fn = item.get("function", item)
        if fn["strict"]:
            assert check_strict_schema(fn["parameters"]) == [], fn["name"]
        else:  # a tool sent non-strict is always explained in a note
            assert any(n.tool == fn["name"] and "strict: false" in n.message for n in result.notes)


def test_gemini_export_uses_only_gemini_keywords(example: Catalog) -> None:
    (tool,) = export_catalog(example, "gemini").tools
    for decl in tool["functionDeclarations"]:
        assert keywords(decl.get("parameters")) <= GEMINI_KEYWORDS, decl["name"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_exports_every_tool(example: Catalog, provider: str) -> None:
    text = json.dumps(export_catalog(example, provider).tools)
    for tool in example:
        assert f'"{tool.name}"' in text
