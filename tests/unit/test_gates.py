"""CI runs every gate (scripts/check) before the tests, and pre-commit runs the same ones."""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
CHECK = REPO / "scripts" / "check"


def _gates() -> set[str]:
    """The gate names scripts/check accepts (its ``case`` line)."""
    found = re.search(r"^\s*([a-z]+(?: \| [a-z]+)+)\) ;;$", CHECK.read_text(), flags=re.M)
    assert found, "scripts/check lists its gates in one case pattern"
    return set(found.group(1).split(" | "))


def test_check_is_an_executable_script_with_the_three_gates() -> None:
    assert os.access(CHECK, os.X_OK)
    assert _gates() == {"format", "lint", "types"}
    text = CHECK.read_text()
    assert "ruff format --check" in text and "ruff check ." in text and "-p toolcat" in text


def test_ci_runs_every_gate_before_the_tests() -> None:
    lines = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    tests = next(i for i, line in enumerate(lines) if line.endswith("&& pytest"))
    assert "scripts/check" in lines[:tests]  # all gates: no names after it


def test_pre_commit_runs_each_gate_of_the_check_script() -> None:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())
    hooks = [hook for repo in config["repos"] for hook in repo["hooks"]]
    assert all(repo["repo"] == "local" for repo in config["repos"])  # no download
    assert {hook["entry"] for hook in hooks} == {f"scripts/check {gate}" for gate in _gates()}
    assert all(hook["language"] == "system" and not hook["pass_filenames"] for hook in hooks)
