"""CI on a real, large catalog: the Kubernetes spec of the corpus, imported and written.

Its write operations lose their ``confirm`` lines here, so that every one of them is a
TC104 whatever the importer's defaults: hundreds of findings, as a team that adopts
toolcat on an existing catalog sees them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from toolcat.cli import main

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def written(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("k8s")
    out = folder / "catalog.yaml"
    spec = corpus_dir / "kubernetes-swagger2.json"
    assert main(["import", "openapi", str(spec), "-o", str(out)]) == 0
    text = re.sub(r"(?m)^\s+confirm: (true|false)\n", "", out.read_text(encoding="utf-8"))
    out.write_text(text, encoding="utf-8")
    return out


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_github_annotations_are_capped_on_a_real_catalog(
    written: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(written.parent)
    code, out, _ = run(capsys, "validate", "catalog.yaml", "--format", "github", "--no-config")
    lines = out.splitlines()
    assert len(lines) == 51 and all(line.startswith("::") for line in lines[:50])
    found = re.match(r"toolcat: 0 errors, (\d+) warnings in 1 file; ", lines[-1])
    assert found is not None and int(found.group(1)) > 500, lines[-1]
    total = int(found.group(1))
    assert f"; 50 annotated, {total - 50} not shown; by code: TC104 " in lines[-1]


def test_a_baseline_on_a_real_catalog_keeps_known_findings_quiet(
    written: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    work = tmp_path / "repo"
    work.mkdir()
    catalog = work / "catalog.yaml"
    catalog.write_text(written.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(work)
    code, out, err = run(capsys, "validate", "catalog.yaml", "--write-baseline", "base.json")
    assert (code, out) == (0, "") and "baseline entries to base.json" in err
    # lines added at the top move every finding: none is new
    text = catalog.read_text(encoding="utf-8")
    catalog.write_text("# owned by the platform team\n# reviewed weekly\n\n" + text)
    code, out, err = run(
        capsys, "validate", "catalog.yaml", "--baseline", "base.json", "--fail-on", "warning"
    )
    assert (code, out) == (0, ""), err
    # a renamed write tool is one new finding, and one baseline entry is gone
    renamed = text.replace("- name: createCoreV1Namespace\n", "- name: createNamespace\n", 1)
    assert renamed != text
    catalog.write_text(renamed, encoding="utf-8")
    code, out, err = run(
        capsys, "validate", "catalog.yaml", "--baseline", "base.json", "--fail-on", "warning"
    )
    assert code == 1
    assert [line.split()[2] for line in out.splitlines()] == ["TC104"]
    assert "'createNamespace'" in out and "1 baseline entries no longer found" in err
