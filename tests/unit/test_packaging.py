"""Guards for the folder-to-namespace mapping of pyproject.toml."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOT_PACKAGES = {"tests", "benchmarks", "examples", "specs", "docs", "build", "dist"}


def _declared() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    packages: list[str] = config["tool"]["setuptools"]["packages"]
    return packages


def test_every_package_folder_is_listed() -> None:
    found = {"toolcat"}
    for init in REPO.rglob("__init__.py"):
        rel = init.parent.relative_to(REPO)
        if not rel.parts or rel.parts[0] in NOT_PACKAGES or rel.parts[0].startswith("."):
            continue
        found.add(".".join(("toolcat", *rel.parts)))
    assert sorted(found) == sorted(_declared())


def test_every_listed_package_imports() -> None:
    for name in _declared():
        assert importlib.import_module(name).__name__ == name


def test_py_typed_is_shipped() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["toolcat"]
    assert (REPO / "py.typed").is_file()


def test_the_version_has_one_source() -> None:
    import importlib.metadata

    import toolcat

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in config["project"]
    assert config["project"]["dynamic"] == ["version"]
    assert importlib.metadata.version("toolcat") == toolcat.__version__


def _declared_distributions() -> set[str]:
    import re

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    specs = list(config["dependencies"])
    for extra in config["optional-dependencies"].values():
        specs += extra
    return {re.split(r"[<>=!~\[; ]", s, maxsplit=1)[0].lower().replace("_", "-") for s in specs}


def test_every_runtime_import_is_a_declared_dependency() -> None:
    import ast
    import importlib.metadata
    import sys

    distributions = importlib.metadata.packages_distributions()
    declared = _declared_distributions()
    missing = []
    for file in sorted(REPO.rglob("*.py")):
        rel = file.relative_to(REPO)
        if rel.parts[0] in NOT_PACKAGES or rel.parts[0] == "schemas" or rel.parts[0][0] == ".":
            continue
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("toolcat", "__future__"):
                    continue
                owners = {d.lower().replace("_", "-") for d in distributions.get(top, [])}
                if not owners & declared:
                    missing.append(f"{rel}:{node.lineno}: {name} ({', '.join(owners) or '?'})")
    assert not missing, "imports no dependency declares:\n" + "\n".join(missing)
