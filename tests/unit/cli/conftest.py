"""Small catalogs on disk for the command tests."""

from __future__ import annotations

from pathlib import Path

import pytest

SECRET = "sk-live-SECRET-4242"

GOOD = f"""\
toolcat: 1
services:
  orders:
    base_url: https://orders.example/api
    auth: {{type: bearer, token: "{SECRET}"}}
tools:
  - name: get_order
    description: |
      Look up one order by id.
      Returns the order document.
    service: orders
    method: GET
    path: /orders/{{order_id}}
    parameters:
      order_id: {{type: string, description: The order id}}
      limit: {{type: integer, default: 5, minimum: 1, description: How many}}
  - name: create_order
    description: Create an order.
    service: orders
    method: POST
    path: /orders
    confirm: true
    parameters:
      customer_id: {{type: string, description: The customer}}
      note: {{type: string, required: false, maxLength: 200, description: A note}}
toolsets:
  readonly: [get_order]
"""

BAD = """\
toolcat: 1
services:
  s: {base_url: "https://x.example"}
tools:
  - name: get_thing
    description: Get a thing.
    service: nope
    method: GET
    path: /things/{id}
    parameters:
      id: {type: string, description: The id}
  - name: make_thing
    description: Make a thing.
    service: s
    method: POST
    path: /things
    parameters:
      n: {type: integer}
"""

WARN_ONLY = """\
toolcat: 1
services:
  s: {base_url: "https://x.example"}
tools:
  - name: make_thing
    description: Make a thing.
    service: s
    method: POST
    path: /things
    parameters:
      n: {type: integer}
"""


@pytest.fixture
def catalogs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding good.yaml, bad.yaml, warn.yaml and an empty folder."""
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(BAD, encoding="utf-8")
    (tmp_path / "warn.yaml").write_text(WARN_ONLY, encoding="utf-8")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "true")  # no progress output
    return tmp_path


@pytest.fixture
def secret() -> str:
    return SECRET
