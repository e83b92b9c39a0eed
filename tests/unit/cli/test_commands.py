"""`toolcat validate`, `list` and `schema` run in-process on small catalogs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from toolcat.catalog.schema import check_strict_schema
from toolcat.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- validate ------------------------------------------------------------------------


def test_validate_clean_catalog_exits_0(catalogs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", "good.yaml")
    assert (code, out) == (0, "")
    assert err == "toolcat: no problems in 1 file\n"


def test_validate_errors_exit_1_with_text_lines(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "validate", "bad.yaml")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("bad.yaml:7:14: error TC012 ")
    assert {line.split()[2] for line in lines} == {"TC012", "TC103", "TC104"}
    assert err.strip() == "toolcat: 1 error, 2 warnings in 1 file"


@pytest.mark.parametrize("fail_on, expected", [("error", 0), ("warning", 1)])
def test_fail_on_decides_whether_warnings_fail(
    catalogs: Path, capsys: pytest.CaptureFixture[str], fail_on: str, expected: int
) -> None:
    code, out, _ = run(capsys, "validate", "warn.yaml", "--fail-on", fail_on)
    assert code == expected
    assert "warning TC104" in out


def test_validate_several_paths_and_json(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "validate", "good.yaml", "bad.yaml", "--format", "json")
    assert code == 1 and err == ""
    doc = json.loads(out)
    assert sorted(Path(f).name for f in doc["files"]) == ["bad.yaml", "good.yaml"]
    assert doc["counts"]["error"] == 1 and doc["failed"] is True


def test_validate_sarif_and_junit_and_github(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "validate", "bad.yaml", "--format", "sarif")
    assert code == 1
    results = json.loads(out)["runs"][0]["results"]
    assert [r["ruleId"] for r in results][0] == "TC012"
    code, out, _ = run(capsys, "validate", "bad.yaml", "--format", "junit")
    assert code == 1 and ET.fromstring(out).get("failures") == "1"
    code, out, _ = run(capsys, "validate", "bad.yaml", "--format", "github")
    assert out.startswith("::error file=bad.yaml,line=7,col=14,title=TC012 unknown-service::")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["validate", "missing.yaml"], "missing.yaml"),
        (["validate", "empty"], "empty"),
        (["validate", "good.yaml", "--format", "xml"], "invalid choice"),
        (["validate", "good.yaml", "--fail-on", "info"], "invalid choice"),
        (["validate"], "required"),
        (["list", "missing.yaml"], "missing.yaml"),
        (["schema", "good.yaml"], "--provider"),
        (["schema", "good.yaml", "--provider", "cohere"], "invalid choice"),
        (["schema", "good.yaml", "--provider", "anthropic", "--strict"], "--strict"),
        (["schema", "good.yaml", "--provider", "openai", "--toolset", "nope"], "readonly"),
        (["list", "good.yaml", "--toolset", "nope"], "unknown toolset 'nope'"),
    ],
)
def test_bad_usage_and_input_exit_2_with_one_line(
    catalogs: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("toolcat: ")
    assert message in err


# -- list ----------------------------------------------------------------------------


def test_list_text_table(catalogs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "good.yaml")
    assert code == 0
    rows = [line.split(None, 4) for line in out.splitlines()]
    assert rows[0] == ["NAME", "METHOD", "PATH", "SERVICE", "DESCRIPTION"]
    assert rows[1] == [
        "get_order",
        "GET",
        "/orders/{order_id}",
        "orders",
        "Look up one order by id.",
    ]
    assert rows[2][:4] == ["create_order", "POST", "/orders", "orders"]


def test_list_json_and_toolset(
    catalogs: Path, capsys: pytest.CaptureFixture[str], secret: str
) -> None:
    code, out, _ = run(capsys, "list", "good.yaml", "--format", "json", "--toolset", "readonly")
    assert code == 0
    doc = json.loads(out)
    assert [t["name"] for t in doc["tools"]] == ["get_order"]
    tool = doc["tools"][0]
    assert tool["method"] == "GET" and tool["service"] == "orders"
    assert {"argument": "order_id", "in": "path", "name": "order_id", "required": True} in tool[
        "parameters"
    ]
    assert tool["toolsets"] == ["readonly"]
    assert tool["source"].split(":")[0].endswith("good.yaml")
    assert secret not in out


def test_list_of_a_broken_catalog_prints_errors_and_exits_1(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "list", "bad.yaml")
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("bad.yaml:7:14: error TC012")
    assert "TC103" not in err  # only the errors that block loading
    assert lines[-1].startswith("toolcat: the catalog has 1 error")


# -- schema --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "provider, key",
    [
        ("openai", "function"),
        ("openai-responses", "parameters"),
        ("anthropic", "input_schema"),
        ("gemini", "functionDeclarations"),
        ("mcp", "inputSchema"),
    ],
)
def test_schema_prints_the_provider_shape(
    catalogs: Path, capsys: pytest.CaptureFixture[str], secret: str, provider: str, key: str
) -> None:
    code, out, _ = run(capsys, "schema", "good.yaml", "--provider", provider)
    assert code == 0
    tools = json.loads(out)
    assert isinstance(tools, list) and key in tools[0]
    assert secret not in out and "orders.example" not in out


def test_schema_strict_is_valid_strict_mode(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "schema", "good.yaml", "--provider", "openai", "--strict")
    assert code == 0
    tools = json.loads(out)
    for tool in tools:
        assert tool["function"]["strict"] is True
        assert check_strict_schema(tool["function"]["parameters"]) == []
    params = tools[0]["function"]["parameters"]
    assert params["properties"]["limit"]["type"] == ["integer", "null"]
    assert "default: 5" in params["properties"]["limit"]["description"]
    assert "toolcat: note: openai: get_order" in err
    code, out, err = run(capsys, "schema", "good.yaml", "--provider", "openai", "--strict", "-q")
    assert err == ""


def test_schema_toolset(catalogs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "schema", "good.yaml", "--provider", "anthropic", "--toolset", "readonly"
    )
    assert code == 0 and [t["name"] for t in json.loads(out)] == ["get_order"]


def test_schema_of_a_broken_catalog_exits_1(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "schema", "bad.yaml", "--provider", "openai")
    assert code == 1 and out == "" and "TC012" in err


def test_table_shows_the_first_non_empty_line_truncated() -> None:
    from toolcat.cli._cmd_list import first_line

    assert first_line("\n\n  Look up.\nMore.") == "Look up."
    assert first_line("x" * 100) == "x" * 79 + "…"
    assert first_line("") == ""
