"""Small traps closed: `$VAR`/`%VAR%` without braces (TC115)."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolcat.catalog.common import bare_references
from toolcat.loader import load_catalog

CATALOG = """\
toolcat: 1
services:
  api:
    base_url: https://$API_HOST/v1
    headers:
      X-Key: $API_KEY
      X-Win: "%API_TOKEN%"
      X-Ok: "${OK} a%20b%2F $$5 100%"
    auth: {type: bearer, token: $TOKEN}
tools:
  - name: ping
    description: Ping the service.
    service: api
    method: GET
    path: /ping
"""


def test_bare_variables_in_urls_headers_and_auth_are_warnings(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CATALOG)
    result = load_catalog([path], progress=False)
    assert result.catalog is not None  # a warning: the catalog still loads
    found = [(d.line, d.column, d.severity) for d in result.diagnostics if d.code == "TC115"]
    assert found == [(4, 23, "warning"), (6, 14, "warning"), (7, 15, "warning"), (9, 33, "warning")]
    messages = [d.message for d in result.diagnostics if d.code == "TC115"]
    assert "$TOKEN is sent as it is written" in messages[-1] and "${TOKEN}" in messages[-1]
    assert "%API_TOKEN%" in messages[2] and "${API_TOKEN}" in messages[2]


@pytest.mark.parametrize(
    "text",
    ["${TOKEN}", "$${TOKEN}", "$$TOKEN", "a%20b%2Fc%3A", "100%", "${A:-x}", "50% off 20%"],
)
def test_what_is_not_a_bare_variable(text: str) -> None:
    assert bare_references(text) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("$TOKEN", [(0, "$TOKEN")]),
        ("Bearer $T1 x", [(7, "$T1")]),
        ("${A:-$B}", [(5, "$B")]),  # a default is not expanded either
        ("%USERPROFILE%\\x", [(0, "%USERPROFILE%")]),
    ],
)
def test_bare_variables_are_found(text: str, found: list[tuple[int, str]]) -> None:
    assert bare_references(text) == found


X_CATALOG = """\
toolcat: 1
services:
  api:
    base_url: https://api.example.com
    x-owner: team-api
    x-runbook: {url: https://wiki.example/runbook}
tools:
  - name: ping
    description: Ping the service.
    service: api
    method: GET
    path: /ping
    x-owner: team-ping
    x-tier: 1
  - name: pong
    description: Pong.
    service: api
    method: GET
    path: /pong
toolsets:
  short: [ping]
  long:
    tools: [ping, pong]
    x-owner: team-sets
"""


def test_x_keys_on_tools_services_and_toolsets_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(X_CATALOG)
    result = load_catalog([path], progress=False)
    assert result.catalog is not None and result.diagnostics == ()
    catalog = result.catalog
    assert catalog.tools["ping"].extensions == {"x-owner": "team-ping", "x-tier": 1}
    assert catalog.tools["pong"].extensions == {}
    assert catalog.services["api"].extensions == {
        "x-owner": "team-api",
        "x-runbook": {"url": "https://wiki.example/runbook"},
    }
    with pytest.raises(TypeError):
        catalog.tools["ping"].extensions["x-owner"] = "someone else"
    assert catalog.toolsets == {"short": ("ping",), "long": ("ping", "pong")}
    assert catalog.toolset_extensions == {"long": {"x-owner": "team-sets"}}
    assert catalog.subset(["ping"]).toolset_extensions == {"long": {"x-owner": "team-sets"}}
    assert "x-owner" not in str(catalog.tools["ping"].input_schema)  # never an argument


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("    x-tier: 1\n", "    y-tier: 1\n"), "TC003@14"),  # only x- keys are metadata
        (("    tools: [ping, pong]\n", "    tool: [ping, pong]\n"), "TC003@23"),
        (("    x-owner: team-sets\n", "    x-owner: team-sets\n    owner: me\n"), "TC003@25"),
    ],
)
def test_other_unknown_keys_stay_errors(
    tmp_path: Path, edit: tuple[str, str], expected: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(X_CATALOG.replace(*edit))
    result = load_catalog([path], progress=False)
    assert result.catalog is None
    assert [f"{d.code}@{d.line}" for d in result.errors] == [expected]
