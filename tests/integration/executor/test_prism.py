"""Calls generated from real specs, sent through Prism (a validating mock): none may be rejected.

Skips unless Prism is installed: set PRISM to its binary (``npm install
@stoplight/prism-cli@5.16.0`` in any folder, then ``node_modules/.bin/prism``) or
put ``prism`` on PATH. Prism answers 422 (or 415) with the violations when a
request breaks the spec.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from toolcat.catalog import Catalog
from toolcat.catalog.common import references, thaw
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.loader import load
from toolcat.tests.support import http_command

PRISM = os.environ.get("PRISM") or shutil.which("prism")
pytestmark = pytest.mark.skipif(
    not PRISM, reason="Prism not installed (set PRISM to node_modules/.bin/prism)"
)

SPECS = [
    "oai/learn-examples/v3.0/petstore.yaml",
    "oai/learn-examples/v3.0/petstore-expanded.yaml",
    "oai/learn-examples/v3.0/link-example.yaml",
    "oai/learn-examples/v3.1/tictactoe.yaml",
    "oai/learn-examples/v2.0/yaml/uber.yaml",
    "oai/learn-examples/v2.0/yaml/petstore-with-external-docs.yaml",
]


def _strategies() -> Any:
    name = "toolcat_executor_test_strategies"
    if name not in sys.modules:
        path = Path(__file__).parents[2] / "unit" / "executor" / "strategies.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


def _prism(spec: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert PRISM is not None
    proc = subprocess.Popen(
        [PRISM, "mock", "-h", "127.0.0.1", "-p", str(port), str(spec)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1)
            return proc, url
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    pytest.fail(f"Prism did not start on {spec}")


def _retarget(catalog: Catalog, url: str) -> tuple[Catalog, dict[str, str]]:
    """The catalog pointed at Prism, and a dummy value for every auth variable."""
    env: dict[str, str] = {}
    auths = [s.auth for s in catalog.services.values()]
    auths += [a for a in (http_command(t).auth for t in catalog) if a is not None]
    for auth in auths:
        for field in ("token", "username", "password", "value", "client_id", "client_secret"):
            value = getattr(auth, field, None)
            if isinstance(value, str):
                env.update({name: f"dummy-{name.lower()}" for name in references(value)})
    services = [dataclasses.replace(s, base_url=url) for s in catalog.services.values()]
    tools = [
        dataclasses.replace(t, command=dataclasses.replace(http_command(t), base_url=None))
        for t in catalog
    ]
    return Catalog(tools, services), env


def _samples(schema: Any, count: int = 6) -> list[dict[str, Any]]:
    """A few argument objects valid for ``schema``, drawn by hypothesis."""
    found: list[dict[str, Any]] = []

    @settings(
        max_examples=count, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(_strategies().from_schema(thaw(schema)))
    def collect(args: dict[str, Any]) -> None:
        found.append(args)

    collect()
    return found


@pytest.mark.parametrize("name", SPECS)
def test_prism_accepts_generated_calls(corpus_dir: Path, name: str) -> None:
    spec = corpus_dir / name
    proc, url = _prism(spec)
    try:
        catalog, env = _retarget(load([spec]), url)
        rejected: list[str] = []
        sent = 0
        # imported writes ask for confirmation (the import policy); this checks what is sent
        with Executor(catalog, ExecutorSettings(env=env, confirm=lambda call, tool: True)) as ex:
            for tool in catalog:
                samples = _samples(tool.input_schema)
                for args in samples:
                    result = ex.execute(ToolCall(tool.name, args))
                    if result.status is None:  # refused before sending: an empty path value
                        assert result.error is not None  # (invalid_arguments), a "/" or dot
                        refused = ("invalid_arguments", "refused_by_policy")  # segment (policy)
                        assert result.error.type in refused, result.content
                        continue
                    sent += 1
                    if result.status in (415, 422):
                        rejected.append(f"{tool.name} {args!r}: {result.content[:300]}")
        assert sent > 0
        assert rejected == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)
