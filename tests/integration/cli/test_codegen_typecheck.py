"""The packages `toolcat codegen` writes pass `mypy --strict` and `tsc --strict`.

Catalogs: the demo, the tricky names and schemas of the unit tests, and GitHub's and
Stripe's specs from the shared corpus (skipped when it is absent). tsc comes from npm:
TSC, else .ci/node (where .ci/run installs it beside @modelcontextprotocol/sdk); the
TypeScript tests skip when neither is there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from toolcat.catalog import Catalog
from toolcat.cli._codegen import generate
from toolcat.loader import load_catalog
from toolcat.tests.unit.cli.test_codegen import tricky_catalog

REPO = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("TOOLCAT_CORPUS", REPO.parent / "shared" / "corpus"))
NODE_MODULES = REPO / ".ci" / "node" / "node_modules"
TSC = os.environ.get("TSC") or shutil.which("tsc", path=str(NODE_MODULES / ".bin"))
SDK = NODE_MODULES / "@modelcontextprotocol" / "sdk"
CATALOGS = {
    "demo": "examples/demo/catalog.yaml",
    "tricky": "",
    "github": "corpus/github-api.github.com.json",
    "stripe": "corpus/stripe-spec3.json",
}


def catalog(key: str) -> Catalog:
    where = CATALOGS[key]
    if not where:
        return tricky_catalog()
    path = CORPUS / where.removeprefix("corpus/") if where.startswith("corpus/") else REPO / where
    if not path.is_file():
        pytest.skip(f"{path.name} not found under {CORPUS} (set TOOLCAT_CORPUS to run this)")
    result = load_catalog([str(path)])
    assert result.catalog is not None
    return result.catalog


def write(files: dict[str, str], out: Path) -> None:
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, "utf-8")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", list(CATALOGS))
def test_the_python_package_passes_mypy_strict(key: str, tmp_path: Path) -> None:
    write(generate(catalog(key), "python", "api"), tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "api"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


@pytest.mark.skipif(
    not TSC or not SDK.is_dir(),
    reason="tsc and @modelcontextprotocol/sdk are not installed (.ci/run installs them "
    "into .ci/node; or set TSC)",
)
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", list(CATALOGS))
def test_the_typescript_package_passes_tsc_strict(key: str, tmp_path: Path) -> None:
    assert TSC is not None
    write(generate(catalog(key), "typescript", "toolcat-api"), tmp_path)
    (tmp_path / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    done = subprocess.run(
        [TSC, "-p", str(tmp_path), "--noEmit"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
