"""Equal frozen leaves and records are built once per load, and only equal ones."""

from __future__ import annotations

import json
from typing import Any

import pytest
from toolcat.catalog import FrozenDict, FrozenList
from toolcat.loader._intern import Interner
from toolcat.tests.support import CatalogFiles, http_command


@pytest.mark.parametrize(
    ("a", "b", "shared"),
    [
        (
            {"type": "string", "description": "The id."},
            {"type": "string", "description": "The id."},
            True,
        ),
        (["open", "closed"], ["open", "closed"], True),
        ({}, {}, True),
        ([], [], True),
        ({"default": True}, {"default": 1}, False),  # equal in Python, not in JSON
        ({"default": None}, {"default": "None"}, False),
        ({"minimum": 0.0}, {"minimum": -0.0}, False),  # floats are never shared
        ({"minimum": 1.5}, {"minimum": 1.5}, False),
        ({}, [], False),  # an empty object is not an empty array
        ({"a": "x", "b": "y"}, {"b": "y", "a": "x"}, False),  # key order is written out
        ({"items": {"type": "string"}}, {"items": {"type": "string"}}, False),  # not a leaf
    ],
)
def test_only_equal_leaves_are_one_object(a: Any, b: Any, shared: bool) -> None:
    values = Interner()
    first, second = values.freeze(a), values.freeze(b)
    assert (first is second) is shared
    # each reads back as it was written (True stays true, -0.0 stays -0.0)
    assert json.dumps(first) == json.dumps(a) and json.dumps(second) == json.dumps(b)
    assert type(first) is (FrozenDict if isinstance(a, dict) else FrozenList)


def test_a_tree_shares_its_leaves_not_itself() -> None:
    values = Interner()
    tree = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    one, two = values.freeze(tree), values.freeze(dict(tree))
    assert one is not two and one == two == tree
    assert one["properties"]["id"] is two["properties"]["id"]
    assert one["required"] is two["required"]


def test_the_tools_of_a_catalog_share_equal_parameters(catalog_files: CatalogFiles) -> None:
    tool = """
  - name: {name}
    description: One order.
    service: s
    method: GET
    path: /orders/{{order_id}}
    parameters:
      order_id: {{type: string, description: The order id.}}
      limit: {{type: integer, minimum: {minimum}, required: false, description: Rows.}}
"""
    catalog = catalog_files.catalog(
        "toolcat: 1\nservices:\n  s: {base_url: 'https://api.example'}\ntools:"
        + tool.format(name="a", minimum=1)
        + tool.format(name="b", minimum=1)
        + tool.format(name="c", minimum=2)
    )
    a, b, c = (catalog[name] for name in "abc")
    assert a.input_schema["properties"]["order_id"] is b.input_schema["properties"]["order_id"]
    assert a.input_schema["properties"]["limit"] is b.input_schema["properties"]["limit"]
    assert c.input_schema["properties"]["limit"] is not a.input_schema["properties"]["limit"]
    assert c.input_schema["properties"]["limit"]["minimum"] == 2
    ca, cb, cc = (http_command(t) for t in (a, b, c))
    assert ca.parameters[0] is cb.parameters[0] is cc.parameters[0]
    assert a.annotations is b.annotations
    assert ca.headers is cb.headers and a.extensions is c.extensions
