"""Schemas nested up to the nesting limit (256) through the real commands (issue 10).

Every walk over a schema (the loader's checks, jsonschema's metaschema check, the
strict, Gemini and MCP exports, argument validation) must handle a schema 100 and
250 levels deep; one past the limit is a located diagnostic, never RecursionError.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog.common import MAX_NESTING_DEPTH

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
EXPORTS = [
    ["--provider", "openai"],
    ["--provider", "openai", "--strict"],
    ["--provider", "openai-responses", "--strict"],
    ["--provider", "anthropic"],
    ["--provider", "gemini"],
    ["--provider", "mcp"],
]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TOOLCAT, *args], capture_output=True, text=True, timeout=120)


def nested(depth: int) -> tuple[dict[str, Any], Any]:
    """A schema ``depth`` JSON levels deep (objects of arrays of objects...) and a valid value."""
    schema: dict[str, Any] = {"type": "string", "pattern": "^[a-z]+$"}
    value: Any = "abc"
    level, i = 1, 0
    while level < depth:
        if i % 2 == 0 and level + 2 <= depth:
            schema = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
            value, level = {"x": value}, level + 2
        else:
            schema, value, level = {"type": "array", "items": schema}, [value], level + 1
        i += 1
    return schema, value


def catalog(tmp_path: Path, schema: dict[str, Any]) -> Path:
    doc = {
        "toolcat": 1,
        "services": {"svc": {"base_url": "http://127.0.0.1:9"}},
        "tools": [
            {
                "name": "deep",
                "description": "A deep argument.",
                "service": "svc",
                "method": "GET",
                "path": "/deep",
                "parameters": {"v": dict(schema, description="Deep value.")},
            }
        ],
    }
    path = tmp_path / "catalog.yaml"
    path.write_text(json.dumps(doc))  # JSON is YAML: one line, the depth exact
    return path


def clean(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stdout[-500:] + done.stderr[-2000:]
    assert "RecursionError" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize("depth", [100, 250])
def test_every_command_handles_a_deep_schema(tmp_path: Path, depth: int) -> None:
    schema, value = nested(depth)
    path = catalog(tmp_path, schema)
    clean(run("validate", str(path)))
    for flags in EXPORTS:
        done = run("schema", *flags, str(path))
        clean(done)
        assert json.loads(done.stdout)
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"v": value}))
    done = run("call", "--dry-run", str(path), "deep", "--args", f"@{args}")
    clean(done)
    assert done.stdout.startswith("GET http://127.0.0.1:9/deep?v=")
    # a violation at the bottom goes to jsonschema, which explains it with its location
    args.write_text(json.dumps({"v": value}).replace('"abc"', '"ABC"'))
    done = run("call", "--dry-run", "--format", "json", str(path), "deep", "--args", f"@{args}")
    assert done.returncode == 1 and "RecursionError" not in done.stderr, done.stderr[-2000:]
    (error,) = json.loads(done.stdout)["errors"]
    assert error["type"] == "invalid_arguments" and "does not match" in error["msg"]


def test_combinators_and_imported_specs_up_to_the_limit(tmp_path: Path) -> None:
    inner: dict[str, Any] = {"type": "string", "pattern": "^[a-z]+$"}
    for _ in range(122):  # allOf nesting: two levels each, 245 in all
        inner = {"allOf": [inner]}
    path = catalog(tmp_path, inner)
    clean(run("validate", str(path)))
    clean(run("schema", "--provider", "gemini", str(path)))
    done = run("call", "--dry-run", str(path), "deep", "--args", json.dumps({"v": "ABC"}))
    assert done.returncode == 1 and "does not match" in done.stdout + done.stderr, done.stderr
    schema, _ = nested(245)
    spec = tmp_path / "spec.json"
    body = {"type": "object", "properties": {"v": schema}}
    spec.write_text(
        json.dumps(
            {
                "openapi": "3.1.0",
                "info": {"title": "deep", "version": "1"},
                "servers": [{"url": "http://127.0.0.1:9"}],
                "paths": {
                    "/deep": {
                        "post": {
                            "operationId": "deep",
                            "requestBody": {"content": {"application/json": {"schema": body}}},
                            "responses": {"200": {"description": "ok"}},
                        }
                    }
                },
            }
        )
    )
    clean(run("validate", str(spec)))
    for flags in EXPORTS:
        clean(run("schema", *flags, str(spec)))


def test_past_the_nesting_limit_is_a_located_diagnostic(tmp_path: Path) -> None:
    schema, value = nested(MAX_NESTING_DEPTH + 44)
    path = catalog(tmp_path, schema)
    done = run("validate", str(path))
    assert done.returncode == 1
    assert f"{path}:1:" in done.stdout and "TC001" in done.stdout
    assert f"nested deeper than {MAX_NESTING_DEPTH} levels" in done.stdout
    assert "RecursionError" not in done.stderr
    for command in (["schema", "--provider", "gemini"], ["call", "--dry-run"]):
        extra = ["deep", "--args", "{}"] if command[0] == "call" else []
        done = run(*command, str(path), *extra)
        assert done.returncode == 1 and "RecursionError" not in done.stderr, done.stderr
