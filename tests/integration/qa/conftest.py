"""QA fixtures: a catalog for the sample service (../conftest.py), and a runner for `toolcat`."""

from __future__ import annotations

import subprocess
import sys

import pytest

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


@pytest.fixture
def catalog_text() -> str:
    """What the shared ``catalog_file`` fixture (tests/integration/conftest.py) writes."""
    return CATALOG


def toolcat(
    *args: str, stdin: str | None = "", timeout: float = 30, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real command in a subprocess (its own stdio, exit code, no capture tricks)."""
    return subprocess.run(
        [*TOOLCAT, *args], input=stdin, capture_output=True, text=True, timeout=timeout, env=env
    )
