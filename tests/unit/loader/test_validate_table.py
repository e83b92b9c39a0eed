"""The broken-catalog table through `toolcat validate`: exit codes and the text lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolcat.cli._app import main
from toolcat.loader import CODES, Severity

from .test_broken_catalogs import CASES, _expected


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_validate_exit_code_and_lines(case: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = _expected(case)
    has_error = any(CODES[code][1] is Severity.ERROR for code, _, _ in expected)
    assert main(["validate", str(case)]) == (1 if has_error else 0)
    out = capsys.readouterr().out
    for code, file, line in expected:
        severity = CODES[code][1].value
        assert any(
            row.startswith(f"{file}:{line}:") and f": {severity} {code} " in row
            for row in out.splitlines()
        ), (code, line, out)
    assert main(["validate", "--fail-on", "warning", str(case)]) == 1
