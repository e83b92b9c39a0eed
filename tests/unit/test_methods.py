"""HTTP method semantics: one table, and every route into the IR agrees with it.

Each accepted method is loaded twice, as a hand-written YAML tool and as an
OpenAPI operation, and must come out with the same annotations (the catalog's
and MCP's hints), the same retry eligibility in the executor, and the same
method-dependent lint (TC104 unconfirmed-write, TC108 body-on-get).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from toolcat.catalog import Catalog, ParamLocation, ToolDefinition, method_semantics
from toolcat.catalog.common import METHODS
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.executor.providers import mcp_annotations
from toolcat.loader import load_catalog
from toolcat.loader.openapi import ImportOptions, import_openapi
from toolcat.tests.support import http_command

ROUTES = ("yaml", "openapi")
METHOD_LINT = frozenset({"TC104", "TC108"})
SERVICE = {"base_url": "https://api.example.com", "retry": {"attempts": 2, "backoff": 0}}

# RFC 9110 §9.2.1 and §9.2.2, written out independently of the module under test
SAFE = {"GET", "HEAD", "OPTIONS", "TRACE"}
IDEMPOTENT = SAFE | {"PUT", "DELETE"}


def _yaml_tool(method: str) -> dict[str, Any]:
    return {
        "name": "op",
        "description": "One operation.",
        "service": "api",
        "method": method,
        "path": "/x",
        "parameters": {
            "q": {"type": "string", "required": False, "description": "Placed by the method."},
            "b": {"type": "string", "in": "body", "required": False, "description": "A body."},
        },
    }


def _spec(method: str) -> dict[str, Any]:
    operation = {
        "operationId": "op",
        "description": "One operation.",
        "parameters": [
            {"name": "q", "in": "query", "description": "A value.", "schema": {"type": "string"}}
        ],
        "requestBody": {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {"b": {"type": "string", "description": "A body."}},
                    }
                }
            }
        },
        "responses": {"200": {"description": "ok"}},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Test API", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/x": {method.lower(): operation}},
    }


def _write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")  # JSON is YAML too
    return path


def _catalog_file(tmp_path: Path, route: str, method: str) -> Path:
    """A catalog holding one tool ``op`` with ``method``, written the ``route``'s way."""
    if route == "yaml":
        doc = {"toolcat": 1, "services": {"api": SERVICE}, "tools": [_yaml_tool(method)]}
    else:
        _write(tmp_path / "spec.json", _spec(method))
        doc = {
            "toolcat": 1,
            "services": {"api": SERVICE},
            "openapi": [{"spec": "spec.json", "service": "api"}],
        }
    return _write(tmp_path / "catalog.yaml", doc)


def _load(tmp_path: Path, route: str, method: str) -> tuple[Catalog, ToolDefinition]:
    result = load_catalog([_catalog_file(tmp_path, route, method)])
    assert result.catalog is not None, [str(d) for d in result.diagnostics]
    tool = result.catalog["op"]
    assert http_command(tool).method == method
    return result.catalog, tool


def test_the_table_is_rfc_9110() -> None:
    assert set(METHODS) == {"GET", "HEAD", "OPTIONS", "TRACE", "POST", "PUT", "PATCH", "DELETE"}
    assert {m for m in METHODS if method_semantics(m).safe} == SAFE
    assert {m for m in METHODS if method_semantics(m).idempotent} == IDEMPOTENT
    assert method_semantics("trace") == method_semantics("TRACE")


@pytest.mark.parametrize("method", ["QUERY", "CONNECT", "PROPFIND"])
def test_a_method_outside_the_table_gets_the_cautious_answer(method: str) -> None:
    row = method_semantics(method)
    assert method not in METHODS
    assert (row.safe, row.idempotent, row.retryable, row.read_only) == (False,) * 4
    assert row.destructive and row.needs_confirm and not row.query_arguments


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("method", METHODS)
def test_annotations(tmp_path: Path, method: str, route: str) -> None:
    _, tool = _load(tmp_path, route, method)
    safe, idempotent = method in SAFE, method in IDEMPOTENT
    a = tool.annotations
    assert (a.read_only, a.destructive, a.idempotent) == (safe, not safe, idempotent)
    hints = mcp_annotations(tool)
    assert (hints["readOnlyHint"], hints["destructiveHint"], hints["idempotentHint"]) == (
        safe,
        not safe,
        idempotent,
    )


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("method", METHODS)
def test_retry_eligibility(tmp_path: Path, method: str, route: str) -> None:
    catalog, _ = _load(tmp_path, route, method)
    answers = [httpx.Response(503), httpx.Response(200, json={"ok": True})]
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request.method)
        return answers[len(seen) - 1]

    client = httpx.Client(transport=httpx.MockTransport(server))
    # imported writes get confirm: true (the import policy); the caller says yes
    yes = lambda *_: True  # noqa: E731
    with Executor(
        catalog, ExecutorSettings(client=client, env={}, sleep=lambda _: None, confirm=yes)
    ) as executor:
        result = executor.execute(ToolCall("op", {}))
    if method in IDEMPOTENT:
        assert seen == [method, method] and result.ok and result.status == 200
    else:
        assert seen == [method] and not result.ok and result.status == 503


def _method_lint(path: Path) -> set[str]:
    result = load_catalog([path])
    assert result.catalog is not None, [str(d) for d in result.diagnostics]
    return {d.code for d in result.diagnostics if d.code in METHOD_LINT}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("method", METHODS)
def test_lint(tmp_path: Path, method: str, route: str) -> None:
    body_on_get = {"TC108"} if method in {"GET", "HEAD", "TRACE"} else set()
    if route == "yaml":
        expected = body_on_get | ({"TC104"} if method not in SAFE else set())
        assert _method_lint(_catalog_file(tmp_path, route, method)) == expected
        return
    # the same spec behind an `openapi:` entry and as `toolcat import` writes it gives
    # the same findings: the import policy states confirm for every write (no TC104),
    # and the spec's body on a GET is reported either way
    assert _method_lint(_catalog_file(tmp_path, route, method)) == body_on_get
    policies: tuple[frozenset[str] | None, ...] = (None, frozenset())
    for policy in policies:
        imported = import_openapi(
            _write(tmp_path / "spec.json", _spec(method)),
            ImportOptions(confirm_methods=policy),
            progress=False,
        )
        (tool,) = imported.tools
        if method not in SAFE:
            assert tool["confirm"] is (policy is None)
        else:
            assert "confirm" not in tool
        services = {name: {**body, **SERVICE} for name, body in imported.services.items()}
        doc = {"toolcat": 1, "services": services, "tools": imported.tools}
        assert _method_lint(_write(tmp_path / "imported.yaml", doc)) == body_on_get


@pytest.mark.parametrize("method", METHODS)
def test_placement_without_in(tmp_path: Path, method: str) -> None:
    _, tool = _load(tmp_path, "yaml", method)
    (q,) = [b for b in http_command(tool).parameters if b.argument == "q"]
    query = method in SAFE or method == "DELETE"
    assert q.location is (ParamLocation.QUERY if query else ParamLocation.BODY)


def test_openapi_query_operation_is_skipped_as_unsupported(tmp_path: Path) -> None:
    spec = _spec("GET")
    spec["openapi"] = "3.2.0"
    spec["paths"]["/x"]["query"] = dict(spec["paths"]["/x"]["get"], operationId="q_op")
    imported = import_openapi(_write(tmp_path / "spec.json", spec), ImportOptions(), progress=False)
    assert [t["name"] for t in imported.tools] == ["op"]
    (skipped,) = [r for r in imported.report if r.skipped]
    assert skipped.method == "QUERY" and "not supported" in (skipped.skipped or "")
