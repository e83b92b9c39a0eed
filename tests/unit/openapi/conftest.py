"""Fixtures for importer tests: write a small spec to a file, import it, compile the result."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from toolcat.loader import load_documents
from toolcat.loader.openapi import ImportOptions, ImportResult, import_openapi


def _spec3(paths: dict[str, Any], **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Test API", "version": "1"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": paths,
    }
    doc.update(extra)
    return doc


@pytest.fixture
def spec3() -> Callable[..., dict[str, Any]]:
    """``spec3(paths, **top_level)``: an OpenAPI 3.0 document around ``paths``."""
    return _spec3


@pytest.fixture
def run_import(tmp_path: Path) -> Callable[..., ImportResult]:
    """``run_import(doc, **options)``: the ImportResult of ``doc`` written as JSON."""

    def go(doc: dict[str, Any], name: str = "spec.json", **options: Any) -> ImportResult:
        path = tmp_path / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        return import_openapi(path, ImportOptions(**options), progress=False)

    return go


@pytest.fixture
def one_tool(run_import: Callable[..., ImportResult]) -> Callable[..., dict[str, Any]]:
    """``one_tool(doc)``: the only tool document the import produced."""

    def go(doc: dict[str, Any], **options: Any) -> dict[str, Any]:
        result = run_import(doc, **options)
        assert len(result.tools) == 1, [str(r) for r in result.report]
        return result.tools[0]

    return go


@pytest.fixture
def compile_result() -> Callable[[ImportResult], Any]:
    """The catalog the loader compiles from an import (as the loader would from the spec)."""

    def go(result: ImportResult) -> Any:
        doc = {"toolcat": 1, "services": result.services, "tools": result.tools}
        loaded = load_documents([("catalog.yaml", doc)])
        errors = [str(d) for d in loaded.diagnostics if d.severity == "error"]
        assert not errors, errors
        return loaded.catalog

    return go
