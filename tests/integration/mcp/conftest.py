"""A catalog for `toolcat serve` tests; the service and its env come from ../conftest.py."""

from __future__ import annotations

import sys

import pytest

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


@pytest.fixture
def catalog_text() -> str:
    """What the shared ``catalog_file`` fixture (tests/integration/conftest.py) writes."""
    return CATALOG


TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
