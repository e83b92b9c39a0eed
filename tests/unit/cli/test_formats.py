"""`toolcat validate` output formats, on hand-made diagnostics."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from toolcat.cli._formats import (
    FORMATS,
    format_github,
    format_json,
    format_junit,
    format_sarif,
    format_text,
    is_failure,
    summary_line,
)
from toolcat.loader import Diagnostic, Severity

ERR = Diagnostic.make(
    "TC012",
    "unknown service 'nope'; known services: s",
    "cat/a.yaml",
    7,
    14,
    ("tools", 0, "service"),
)
WARN = Diagnostic.make("TC103", "parameter 'n' has no description", "cat/a.yaml", 18, 7)
WARN_B = Diagnostic.make(
    "TC104", "POST changes data, 100% sure:\nset confirm", "cat/b,c:d.yaml", 3, 1
)
NOTE = Diagnostic("TC101", "a note", "cat/b,c:d.yaml", 1, 1, Severity.INFO)
FILES = ["cat/a.yaml", "cat/b,c:d.yaml", "cat/clean.yaml"]
ALL = [ERR, WARN, WARN_B, NOTE]


@pytest.fixture(scope="module")
def sarif_schema(data_dir: Path) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        (data_dir / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")
    )
    return schema


def test_text_lines_are_file_line_col_severity_code_message() -> None:
    out = format_text([ERR, WARN_B], FILES, "error")
    assert out.splitlines() == [
        "cat/a.yaml:7:14: error TC012 unknown service 'nope'; known services: s",
        "cat/b,c:d.yaml:3:1: warning TC104 POST changes data, 100% sure: set confirm",
    ]


@pytest.mark.parametrize(
    "diagnostic, fail_on, fails",
    [
        (ERR, "error", True),
        (WARN, "error", False),
        (WARN, "warning", True),
        (NOTE, "warning", False),
    ],
)
def test_fail_on_threshold(diagnostic: Diagnostic, fail_on: str, fails: bool) -> None:
    assert is_failure(diagnostic, fail_on) is fails


def test_summary_line() -> None:
    assert summary_line(ALL, FILES) == "1 error, 2 warnings, 1 note in 3 files"
    assert summary_line([], FILES[:1]) == "no problems in 1 file"


def test_json_document() -> None:
    doc = json.loads(format_json(ALL, FILES, "error"))
    assert doc["version"] == 1
    assert doc["files"] == FILES
    assert doc["counts"] == {"error": 1, "warning": 2, "info": 1}
    assert doc["failed"] is True and doc["failOn"] == "error"
    assert doc["diagnostics"][0] == {
        "code": "TC012",
        "name": "unknown-service",
        "severity": "error",
        "message": "unknown service 'nope'; known services: s",
        "file": "cat/a.yaml",
        "line": 7,
        "column": 14,
        "path": ["tools", 0, "service"],
    }
    assert json.loads(format_json([WARN], FILES, "error"))["failed"] is False


def test_github_annotations_escape_data_and_properties() -> None:
    lines = format_github([ERR, WARN_B, NOTE], FILES, "error").splitlines()
    assert lines[0] == (
        "::error file=cat/a.yaml,line=7,col=14,title=TC012 unknown-service::"
        "unknown service 'nope'; known services: s"
    )
    # properties escape % CR LF : and , ; the message escapes % CR LF only
    assert lines[1] == (
        "::warning file=cat/b%2Cc%3Ad.yaml,line=3,col=1,title=TC104 unconfirmed-write::"
        "POST changes data, 100%25 sure:%0Aset confirm"
    )
    assert lines[2].startswith("::notice ")
    assert len(lines) == 3  # a newline inside a message never splits the command


def test_sarif_validates_against_the_official_schema(sarif_schema: dict[str, Any]) -> None:
    log = json.loads(format_sarif(ALL, FILES, "error", version="9.9.9", docs_base=None))
    jsonschema.Draft7Validator.check_schema(sarif_schema)
    errors = sorted(jsonschema.Draft7Validator(sarif_schema).iter_errors(log), key=str)
    assert errors == []
    assert log["version"] == "2.1.0"


def test_sarif_schema_check_is_not_vacuous(sarif_schema: dict[str, Any]) -> None:
    log = json.loads(format_sarif([ERR], FILES, "error", version="1"))
    log["runs"][0]["results"][0]["level"] = "fatal"
    del log["runs"][0]["tool"]["driver"]["name"]
    errors = list(jsonschema.Draft7Validator(sarif_schema).iter_errors(log))
    assert len(errors) >= 2


def test_sarif_rules_results_and_locations() -> None:
    log = json.loads(
        format_sarif(
            ALL,
            FILES,
            "error",
            version="1.2.3",
            docs_base="https://d.example/diag.md",
            information_uri="https://d.example/",
        )
    )
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "toolcat" and driver["version"] == "1.2.3"
    assert driver["informationUri"] == "https://d.example/"
    assert [r["id"] for r in driver["rules"]] == ["TC012", "TC103", "TC104", "TC101"]
    rule = driver["rules"][0]
    assert rule["name"] == "unknown-service"
    assert rule["shortDescription"]["text"] == "Unknown service"
    assert rule["helpUri"] == "https://d.example/diag.md#tc012-unknown-service"
    assert rule["defaultConfiguration"]["level"] == "error"
    assert [r["level"] for r in run["results"]] == ["error", "warning", "warning", "note"]
    first = run["results"][0]
    assert first["ruleId"] == "TC012" and first["ruleIndex"] == 0
    assert first["message"]["text"] == ERR.message
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "cat/a.yaml", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 7, "startColumn": 14}
    # a file name with reserved characters is percent-encoded in the URI
    odd = run["results"][2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert odd == "cat/b%2Cc%3Ad.yaml"


def test_sarif_uri_of_an_absolute_path_below_cwd_is_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    d = Diagnostic.make("TC012", "m", str(tmp_path / "sub" / "x.yaml"), 2, 3)
    log = json.loads(format_sarif([d], [], "error", version="1"))
    loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc["uri"] == "sub/x.yaml"


def test_junit_is_valid_xml_with_a_suite_per_file() -> None:
    text = format_junit(
        ALL + [Diagnostic.make("TC012", "bad\x01char", "cat/a.yaml")], FILES, "error"
    )
    root = ET.fromstring(text)
    assert root.tag == "testsuites"
    assert root.get("tests") == "3" and root.get("failures") == "1"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == FILES
    a = suites["cat/a.yaml"]
    assert a.get("failures") == "1"
    case = a.find("testcase")
    assert case is not None and case.get("name") == "cat/a.yaml"
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "TC012"
    assert "cat/a.yaml:7:14: error TC012" in (failure.text or "")
    assert "bad\\x01char" in (failure.text or "")  # the control character is shown escaped
    assert "TC103" in (case.findtext("system-out") or "")  # a warning below --fail-on
    b = suites["cat/b,c:d.yaml"]
    assert b.get("failures") == "0" and b.find("testcase/failure") is None
    assert suites["cat/clean.yaml"].find("testcase/system-out") is None


def test_junit_fail_on_warning_makes_warnings_failures() -> None:
    root = ET.fromstring(format_junit([WARN_B], FILES, "warning"))
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert suites["cat/b,c:d.yaml"].find("testcase/failure") is not None


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_handles_no_diagnostics(name: str) -> None:
    out = FORMATS[name]([], FILES, "error")
    assert isinstance(out, str)


def test_sarif_links_come_from_project_urls() -> None:
    from toolcat.cli._formats import _docs_base, _information_uri

    urls = {"repository": "https://github.com/acme/toolcat", "homepage": "https://acme.example"}
    assert _docs_base(urls) == "https://github.com/acme/toolcat/blob/main/docs/diagnostics.md"
    assert _information_uri(urls) == "https://acme.example"
    assert _docs_base({"diagnostics": "https://docs.acme.example/diag"}) == (
        "https://docs.acme.example/diag"
    )
    assert _docs_base({}) is None and _information_uri({}) is None


def test_sarif_without_links_names_the_docs_in_help_text() -> None:
    log = json.loads(
        format_sarif([ERR], FILES, "error", version="1", docs_base="", information_uri="")
    )
    driver = log["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver and "helpUri" not in driver["rules"][0]
    assert "docs/diagnostics.md#tc012-unknown-service" in driver["rules"][0]["help"]["text"]
