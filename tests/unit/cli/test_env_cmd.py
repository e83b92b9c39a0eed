"""`toolcat env`: every ${VAR} a catalog needs, where, whether set; never a value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolcat.cli import main
from toolcat.cli._envuses import warn_unset
from toolcat.loader import load

CATALOG = """\
toolcat: 1
services:
  orders:
    base_url: ${ORDERS_URL:-http://127.0.0.1:8080}/api
    headers: {X-Team: "${TEAM}"}
    auth: {type: bearer, token: "${ORDERS_TOKEN}"}
tools:
  - name: get_order
    description: One order.
    service: orders
    method: GET
    path: /orders/{id}
    parameters:
      id: {type: string, description: The id}
server:
  resource: "${PUBLIC_URL:-http://127.0.0.1:8000/mcp}"
"""

SPEC = """\
openapi: 3.0.3
info: {title: Pets, version: "1"}
servers: [{url: "https://pets.example/v1"}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Key}
security: [{key: []}]
paths:
  /pets:
    get:
      operationId: listPets
      description: List pets.
      responses: {"200": {description: ok}}
"""

SECRET = "sk-live-do-not-print-4242"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "catalog.yaml").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "pets.yaml").write_text(SPEC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("ORDERS_URL", "TEAM", "ORDERS_TOKEN", "PUBLIC_URL", "PETS_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_lists_every_variable_with_where_and_state(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORDERS_TOKEN", SECRET)
    monkeypatch.setenv("TEAM", "")
    code, out, err = run(capsys, "env", "catalog.yaml")
    assert code == 0
    rows = [line.split(None, 3) for line in out.splitlines()]
    assert rows == [
        ["VARIABLE", "STATE", "DEFAULT", "USED AT"],
        ["ORDERS_TOKEN", "set", "no", "catalog.yaml:6 (service orders: auth.token)"],
        ["ORDERS_URL", "unset", "yes", "catalog.yaml:4 (service orders: base_url)"],
        ["PUBLIC_URL", "unset", "yes", "catalog.yaml:16 (server: resource)"],
        ["TEAM", "empty", "no", "catalog.yaml:5 (service orders: headers.X-Team)"],
    ]
    assert SECRET not in out + err
    assert err == "toolcat: 1 variable without a default not set: TEAM\n"


def test_check_fails_on_a_required_unset_variable(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, "env", "catalog.yaml", "--check", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["missing"] == ["ORDERS_TOKEN", "TEAM"]
    by_name = {v["name"]: v for v in doc["variables"]}
    assert by_name["ORDERS_URL"] == {
        "name": "ORDERS_URL",
        "state": "unset",
        "hasDefault": True,
        "required": False,
        "uses": [{"where": "catalog.yaml:4", "what": "service orders: base_url"}],
    }
    monkeypatch.setenv("ORDERS_TOKEN", SECRET)
    monkeypatch.setenv("TEAM", "ops")
    code, out, err = run(capsys, "env", "catalog.yaml", "--check")
    assert (code, err) == (0, "") and SECRET not in out


def test_an_imported_spec_counts_its_generated_credentials(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "env", "pets.yaml", "--check")
    assert code == 1
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    # the imported service's base_url is ${PETS_BASE_URL:-<spec server>}: it has a default
    assert rows["PETS_BASE_URL"][1:3] == ["unset", "yes"]
    assert rows["PETS_KEY"] == [
        "PETS_KEY",
        "unset",
        "no",
        "pets.yaml:1",
        "(service",
        "pets:",
        "auth.value)",
    ]


def test_a_catalog_without_variables_and_a_broken_one(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = CATALOG.replace("${ORDERS_URL:-http://127.0.0.1:8080}", "https://o.example")
    plain = plain.replace('"${TEAM}"', "ops").replace('"${ORDERS_TOKEN}"', "x")
    (folder / "plain.yaml").write_text(plain.split("server:")[0], encoding="utf-8")
    code, out, err = run(capsys, "env", "plain.yaml", "--check")
    assert (code, out) == (0, "") and "needs no environment variables" in err
    (folder / "broken.yaml").write_text(CATALOG.replace("service: orders", "service: nope"))
    code, _, err = run(capsys, "env", "broken.yaml")
    assert code == 1 and "TC012" in err


def test_warn_unset_is_one_line_per_missing_variable(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = load(["catalog.yaml"])
    assert warn_unset(catalog, prefix="toolcat serve", env={"TEAM": "ops"}) == 1
    assert capsys.readouterr().err == (
        "toolcat serve: warning: environment variable ORDERS_TOKEN is not set (needed by "
        "service orders: auth.token at catalog.yaml:6); see 'toolcat env'\n"
    )
    assert warn_unset(catalog, env={"TEAM": "ops", "ORDERS_TOKEN": SECRET}) == 0
