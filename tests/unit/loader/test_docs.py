"""docs/diagnostics.md documents every code, with its name, severity and both examples."""

from __future__ import annotations

import re
from pathlib import Path

from toolcat.loader import CODES

DOC = Path(__file__).resolve().parents[3] / "docs" / "diagnostics.md"


def test_every_code_has_a_section_with_broken_and_fixed_examples() -> None:
    text = DOC.read_text(encoding="utf-8")
    sections = re.split(r"^### ", text, flags=re.MULTILINE)[1:]
    by_code = {s.split()[0]: s for s in sections}
    assert sorted(by_code) == sorted(CODES)
    for code, (name, severity) in CODES.items():
        section = by_code[code]
        assert section.split()[1] == name, code
        assert "# broken" in section and "# fixed" in section, code
        assert f"| {code} | {name} | {severity} |" in text, code
