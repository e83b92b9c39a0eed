"""`toolcat access PATH --claims JSON`: what an identity may call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolcat.cli import main

CATALOG = """\
toolcat: 1
services:
  s: {base_url: "http://127.0.0.1:9"}
tools:
  - {name: get_item, service: s, method: GET, path: /items, description: Read.}
  - {name: drop_item, service: s, method: DELETE, path: /items, description: Drop., confirm: true}
toolsets:
  readonly: [get_item]
server:
  access:
    - {name: readers, when: {groups: readers}, allow: {toolsets: [readonly]}}
    - {name: ci, when: {api_key: ci}, allow: {tools: ["*"]}}
"""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    file = tmp_path / "c.yaml"
    file.write_text(CATALOG)
    return file


def test_text_lists_each_tool_and_the_deciding_rule(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["access", str(path), "--claims", '{"sub": "ana", "groups": ["readers"]}']) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["allow", "get_item", "rule", "'readers'"]
    assert out[1].split()[:2] == ["deny", "drop_item"]
    assert out[-1] == "toolcat: 1 of 2 tools allowed"


def test_json_and_api_keys(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["access", str(path), "--api-key", "ci", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(t["tool"], t["allowed"], t["rule"]) for t in doc["tools"]] == [
        ("get_item", True, "ci"),
        ("drop_item", True, "ci"),
    ]


def test_claims_from_a_file(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "claims.json"
    claims.write_text('{"groups": "guests"}')
    assert main(["access", str(path), "--claims", f"@{claims}"]) == 0
    assert capsys.readouterr().out.endswith("toolcat: 0 of 2 tools allowed\n")


@pytest.mark.parametrize("claims", ["[1]", "{not json", '"x"'])
def test_bad_claims_are_one_line_exit_2(
    path: Path, claims: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["access", str(path), "--claims", claims]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolcat: --claims") and err.count("\n") == 1
