"""`toolcat validate` in a team repository: settings, roots, excludes, suppressions, baseline,
machine formats on exit 2, and the capped GitHub annotations."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from toolcat.cli import main
from toolcat.cli._config import compile_globs

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
    parameters:
      n: {type: integer, description: How many}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with two team folders defining the same names, and a Kubernetes manifest."""
    (tmp_path / ".git").mkdir()
    for team in ("alpha", "beta"):
        (tmp_path / "teams" / team).mkdir(parents=True)
        (tmp_path / "teams" / team / "catalog.yaml").write_text(TEAM, encoding="utf-8")
    (tmp_path / "teams" / "alpha" / "deploy").mkdir()
    (tmp_path / "teams" / "alpha" / "deploy" / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\n")
    (tmp_path / "toolcat.toml").write_text(
        'roots = ["teams/*"]\nexclude = ["deploy/"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes(out: str) -> list[str]:
    return [line.split()[2] for line in out.splitlines()]


# -- roots and excludes -----------------------------------------------------------------


def test_roots_are_separate_catalogs_and_excludes_skip_other_yaml(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "validate")
    assert code == 0
    assert codes(out) == ["TC104", "TC104"]  # one per team, no TC011/TC013, no TC005
    assert out.startswith("teams/alpha/catalog.yaml:5:5: warning TC104")
    assert err == "toolcat: 0 errors, 2 warnings in 2 files\n"
    # the same folder as one PATH is one catalog: the names collide, the manifest is TC005
    code, out, _ = run(capsys, "validate", "teams", "--no-config")
    assert code == 1 and {"TC005", "TC011", "TC013"} <= set(codes(out))
    # a PATH keeps the settings' excludes
    code, out, _ = run(capsys, "validate", "teams/alpha")
    assert code == 0 and codes(out) == ["TC104"]


@pytest.mark.parametrize(
    "pattern, path, hit",
    [
        ("deploy/", "teams/a/deploy/pod.yaml", True),
        ("deploy", "deploy/x/y.yaml", True),
        ("teams/*/k8s/**", "teams/a/k8s/b/c.yaml", True),
        ("teams/*/k8s/**", "teams/a/b/k8s/c.yaml", False),
        ("*.schema.yaml", "a/b/x.schema.yaml", True),
        ("/top.yaml", "sub/top.yaml", False),
        ("**/fixtures/*.yml", "fixtures/a.yml", True),
        ("a?.yaml", "ab.yaml", True),
        ("a[!b].yaml", "ab.yaml", False),
    ],
)
def test_exclude_globs(tmp_path: Path, pattern: str, path: str, hit: bool) -> None:
    excluded = compile_globs([pattern], tmp_path)
    assert excluded is not None and excluded(tmp_path / path) is hit


def test_settings_from_pyproject_and_upward_search(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "toolcat.toml").unlink()
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.toolcat]\nroots = ["teams/alpha"]\n'
        'exclude = ["deploy"]\nignore = ["TC104"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(repo / "teams" / "beta")  # found from a folder below
    code, out, err = run(capsys, "validate")
    assert (code, out) == (0, "")
    assert err == "toolcat: no problems in 1 file\n"


def test_severity_overrides_and_off(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml = repo / "toolcat.toml"
    toml.write_text(toml.read_text() + '[severity]\nTC104 = "error"\n', encoding="utf-8")
    code, out, _ = run(capsys, "validate")
    assert code == 1 and out.split()[1:3] == ["error", "TC104"]
    toml.write_text(toml.read_text().replace('"error"', '"off"'), encoding="utf-8")
    code, out, _ = run(capsys, "validate")
    assert (code, out) == (0, "")


@pytest.mark.parametrize(
    "text, message",
    [
        ('roots = ["teams/*"]\nexcludes = ["x"]\n', "toolcat.toml:2: unknown key 'excludes'"),
        ("roots = [\n", "toolcat.toml:2: not valid TOML"),
        ('roots = "teams"\n', "toolcat.toml:1: 'roots' must be a list of non-empty strings"),
        ('ignore = ["TC999"]\n', "toolcat.toml:1: 'TC999' is not a toolcat diagnostic code"),
        ('[severity]\nTC104 = "loud"\n', "toolcat.toml:2: severity of TC104 must be one of"),
        ('roots = ["nowhere"]\n', "toolcat.toml:1: root 'nowhere' does not exist"),
        ("max_annotations = -1\n", "toolcat.toml:1: 'max_annotations' must be a whole number"),
        ('fail_on = "warnings"\n', "toolcat.toml:1: 'fail_on' must be one of error, warning"),
        # what `echo 'baseline = ...' >> toolcat.toml` does to a file that ends in a table
        (
            '[severity]\nTC104 = "error"\nbaseline = "b.json"\n',
            "toolcat.toml:3: 'baseline' is inside the [severity] table; move it above the "
            "first [table]",
        ),
    ],
)
def test_a_bad_settings_file_is_one_line_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    (repo / "toolcat.toml").write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "validate")
    assert (code, out) == (2, "")
    assert err.startswith(f"toolcat: {message}") and err.count("\n") == 1


def test_no_path_and_no_roots_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "validate")
    assert code == 2 and "a PATH is required" in err


# -- inline suppressions -----------------------------------------------------------------


def test_inline_suppression_on_the_line_or_the_whole_line_above(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alpha = repo / "teams" / "alpha" / "catalog.yaml"
    alpha.write_text(
        TEAM.replace("- name: make_thing", "- name: make_thing  # toolcat: ignore[TC104]")
    )
    beta = repo / "teams" / "beta" / "catalog.yaml"
    beta.write_text(TEAM.replace("  - name:", "  # toolcat: ignore[TC101, TC104]\n  - name:"))
    code, out, _ = run(capsys, "validate", "--fail-on", "warning")
    # beta's TC101 covers nothing: reported, so a stale suppression never hides the next finding
    assert code == 1
    assert out.splitlines() == [
        "teams/beta/catalog.yaml:5:1: warning TC125 '# toolcat: ignore[TC101]': TC101 "
        "suppresses nothing here; remove it (it covers findings on its own line, or on the "
        "next line when the comment is the whole line)"
    ]
    # a comment after a value covers only its own line
    alpha.write_text(TEAM.replace("method: POST", "method: POST  # toolcat: ignore[TC104]"))
    beta.write_text(TEAM)
    code, out, _ = run(capsys, "validate")
    assert codes(out) == ["TC104", "TC125", "TC104"]


# -- baseline ------------------------------------------------------------------------


def test_baseline_fails_only_on_new_findings_and_survives_edits_above(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "validate", "--write-baseline", "base.json", "--fail-on", "warning")
    assert code == 0 and "wrote 2 baseline entries to base.json" in err
    doc = json.loads((repo / "base.json").read_text())
    assert [e["file"] for e in doc["findings"]] == [
        "teams/alpha/catalog.yaml",
        "teams/beta/catalog.yaml",
    ]
    beta = repo / "teams" / "beta" / "catalog.yaml"
    # lines added above move the finding: still known
    beta.write_text("# owned by team beta\n\n" + TEAM)
    code, out, err = run(capsys, "validate", "--baseline", "base.json", "--fail-on", "warning")
    assert (code, out) == (0, "")
    assert "2 known in the baseline left out" in err
    # a new finding fails; the known ones stay quiet
    beta.write_text(
        TEAM + "  - name: drop_thing\n    service: s\n    method: DELETE\n    path: /x\n"
    )
    code, out, err = run(capsys, "validate", "--baseline", "base.json", "--fail-on", "warning")
    assert code == 1
    assert {line.split()[2] for line in out.splitlines()} == {"TC101", "TC104"}
    assert "drop_thing" in out and "make_thing" not in out
    # fixed findings are counted, so the baseline can be tightened
    beta.write_text(TEAM.replace("method: POST", "method: POST\n    confirm: true"))
    code, _, err = run(capsys, "validate", "--baseline", "base.json")
    assert code == 0 and "1 baseline entries no longer found" in err
    # the settings can name the baseline
    toml = repo / "toolcat.toml"
    toml.write_text(toml.read_text() + 'baseline = "base.json"\n', encoding="utf-8")
    beta.write_text(TEAM)
    code, out, _ = run(capsys, "validate", "--fail-on", "warning")
    assert (code, out) == (0, "")


def test_fail_on_from_the_settings_and_the_command_line_wins(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "validate")[0] == 0  # TC104 warnings only: the default is error
    toml = repo / "toolcat.toml"
    toml.write_text('fail_on = "warning"\n' + toml.read_text(), encoding="utf-8")
    code, out, _ = run(capsys, "validate")
    assert code == 1 and codes(out) == ["TC104", "TC104"]
    assert run(capsys, "validate", "--fail-on", "error")[0] == 0
    code, out, _ = run(capsys, "validate", "--format", "json")
    assert code == 1 and json.loads(out)["failOn"] == "warning"


def test_baseline_entries_are_per_root(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One baseline for both roots: validating or rewriting one root leaves the other's
    entries alone (they were reported as gone, and the advice to rewrite deleted them)."""
    toml = repo / "toolcat.toml"
    toml.write_text('baseline = "base.json"\n' + toml.read_text(), encoding="utf-8")
    code, _, err = run(capsys, "validate", "--write-baseline", "base.json")
    assert code == 0 and "wrote 2 baseline entries" in err
    code, out, err = run(capsys, "validate", "teams/alpha", "--fail-on", "warning")
    assert (code, out) == (0, "")
    assert err == "toolcat: no problems in 1 file; 1 known in the baseline left out\n"
    # alpha's finding fixed: alpha's entry is gone, beta's is not alpha's to judge
    alpha = repo / "teams" / "alpha" / "catalog.yaml"
    alpha.write_text(TEAM.replace("method: POST", "method: POST\n    confirm: true"))
    code, _, err = run(capsys, "validate", "teams/alpha")
    assert err.endswith(
        "; 0 known in the baseline left out, 1 baseline entries no longer found "
        "(rewrite it with --write-baseline)\n"
    )
    code, _, err = run(capsys, "validate", "teams/alpha", "--write-baseline", "base.json")
    assert err.endswith(
        "wrote 1 baseline entries to base.json (1 of catalogs not checked here kept as they were)\n"
    )
    doc = json.loads((repo / "base.json").read_text())
    assert [(e["file"], e["code"]) for e in doc["findings"]] == [
        ("teams/beta/catalog.yaml", "TC104")
    ]
    code, out, err = run(capsys, "validate", "--fail-on", "warning")  # both roots
    assert (code, out) == (0, "") and "1 known in the baseline left out" in err
    # a file deleted from a root: its entries are that root's, and gone
    extra = TEAM.replace("make_thing", "other").replace(
        '  s: {base_url: "https://x.example"}\n', ""
    )
    (repo / "teams" / "beta" / "extra.yaml").write_text(extra.replace("services:\n", ""))
    run(capsys, "validate", "--write-baseline", "base.json")
    (repo / "teams" / "beta" / "extra.yaml").unlink()
    code, _, err = run(capsys, "validate", "teams/beta")
    assert "1 baseline entries no longer found" in err


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "the baseline is not valid JSON"),
        ('{"findings": []}', "not a toolcat baseline"),
        ('{"toolcat_baseline": 1, "findings": [{"file": "a"}]}', "baseline finding 0 needs"),
    ],
)
def test_a_corrupt_baseline_is_one_line_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    (repo / "base.json").write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "validate", "--baseline", "base.json")
    assert (code, out) == (2, "")
    assert err.startswith("toolcat: base.json: ") and message in err and err.count("\n") == 1


# -- machine formats on exit 2 ---------------------------------------------------------


@pytest.mark.parametrize(
    "argv, where",
    [
        (["validate", "missing.yaml"], "toolcat"),
        (["validate", "--baseline", "base.json", "teams"], "base.json"),
        (["validate", "teams", "--bogus"], "toolcat"),
        (["validate", "teams", "--max-annotations", "x"], "toolcat"),
    ],
)
@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "github"])
def test_machine_formats_are_written_on_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], where: str, fmt: str
) -> None:
    (repo / "base.json").write_text("[]", encoding="utf-8")
    code, out, err = run(capsys, *argv, "--format", fmt)
    assert code == 2 and err.startswith("toolcat: ") and err.count("\n") == 1
    if fmt == "json":
        doc = json.loads(out)
        assert [d["code"] for d in doc["diagnostics"]] == ["TC070"]
        assert doc["diagnostics"][0]["file"] == where and doc["exitCode"] == 2
    elif fmt == "sarif":
        run_ = json.loads(out)["runs"][0]
        assert [r["ruleId"] for r in run_["results"]] == ["TC070"]
        assert run_["invocations"][0]["exitCode"] == 2
        assert run_["invocations"][0]["executionSuccessful"] is False
    elif fmt == "junit":
        assert ET.fromstring(out).find("testsuite/testcase/failure").get("type") == "TC070"  # type: ignore[union-attr]
    else:
        at = "" if where == "toolcat" else f"file={where},line=1,col=1,"
        assert out.startswith(f"::error {at}title=TC070 cannot-check::")
        assert out.splitlines()[-1].startswith("toolcat: 1 error, 0 warnings")


def test_the_sarif_of_an_exit_2_validates(
    repo: Path, capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    import jsonschema

    schema = json.loads((data_dir / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    code, out, _ = run(capsys, "validate", "missing.yaml", "--format", "sarif")
    assert code == 2
    assert list(jsonschema.Draft7Validator(schema).iter_errors(json.loads(out))) == []


# -- GitHub annotations ------------------------------------------------------------------


def test_github_annotations_are_capped_and_end_with_a_summary(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    many = TEAM + "".join(
        f"  - name: drop_{i}\n    service: s\n    method: DELETE\n    path: /x/{i}\n"
        for i in range(30)
    )
    (repo / "teams" / "alpha" / "catalog.yaml").write_text(many, encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--format", "github")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 51
    assert all(line.startswith("::warning ") for line in lines[:50])
    assert lines[-1] == (
        "toolcat: 0 errors, 62 warnings in 2 files; 50 annotated, 12 not shown; "
        "by code: TC104 32, TC101 30"
    )
    (repo / "toolcat.toml").write_text(
        'roots = ["teams/*"]\nexclude = ["deploy/"]\nmax_annotations = 3\n', encoding="utf-8"
    )
    _, out, _ = run(capsys, "validate", "--format", "github")
    assert len(out.splitlines()) == 4
    _, out, _ = run(capsys, "validate", "--format", "github", "--max-annotations", "0")
    assert out.splitlines()[0].startswith("toolcat: 0 errors, 62 warnings")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_settings_file_or_baseline_that_is_a_pipe_is_refused_unread(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(repo / "pipe.toml")
    code, _, err = run(capsys, "validate", "--config", "pipe.toml")
    assert code == 2 and err.startswith("toolcat: cannot read the toolcat settings from pipe.toml")
    code, _, err = run(capsys, "validate", "--baseline", "pipe.toml")
    assert code == 2 and err.startswith("toolcat: cannot read the baseline from pipe.toml")


def test_suppression_comments_are_found_with_their_lines() -> None:
    from toolcat.cli._findings import _suppressions

    text = (
        "toolcat: 1\n"
        "# toolcat: ignore[TC104]\n"
        "tools:\n"
        "  - name: a  #toolcat:ignore[TC101,TC103 ]\n"
        "    # toolcat: ignore[]\n"
        "    description: 'no # toolcat: ignore here' \n"
    )
    assert _suppressions(text) == {
        2: ({"TC104"}, True),
        4: ({"TC101", "TC103"}, False),
        5: (set(), True),
    }
