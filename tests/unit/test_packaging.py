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
