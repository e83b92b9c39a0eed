"""The packages `toolcat codegen` writes pass `mypy --strict` and `tsc --strict`.

Catalogs: the demo, the tricky names and schemas of the unit tests, a catalog of an
upstream MCP server's tools, and GitHub's and Stripe's specs from the shared corpus
(skipped when it is absent). tsc comes from npm: TSC, else .ci/node (where .ci/run
installs it beside @modelcontextprotocol/sdk); the TypeScript tests skip without it.
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
    "mcp-servers": "",
    "github": "corpus/github-api.github.com.json",
    "stripe": "corpus/stripe-spec3.json",
}


MCP_CATALOG = """toolcat: 1
mcp_servers:
  memory:
    command: [npx, -y, "@modelcontextprotocol/server-memory"]
tools:
  - name: create_entities
    description: Create entities in the knowledge graph.
    mcp: {server: memory, tool: create_entities, pin: "sha256:PIN"}
    parameters:
      entities:
        description: The entities to create.
        type: array
        items:
          type: object
          properties:
            name: {type: string}
            entityType: {type: string}
            observations: {type: array, items: {type: string}}
          required: [name, entityType, observations]
  - name: read-graph
    description: Read the whole knowledge graph.
    mcp: {server: memory, tool: read_graph, pin: "sha256:PIN"}
""".replace("PIN", "0" * 64)


def catalog(key: str, tmp_path: Path) -> Catalog:
    where = CATALOGS[key]
    if key == "tricky":
        return tricky_catalog()
    if key == "mcp-servers":  # tools of an upstream MCP server: a module named after it
        (tmp_path / "mcp.yaml").write_text(MCP_CATALOG)
        loaded = load_catalog([str(tmp_path / "mcp.yaml")]).catalog
        assert loaded is not None and len(loaded) == 2
        return loaded
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
    files = generate(catalog(key, tmp_path), "python", "api")
    if key == "mcp-servers":
        assert "api/memory.py" in files
    write(files, tmp_path)
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
    write(generate(catalog(key, tmp_path), "typescript", "toolcat-api"), tmp_path)
    (tmp_path / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    done = subprocess.run(
        [TSC, "-p", str(tmp_path), "--noEmit"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
