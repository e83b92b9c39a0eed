"""The loader's fast paths answer as the slow ones: spec sniffing, one parse, $ref finding."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolcat.catalog import FrozenDict
from toolcat.catalog.common import freeze
from toolcat.executor.providers import export_catalog
from toolcat.loader import load_catalog
from toolcat.loader._files import sniff_spec
from toolcat.loader._params import _has_ref

# the sniffing rules as first written: one multiline regex over the whole text
_OLD_SPEC = re.compile(r"^[ ]*[\"']?(openapi|swagger)[\"']?\s*:\s*[\"']?\d", re.MULTILINE)
_OLD_CATALOG = re.compile(r"^[ ]*[\"']?toolcat[\"']?\s*:", re.MULTILINE)

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "pets", "version": "1"},
    "servers": [{"url": "https://pets.example.com"}],
    "paths": {
        "/pets/{id}": {
            "get": {
                "operationId": "getPet",
                "summary": "One pet",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}

_pieces = st.sampled_from(
    [
        "openapi",
        "swagger",
        "toolcat",
        ":",
        " ",
        "\n",
        "'",
        '"',
        "3",
        "x",
        "- ",
        "\t",
        "{",
        "#",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces, max_size=24).map("".join))
def test_yaml_sniffing_agrees_with_the_whole_text_regex(text: str) -> None:
    expected = bool(_OLD_SPEC.search(text)) and not _OLD_CATALOG.search(text)
    if text.lstrip()[:1] == "{":
        return  # JSON-looking text is decided by its parsed top level
    assert sniff_spec(text, Path("x.yaml")) == (expected, None)


def test_json_spec_is_decided_by_its_top_level_and_comes_back_parsed() -> None:
    text = json.dumps(SPEC, indent=2)
    assert sniff_spec(text, Path("pets.json")) == (True, SPEC)
    # a nested "openapi" key does not make a spec, however it is indented
    nested = json.dumps({"toolcat": 1, "x-notes": {"openapi": "3.0.0"}}, indent=2)
    assert sniff_spec(nested, Path("c.json")) == (False, None)
    # broken JSON falls back to the line rules (the importer then reports the JSON error)
    assert sniff_spec('{\n"openapi": "3.0.0",\n', Path("p.json")) == (True, None)


def test_a_json_spec_named_as_path_is_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolcat.loader.openapi import _import

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the importer parsed the spec a second time")

    spec = tmp_path / "pets.json"
    spec.write_text(json.dumps(SPEC))
    monkeypatch.setattr(_import, "read_document", refuse)
    result = load_catalog([spec], progress=False)
    assert result.catalog is not None, [str(d) for d in result.diagnostics]
    assert [t.name for t in result.catalog] == ["getPet"]


def test_a_spec_over_the_size_limit_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    from toolcat.loader import _import as bridge

    spec = tmp_path / "pets.json"
    spec.write_text(json.dumps(SPEC))
    real = bridge._options

    def small(*args: Any, **kwargs: Any) -> Any:
        return dataclasses.replace(real(*args, **kwargs), max_spec_bytes=10)

    monkeypatch.setattr(bridge, "_options", small)
    result = load_catalog([spec], progress=False)
    assert result.catalog is None
    assert [d.code for d in result.errors] == ["TC207"]


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.sampled_from(["$ref", "#/$defs/A", "x"]),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(["$ref", "type", "items", "x"]), inner, max_size=3)
        ),
        max_leaves=12,
    )
)
def test_ref_finding_agrees_with_the_json_text(value: Any) -> None:
    schema = {"type": "object", "x": value}
    text = json.dumps(schema)
    has_key = bool(re.search(r'"\$ref":', text))
    assert _has_ref(schema) is has_key
    assert _has_ref(freeze(schema)) is has_key


def test_export_hands_out_the_frozen_schema_without_copying(tmp_path: Path) -> None:
    spec = tmp_path / "pets.json"
    spec.write_text(json.dumps(SPEC))
    catalog = load_catalog([spec], progress=False).catalog
    assert catalog is not None
    (tool,) = export_catalog(catalog, "openai").tools
    parameters = tool["function"]["parameters"]
    assert parameters is catalog["getPet"].input_schema
    assert isinstance(parameters, FrozenDict)
    assert json.loads(json.dumps(tool))["function"]["parameters"]["required"] == ["id"]
    with pytest.raises(TypeError):
        parameters["x"] = 1
