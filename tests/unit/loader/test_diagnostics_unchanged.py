"""Each broken catalog's diagnostics read word for word as tests/data/diagnostics.json has them.

The file was written by ``scripts/export_digests.py --diagnostics`` before the
one-definition refactoring: codes, locations and messages must survive a move of code.
A change that means to reword a diagnostic regenerates the file and says so in CHANGELOG.md.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from toolcat.loader import load_catalog

REPO = Path(__file__).resolve().parents[3]
BROKEN = REPO / "tests" / "data" / "catalogs" / "broken"
EXPECTED: dict[str, list[str]] = json.loads(
    (REPO / "tests" / "data" / "diagnostics.json").read_text(encoding="utf-8")
)


def test_every_broken_case_is_recorded() -> None:
    cases = {p.name for p in BROKEN.iterdir() if p.suffix == ".yaml" or p.is_dir()}
    assert cases == set(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_diagnostics_read_as_before(case: str) -> None:
    result = load_catalog([BROKEN / case], progress=False)
    prefix = str(REPO) + os.sep
    assert [str(d).replace(prefix, "") for d in result.diagnostics] == EXPECTED[case]
