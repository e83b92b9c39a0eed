"""The worked example of docs/security.md loads clean and gives each caller what it says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from toolcat.catalog.serving import AccessPolicy
from toolcat.executor import AccessGuard, CallerIdentity
from toolcat.loader import load_catalog

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"


@pytest.fixture
def catalog_path(tmp_path: Path) -> Path:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## A worked example", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None
    path = tmp_path / "shop.yaml"
    path.write_text(block.group(1), encoding="utf-8")
    return path


def test_it_loads_without_findings(catalog_path: Path) -> None:
    result = load_catalog([catalog_path])
    assert result.catalog is not None
    assert [d.code for d in result.diagnostics] == []


@pytest.mark.parametrize(
    ("groups", "expected"),
    [
        (["readers"], {"get_item", "list_orders"}),
        (["writers"], {"get_item", "list_orders", "cancel_order"}),
        (["others"], set()),
    ],
)
def test_each_caller_gets_what_the_doc_says(
    catalog_path: Path, groups: list[str], expected: set[str]
) -> None:
    result = load_catalog([catalog_path])
    assert result.catalog is not None and result.server is not None
    assert result.server.access != AccessPolicy()
    claims = {"sub": "ana", "groups": groups, "tenant_id": "acme"}
    identity = CallerIdentity.make(subject="ana", method="jwt", claims=claims)
    guard = AccessGuard(result.server.access, result.catalog)
    allowed = {tool.name for tool in result.catalog if guard.decide(identity, tool.name).allowed}
    assert allowed == expected
    # the tenant comes from the token: no exported schema shows it
    for tool in result.catalog:
        assert "tenant" not in tool.input_schema.get("properties", {})
