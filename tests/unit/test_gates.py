"""CI runs every gate (scripts/check) before the tests, and pre-commit runs the same ones."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
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


# A size-rule ignore on a def line: noqa, C901 or PLR0915 (other codes beside them), a reason.
SIZE_NOQA = re.compile(r"#\s*noqa:\s*((?:[A-Z]+[0-9]+[,\s]*)+)(.*)$")


def test_the_linter_keeps_functions_small() -> None:
    import tomllib

    lint = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert {"C901", "PLR0915"} <= set(lint["select"])
    assert lint["mccabe"]["max-complexity"] <= 15
    assert lint["pylint"]["max-statements"] <= 50
    assert not lint.get("ignore") and not lint.get("per-file-ignores")  # ignores sit on defs


def test_every_size_rule_ignore_says_why_the_function_stays_whole() -> None:
    bare = []
    for path in REPO.rglob("*.py"):
        if any(part.startswith(".") or part in ("build", "node_modules") for part in path.parts):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found = SIZE_NOQA.search(line)
            if found and {"C901", "PLR0915"} & set(re.findall(r"[A-Z]+[0-9]+", found.group(1))):
                if len(found.group(2).split()) < 3:  # a reason: a few words, not a code
                    bare.append(f"{path.relative_to(REPO)}:{number}")
    assert bare == []


def test_no_size_rule_ignore_outlives_its_function() -> None:
    # a function split below the limits drops its ignore (RUF100 finds the ones left over)
    found = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--extend-select", "RUF100", "--exit-zero"]
        + ["--output-format", "json", "--no-cache", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    stale = [
        f"{Path(item['filename']).relative_to(REPO)}:{item['location']['row']}"
        for item in json.loads(found.stdout)
        if item["code"] == "RUF100"
        and re.search(r"unused: [^)]*\b(C901|PLR0915)\b", item["message"])
    ]
    assert stale == []


#: Modules stay under about 500 lines; one past this ceiling is split by what its parts do.
MODULE_CEILING = 550


def test_no_module_of_the_package_outgrows_the_ceiling() -> None:
    long = {}
    for path in REPO.rglob("*.py"):
        where = path.relative_to(REPO)
        if where.parts[0] in ("tests", "benchmarks", "scripts", "docs", "examples", "deploy"):
            continue
        if any(part.startswith(".") or part in ("build", "node_modules") for part in where.parts):
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MODULE_CEILING:
            long[str(where)] = lines
    assert long == {}
