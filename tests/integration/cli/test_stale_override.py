"""A `tools:` override of an operation the spec has since removed (TC206): a warning, the
catalog still loads (so serve starts), and `toolcat diff` shows the tool as removed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from toolcat.cli import main
from toolcat.loader import Severity, load_catalog

SPEC = """\
openapi: 3.0.3
info: {title: Galaxy, version: "1"}
servers: [{url: "https://galaxy.example"}]
paths:
  /planets:
    get:
      operationId: listPlanets
      summary: List the planets.
      responses: {"200": {description: ok}}
    post:
      operationId: createPlanet
      summary: Create a planet.
      responses: {"201": {description: ok}}
  /planets/{planetId}:
    parameters:
      - {name: planetId, in: path, required: true, schema: {type: integer}}
    put:
      operationId: updatePlanet
      summary: Replace a planet.
      responses: {"200": {description: ok}}
    delete:
      operationId: deletePlanet
      summary: Delete a planet.
      responses: {"204": {description: gone}}
"""

CATALOG = """\
toolcat: 1
openapi:
  - spec: ../specs/galaxy.yaml
    service: galaxy
    tools:
      deletePlanet: {confirm: true, description: Delete a planet for good.}
"""

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "specs").mkdir()
    (tmp_path / "catalog").mkdir()
    (tmp_path / "specs" / "galaxy.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "catalog" / "galaxy.yaml").write_text(CATALOG, encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=tmp_path, check=True)
    # the next version of the spec drops deletePlanet
    start = SPEC.index("    delete:")
    (tmp_path / "specs" / "galaxy.yaml").write_text(SPEC[:start], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_stale_override_warns_and_the_catalog_still_loads(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = load_catalog(["catalog"], progress=False)
    assert result.catalog is not None  # what serve loads
    assert sorted(t.name for t in result.catalog) == ["createPlanet", "listPlanets", "updatePlanet"]
    [stale] = [d for d in result.diagnostics if d.code == "TC206"]
    assert stale.severity is Severity.WARNING
    code, out, _ = run(capsys, "validate", "catalog")
    assert code == 0
    # the override's place in the catalog, and no sibling offered as a fix
    assert out == (
        "catalog/galaxy.yaml:6:7: warning TC206 the tools override 'deletePlanet' names no "
        "operationId of this spec, so it is ignored; remove it if the spec dropped the "
        "operation\n"
    )
    assert run(capsys, "validate", "catalog", "--fail-on", "warning")[0] == 1


def test_diff_shows_the_removed_operation_as_a_removed_tool(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "diff", "--base", "HEAD", "catalog", "--format", "json")
    assert code == 1, err
    import json

    doc = json.loads(out)
    assert [(f["rule"], f["tool"]) for f in doc["findings"]] == [("TD101", "deletePlanet")]
    assert "does not load" not in err
