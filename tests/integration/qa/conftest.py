"""QA fixtures: the sample service on 127.0.0.1 and a catalog for it, and a runner for `toolcat`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolcat.executor._background import BackgroundServer
from toolcat.executor._demo_service import make_service

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]

CATALOG = """\
toolcat: 1
services:
  warehouse:
    base_url: ${WAREHOUSE_URL}
    timeout: 5
tools:
  - name: get_item
    description: One item by SKU.
    service: warehouse
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, description: The SKU}
  - name: list_items
    description: Every item.
    service: warehouse
    method: GET
    path: /items
"""


@pytest.fixture(scope="module")
def warehouse() -> Iterator[str]:
    with BackgroundServer(make_service()) as server:
        yield server.url


@pytest.fixture
def catalog_file(tmp_path: Path) -> Path:
    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG)
    return path


@pytest.fixture
def serve_env(warehouse: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["WAREHOUSE_URL"] = warehouse
    return env


def toolcat(*args: str, stdin: str | None = "", timeout: float = 30,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real command in a subprocess (its own stdio, exit code, no capture tricks)."""
    return subprocess.run([*TOOLCAT, *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=env)
