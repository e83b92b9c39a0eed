"""What `toolcat import openapi` writes from the corpus, with its defaults: at least 4x smaller
than before shared definitions (GitHub, Stripe), no definition written twice, and clean under
`toolcat validate --fail-on warning` (GitHub, Stripe, Kubernetes, train-travel)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from toolcat.cli._app import main

# bytes written by `toolcat import openapi` before this change (each tool with its own
# copy of every definition it reached, HTML descriptions, one line per value)
BEFORE = {"github-api.github.com.json": 10_313_485, "stripe-spec3.json": 3_650_816}
SPECS = [*BEFORE, "kubernetes-swagger2.json", "train-travel-openapi3.1.yaml"]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", SPECS)
def test_written_catalog_is_small_unique_and_clean(
    corpus_dir: Path, tmp_path: Path, name: str, capsys: Any
) -> None:
    out = tmp_path / "written.yaml"
    assert main(["import", "openapi", str(corpus_dir / name), "-o", str(out), "-q"]) == 0
    data = out.read_bytes()
    if name in BEFORE:
        assert len(data) * 4 <= BEFORE[name], (name, len(data))
    doc = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    bodies = [json.dumps(b, sort_keys=True) for b in (doc.get("definitions") or {}).values()]
    assert len(bodies) == len(set(bodies)), f"{name}: a definition written twice"
    assert not any("definitions" in t for t in doc["tools"])
    capsys.readouterr()
    code = main(["validate", "--fail-on", "warning", str(out)])
    shown = capsys.readouterr()
    assert code == 0, (name, (shown.out + shown.err)[:2000])
