"""docs/diagnostics.md documents every registered code: the table is the registry's, and
each code has a section with its name and both examples."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from toolcat.loader import CODES, RULES, Severity, rules_table
from toolcat.loader._diagnostics import register

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "diagnostics.md"


def test_the_table_of_codes_is_the_registry() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert rules_table() in text, "run python scripts/diagnostics_table.py"


def test_every_code_has_a_section_with_broken_and_fixed_examples() -> None:
    text = DOC.read_text(encoding="utf-8")
    sections = re.split(r"^### ", text, flags=re.MULTILINE)[1:]
    by_code = {s.split()[0]: s for s in sections}
    assert sorted(by_code) == sorted(CODES)
    for code, (name, _) in CODES.items():
        section = by_code[code]
        assert section.split()[1] == name, code
        assert "# broken" in section and "# fixed" in section, code


def test_importing_the_loader_registers_every_code() -> None:
    """The registry is complete at import, not once some check has run."""
    code = "import toolcat.loader as l; print(' '.join(sorted(l.RULES)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == sorted(RULES)


def test_every_rule_has_a_one_line_summary_and_lint_rules_warn() -> None:
    for code, rule in RULES.items():
        assert rule.summary and "\n" not in rule.summary and "|" not in rule.summary, code
        assert len(rule.summary) <= 100, code
        if not code.startswith("TC2"):  # the import's findings are of either severity
            assert (rule.severity is Severity.WARNING) == code.startswith("TC1"), code


def test_every_lint_rule_is_a_registered_function_but_those_found_by_a_walk() -> None:
    found_by_a_walk = {"TC106", "TC109", "TC110", "TC115", "TC125", "TC130"}
    lint = {code for code in RULES if code.startswith("TC1")}
    assert {c for c in lint if RULES[c].check is None} == found_by_a_walk
    assert all(RULES[c].check is None for c in RULES if not c.startswith("TC1"))


def test_a_code_is_registered_once() -> None:
    with pytest.raises(ValueError, match="TC101 is already registered"):
        register("TC101", "again", Severity.WARNING, "a second rule under a taken code")
    assert RULES["TC101"].name == "missing-description"
