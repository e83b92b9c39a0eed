"""Every spec of the shared corpus imports: valid schemas and names, counts add up, strict works."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from toolcat.catalog import FrozenDict
from toolcat.catalog.schema import NotStrictable, check_strict_schema, to_strict_schema
from toolcat.loader import load_catalog, read_yaml
from toolcat.loader.openapi import ImportResult, import_openapi

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")


def _parse(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else read_yaml(text, str(path))


def _specs(corpus: Path) -> list[tuple[Path, Any]]:
    files = [p for p in sorted(corpus.rglob("*")) if p.suffix in (".json", ".yaml", ".yml")]
    docs = [(p, _parse(p)) for p in files]
    return [(p, d) for p, d in docs if isinstance(d, dict) and ("openapi" in d or "swagger" in d)]


def _operation_count(doc: Any) -> int:
    count = 0
    for item in (doc.get("paths") or {}).values():
        if isinstance(item, dict):
            count += sum(1 for m in METHODS if m in item)
    return count


@pytest.fixture(scope="session")
def imported(corpus_dir: Path, tmp_path_factory: Any) -> dict[str, tuple[int, ImportResult, Any]]:
    """Each spec of the corpus imported once, and compiled by the loader as a catalog entry."""
    out = {}
    folder = tmp_path_factory.mktemp("corpus-catalogs")
    for i, (path, spec) in enumerate(_specs(corpus_dir)):
        result = import_openapi(path, progress=False)
        catalog = folder / f"catalog{i}.yaml"
        catalog.write_text(
            f"toolcat: 1\nopenapi:\n  - spec: {json.dumps(str(path))}\n", encoding="utf-8"
        )
        compiled = load_catalog([catalog], progress=False)
        out[str(path.relative_to(corpus_dir))] = (_operation_count(spec), result, compiled)
    return out


def test_the_corpus_has_the_big_specs(imported: dict[str, Any]) -> None:
    names = set(imported)
    assert {"github-api.github.com.json", "stripe-spec3.json", "kubernetes-swagger2.json"} <= names
    assert len(names) >= 40


def test_no_crash_and_counts_add_up(imported: dict[str, Any]) -> None:
    for name, (ops, result, _) in imported.items():
        assert not [d for d in result.diagnostics if d.severity == "error"], name
        skipped = sum(1 for r in result.report if r.skipped)
        assert len(result.report) == ops, name
        assert len(result.tools) == ops - skipped, name
        reported = {
            d.message.split(" skipped: ")[0]
            for d in result.diagnostics
            if d.code in ("TC203", "TC204")
        }
        assert len(reported) == skipped, name


def test_big_specs_import_every_operation(imported: dict[str, Any]) -> None:
    expected = {
        "github-api.github.com.json": 1223,
        "stripe-spec3.json": 417,
        "kubernetes-swagger2.json": 1123,
    }
    for name, count in expected.items():
        assert len(imported[name][1].tools) == count


def test_names_are_valid_and_unique(imported: dict[str, Any]) -> None:
    for name, (_, result, _) in imported.items():
        names = [t["name"] for t in result.tools]
        assert all(NAME.match(n) for n in names), name
        assert len(set(names)) == len(names), name


def _without_seen(node: Any, seen: set[int], keep: list[Any]) -> Any:
    """``node`` with every frozen sub-value already validated replaced by ``{}``.

    Metaschema validity of a subschema does not depend on where it sits, and the
    importer shares frozen subschemas between tools, so each is checked once.
    """
    if isinstance(node, FrozenDict):
        if id(node) in seen:
            return {}
        seen.add(id(node))
        keep.append(node)
    if isinstance(node, dict):
        return {k: _without_seen(v, seen, keep) for k, v in node.items()}
    if isinstance(node, list):
        return [_without_seen(v, seen, keep) for v in node]
    return node


def test_every_schema_is_valid_json_schema_2020_12(imported: dict[str, Any]) -> None:
    check = Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors
    seen: set[int] = set()
    keep: list[Any] = []
    for name, (_, result, compiled) in imported.items():
        assert compiled.catalog is not None, (name, [str(d) for d in compiled.diagnostics][:5])
        assert len(compiled.catalog) == len(result.tools), name
        for tool in compiled.catalog:
            for schema in (tool.input_schema, tool.output_schema):
                if schema is None:
                    continue
                errors = list(check(_without_seen(schema, seen, keep)))
                assert not errors, (name, tool.name, errors[0].message[:300])


def test_openai_strict_conversion_is_valid_for_every_tool(imported: dict[str, Any]) -> None:
    converted = 0
    for name, (_, _, compiled) in imported.items():
        for tool in compiled.catalog:
            try:
                strict = to_strict_schema(tool.input_schema).schema
            except NotStrictable:
                continue  # exported with strict: false, as OpenAI requires for such schemas
            problems = check_strict_schema(strict)
            assert not problems, (name, tool.name, problems[:3])
            converted += 1
    assert converted > 2000


def test_multi_file_spec_resolves_refs_into_sibling_files(imported: dict[str, Any]) -> None:
    for fmt in ("json", "yaml"):
        _, result, _ = imported[
            f"oai/learn-examples/v2.0/{fmt}/petstore-separate/spec/swagger.{fmt}"
        ]
        tools = {t["name"]: t for t in result.tools}
        assert len(tools) == 4
        add = tools["addPet"]
        assert add["parameters"]["name"]["type"] == "string"  # from NewPet -> Pet in other files
        find = tools["findPets"]
        assert find["parameters"]["tags"]["items"] == {"type": "string"}  # parameters.yaml


def test_circular_stripe_schemas_stay_finite(imported: dict[str, Any]) -> None:
    _, result, compiled = imported["stripe-spec3.json"]
    sizes = [len(json.dumps(t.input_schema)) for t in compiled.catalog]
    assert max(sizes) < 2_000_000
    outputs = [t for t in result.tools if t.get("output_schema")]
    # recursive objects are written once under $defs and referred to, not expanded
    with_defs = [t for t in outputs if "$defs" in t["output_schema"]]
    assert outputs and with_defs
    assert max(len(json.dumps(t["output_schema"])) for t in with_defs) < 2_000_000
