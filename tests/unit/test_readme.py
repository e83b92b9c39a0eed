"""The README opens with the two commands a newcomer types, and CI runs exactly the second."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", text, flags=re.S)


def test_readme_starts_with_demo_and_test_commands() -> None:
    first, second = _readme_commands()[:2]
    assert first.strip().endswith("toolcat demo")
    assert "pip install" in first and "pip install" in second
    assert second.strip().endswith("pytest")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert _readme_commands()[1].strip() in ci.splitlines()
