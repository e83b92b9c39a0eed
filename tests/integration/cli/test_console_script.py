"""The installed `toolcat` console script: exit codes and one-line failures, never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CATALOG = """\
toolcat: 1
services:
  s: {base_url: "https://x.example", auth: {type: bearer, token: "${S_TOKEN}"}}
tools:
  - name: get_thing
    description: Get a thing.
    service: s
    method: GET
    path: /things/{id}
    parameters:
      id: {type: string, description: The id}
"""


def toolcat() -> str:
    found = shutil.which("toolcat", path=str(Path(sys.executable).parent)) or shutil.which(
        "toolcat"
    )
    if not found:
        pytest.fail("the toolcat console script is not installed (pip install -e .)")
    return found


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLCAT_DEBUG"}
    env["CI"] = "true"
    return subprocess.run(
        [toolcat(), *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "cat.yaml").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("not a catalog", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "does-not-exist.yaml"],
        ["validate", "empty"],
        ["validate", "notes"],
        ["validate", "cat.yaml", "--no-such-flag"],
        ["validate", "cat.yaml", "--format", "xml"],
        ["list", "does-not-exist.yaml"],
        ["schema", "cat.yaml", "--provider", "nope"],
        ["schema", "cat.yaml"],
        ["list", "cat.yaml", "--toolset", "nope"],
        ["frobnicate"],
    ],
)
def test_bad_usage_or_input_exits_2_with_one_line(work: Path, argv: list[str]) -> None:
    proc = run(work, *argv)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("toolcat: ")
    assert "Traceback" not in proc.stderr


def test_validate_clean_exits_0_without_secrets_in_env(work: Path) -> None:
    proc = run(work, "validate", "cat.yaml")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""


def test_validate_findings_exit_1(work: Path) -> None:
    broken = CATALOG.replace("service: s\n    method", "service: t\n    method")
    (work / "broken.yaml").write_text(broken, encoding="utf-8")
    proc = run(work, "validate", "broken.yaml", "cat.yaml")
    assert proc.returncode == 1
    assert proc.stdout.startswith("broken.yaml:7:14: error TC012 ")
    assert "Traceback" not in proc.stderr


def test_list_and_schema_succeed(work: Path) -> None:
    assert run(work, "list", "cat.yaml").stdout.splitlines()[1].split()[0] == "get_thing"
    proc = run(work, "schema", "cat.yaml", "--provider", "mcp")
    assert proc.returncode == 0 and '"inputSchema"' in proc.stdout


def test_an_openapi_spec_is_a_path_too(repo_root: Path, tmp_path: Path) -> None:
    spec = repo_root / "specs" / "sample-service.yaml"
    assert run(tmp_path, "validate", str(spec)).returncode == 0
    proc = run(tmp_path, "schema", str(spec), "--provider", "openai", "--strict", "-q")
    assert proc.returncode == 0 and proc.stderr == ""
    assert '"strict": true' in proc.stdout
