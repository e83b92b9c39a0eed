"""`toolcat test`: a catalog's examples run offline; --conformance checks against the spec."""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from toolcat.cli import main
from toolcat.loader import load_catalog

REPO = Path(__file__).resolve().parents[3]
ORDERS = REPO / "tests" / "data" / "catalogs" / "examples" / "orders.yaml"
SAMPLE_SPEC = REPO / "specs" / "sample-service.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def edited(tmp_path: Path, old: str, new: str, source: Path = ORDERS) -> Path:
    text = source.read_text()
    assert old in text
    out = tmp_path / source.name
    out.write_text(text.replace(old, new))
    return out


@pytest.fixture
def no_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection attempt fails the test: the run must stay offline."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("toolcat test opened a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


# -- examples -----------------------------------------------------------------------------


def test_examples_pass_offline(no_sockets: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "test", str(ORDERS))
    assert code == 0, out + err
    assert out.splitlines() == [
        "ok    get_order: one order",
        "ok    get_order: missing order",
        "ok    create_order: example 1",
    ]
    assert err == "toolcat: 3 examples: 3 passed, 0 failed\n"


def test_real_environment_is_not_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Secrets come from the test environment (fakes), never from the real one."""
    monkeypatch.setenv("SHOP_TOKEN", "real-secret")
    code, out, _ = run(capsys, "test", str(ORDERS))
    assert code == 0
    assert "real-secret" not in out


def test_a_changed_path_template_fails_with_a_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited(tmp_path, "path: /orders/{order_id}", "path: /order/{order_id}")
    code, out, err = run(capsys, "test", str(path))
    assert code == 1
    assert "FAIL  get_order: one order" in out
    assert "error TC066 tool 'get_order': example 'one order': the request differs" in out
    assert '-  "path": "/orders/A1",' in out
    assert '+  "path": "/order/A1",' in out
    assert "ok    create_order: example 1" in out
    assert err == "toolcat: 3 examples: 1 passed, 2 failed\n"


def test_a_changed_result_fails_with_a_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited(tmp_path, 'select: "{{ body.id }}"', 'select: "{{ body }}"')
    code, out, _ = run(capsys, "test", str(path))
    assert code == 1
    assert "TC067 tool 'create_order': example 'example 1': the result differs" in out
    assert "    -C9" in out
    assert '    +{"id":"C9"}' in out


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        ("query: {expand: [items, customer]}", "query: {expand: items}", '"expand": "items"'),
        (
            "method: GET\n          path: /orders/A1",
            "method: PUT\n          path: /orders/A1",
            "PUT",
        ),
        ("Bearer test-SHOP_TOKEN", "Bearer other", "Bearer other"),
        ("body: {sku: X-1, quantity: 2}", "body: {sku: X-1, quantity: 3}", '"quantity": 3'),
    ],
    ids=["query", "method", "header", "body"],
)
def test_each_request_part_is_compared(
    old: str, new: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "test", str(edited(tmp_path, old, new)))
    assert code == 1
    assert "TC066" in out
    assert shown in out


def test_env_values_replace_the_fakes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "test", str(ORDERS), "--env", "SHOP_TOKEN=abc")
    assert code == 1  # the example states the fake token
    assert '+    "Authorization": "Bearer abc"' in out
    env = tmp_path / "test.env"
    env.write_text("# test secrets\nexport SHOP_TOKEN='test-SHOP_TOKEN'\n")
    assert run(capsys, "test", str(ORDERS), "--env", str(env))[0] == 0
    env.write_text("not a pair\n")
    code, _, err = run(capsys, "test", str(ORDERS), "--env", str(env))
    assert code == 2
    assert err == f"toolcat: --env {env}:1: expected NAME=VALUE\n"


def test_only_the_named_tools_run(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "test", str(ORDERS), "--tool", "create_order")
    assert (code, out) == (0, "ok    create_order: example 1\n")
    code, _, err = run(capsys, "test", str(ORDERS), "--tool", "nope")
    assert code == 2
    assert "no such tool" in err


# -- formats ---------------------------------------------------------------------------------


def test_machine_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = edited(tmp_path, "path: /orders/{order_id}", "path: /order/{order_id}")
    code, out, _ = run(capsys, "test", str(path), "--format", "json")
    doc = json.loads(out)
    assert code == 1
    assert doc["counts"] == {"examples": 3, "passed": 1, "failed": 2, "conformance_failed": 0}
    first = doc["examples"][0]
    assert (first["tool"], first["name"], first["passed"]) == ("get_order", "one order", False)
    assert first["diagnostics"][0]["code"] == "TC066"
    assert first["line"] == 18

    code, out, _ = run(capsys, "test", str(path), "--format", "junit")
    root = ET.fromstring(out)
    assert (root.get("tests"), root.get("failures")) == ("3", "2")
    cases = root.findall(".//testcase")
    assert [c.get("name") for c in cases] == ["one order", "missing order", "example 1"]
    assert cases[0].find("failure") is not None and cases[2].find("failure") is None

    code, out, _ = run(capsys, "test", str(path), "--format", "sarif")
    sarif = json.loads(out)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["TC066", "TC066"]

    code, out, _ = run(capsys, "test", str(path), "--format", "github")
    assert out.count("::error ") == 2
    assert "title=TC066 example-request-differs" in out


# -- bad input ----------------------------------------------------------------------------


def test_a_broken_catalog_reports_its_diagnostics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited(tmp_path, "service: shop\n    method: POST", "service: shopp\n    method: POST")
    for fmt in ("text", "json", "junit", "sarif", "github"):
        code, out, err = run(capsys, "test", str(path), "--format", fmt)
        assert code == 1
        assert "TC012" in out
        assert "Traceback" not in out + err


def test_a_missing_catalog_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "test", str(tmp_path / "nope.yaml"))
    assert (code, out) == (2, "")
    assert err.startswith("toolcat: ") and "Traceback" not in err


def test_examples_are_checked_at_load(tmp_path: Path) -> None:
    path = edited(
        tmp_path, "arguments: {sku: X-1, quantity: 2}", "arguments: {sku: X-1, quantity: 0}"
    )
    result = load_catalog([str(path)])
    assert result.catalog is None
    found = [d for d in result.diagnostics if d.code == "TC065"]
    assert len(found) == 1
    assert found[0].line == 47 and "quantity" in found[0].message
    assert "minimum of 1" in found[0].message


def test_example_lint_warnings(tmp_path: Path) -> None:
    text = ORDERS.read_text().replace("      - name: missing order\n", "      - name: one order\n")
    text = text.replace("        response: {status: 201, body: {id: C9}}\n", "")
    path = tmp_path / "orders.yaml"
    path.write_text(text)
    result = load_catalog([str(path)])
    assert result.catalog is not None
    assert sorted(d.code for d in result.diagnostics) == ["TC120", "TC121"]


def test_examples_are_kept_in_the_ir() -> None:
    result = load_catalog([str(ORDERS)])
    assert result.catalog is not None
    examples = result.catalog["get_order"].examples
    assert [e.name for e in examples] == ["one order", "missing order"]
    assert examples[0].arguments == {"order_id": "A1", "expand": ["items", "customer"]}
    assert examples[1].request == {"path": "/orders/B%202"}
    assert examples[1].response == {
        "status": 404,
        "headers": {},
        "body": {"message": "no such order"},
    }


# -- conformance -----------------------------------------------------------------------------

SPEC = """\
openapi: 3.0.3
info: {title: things, version: "1"}
servers: [{url: "https://things.example/v1"}]
paths:
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer, minimum: 1}}
        - name: tags
          in: query
          schema: {type: array, items: {type: integer}}
      responses:
        "200": {description: ok}
"""

CATALOG = """\
toolcat: 1
services:
  things: {base_url: "https://things.example/v1"}
tools:
  - name: getThing
    description: Get a thing.
    service: things
    method: GET
    path: /things/{id}
    parameters:
      id: {type: integer, minimum: 1, description: The id.}
      tags:
        type: array
        items: {type: integer}
        required: false
        description: Tags.
        STYLE
"""


def _conformance(tmp_path: Path, style: str) -> tuple[Path, Path]:
    spec = tmp_path / "things.yaml"
    spec.write_text(SPEC)
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(CATALOG.replace("STYLE", style))
    return spec, catalog


def test_conformance_passes_on_a_spec_served_as_is(
    no_sockets: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "test", str(SAMPLE_SPEC), "--conformance")
    assert code == 0, out + err
    assert out.count("ok    ") == 4
    assert "conformance: 4 tools, 4 passed, 0 failed" in err


def test_conformance_finds_a_broken_parameter_style(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, catalog = _conformance(tmp_path, "explode: true")
    code, out, err = run(capsys, "test", str(catalog), "--conformance", "--spec", str(spec))
    assert code == 0, out + err
    assert "ok    getThing: conformance (GET /things/{id}): 25 requests" in out
    spec, catalog = _conformance(tmp_path, "style: pipeDelimited\n        explode: false")
    code, out, _ = run(capsys, "test", str(catalog), "--conformance", "--spec", str(spec))
    assert code == 1
    assert "FAIL  getThing: conformance (GET /things/{id})" in out
    assert "TC068 tool 'getThing': the request does not conform" in out
    assert "tags" in out


def test_conformance_is_repeatable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec, catalog = _conformance(tmp_path, "style: pipeDelimited\n        explode: false")
    argv = ("test", str(catalog), "--conformance", "--spec", str(spec), "--format", "json")
    first = run(capsys, *argv)[1]
    assert run(capsys, *argv)[1] == first
    assert run(capsys, *argv, "--seed", "7")[0] == 1


def test_conformance_bad_spec_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "test", str(ORDERS), "--conformance", "--spec", str(tmp_path / "none.yaml")
    )
    assert code == 2
    assert "not a file" in err
    swagger = tmp_path / "old.json"
    swagger.write_text('{"swagger": "2.0", "paths": {}}')
    code, _, err = run(capsys, "test", str(ORDERS), "--conformance", "--spec", str(swagger))
    assert code == 2
    assert "not an OpenAPI 3.x spec" in err


def test_json_written_as_text_compares_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited(
        tmp_path,
        "result: {id: A1, total: 12.5}",
        """result: '{"total":12.5,"id":"A1"}'""",
    )
    assert run(capsys, "test", str(path))[0] == 0
    path = edited(
        tmp_path, "body: {sku: X-1, quantity: 2}", """body: '{"quantity": 2, "sku": "X-1"}'"""
    )
    assert run(capsys, "test", str(path))[0] == 0
    path = edited(
        tmp_path, "body: {sku: X-1, quantity: 2}", """body: '{"quantity": 3, "sku": "X-1"}'"""
    )
    code, out, _ = run(capsys, "test", str(path))
    assert code == 1 and "TC066" in out


def test_an_example_that_cannot_send_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ctx.yaml"
    path.write_text(
        """\
toolcat: 1
services:
  shop: {base_url: "https://shop.example"}
tools:
  - name: my_orders
    description: My orders.
    service: shop
    method: GET
    path: /orders
    parameters:
      user: {type: string, in: query, from: context.user_id, description: The user.}
    examples:
      - arguments: {}
"""
    )
    code, out, _ = run(capsys, "test", str(path))
    assert code == 1
    assert "13:9: error TC069 tool 'my_orders': example 'example 1': the call failed" in out


def test_a_style_the_checker_cannot_read_is_not_a_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stripe's deepObject arrays: openapi-core cannot read them at all, so the tool is
    reported as not checked (and passes) rather than as non-conforming."""
    spec = tmp_path / "deep.yaml"
    spec.write_text(
        SPEC.replace(
            "        - name: tags\n          in: query\n",
            "        - name: tags\n          in: query\n          style: deepObject\n"
            "          explode: true\n",
        )
    )
    code, out, _ = run(capsys, "test", str(spec), "--conformance")
    assert code == 0, out
    assert "not checked: openapi-core could not check it (ValueError: not available)" in out


def test_oauth2_tokens_come_from_the_offline_transport(
    tmp_path: Path, no_sockets: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "oauth.yaml"
    path.write_text(
        """\
toolcat: 1
services:
  crm:
    base_url: https://crm.example/api
    auth:
      type: oauth2_client_credentials
      token_url: https://auth.example/token
      client_id: toolcat
      client_secret: ${CRM_SECRET}
tools:
  - name: get_contact
    description: One contact.
    service: crm
    method: GET
    path: /contacts/{id}
    parameters:
      id: {type: string, description: The id.}
    examples:
      - arguments: {id: c1}
        request:
          path: /contacts/c1
          headers: {authorization: Bearer test-access-token}
"""
    )
    code, out, _ = run(capsys, "test", str(path))
    assert (code, out) == (0, "ok    get_contact: example 1\n")


def test_the_path_may_include_the_base_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited(tmp_path, "path: /orders/A1", "path: /api/orders/A1")
    assert run(capsys, "test", str(path))[0] == 0
    path = edited(tmp_path, "path: /orders/A1", "path: /api/order/A1")
    code, out, _ = run(capsys, "test", str(path))
    assert code == 1
    assert '-  "path": "/api/order/A1",' in out and '+  "path": "/api/orders/A1",' in out


def test_conformance_finds_the_spec_an_openapi_entry_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sample-service.yaml").write_text(SAMPLE_SPEC.read_text())
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "toolcat: 1\nservices:\n  warehouse: {base_url: 'http://127.0.0.1:8765'}\n"
        "openapi:\n  - {spec: sample-service.yaml, service: warehouse}\n"
    )
    code, out, err = run(capsys, "test", str(catalog), "--conformance", "--cases", "3")
    assert code == 0, out
    assert out.count(": 3 requests\n") == 4
    assert err == "toolcat: no examples in the catalog; conformance: 4 tools, 4 passed, 0 failed\n"
