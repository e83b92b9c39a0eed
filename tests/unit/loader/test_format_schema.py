"""The format's JSON Schema: generated, checked in, valid, and in step with the loader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator
from toolcat.cli._app import main
from toolcat.loader import load_catalog
from toolcat.loader._format_schema import catalog_json_schema, render_catalog_json_schema

REPO = Path(__file__).resolve().parents[3]
CHECKED_IN = REPO / "schemas" / "toolcat-catalog-v1.schema.json"
GOOD = sorted((REPO / "tests" / "data" / "catalogs" / "good").glob("*.yaml"))
EXAMPLE = REPO / "examples" / "catalog.yaml"


def test_checked_in_schema_is_current() -> None:
    assert CHECKED_IN.read_text(encoding="utf-8") == render_catalog_json_schema(), (
        "schemas/toolcat-catalog-v1.schema.json is stale: run "
        "'toolcat catalog-schema -o schemas/toolcat-catalog-v1.schema.json'"
    )


def test_schema_is_valid_2020_12() -> None:
    schema = catalog_json_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_example_points_editors_at_the_schema() -> None:
    first = EXAMPLE.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/toolcat-catalog-v1.schema.json"
    assert (EXAMPLE.parent / "../schemas/toolcat-catalog-v1.schema.json").resolve() == CHECKED_IN


@pytest.mark.parametrize("path", [EXAMPLE, *GOOD], ids=lambda p: p.name)
def test_good_catalogs_match_the_schema(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    errors = list(Draft202012Validator(catalog_json_schema()).iter_errors(data))
    assert errors == []


@pytest.mark.parametrize(
    "tool_patch",
    [{"timout": 5}, {"method": "FETCH"}, {"timeout": "fast"}, {"auth": {"type": "bearr"}}],
)
def test_schema_and_loader_reject_the_same_mistakes(
    tool_patch: dict[str, object], tmp_path: Path
) -> None:
    tool: dict[str, object] = {
        "name": "t",
        "description": "d",
        "service": "s",
        "method": "get",
        "path": "/x",
    }
    tool.update(tool_patch)
    doc = {"toolcat": 1, "services": {"s": {"base_url": "http://x"}}, "tools": [tool]}
    assert list(Draft202012Validator(catalog_json_schema()).iter_errors(doc))
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert load_catalog([path]).errors


def test_catalog_schema_command_prints_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["catalog-schema"]) == 0
    assert json.loads(capsys.readouterr().out)["$id"] == catalog_json_schema()["$id"]
    out = tmp_path / "s.json"
    assert main(["catalog-schema", "-o", str(out)]) == 0
    assert out.read_text() == render_catalog_json_schema()
    assert main(["catalog-schema", "-o", str(tmp_path / "no" / "such" / "dir.json")]) == 2
