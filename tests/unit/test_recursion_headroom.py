"""A 250-deep schema through the library (no CLI): load, export, validate (issue 10)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from toolcat.catalog.common import RECURSION_HEADROOM, recursion_headroom
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.executor.providers import export_catalog
from toolcat.tests.support import CatalogFiles


def _nested(depth: int) -> tuple[dict[str, Any], Any]:
    schema: dict[str, Any] = {"type": "string", "pattern": "^[a-z]+$"}
    value: Any = "abc"
    for _ in range(depth // 3):  # three levels each: array, object, properties
        schema = {"type": "array", "items": {"type": "object", "properties": {"x": schema}}}
        value = [{"x": value}]
    return schema, value


def test_a_250_deep_schema_loads_exports_and_validates(tmp_path: Path) -> None:
    before = sys.getrecursionlimit()
    schema, value = _nested(249)
    doc = {
        "toolcat": 1,
        "services": {"svc": {"base_url": "http://127.0.0.1:9"}},
        "tools": [
            {
                "name": "deep",
                "description": "Deep.",
                "service": "svc",
                "method": "GET",
                "path": "/deep",
                "parameters": {"v": dict(schema, description="Deep.")},
            }
        ],
    }
    catalog = CatalogFiles(tmp_path).catalog(json.dumps(doc))
    for provider in ("openai", "anthropic", "gemini", "mcp"):
        assert export_catalog(catalog, provider).tools
    assert export_catalog(catalog, "openai", strict=True).tools
    executor = Executor(catalog, ExecutorSettings(env={}))
    assert not isinstance(executor.prepare(ToolCall("deep", {"v": value})), type(None))
    bad = json.loads(json.dumps(value).replace('"abc"', '"ABC"'))
    refused = executor.prepare(ToolCall("deep", {"v": bad}))
    assert getattr(refused, "error", None) is not None
    assert sys.getrecursionlimit() == before  # put back once the last user is done


def test_headroom_nests_and_puts_the_limit_back() -> None:
    before = sys.getrecursionlimit()
    with recursion_headroom():
        with recursion_headroom():
            assert sys.getrecursionlimit() >= RECURSION_HEADROOM
        assert sys.getrecursionlimit() >= RECURSION_HEADROOM
    assert sys.getrecursionlimit() == before
