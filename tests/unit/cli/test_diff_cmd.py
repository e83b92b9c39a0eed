"""`toolcat diff`: formats, --fail-on, broken and missing inputs, and --base REF."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from toolcat.catalog.diff import CHANGE_RULES
from toolcat.cli import main


# the ``catalogs`` fixture's good.yaml (tests/unit/cli/conftest.py), read in ``good``
def changed(good: str) -> str:
    """good.yaml with: limit's minimum raised (breaking), create_order's confirm dropped
    (safety), get_order's description reworded (a note)."""
    return (
        good.replace("default: 5, minimum: 1", "default: 5, minimum: 2")
        .replace("    confirm: true\n", "")
        .replace("Look up one order by id.", "Look up one order.")
    )


EXPECTED = [
    ("TD107", "get_order", "/input_schema/properties/limit/minimum"),
    ("TD201", "create_order", "/confirm"),
    ("TD302", "get_order", "/description"),
]


@pytest.fixture
def good(catalogs: Path) -> str:
    return (catalogs / "good.yaml").read_text(encoding="utf-8")


@pytest.fixture
def pair(catalogs: Path, good: str) -> Path:
    (catalogs / "new.yaml").write_text(changed(good), encoding="utf-8")
    return catalogs


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["diff", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_lists_exactly_the_planned_changes(
    pair: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "good.yaml", "new.yaml", "--format", "json")
    doc = json.loads(out)
    assert [(c["rule"], c["tool"], c["location"]) for c in doc["findings"]] == EXPECTED
    assert doc["counts"] == {"breaking": 1, "safety": 1, "note": 1}
    assert (doc["failOn"], doc["failed"], code) == ("safety", True, 1)
    first = doc["findings"][0]
    assert (first["name"], first["severity"], first["file"], first["line"]) == (
        "constraint-tightened",
        "breaking",
        "new.yaml",
        7,
    )


def test_a_catalog_against_itself_is_empty(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for fmt in ("text", "markdown", "json", "sarif", "github"):
        code, out, err = run(capsys, "good.yaml", "good.yaml", "--format", fmt, "--fail-on", "any")
        assert code == 0, (fmt, err)
        if fmt in ("text", "github"):
            assert out == ""
    assert err.strip() == ""  # github: no summary line
    code, out, err = run(capsys, "good.yaml", "good.yaml")
    assert (code, out, err) == (0, "", "toolcat: no changes\n")


@pytest.mark.parametrize(
    "fail_on, edit, code",
    [
        ("breaking", ("default: 5, minimum: 1", "default: 5, minimum: 2"), 1),
        ("breaking", ("    confirm: true\n", ""), 0),  # safety only
        ("safety", ("    confirm: true\n", ""), 1),
        ("safety", ("default: 5, minimum: 1", "default: 5, minimum: 2"), 1),
        ("safety", ("by id.", "by its id."), 0),  # a note only
        ("any", ("by id.", "by its id."), 1),
        ("any", ("", ""), 0),
    ],
)
def test_fail_on_is_a_ladder(
    catalogs: Path,
    good: str,
    capsys: pytest.CaptureFixture[str],
    fail_on: str,
    edit: tuple[str, str],
    code: int,
) -> None:
    new = good.replace(*edit) if edit[0] else good
    assert new != good or not edit[0]
    (catalogs / "new.yaml").write_text(new, encoding="utf-8")
    assert run(capsys, "good.yaml", "new.yaml", "--fail-on", fail_on)[0] == code


def test_text_is_one_line_per_change_and_a_summary(
    pair: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "good.yaml", "new.yaml")
    assert out.splitlines()[0] == (
        "new.yaml:7:5: breaking TD107 get_order /input_schema/properties/limit/minimum: "
        "argument 'limit': lower bound >= 1 -> >= 2 (tightened)"
    )
    assert len(out.splitlines()) == 3
    assert err == "toolcat: 1 breaking, 1 safety, 1 note in 2 tools\n"


def test_markdown_has_a_table_per_class(pair: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "good.yaml", "new.yaml", "--format", "markdown")
    assert out.startswith("### toolcat diff: 1 breaking, 1 safety, 1 note in 2 tools\n")
    for heading in ("#### Breaking changes (1)", "#### Safety regressions (1)", "#### Notes (1)"):
        assert heading in out
    assert "| TD201 confirm-dropped | `create_order` | `/confirm` |" in out


def test_github_annotations(pair: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "good.yaml", "new.yaml", "--format", "github")
    lines = out.splitlines()
    assert lines[0].startswith(
        "::error file=new.yaml,line=7,col=5,title=TD107 constraint-tightened::"
    )
    assert lines[1].startswith("::warning file=new.yaml,")
    assert lines[2].startswith("::notice file=new.yaml,")


def test_sarif_is_valid_and_names_the_rules(
    pair: Path, good: str, capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    (pair / "gone.yaml").write_text(good.replace("get_order", "get_it"), "utf-8")
    _, out, _ = run(capsys, "good.yaml", "new.yaml", "--format", "sarif")
    log: dict[str, Any] = json.loads(out)
    schema = json.loads((data_dir / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(log, schema)
    run_ = log["runs"][0]
    assert [r["id"] for r in run_["tool"]["driver"]["rules"]] == ["TD107", "TD201", "TD302"]
    assert [r["level"] for r in run_["results"]] == ["error", "warning", "note"]
    loc = run_["results"][0]["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == "new.yaml"
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == (
        "get_order/input_schema/properties/limit/minimum"
    )
    # a removed tool has no place in the NEW files: a logical location only
    _, out, _ = run(capsys, "good.yaml", "gone.yaml", "--format", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, schema)
    removed = [r for r in log["runs"][0]["results"] if r["ruleId"] == "TD101"]
    assert len(removed) == 1 and "physicalLocation" not in removed[0]["locations"][0]


def test_a_broken_catalog_prints_its_diagnostics_and_exits_1(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, side in ((("good.yaml", "bad.yaml"), "NEW"), (("bad.yaml", "good.yaml"), "OLD")):
        code, out, err = run(capsys, *argv, "--format", "json")
        assert code == 1
        doc = json.loads(out)  # the machine format still parses: nothing compared
        assert (doc["findings"], doc["failed"], doc["notLoaded"]) == ([], True, [side])
        assert [d["code"] for d in doc["diagnostics"]][0] == "TC012"
        assert "bad.yaml:7:14: error TC012" in err
        assert f"{side} does not load" in err
        assert "Traceback" not in err
    code, out, err = run(capsys, "bad.yaml", "bad.yaml")
    assert (code, out) == (1, "")
    assert "OLD does not load" in err and "NEW does not load" in err
    code, out, _ = run(capsys, "good.yaml", "bad.yaml", "--format", "markdown")
    assert code == 1 and out.startswith("### toolcat diff: NEW does not load; nothing compared")
    assert "bad.yaml:7:14: error TC012" in out


def test_a_broken_catalog_in_sarif_is_still_valid_sarif(
    catalogs: Path, capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    code, out, _ = run(capsys, "good.yaml", "bad.yaml", "--format", "sarif")
    assert code == 1
    schema = json.loads((data_dir / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(out), schema)
    code, out, _ = run(capsys, "good.yaml", "bad.yaml", "--format", "github")
    assert code == 1 and out.startswith("::error file=bad.yaml,line=7,col=14,title=TC012")


@pytest.mark.parametrize(
    "argv, words",
    [
        (("good.yaml",), "OLD and NEW"),
        (("good.yaml", "good.yaml", "good.yaml"), "OLD and NEW"),
        (("good.yaml", "nothere.yaml"), "nothere.yaml"),
        (("good.yaml", "good.yaml", "--fail-on", "error"), "--fail-on"),
        (("good.yaml", "good.yaml", "--format", "junit"), "--format"),
        (("good.yaml", "empty"), "empty"),
    ],
)
def test_usage_and_input_errors_are_one_line_exit_2(
    catalogs: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_every_rule_is_in_the_docs_table(repo_root: Path) -> None:
    text = (repo_root / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## `toolcat diff`", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| TD")]
    documented = {row.split("|")[1].strip(): row.split("|")[2].strip() for row in rows}
    assert documented == {rule.id: f"`{rule.name}`" for rule in CHANGE_RULES.values()}
    for row in rows:
        rule = CHANGE_RULES[row.split("|")[1].strip()]
        assert row.split("|")[3].strip() == rule.kind.value


# -- --base REF ------------------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def _commit(root: Path, message: str) -> None:
    who = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")
    _git(root, "add", ".")
    _git(root, *who, "commit", "-qm", message)


@pytest.fixture
def repo(catalogs: Path, good: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = catalogs / "repo"
    (root / "catalogs").mkdir(parents=True)
    (root / "catalogs" / "orders.yaml").write_text(good, encoding="utf-8")
    _git(root, "init", "-q")
    _commit(root, "one")
    (root / "catalogs" / "orders.yaml").write_text(changed(good), encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def _state(root: Path) -> tuple[str, str, str]:
    index = hashlib.sha256((root / ".git" / "index").read_bytes()).hexdigest()
    text = (root / "catalogs" / "orders.yaml").read_text(encoding="utf-8")
    return _git(root, "status", "--porcelain"), index, text


def test_base_reads_old_from_git_and_touches_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _state(repo)
    code, out, _ = run(capsys, "--base", "HEAD", "catalogs/orders.yaml", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert [(c["rule"], c["tool"], c["location"]) for c in doc["findings"]] == EXPECTED
    assert doc["old"] == "HEAD:catalogs/orders.yaml"
    assert _state(repo) == before
    # from a subfolder: the same changes, OLD named as git names it (from the top)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(repo / "catalogs")
        code, out, _ = run(capsys, "--base", "HEAD", "orders.yaml", "--format", "json")
    doc = json.loads(out)
    assert (doc["old"], doc["new"]) == ("HEAD:catalogs/orders.yaml", "orders.yaml")
    assert [(c["rule"], c["tool"], c["location"]) for c in doc["findings"]] == EXPECTED
    # a directory works the same, and the committed revision against itself is empty
    _git(repo, "stash", "-q")
    assert run(capsys, "--base", "HEAD", "catalogs", "--fail-on", "any")[:2] == (0, "")


def test_base_names_old_files_as_ref_colon_path(
    repo: Path, good: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "catalogs" / "orders.yaml").write_text(
        good.replace("name: create_order", "name: make_order"), encoding="utf-8"
    )
    _, out, _ = run(capsys, "--base", "HEAD", "catalogs/orders.yaml")
    removed = [line for line in out.splitlines() if "TD101" in line]
    assert removed == [
        "HEAD:catalogs/orders.yaml:17:5: breaking TD101 create_order: tool removed "
        "(likely renamed to 'make_order': same method and path)"
    ]


def test_base_with_a_path_new_since_ref(
    repo: Path, good: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "catalogs" / "more.yaml").write_text(good.replace("orders", "shop"), encoding="utf-8")
    code, out, err = run(capsys, "--base", "HEAD", "catalogs/more.yaml", "--format", "json")
    assert code == 0
    assert {c["rule"] for c in json.loads(out)["findings"]} == {"TD301"}
    assert "not in HEAD" in err


def test_base_with_a_catalog_deleted_since_ref(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "catalogs" / "orders.yaml").unlink()
    code, out, err = run(capsys, "--base", "HEAD", "catalogs/orders.yaml", "--format", "json")
    assert code == 1
    assert {c["rule"] for c in json.loads(out)["findings"]} == {"TD101"}
    assert "deleted since HEAD" in err


def test_base_with_a_broken_old_revision(
    repo: Path, good: str, capsys: pytest.CaptureFixture[str]
) -> None:
    orders = repo / "catalogs" / "orders.yaml"
    orders.write_text(good.replace("service: orders", "service: x"), encoding="utf-8")
    _commit(repo, "broken")
    orders.write_text(good, encoding="utf-8")
    code, _, err = run(capsys, "--base", "HEAD", "catalogs/orders.yaml")
    assert code == 1
    assert "HEAD:catalogs/orders.yaml:" in err and "TC012" in err
    assert "OLD does not load" in err


@pytest.mark.parametrize(
    "argv, words",
    [
        (("--base", "no-such-branch", "catalogs/orders.yaml"), "unknown revision"),
        (("--base", "--help", "catalogs/orders.yaml"), "--base"),
        (("--base", "HEAD", "nothere.yaml"), "nothere.yaml"),
    ],
)
def test_base_errors_are_one_line_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and words in err


def test_base_outside_a_repository(catalogs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    code, _, err = run(capsys, "--base", "HEAD", "good.yaml")
    assert code == 2 and "not inside a git repository" in err


def test_text_and_markdown_escape_what_a_catalog_may_hold() -> None:
    from toolcat.catalog.diff import ToolChange
    from toolcat.cli._diff_formats import DiffReport, format_markdown, format_text

    odd = ToolChange(
        "TD102", "t", "/input_schema/properties/a|\x1b[31m", "argument 'a\x1b' removed"
    )
    text = format_text([odd], DiffReport("a", "b"))
    assert "\x1b" not in text and "\\x1b[31m" in text
    table = format_markdown([odd], DiffReport("a", "b"))
    assert "\x1b" not in table and "a\\|" in table


# -- the roots of toolcat.toml ------------------------------------------------------------------


@pytest.fixture
def team_repo(catalogs: Path, good: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two roots that define the same service and tools (one catalog would be TC011/TC013)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = catalogs / "team"
    for team in ("alpha", "beta"):
        (root / "teams" / team).mkdir(parents=True)
        (root / "teams" / team / "catalog.yaml").write_text(good, encoding="utf-8")
    (root / "toolcat.toml").write_text('roots = ["teams/*"]\n', encoding="utf-8")
    _git(root, "init", "-q")
    _commit(root, "one")
    (root / "teams" / "alpha" / "catalog.yaml").write_text(changed(good), encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def test_base_without_path_diffs_each_root_as_its_own_catalog(
    team_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "--base", "HEAD")
    assert code == 1, err
    assert [line.split()[2] for line in out.splitlines()] == ["TD107", "TD201", "TD302"]
    assert all(line.startswith("teams/alpha/catalog.yaml:") for line in out.splitlines())
    assert err.splitlines() == [
        "toolcat: teams/alpha: 1 breaking, 1 safety, 1 note in 2 tools",
        "toolcat: teams/beta: no changes",
    ]
    code, out, _ = run(capsys, "--base", "HEAD", "--format", "json")
    doc = json.loads(out)
    assert [(c["old"], c["new"], c["failed"]) for c in doc["catalogs"]] == [
        ("HEAD:teams/alpha", "teams/alpha", True),
        ("HEAD:teams/beta", "teams/beta", False),
    ]
    assert doc["failed"] is True and code == 1
    _, out, _ = run(capsys, "--base", "HEAD", "--format", "sarif")
    assert [len(r["results"]) for r in json.loads(out)["runs"]] == [3, 0]
    _, out, _ = run(capsys, "--base", "HEAD", "--format", "markdown")
    assert out.count("### toolcat diff: ") == 2 and "`HEAD:teams/beta` → `teams/beta`" in out
    # named PATHs are one catalog, as validate reads them
    code, out, _ = run(capsys, "--base", "HEAD", "teams/beta")
    assert (code, out) == (0, "")


def test_base_without_path_or_roots_says_what_to_give(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "--base", "HEAD")
    assert code == 2
    assert err == (
        "toolcat: diff --base REF needs a PATH (or roots in toolcat.toml or [tool.toolcat]; "
        "see 'toolcat diff --help')\n"
    )


def test_an_old_side_that_does_not_load_names_ref_paths_not_the_temporary_tree(
    repo: Path, good: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "catalogs" / "orders.yaml").write_text(
        "toolcat: 1\nopenapi:\n  - spec: shop.yaml\n", encoding="utf-8"
    )
    _commit(repo, "an entry whose spec was never committed")
    (repo / "catalogs" / "orders.yaml").write_text(good, encoding="utf-8")
    code, _, err = run(capsys, "--base", "HEAD", "catalogs/orders.yaml")
    assert code == 1
    assert err.splitlines()[0] == (
        "HEAD:catalogs/orders.yaml:3:11: error TC007 openapi spec 'shop.yaml' not found "
        "(looked at HEAD:catalogs/shop.yaml)"
    )
