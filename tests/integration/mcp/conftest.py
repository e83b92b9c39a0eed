"""A real tool service on 127.0.0.1, and a catalog for `toolcat serve` that points at it."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolcat.executor._background import BackgroundServer
from toolcat.executor._demo_service import make_service

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
      sku: {type: string, pattern: "^[A-Z0-9-]+$", description: The SKU}
    output_schema:
      type: object
      required: [sku, stock]
      properties: {sku: {type: string}, name: {type: string}, stock: {type: integer},
                   price: {type: number}}
  - name: create_order
    description: Order an item.
    service: warehouse
    method: POST
    path: /orders
    confirm: true
    parameters:
      sku: {type: string, description: The SKU}
      quantity: {type: integer, minimum: 1, description: How many}
      customer: {type: string, description: Who}
toolsets:
  readonly: [get_item]
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


TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
