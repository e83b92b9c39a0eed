"""No export carries a service secret: exporters read tool fields only."""

from __future__ import annotations

import json

import pytest
from toolcat.catalog import Catalog
from toolcat.executor.providers import PROVIDERS, export_catalog

CASES = [(p, False) for p in PROVIDERS] + [("openai", True), ("openai-responses", True)]


@pytest.mark.parametrize("provider, strict", CASES)
def test_no_export_contains_the_auth_token(
    catalog: Catalog, secret: str, provider: str, strict: bool
) -> None:
    # the secret is really in the catalog, so the check below can fail
    assert secret in repr(catalog.services["orders"])
    result = export_catalog(catalog, provider, strict=strict)
    text = json.dumps(result.tools) + "".join(str(n) for n in result.notes)
    assert secret not in text
    assert "orders.example" not in text
