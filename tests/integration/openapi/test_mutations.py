"""Damaged specs: random, seeded mutations of the small corpus specs never raise, and what is
imported always compiles (the held-out real-world specs will be messier than the corpus)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from toolcat.loader import load_documents, read_yaml
from toolcat.loader.openapi import import_openapi

JUNK: list[Any] = [None, 1, -3, 2.5, True, "", "x", "${BAD", [], {}, [1, "a"], {"$ref": "#/nope"},
                   {"type": 5}, {"$ref": 7}, "{id}", {"a": {"b": None}}]  # fmt: skip


def _mutate(node: Any, rng: random.Random) -> None:
    if isinstance(node, dict):
        for key in list(node):
            roll = rng.random()
            if roll < 0.03:
                node[key] = rng.choice(JUNK)
            elif roll < 0.04:
                del node[key]
            else:
                _mutate(node[key], rng)
    elif isinstance(node, list):
        for i in range(len(node)):
            if rng.random() < 0.03:
                node[i] = rng.choice(JUNK)
            else:
                _mutate(node[i], rng)


@pytest.fixture(scope="module")
def small_specs(corpus_dir: Path) -> list[tuple[str, Any]]:
    out = []
    for path in sorted(corpus_dir.rglob("*")):
        if (
            path.suffix not in (".json", ".yaml")
            or path.stat().st_size > 500_000
            or "separate" in str(path)
        ):
            continue
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text) if path.suffix == ".json" else read_yaml(text, str(path))
        if isinstance(doc, dict) and ("openapi" in doc or "swagger" in doc):
            out.append((path.name, doc))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_mutated_specs_import_and_compile(small_specs: Any, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    for round_ in range(25):
        name, original = rng.choice(small_specs)
        doc = json.loads(json.dumps(original, default=str))
        _mutate(doc, rng)
        path = tmp_path / f"{round_}-{name}.json"
        path.write_text(json.dumps(doc))
        result = import_openapi(path, progress=False)  # must not raise
        unexpected = [d.message for d in result.diagnostics if "unexpected" in d.message]
        assert not unexpected, (seed, round_, name, unexpected)
        if result.tools:
            loaded = load_documents(
                [("c.yaml", {"toolcat": 1, "services": result.services, "tools": result.tools})]
            )
            errors = [str(d) for d in loaded.diagnostics if d.severity == "error"]
            assert not errors, (seed, round_, name, errors[:3])
