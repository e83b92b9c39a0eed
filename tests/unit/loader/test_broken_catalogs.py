"""The table of broken catalogs: each file (or folder) names the diagnostics it must give.

The first line of a case is ``# expect: CODE@LINE, CODE@FILE:LINE, ...``; the
load must report exactly those (code, file, line) findings, no more, no less.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from toolcat.loader import CODES, Severity, load_catalog

BROKEN = Path(__file__).resolve().parents[2] / "data" / "catalogs" / "broken"
CASES = sorted(p for p in BROKEN.iterdir() if p.suffix == ".yaml" or p.is_dir())


def _expected(case: Path) -> set[tuple[str, str, int]]:
    first = case / sorted(p.name for p in case.iterdir())[0] if case.is_dir() else case
    # cases of undecodable files hold an ASCII header line before the bad bytes
    header = first.read_bytes().decode("utf-8", "replace").splitlines()[0].lstrip("\ufeff")
    m = re.fullmatch(r"# expect: (.+)", header)
    assert m, f"{first} must start with '# expect: CODE@LINE, ...'"
    out = set()
    for item in m.group(1).split(","):
        code, where = item.strip().split("@")
        file, _, line = where.rpartition(":")
        path = (case / file) if file else first
        out.add((code, str(path), int(line)))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_broken_catalog_reports_code_and_line(case: Path) -> None:
    result = load_catalog([case], progress=False)
    found = {(d.code, d.file, d.line) for d in result.diagnostics}
    assert found == _expected(case), "\n".join(str(d) for d in result.diagnostics)
    shown = [str(d) for d in result.diagnostics]
    assert len(shown) == len(set(shown)), "the same line twice:\n" + "\n".join(shown)
    if any(d.severity is Severity.ERROR for d in result.diagnostics):
        assert result.catalog is None
    for d in result.diagnostics:
        assert d.severity is CODES[d.code][1]
        assert d.message and "\n" not in d.message


def test_every_catalog_code_has_a_case() -> None:
    covered = set()
    for case in CASES:
        covered |= {code for code, _, _ in _expected(case)}
    # TC2xx come from the OpenAPI importer (its own tests); TC208 is tested by monkeypatching.
    wanted = {c for c in CODES if not c.startswith("TC2")}
    # TC066-TC069 are `toolcat test`'s findings, not the loader's (tests/unit/cli/test_test_cmd.py)
    wanted -= {"TC066", "TC067", "TC068", "TC069"}
    assert wanted - covered == set()


def test_five_mistakes_give_five_diagnostics() -> None:
    result = load_catalog([BROKEN / "five-mistakes.yaml"], progress=False)
    assert len(result.errors) == 5
    assert result.catalog is None
