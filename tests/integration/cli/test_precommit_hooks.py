"""The hooks of .pre-commit-hooks.yaml, run as pre-commit runs them: `pre-commit try-repo`.

try-repo installs this repository into a fresh hook environment (pip, with the
dependencies) and runs the hook in another repository: a minute or so, once per test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

TEAM = """\
toolcat: 1
services:
  s: {base_url: "https://x.example"}
tools:
  - name: make_thing
    description: Make a thing.
    service: s
    method: POST
    path: /things
    confirm: true
    parameters:
      n: {type: integer, description: How many}
"""


def _pre_commit() -> list[str] | None:
    import importlib.util

    if importlib.util.find_spec("pre_commit") is None:
        return None
    return [sys.executable, "-m", "pre_commit"]


def _is_checkout() -> bool:
    if shutil.which("git") is None:
        return False
    proc = subprocess.run(["git", "-C", str(REPO), "rev-parse"], capture_output=True)
    return proc.returncode == 0


pytestmark = [
    pytest.mark.skipif(_pre_commit() is None, reason="pre-commit is not installed (the dev extra)"),
    pytest.mark.skipif(not _is_checkout(), reason="needs git and a git checkout of toolcat"),
    pytest.mark.timeout(900),  # try-repo installs toolcat and its dependencies
]

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


@pytest.fixture
def team_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for team in ("alpha", "beta"):
        (root / "teams" / team).mkdir(parents=True)
        (root / "teams" / team / "catalog.yaml").write_text(TEAM, encoding="utf-8")
    (root / "deploy").mkdir()
    (root / "deploy" / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\n", encoding="utf-8")
    (root / "toolcat.toml").write_text('roots = ["teams/*"]\n', encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=root, check=True)
    return root


def try_repo(repo: Path, hook: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    command = _pre_commit()
    assert command is not None
    full = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
    full.update(PRE_COMMIT_HOME=str(home), **env)
    return subprocess.run(
        [*command, "try-repo", str(REPO), hook, "--all-files", "--verbose", "--color", "never"],
        cwd=repo,
        env=full,
        capture_output=True,
        text=True,
        timeout=840,
    )


def test_validate_hook_checks_each_root_and_fails_on_an_error(
    team_repo: Path, tmp_path: Path
) -> None:
    beta = team_repo / "teams" / "beta" / "catalog.yaml"
    beta.write_text(TEAM.replace("service: s\n", "service: nope\n"), encoding="utf-8")
    proc = try_repo(team_repo, "toolcat-validate", tmp_path / "home")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "toolcat validate" in out and "Failed" in out
    # the roots are separate catalogs: beta's error only, no clash between teams, and
    # the Kubernetes manifest outside the roots is never read
    assert "teams/beta/catalog.yaml:7:14: error TC012" in out
    assert "TC011" not in out and "TC013" not in out and "pod.yaml" not in out


def _has_diff() -> bool:
    from toolcat.cli import _app

    return "diff" in _app._COMMAND_MODULES


@pytest.mark.skipif(
    not _has_diff(),
    reason="`toolcat diff` is not on this branch yet (the helper 'diff' builds it); "
    "this test runs once the command is registered",
)
def test_diff_hook_compares_with_the_merge_base(team_repo: Path, tmp_path: Path) -> None:
    subprocess.run(["git", "checkout", "-qb", "change"], cwd=team_repo, check=True)
    alpha = team_repo / "teams" / "alpha" / "catalog.yaml"
    alpha.write_text(TEAM.replace("    confirm: true\n", ""), encoding="utf-8")
    subprocess.run([*GIT, "commit", "-qam", "drop the confirmation"], cwd=team_repo, check=True)
    proc = try_repo(
        team_repo,
        "toolcat-diff",
        tmp_path / "home",
        TOOLCAT_DIFF_BASE="main",
        TOOLCAT_DIFF_PATHS="teams/alpha",
    )
    out = proc.stdout + proc.stderr
    assert "make_thing" in out, out


def test_diff_hook_script_finds_the_merge_base(team_repo: Path, tmp_path: Path) -> None:
    """The hook's small script, run as pre-commit runs an entry (split like a shell, with
    the hook's args), against a scripted `toolcat` that records what it is asked."""
    import shlex

    import yaml

    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["toolcat-validate"]["entry"] == "toolcat validate"
    entry = shlex.split(hooks["toolcat-diff"]["entry"])
    base = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=team_repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(["git", "checkout", "-qb", "change"], cwd=team_repo, check=True)
    (team_repo / "teams" / "alpha" / "catalog.yaml").write_text(TEAM.replace("confirm: true", ""))
    subprocess.run([*GIT, "commit", "-qam", "change"], cwd=team_repo, check=True)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "toolcat").write_text(f'#!/usr/bin/env bash\necho "$*" > "{tmp_path}/args"\n')
    (stubs / "toolcat").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "TOOLCAT_DIFF"))}
    env["PATH"] = f"{stubs}{os.pathsep}{env['PATH']}"

    def hook(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*entry, *args], cwd=team_repo, env=env | extra, capture_output=True, text=True
        )

    proc = hook("teams/alpha", TOOLCAT_DIFF_BASE="main")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "args").read_text() == f"diff --base {base} teams/alpha\n"
    proc = hook(TOOLCAT_DIFF_BASE="main", TOOLCAT_DIFF_PATHS="teams/alpha teams/beta")
    assert (tmp_path / "args").read_text() == f"diff --base {base} teams/alpha teams/beta\n"
    # no origin/HEAD in this repository: one line, exit 2, toolcat never runs
    (tmp_path / "args").unlink()
    proc = hook("teams/alpha")
    assert proc.returncode == 2 and not (tmp_path / "args").exists()
    assert proc.stderr == (
        "toolcat-diff: no merge base between HEAD and origin/HEAD "
        "(fetch it, or set TOOLCAT_DIFF_BASE)\n"
    )


DELETE_TOOL = """\
  - name: drop_thing
    description: Drop a thing.
    service: s
    method: DELETE
    path: /things/{id}
    parameters:
      id: {type: string, description: The id}
"""


def test_hooks_read_the_settings_as_ci_does(team_repo: Path, tmp_path: Path) -> None:
    """One threshold, stated once (fail_on in toolcat.toml): a DELETE tool without
    confirm (TC104, a warning) fails the commit as it fails the action. A change to
    toolcat.toml alone runs the diff hook, which compares each root as its own catalog."""
    home = tmp_path / "home"  # one hook environment for both hooks
    (team_repo / "toolcat.toml").write_text('roots = ["teams/*"]\nfail_on = "warning"\n')
    alpha = team_repo / "teams" / "alpha" / "catalog.yaml"
    alpha.write_text(TEAM + DELETE_TOOL, encoding="utf-8")
    subprocess.run([*GIT, "commit", "-qam", "a delete tool"], cwd=team_repo, check=True)
    proc = try_repo(team_repo, "toolcat-validate", home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "teams/alpha/catalog.yaml:13:5: warning TC104" in out

    subprocess.run(["git", "checkout", "-qb", "change"], cwd=team_repo, check=True)
    (team_repo / "toolcat.toml").write_text('roots = ["teams/*"]\n')
    subprocess.run([*GIT, "commit", "-qam", "settings only"], cwd=team_repo, check=True)
    command = _pre_commit()
    assert command is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
    env.update(PRE_COMMIT_HOME=str(home), TOOLCAT_DIFF_BASE="main")
    proc = subprocess.run(
        [*command, "try-repo", str(REPO), "toolcat-diff", "--files", "toolcat.toml"]
        + ["--verbose", "--color", "never"],
        cwd=team_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=840,
    )
    out = proc.stdout + proc.stderr
    assert "Skipped" not in out, out  # the .toml change is one the hook runs on
    assert proc.returncode == 0, out
    assert "toolcat: teams/alpha: no changes" in out and "toolcat: teams/beta: no changes" in out
