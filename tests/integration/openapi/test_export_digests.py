"""Every export mode of the demo, specs/ and the corpus is what it was when the digests were made.

tests/data/export-digests.json was written by ``scripts/export_digests.py`` before the
one-definition refactoring: a move of code must leave each export's JSON (and, for the
demo, specs/ and the corpus's large specs, ``toolcat schema``'s very bytes) as it was.
A change that means to alter exports regenerates the file and says so in CHANGELOG.md.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data"
CORPUS = Path(os.environ.get("TOOLCAT_CORPUS", REPO.parent / "shared" / "corpus"))

EXPECTED: dict[str, dict[str, str]] = json.loads(
    (DATA / "export-digests.json").read_text(encoding="utf-8")
)


def _script() -> ModuleType:
    where = REPO / "scripts" / "export_digests.py"
    spec = importlib.util.spec_from_file_location("export_digests", where)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()


def _path(key: str) -> Path:
    if key.startswith("corpus/"):
        if not CORPUS.is_dir():
            pytest.skip(f"spec corpus not found at {CORPUS} (set TOOLCAT_CORPUS to run this)")
        return CORPUS / key.removeprefix("corpus/")
    return REPO / key


def test_the_table_covers_the_demo_and_the_corpus() -> None:
    assert "examples/demo" in EXPECTED and "specs/sample-service.yaml" in EXPECTED
    assert sum(k.startswith("corpus/") for k in EXPECTED) >= 40


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_exports_are_unchanged(key: str) -> None:
    path = _path(key)
    found: dict[str, Any] = SCRIPT.digests_of(path) or {}
    if any(mode.startswith("cli ") for mode in EXPECTED[key]):
        found.update(SCRIPT.cli_digests_of(path))
    changed = sorted(mode for mode in EXPECTED[key] if found.get(mode) != EXPECTED[key][mode])
    assert not changed, f"{key}: the export changed for {changed}"
