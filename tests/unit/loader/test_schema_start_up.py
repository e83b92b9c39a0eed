"""`toolcat schema` of a JSON spec: not read as YAML, the pattern scan's shortcut.

Speed is measured by benchmarks/bench_startup.py, never asserted here; these tests
hold the behaviour the shortcuts must keep.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from toolcat.catalog import FrozenDict, FrozenList
from toolcat.catalog.common import freeze
from toolcat.loader import _schema_walks, _schemas, load_catalog
from toolcat.loader._params import _has_ref

REPO = Path(__file__).resolve().parents[3]
SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "pets", "version": "1"},
    "servers": [{"url": "https://pets.example.com"}],
    "paths": {
        "/pets/{id}": {
            "get": {
                "operationId": "getPet",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def _schema_run(spec: Path) -> tuple[list[Any], set[str]]:
    """The tools `toolcat schema SPEC --provider openai` prints, and the modules it loaded."""
    code = (
        "import sys\n"
        f"sys.argv = ['toolcat', 'schema', {str(spec)!r}, '--provider', 'openai']\n"
        "from toolcat.cli._app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    return json.loads(out.stdout), set(out.stderr.strip().splitlines()[-1].split())


def test_schema_of_a_json_spec_is_not_read_as_yaml(tmp_path: Path) -> None:
    spec = tmp_path / "pets.json"
    spec.write_text(json.dumps(SPEC))
    tools, modules = _schema_run(spec)
    assert [t["function"]["name"] for t in tools] == ["getPet"]
    assert "toolcat.loader.openapi._import" in modules  # the run did import the spec
    assert "toolcat.loader.openapi._read" not in modules  # the spec is not read as YAML


def test_a_large_json_spec_with_findings_is_not_read_as_yaml(tmp_path: Path) -> None:
    """Findings are placed by reading the spec as YAML nodes, but only up to 2 MiB."""
    spec = json.loads(json.dumps(SPEC))
    spec["info"]["description"] = "x" * (3 << 20)  # past the size findings are placed for
    spec["paths"]["/broken"] = {
        "get": {
            "operationId": "broken",
            "parameters": [{"name": "X-Bad\r\nName", "in": "header", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}},
        }
    }
    path = tmp_path / "large.json"
    path.write_text(json.dumps(spec))
    tools, modules = _schema_run(path)
    assert [t["function"]["name"] for t in tools] == ["getPet"]  # `broken` skipped: a finding
    assert "toolcat.loader.openapi._read" not in modules  # the spec is not read as YAML


def test_schema_of_a_yaml_spec_reads_it_the_same(tmp_path: Path) -> None:
    as_json = tmp_path / "pets.json"
    as_json.write_text(json.dumps(SPEC))
    as_yaml = tmp_path / "pets.yaml"
    as_yaml.write_text(yaml.safe_dump(SPEC))
    json_tools, _ = _schema_run(as_json)
    yaml_tools, modules = _schema_run(as_yaml)
    assert yaml_tools == json_tools
    assert "yaml" in modules


def test_read_yaml_is_still_the_loaders_reader() -> None:
    import toolcat.loader
    from toolcat.loader import _yaml, read_yaml

    assert read_yaml is _yaml.read_yaml
    assert "read_yaml" in dir(toolcat.loader)
    assert read_yaml("a: [on, 010]\n") == {"a": ["on", 10]}


def test_a_spec_referring_to_a_yaml_file_still_reads_it(tmp_path: Path) -> None:
    (tmp_path / "pet.yaml").write_text("type: object\nproperties:\n  on: {type: string}\n")
    spec = json.loads(json.dumps(SPEC))
    spec["paths"]["/pets/{id}"]["get"]["parameters"].append(
        {"name": "filter", "in": "query", "schema": {"$ref": "pet.yaml"}}
    )
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(spec))
    result = load_catalog([path], progress=False)
    assert result.catalog is not None, [str(d) for d in result.diagnostics]
    schema = result.catalog["getPet"].input_schema["properties"]["filter"]
    assert schema["properties"] == {"on": {"type": "string"}}  # YAML 1.2: 'on' is a name


SCHEMAS: list[Any] = [
    {"type": "string"},
    {"type": "string", "pattern": "^a(?=b)"},
    {"type": "object", "properties": {"x": {"type": "string", "pattern": "(a)\\1"}}},
    {"anyOf": [{"type": "integer"}, [{"pattern": "(?<=x)y"}]]},
    {"type": "object", "patternProperties": {"^(?!z)": {"type": "string"}}},
    {"examples": [{"pattern": "(?=x)"}], "type": "object"},  # data, not a schema
    {"default": {"patternProperties": {"(?=y)": {}}}},
    FrozenDict({"items": FrozenDict({"pattern": "(?=q)"}), "enum": FrozenList([1])}),
    {"properties": {"p": {"type": "string", "pattern": "^[a-z]+$"}}},  # its engine runs it
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_the_pattern_scan_never_hides_a_finding(schema: Any) -> None:
    found = tuple(_schema_walks.walk_patterns(schema))
    checker = _schemas.SchemaChecker()
    assert checker._patterns(schema, None) == found
    if found:
        assert _schema_walks.may_have_patterns(schema)


def test_the_pattern_scan_says_no_only_without_patterns() -> None:
    assert not _schema_walks.may_have_patterns({"type": "object", "properties": {"a": {}}})
    assert not _schema_walks.may_have_patterns([{"items": [{"type": "string"}]}])
    assert _schema_walks.may_have_patterns({"a": [{"b": {"pattern": "x"}}]})


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["$ref", "pattern", "patternProperties", "items", "x"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(_VALUES)
def test_one_walk_finds_refs_and_patterns_as_the_json_text_shows(value: Any) -> None:
    schema = {"type": "object", "x": value}
    text = json.dumps(schema)
    expected = (
        bool(re.search(r'"\$ref":', text)),
        bool(re.search(r'"(pattern|patternProperties)":', text)),
    )
    assert _schema_walks.ref_and_pattern_keys(schema) == expected
    assert _schema_walks.ref_and_pattern_keys(freeze(schema)) == expected
    assert _schema_walks.ref_and_pattern_keys(schema)[0] is _has_ref(schema)


@settings(max_examples=200, deadline=None)
@given(_VALUES)
def test_the_checks_of_an_imported_schema_are_the_same_with_the_walk(value: Any) -> None:
    schema = {"type": "object", "x": value, "properties": {"p": {"pattern": "(?=a)"}}}
    for candidate in (schema, {"type": "object", "x": value}):
        _, has_pattern = _schema_walks.ref_and_pattern_keys(candidate)
        plain = _schemas.SchemaChecker().check(candidate, trusted=True)
        told = _schemas.SchemaChecker().check(candidate, trusted=True, patterns=has_pattern)
        assert told == plain


def test_converted_values_are_frozen_all_the_way_down() -> None:
    from toolcat.loader.openapi import _schemas as convert

    scalars = convert._frozen_value([1, "a", None])
    nested = convert._frozen_value([1, {"a": [2]}])
    assert type(scalars) is FrozenList and scalars == [1, "a", None]
    assert type(nested) is FrozenList and type(nested[1]) is FrozenDict
    assert type(nested[1]["a"]) is FrozenList
