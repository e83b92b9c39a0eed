"""Catastrophic schema regexes through the real commands (issue 10, class 2).

``^(a+)+$`` and 40 ``a`` then ``!`` takes Python's backtracking ``re`` days; on
the linear-time engine each command answers at once. The timeouts are loose bounds, not benchmarks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
CATALOG = Path(__file__).resolve().parents[2] / "data" / "catalogs" / "regex-bounds.yaml"
EVIL = "a" * 40 + "!"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, WAREHOUSE_URL="http://127.0.0.1:9")  # --dry-run sends nothing
    return subprocess.run(
        [*TOOLCAT, *args], capture_output=True, text=True, timeout=60, env=env, cwd=cwd
    )


CASES: list[tuple[str, dict[str, Any], list[Any]]] = [
    ("find_item", {"sku": EVIL}, ["sku"]),
    ("label_item", {"sku": "W-1", "labels": {EVIL: "x"}}, ["labels", EVIL]),
    ("batch_items", {"sku": "W-1", "filters": {"names": ["b", EVIL]}}, ["filters", "names", 1]),
]


@pytest.mark.parametrize(("tool", "args", "where"), CASES, ids=[c[0] for c in CASES])
def test_call_dry_run_refuses_at_once(tool: str, args: dict[str, Any], where: list[Any]) -> None:
    done = run(
        "call", "--dry-run", "--format", "json", str(CATALOG), tool, "--args", json.dumps(args)
    )
    assert done.returncode == 1, done.stderr
    (error,) = json.loads(done.stdout)["errors"]
    assert error["type"] == "invalid_arguments" and error["loc"] == where


@pytest.mark.parametrize(("tool", "args", "where"), CASES, ids=[c[0] for c in CASES])
def test_valid_arguments_still_pass(tool: str, args: dict[str, Any], where: list[Any]) -> None:
    good = json.loads(json.dumps(args).replace(json.dumps(EVIL)[1:-1], "aaaa"))
    if tool == "batch_items":
        good["filters"]["names"] = ["b", "aab"]
    done = run("call", "--dry-run", str(CATALOG), tool, "--args", json.dumps(good))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("GET http://127.0.0.1:9/items/")


def test_validate_accepts_the_catalog() -> None:
    done = run("validate", str(CATALOG))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TC110" not in done.stdout + done.stderr  # the linear-time engine runs all of these


LOOKAROUND = """\
toolcat: 1
services:
  svc: {base_url: "http://127.0.0.1:9"}
tools:
  - name: find_code
    description: A code that is not a test code.
    service: svc
    method: GET
    path: /codes
    parameters:
      code: {type: string, description: The code., pattern: '^(?!test)(a+)+$'}
"""


def test_a_pattern_the_engine_cannot_run_is_a_located_warning_and_is_not_checked(
    tmp_path: Path,
) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(LOOKAROUND)
    done = run("validate", "catalog.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "catalog.yaml:11:61: warning TC110" in done.stdout + done.stderr
    assert run("validate", "--fail-on", "warning", str(catalog)).returncode == 1
    # not checked (never run on the backtracking engine): the call goes out as it is
    done = run("call", "--dry-run", str(catalog), "find_code", "--args", json.dumps({"code": EVIL}))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("GET http://127.0.0.1:9/codes?code=aaaa")
