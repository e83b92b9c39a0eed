"""Layers point one way, the executor core needs only the catalog, private modules stay private.

cli -> executor (core; agent; mcp_server) -> loader -> catalog. ``toolcat.testing`` holds
the demo's fakes: only the cli (``toolcat demo``) may use it, never the runtime.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
import toolcat

REPO = Path(__file__).resolve().parents[2]
NOT_PACKAGE = {
    "tests",
    "benchmarks",
    "examples",
    "specs",
    "docs",
    "schemas",
    "scripts",
    "build",
    "dist",
}

# The toolcat packages each package may import (besides itself and the root's _errors).
ALLOWED: dict[str, set[str]] = {
    "catalog": set(),
    "catalog.common": set(),
    "catalog.diff": set(),
    "catalog.schema": set(),
    "catalog.search": set(),
    "catalog.serving": set(),
    "loader": {"catalog"},
    "executor": {"catalog"},  # the core
    "executor.guards": {"catalog"},  # the core's guards and its HTTP transport
    "executor.http": {"catalog"},
    # the MCP transport: what runs an McpCommand (HTTP upstreams resolve auth as http/ does)
    "executor.mcp": {"catalog", "executor.http"},
    "executor.providers": {"catalog", "executor"},
    "executor.agent": {"catalog", "executor", "executor.providers"},
    "executor.mcp_server": {"catalog", "executor", "executor.mcp", "executor.providers", "loader"},
    "testing": set(),
    "<root>": {"catalog", "loader", "executor", "executor.providers", "executor.agent"}
    | {"executor.mcp_server"},  # the front door, imported lazily
    "cli": {"catalog", "loader", "executor", "executor.providers", "executor.agent"}
    | {"executor.mcp_server", "testing"}
    | {"executor.mcp"},  # import mcp connects with it; test shapes recorded MCP answers
    "cli._codegen": {"catalog", "executor.providers"},  # reads the MCP export, no I/O
}


FRONT_DOOR: dict[str, str] = toolcat._LAZY


def _package_of(file: Path) -> str:
    rel = file.relative_to(REPO).parent
    return ".".join(rel.parts) or "<root>"


def _source_files() -> list[Path]:
    return [
        f
        for f in sorted(REPO.rglob("*.py"))
        if f.relative_to(REPO).parts[0] not in NOT_PACKAGE
        and not f.relative_to(REPO).parts[0].startswith(".")
    ]


def _imports(file: Path) -> list[tuple[int, str]]:
    """Absolute ``toolcat.*`` module names imported by ``file`` (relative ones resolved)."""
    package = ["toolcat", *file.relative_to(REPO).parent.parts]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(file.read_text(), str(file))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            if name == "toolcat":  # the front door: check the module each name comes from
                found += [
                    (node.lineno, FRONT_DOOR[a.name]) for a in node.names if a.name in FRONT_DOOR
                ]
            # `from toolcat.x import _private` names a private module too
            found += [(node.lineno, f"{name}.{a.name}") for a in node.names if _private(a.name)]
    return [(line, n) for line, n in found if n == "toolcat" or n.startswith("toolcat.")]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _owner(module: str) -> str:
    """The package a ``toolcat.*`` module belongs to, e.g. ``executor.agent``."""
    parts = module.split(".")[1:]
    public = [p for p in parts if not _private(p)]
    while public and not (REPO.joinpath(*public) / "__init__.py").is_file():
        public.pop()
    return ".".join(public) or "<root>"


def test_the_table_names_every_package() -> None:
    packages = {_package_of(f) for f in _source_files()}
    assert packages == set(ALLOWED) | {"loader.openapi", "loader.mcp"}


@pytest.mark.parametrize("file", _source_files(), ids=lambda f: str(f.relative_to(REPO)))
def test_imports_follow_the_layers_and_stay_public(file: Path) -> None:
    mine = _package_of(file)
    # the loader's rooms (openapi, mcp) are the loader: they share its internals
    layer = mine = "loader" if mine in ("loader.openapi", "loader.mcp") else mine
    problems = []
    for line, module in _imports(file):
        owner = _owner(module)
        if owner == "<root>" and module != "toolcat":
            continue  # the root's own modules (_errors, _lazy) serve every package below it
        inside = owner == mine or owner.startswith(f"{mine}.") or mine.startswith(f"{owner}.")
        # a subpackage of the catalog or the loader is in its layer (catalog.schema: catalog)
        target = owner.split(".")[0] if owner.startswith(("catalog.", "loader.")) else owner
        if not inside and owner != "<root>" and target not in ALLOWED[layer]:
            problems.append(f"line {line}: {mine} may not import {module}")
        if any(_private(p) for p in module.split(".")[1:]) and not inside:
            problems.append(f"line {line}: {module} is private to toolcat.{owner}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "banned"),
    [
        ("toolcat.executor", ["pydantic", "yaml", "toolcat.loader", "toolcat.testing", "mcp"]),
        ("toolcat.catalog", ["pydantic", "yaml", "httpx", "toolcat.loader", "toolcat.executor"]),
        ("toolcat", ["toolcat.loader", "toolcat.executor", "toolcat.catalog", "pydantic"]),
    ],
)
def test_importing_a_layer_loads_nothing_above_it(module: str, banned: list[str]) -> None:
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    leaked = sorted(m for m in loaded for b in banned if m == b or m.startswith(f"{b}."))
    assert not leaked, f"import {module} loaded {leaked}"
