"""`toolcat import openapi` output loads to the same tools as the spec itself, for the corpus specs.

The three big specs (GitHub, Stripe, Kubernetes: 10 to 40 MB of YAML) get a test each.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from toolcat.catalog.common import thaw
from toolcat.cli._app import main
from toolcat.loader import load_catalog, read_yaml

BIG = {"github-api.github.com.json", "stripe-spec3.json", "kubernetes-swagger2.json"}


def _small_specs(corpus: Path) -> list[Path]:
    out = []
    for p in sorted(corpus.rglob("*")):
        if p.suffix not in (".json", ".yaml", ".yml") or p.name in BIG:
            continue
        text = p.read_text(encoding="utf-8")
        doc = json.loads(text) if p.suffix == ".json" else read_yaml(text, str(p))
        if isinstance(doc, dict) and ("openapi" in doc or "swagger" in doc):
            out.append(p)
    return out


def _round_trip(spec: Path, folder: Path, tag: str) -> int:
    """Import ``spec`` to YAML, load both, assert the same tools; returns how many were compared."""
    written = folder / f"imported{tag}.yaml"
    assert main(["import", "openapi", str(spec), "-o", str(written), "-q"]) == 0, spec
    entry = folder / f"entry{tag}.yaml"
    entry.write_text(f"toolcat: 1\nopenapi:\n  - spec: {json.dumps(str(spec))}\n")
    direct = load_catalog([entry], progress=False)
    again = load_catalog([written], progress=False)
    errors = [str(d) for d in again.diagnostics if d.severity == "error"]
    assert not errors, (spec, errors[:3])
    assert direct.catalog is not None and again.catalog is not None, spec
    assert [t.name for t in again.catalog] == [t.name for t in direct.catalog], spec
    compared = 0
    for tool in direct.catalog:
        other = again.catalog[tool.name]
        # the written catalog shares repeated schemas as definitions: the same schema
        # once each $ref is replaced by what it names
        assert _expanded(other.input_schema) == _expanded(tool.input_schema), (spec, tool.name)
        assert _effective(other.command) == _effective(tool.command), (spec, tool.name)
        assert other.annotations == tool.annotations, (spec, tool.name)
        assert other.confirm == tool.confirm, (spec, tool.name)
        assert other.description == tool.description, (spec, tool.name)
        assert _expanded(other.output_schema) == _expanded(tool.output_schema), (spec, tool.name)
        compared += 1
    assert again.catalog.services == direct.catalog.services or _same_services(again, direct)
    return compared


def test_written_catalogs_load_to_the_same_tools(
    corpus_dir: Path, tmp_path: Path, capsys: Any
) -> None:
    specs = _small_specs(corpus_dir)
    assert len(specs) >= 40
    compared = sum(_round_trip(spec, tmp_path, str(i)) for i, spec in enumerate(specs))
    capsys.readouterr()
    assert compared > 150


@pytest.mark.parametrize("name", sorted(BIG))
def test_big_written_catalogs_load_to_the_same_tools(
    corpus_dir: Path, tmp_path: Path, name: str, capsys: Any
) -> None:
    assert _round_trip(corpus_dir / name, tmp_path, "") > 400
    capsys.readouterr()


_DEFAULT_STYLE = {"query": "form", "path": "simple", "header": "simple"}


def _effective(command: Any) -> Any:
    """The command with each binding's style and explode as the executor applies them (the
    writer leaves out OpenAPI's defaults)."""
    bindings = []
    for b in command.parameters:
        style = b.style or _DEFAULT_STYLE.get(b.location.value)
        explode = (style == "form") if b.explode is None else b.explode
        bindings.append(dataclasses.replace(b, style=style, explode=explode))
    return dataclasses.replace(command, parameters=tuple(bindings))


def _expanded(schema: Any) -> Any:
    """``schema`` without ``$defs``: each ``#/$defs/NAME`` ref replaced by the definition
    (a ref back into a definition being expanded stays a marker, whatever its name)."""
    if schema is None:
        return None
    plain = thaw(schema)
    defs = plain.pop("$defs", {}) if isinstance(plain, dict) else {}

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(v, stack) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and "/" not in ref[8:]:
            name = ref[8:]
            rest = {k: walk(v, stack) for k, v in node.items() if k != "$ref"}
            if name in stack:
                return {"$ref": "<recursive>", **rest}
            body = walk(defs[name], (*stack, name))
            return {"allOf": [body], **rest} if rest else body
        return {k: walk(v, stack) for k, v in node.items()}

    return walk(plain, ())


def _same_services(a: Any, b: Any) -> bool:
    # Services differ only in their source location (the file that declared them).
    sa = {n: (s.base_url, s.auth, s.headers) for n, s in a.catalog.services.items()}
    sb = {n: (s.base_url, s.auth, s.headers) for n, s in b.catalog.services.items()}
    return sa == sb


@pytest.mark.parametrize("name", ["stripe-spec3.json"])
def test_big_specs_write_valid_yaml(
    corpus_dir: Path, tmp_path: Path, name: str, capsys: Any
) -> None:
    """A big spec's YAML parses back to exactly the imported documents.

    (GitHub's and Kubernetes' catalogs are 10 and 40 MB of YAML: reading them back
    takes longer than this suite's budget; they are written by the same code.)
    """
    from toolcat.loader.openapi import import_openapi
    from toolcat.loader.openapi._emit import catalog_document, render_catalog

    result = import_openapi(corpus_dir / name, progress=False)
    text = render_catalog(result, corpus_dir / name)
    loaded = yaml.load(text, Loader=yaml.CSafeLoader)
    assert loaded == json.loads(json.dumps(catalog_document(result)))
