"""The catalog format's parts for the newer exports: callers (a tool's, a toolset's) and the
search: section's defer and namespaces."""

from __future__ import annotations

import pytest
from toolcat.loader import Severity, load_catalog
from toolcat.tests.support import CatalogFiles

TOOLS = """\
toolcat: 1
services:
  orders: {base_url: "http://127.0.0.1:9"}
tools:
  - {name: a, description: A., service: orders, method: GET, path: /a}
  - {name: b, description: B., service: orders, method: GET, path: /b, callers: [model]}
  - {name: c, description: C., service: orders, method: GET, path: /c}
"""


def test_a_tools_callers_win_over_its_first_toolsets(catalog_files: CatalogFiles) -> None:
    catalog = catalog_files.catalog(
        TOOLS
        + """toolsets:
  plain: [c]
  code: {tools: [a, b, c], callers: [code]}
  both: {tools: [a], callers: [model, code]}
"""
    )
    assert catalog["a"].callers == ("code",)  # its first toolset that says
    assert catalog["b"].callers == ("model",)  # its own
    assert catalog["c"].callers == ("code",)  # 'plain' says nothing


@pytest.mark.parametrize(
    "toolset", ["{tools: [a], callers: []}", "{tools: [a], callers: [robot]}",
                "{tools: [a], caller: [code]}"],
)  # fmt: skip
def test_wrong_callers_are_one_located_error(catalog_files: CatalogFiles, toolset: str) -> None:
    path = catalog_files.write(TOOLS + f"toolsets:\n  s: {toolset}\n")
    found = load_catalog([path], progress=False).diagnostics
    assert [(d.severity, d.line) for d in found] == [(Severity.ERROR, 9)], [str(d) for d in found]
    assert "caller" in found[0].message


def test_the_search_sections_export_settings(catalog_files: CatalogFiles) -> None:
    catalog = catalog_files.catalog(TOOLS + "search: {defer: true, namespaces: service}\n")
    settings = catalog.search_settings
    assert settings is not None and settings.embeddings is None
    assert (settings.defer, settings.namespaces) == (True, "service")
    assert catalog_files.catalog(TOOLS).search_settings is None
