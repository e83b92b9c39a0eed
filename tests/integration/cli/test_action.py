"""The GitHub Action (action.yml) as GitHub runs it: each `run:` step a bash script.

The steps run in order on a temporary repository, with the env each step sets
(its ``${{ }}`` expressions evaluated), ``bash --noprofile --norc -eo pipefail``
as GitHub's runner does, ``$GITHUB_OUTPUT`` carried between steps, and each
``if:`` decided. The outside world is stubbed: ``python -m pip install`` (the
repository's own toolcat is already on PATH), ``gh`` (records the comment), and
the ``uses:`` steps (setup-python is a no-op; upload-sarif records its file).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
ACTION = REPO / "action.yml"
SARIF_SCHEMA = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"

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
  - name: drop_thing
    description: Drop a thing.
    service: s
    method: DELETE
    path: /things/{id}
    parameters:
      id: {type: string, description: The id}
"""

_TOKEN = re.compile(
    r"\s+|'(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*"
)


def evaluate(expr: str, ctx: dict[str, Any]) -> Any:
    """The subset of GitHub's expression language the action uses, as Python."""
    expr = expr.strip()
    if expr.startswith("${{") and expr.endswith("}}"):
        expr = expr[3:-2]
    out: list[str] = []
    pos = 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        assert m is not None, f"cannot read {expr[pos:]!r} in {expr!r}"
        tok = m.group()
        pos = m.end()
        if tok.isspace():
            continue
        if tok.startswith("'"):
            out.append(repr(tok[1:-1].replace("''", "'")))
        elif tok in ("&&", "||", "!"):
            out.append({"&&": " and ", "||": " or ", "!": " not "}[tok])
        elif tok in ("==", "!=", "(", ")"):
            out.append(tok)
        elif tok in ("always", "success", "failure"):
            out.append(tok)
        else:
            out.append(repr(_lookup(ctx, tok)))
    names = {
        "always": lambda: True,
        "success": lambda: not ctx["failed"],
        "failure": lambda: ctx["failed"],
    }
    return eval("".join(out), {"__builtins__": {}}, names)  # noqa: S307 - our own file


def _lookup(ctx: dict[str, Any], dotted: str) -> Any:
    value: Any = ctx
    for part in dotted.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def substitute(text: str, ctx: dict[str, Any]) -> str:
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1), ctx)), text)


# `gh` as the comment step uses it, on comments kept as files: the listing prints the ids of
# those that start with the marker (what its --jq selects), PATCH rewrites one, `pr comment`
# adds one. Every call is logged; every file argument's content goes to gh.body too.
GH_STUB = r"""#!/usr/bin/env bash
echo "$*" >> "TMP/gh.log"
for a in "$@"; do
  f="${a#body=@}"
  if [ -f "$f" ]; then cat "$f" >> "TMP/gh.body"; fi
done
if [ "$1" = api ] && [ "$2" = --paginate ]; then
  for c in TMP/comments/*.md; do
    [ -e "$c" ] || continue
    if [ "$(head -n 1 "$c")" = "<!-- toolcat-diff -->" ]; then basename "$c" .md; fi
  done
elif [ "$1" = api ] && [ "$3" = PATCH ]; then
  id="${4##*/}"; [ -f "TMP/comments/$id.md" ] || { echo "no comment $id" >&2; exit 1; }
  cp "${6#body=@}" "TMP/comments/$id.md"
elif [ "$1 $2" = "pr comment" ]; then
  n=$(( $(ls TMP/comments | wc -l) + 1 ))
  cp "$5" "TMP/comments/$n.md"
fi
"""


@dataclass
class Run:
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)  # by name: outcome, output
    uploads: list[str] = field(default_factory=list)
    failed: bool = False


def run_action(  # noqa: PLR0915  the GitHub Action's steps replayed in order, as action.yml runs them
    repo: Path,
    tmp: Path,
    with_: dict[str, str],
    event: str = "push",
    pr: dict[str, Any] | None = None,
    stub_diff: bool = False,
    comments: dict[int, str] | None = None,
) -> Run:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    stubs = tmp / "stubs"
    stubs.mkdir(parents=True)
    if stub_diff:  # `toolcat diff` answers from a script; every other command is the real one
        real = shutil.which("toolcat", path=str(Path(sys.executable).parent))
        stub = stubs / "toolcat"
        stub.write_text(
            "#!/usr/bin/env bash\n"
            'if [ "$1" = diff ]; then\n'
            f'  echo "$*" >> "{tmp}/toolcat-diff.log"\n'
            '  echo "### 1 breaking change"; echo "- make_thing: confirm dropped"; exit 1\n'
            "fi\n"
            f'exec "{real}" "$@"\n'
        )
        stub.chmod(0o755)
    gh = stubs / "gh"  # a pull request's comments: one file each under tmp/comments
    gh.write_text(GH_STUB.replace("TMP", str(tmp)))
    gh.chmod(0o755)
    (tmp / "comments").mkdir()
    for number, body in (comments or {}).items():
        (tmp / "comments" / f"{number}.md").write_text(body)
    for name in ("python",):
        stub = stubs / name
        stub.write_text(
            "#!/usr/bin/env bash\n"
            f'echo "$*" >> "{tmp}/{name}.log"\n'
            'for a in "$@"; do if [ -f "$a" ]; then cat "$a" >> "'
            + f"{tmp}/{name}.body"
            + '"; fi; done\n'
        )
        stub.chmod(0o755)
    result = Run()
    ctx: dict[str, Any] = {
        "github": {
            "action_path": str(REPO),
            "event_name": event,
            "token": "t0ken",
            "repository": "acme/platform-tools",
            "action_repository": "acme/toolcat",
            "event": {"pull_request": pr or {}},
        },
        "steps": {},
        "failed": False,
    }
    ctx["inputs"] = {k: substitute(str(v), ctx) for k, v in inputs.items()}
    ctx["inputs"].update(with_)
    output_file = tmp / "github_output"
    for step in action["runs"]["steps"]:
        name = step["name"]
        if not evaluate(step.get("if", "success()"), ctx):
            result.steps[name] = {"outcome": "skipped"}
            if "id" in step:
                ctx["steps"][step["id"]] = {"outcome": "skipped", "outputs": {}}
            continue
        if "uses" in step:
            params = {k: substitute(str(v), ctx) for k, v in step.get("with", {}).items()}
            if step["uses"].startswith("github/codeql-action/upload-sarif@"):
                result.uploads.append(params["sarif_file"])
            else:
                assert step["uses"].startswith("actions/setup-python@"), step["uses"]
            result.steps[name] = {"outcome": "success"}
            continue
        assert step["shell"] == "bash"
        output_file.write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env["PATH"] = f"{stubs}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
        env["GITHUB_OUTPUT"] = str(output_file)
        env.update({k: substitute(str(v), ctx) for k, v in step.get("env", {}).items()})
        script = tmp / "step.sh"
        script.write_text(step["run"])
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        outcome = "success" if proc.returncode == 0 else "failure"
        outputs = dict(
            line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
        )
        result.steps[name] = {
            "outcome": outcome,
            "code": proc.returncode,
            "stdout": proc.stdout,
            "stderr": proc.stderr,
        }
        if "id" in step:
            ctx["steps"][step["id"]] = {"outcome": outcome, "outputs": outputs}
        if outcome == "failure":
            ctx["failed"] = result.failed = True
    return result


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for team in ("alpha", "beta"):
        (root / "teams" / team).mkdir(parents=True)
        (root / "teams" / team / "catalog.yaml").write_text(TEAM, encoding="utf-8")
    (root / "toolcat.toml").write_text('roots = ["teams/*"]\n', encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)
    return root


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _sarif_ok(path: Path) -> dict[str, Any]:
    import jsonschema

    log: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft7Validator(schema).iter_errors(log)) == []
    return log


@needs_git
def test_push_validates_uploads_sarif_and_annotates(repo: Path, tmp_path: Path) -> None:
    run = run_action(repo, tmp_path, {})
    assert not run.failed, run.steps
    assert (tmp_path / "python.log").read_text() == (
        f"-m pip install --disable-pip-version-check {REPO}\n"
    )
    validate = run.steps["toolcat validate"]
    # the annotations: one per team (TC104 on drop_thing), then the summary line
    assert validate["stdout"].splitlines() == [
        line
        for team in ("alpha", "beta")
        for line in [
            f"::warning file=teams/{team}/catalog.yaml,line=13,col=5,title=TC104 "
            "unconfirmed-write::tool 'drop_thing': DELETE changes data but 'confirm' is not "
            "set; add 'confirm: true' (or 'confirm: false' to state it is safe)"
        ]
    ] + ["toolcat: 0 errors, 2 warnings in 2 files; 2 annotated; by code: TC104 2"]
    assert run.uploads == ["toolcat.sarif"]
    log = _sarif_ok(repo / "toolcat.sarif")
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["TC104", "TC104"]
    for name in ("toolcat diff", "Comment the diff"):
        assert run.steps[name]["outcome"] == "skipped"
    assert run.steps["Result"]["outcome"] == "success"


@needs_git
def test_findings_fail_the_job_after_the_upload(repo: Path, tmp_path: Path) -> None:
    run = run_action(repo, tmp_path, {"fail-on": "warning", "annotations": "false"})
    assert run.steps["toolcat validate"]["outcome"] == "success"  # the job fails at the end
    assert run.steps["toolcat validate"]["stdout"] == ""
    assert run.uploads == ["toolcat.sarif"]
    result = run.steps["Result"]
    assert (result["outcome"], result["code"]) == ("failure", 1)
    assert "toolcat validate exited 1" in result["stderr"]


@needs_git
def test_a_broken_settings_file_still_uploads_a_sarif_with_one_finding(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "toolcat.toml").write_text('roots = ["teams/*"]\nexcludes = []\n', encoding="utf-8")
    run = run_action(repo, tmp_path, {"sarif-file": "out/toolcat.sarif"})
    assert run.steps["toolcat validate"]["outcome"] == "success"  # the job fails at the end
    log = _sarif_ok(repo / "out" / "toolcat.sarif")
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["TC070"]
    assert "toolcat.toml:2: unknown key 'excludes'" in results[0]["message"]["text"]
    assert run.uploads == ["out/toolcat.sarif"]
    assert (run.steps["Result"]["outcome"], run.steps["Result"]["code"]) == ("failure", 2)


def _has_diff() -> bool:
    from toolcat.cli import _app

    return "diff" in _app._COMMAND_MODULES


@needs_git
@pytest.mark.skipif(
    not _has_diff(),
    reason="`toolcat diff` is not on this branch yet (the helper 'diff' builds it); "
    "this test runs once the command is registered",
)
def test_pull_request_comments_the_diff(repo: Path, tmp_path: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    base = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(["git", "checkout", "-qb", "change"], cwd=repo, check=True)
    alpha = repo / "teams" / "alpha" / "catalog.yaml"
    alpha.write_text(TEAM.replace("    confirm: true\n", ""), encoding="utf-8")
    subprocess.run([*git, "commit", "-qam", "drop the confirmation"], cwd=repo, check=True)
    pr = {"base": {"sha": base}, "number": 7}
    run = run_action(
        repo, tmp_path, {"diff-paths": "teams/alpha", "fail-on": "warning"}, "pull_request", pr
    )
    assert run.steps["toolcat diff"]["outcome"] == "success", run.steps["toolcat diff"]
    assert run.steps["Comment the diff"]["outcome"] == "success"
    assert (tmp_path / "gh.log").read_text().splitlines()[1] == (
        "pr comment 7 --body-file toolcat-diff.md"
    )
    body = (tmp_path / "gh.body").read_text()
    assert body.startswith("<!-- toolcat-diff -->") and "make_thing" in body


@needs_git
@pytest.mark.parametrize(
    "fail_on, result", [("none", ("success", 0)), ("breaking", ("failure", 1))]
)
def test_pull_request_wiring_with_a_scripted_diff(
    repo: Path, tmp_path: Path, fail_on: str, result: tuple[str, int]
) -> None:
    """The diff step's merge base, arguments, the one comment and the job result, with
    `toolcat diff` answered by a script (the real command runs in the test above)."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    base = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(["git", "checkout", "-qb", "change"], cwd=repo, check=True)
    (repo / "teams" / "alpha" / "catalog.yaml").write_text(TEAM.replace("    confirm: true\n", ""))
    subprocess.run([*git, "commit", "-qam", "drop the confirmation"], cwd=repo, check=True)
    pr = {"base": {"sha": base}, "number": 7}
    with_ = {"diff-paths": "teams/alpha", "diff-fail-on": fail_on}
    run = run_action(repo, tmp_path, with_, "pull_request", pr, stub_diff=True)
    assert run.steps["toolcat diff"]["outcome"] == "success"
    extra = "" if fail_on == "none" else f" --fail-on {fail_on}"
    assert (tmp_path / "toolcat-diff.log").read_text() == (
        f"diff --base {base} teams/alpha --format markdown{extra}\n"
    )
    assert (tmp_path / "gh.log").read_text().splitlines() == [
        "api --paginate repos/acme/platform-tools/issues/7/comments --jq "
        '.[] | select(.body | startswith("<!-- toolcat-diff -->")) | .id',
        "pr comment 7 --body-file toolcat-diff.md",
    ]
    assert (tmp_path / "gh.body").read_text() == (
        "<!-- toolcat-diff -->\n### 1 breaking change\n- make_thing: confirm dropped\n"
    )
    assert run.uploads == ["toolcat.sarif"]  # validate ran too (TC104 is a warning: exit 0)
    assert (run.steps["Result"]["outcome"], run.steps["Result"]["code"]) == result


def _pull_request(repo: Path, change: dict[str, str]) -> dict[str, Any]:
    """Commit ``change`` (path -> text) on a branch; the pull request event of it."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    base = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(["git", "checkout", "-qb", "change"], cwd=repo, check=True)
    for path, text in change.items():
        (repo / path).write_text(text, encoding="utf-8")
    subprocess.run([*git, "commit", "-qam", "change"], cwd=repo, check=True)
    return {"base": {"sha": base}, "number": 7}


@needs_git
def test_defaults_on_a_pull_request_diff_each_root_and_update_their_own_comment(
    repo: Path, tmp_path: Path
) -> None:
    """Both teams define service `s` and tool `make_thing`: as one catalog they would
    collide (TC013); each root is its own catalog, in the diff as in validate."""
    pr = _pull_request(repo, {"teams/alpha/catalog.yaml": TEAM.replace("    confirm: true\n", "")})
    other_bot = "Deploy preview ready.\n"
    ours = "<!-- toolcat-diff -->\n### toolcat diff: no changes\n"
    run = run_action(repo, tmp_path, {}, "pull_request", pr, comments={1: other_bot, 2: ours})
    diff = run.steps["toolcat diff"]
    assert diff["outcome"] == "success", diff
    assert "TC013" not in diff["stderr"] and "required" not in diff["stderr"], diff["stderr"]
    body = (tmp_path / "comments" / "2.md").read_text()
    assert body.startswith("<!-- toolcat-diff -->\n### toolcat diff: 0 breaking, 1 safety")
    assert "`HEAD" not in body  # the merge base's commit, not a branch name
    assert "→ `teams/alpha`" in body and "→ `teams/beta`" in body
    assert "### toolcat diff: no changes" in body.split("teams/alpha`", 1)[1]  # beta's part
    assert "TD201" in body
    assert (tmp_path / "comments" / "1.md").read_text() == other_bot  # never another's
    assert sorted(p.name for p in (tmp_path / "comments").iterdir()) == ["1.md", "2.md"]
    assert (tmp_path / "gh.log").read_text().splitlines()[1] == (
        "api --method PATCH repos/acme/platform-tools/issues/comments/2 -F body=@toolcat-diff.md"
    )
    # diff findings do not fail the job by default; validate's TC104 warnings neither
    assert (run.steps["Result"]["outcome"], run.steps["Result"]["code"]) == ("success", 0)


@needs_git
def test_fail_on_comes_from_the_settings_as_for_the_hook(repo: Path, tmp_path: Path) -> None:
    (repo / "toolcat.toml").write_text('roots = ["teams/*"]\nfail_on = "warning"\n')
    run = run_action(repo, tmp_path, {"annotations": "false"})
    result = run.steps["Result"]
    assert (result["outcome"], result["code"]) == ("failure", 1)  # TC104 is a warning
    run = run_action(repo, tmp_path / "again", {"annotations": "false", "fail-on": "error"})
    assert run.steps["Result"]["outcome"] == "success"  # the input still wins


@needs_git
def test_a_pinned_version_installs_from_the_repository(repo: Path, tmp_path: Path) -> None:
    run = run_action(repo, tmp_path, {"toolcat-version": "v1.4.0"})
    assert run.steps["Install toolcat"]["outcome"] == "success"
    assert (tmp_path / "python.log").read_text() == (
        "-m pip install --disable-pip-version-check "
        "toolcat @ git+https://github.com/acme/toolcat@v1.4.0\n"
    )
