"""docs/design.md's tree names every module of the package, and only modules that exist.

The rule the tree follows (docs/design.md says it too): a module is named by its file name
(``name.py``), anywhere on a line below the folder it sits in and indented under it; a line
whose first word ends in ``/`` is a folder, and stands for the folder's ``__init__.py``.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DESIGN = REPO / "docs" / "design.md"
HEADING = "### The tree, module by module"
MODULE = re.compile(r"\b\w+\.py\b")


def tree_text() -> str:
    """The first fenced block after the tree's heading."""
    text = DESIGN.read_text(encoding="utf-8")
    after = text[text.index(HEADING) :]
    return after.split("```\n", 2)[1]


def read_tree(text: str) -> tuple[list[str], list[str]]:
    """The modules (``catalog/_model.py``) and folders (``catalog``) a tree names."""
    modules: list[str] = []
    folders: list[str] = []
    open_folders: list[tuple[int, str]] = []  # (indent, path) from the root down
    for line in text.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        # A line less indented than a folder's line is no longer inside that folder.
        while open_folders and open_folders[-1][0] >= indent:
            open_folders.pop()
        first = line.split()[0]
        if first.endswith("/"):
            parent = open_folders[-1][1] + "/" if open_folders else ""
            open_folders.append((indent, parent + first.rstrip("/")))
            folders.append(open_folders[-1][1])
        where = open_folders[-1][1] + "/" if open_folders else ""
        modules += [where + name for name in MODULE.findall(line)]
    return modules, folders


def package_folders() -> list[str]:
    """Every folder of the wheel (pyproject's packages), and tests/support."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    packages: list[str] = config["tool"]["setuptools"]["packages"]
    folders = ["/".join(name.split(".")[1:]) for name in packages]
    return [*folders, "tests/support"]


def modules_on_disk() -> set[str]:
    """The modules the tree must name: a folder's ``__init__.py`` is its folder line."""
    found = set()
    for folder in package_folders():
        for file in (REPO / folder).glob("*.py"):
            rel = file.relative_to(REPO).as_posix()
            if folder and file.name == "__init__.py":
                continue
            found.add(rel)
    return found


def test_every_module_is_in_the_tree() -> None:
    named, _ = read_tree(tree_text())
    missing = sorted(modules_on_disk() - set(named))
    assert missing == [], f"docs/design.md's tree misses {missing}: add a line for each"


def test_the_tree_names_only_modules_that_exist() -> None:
    named, _ = read_tree(tree_text())
    unknown = sorted(set(named) - modules_on_disk())
    assert unknown == [], f"docs/design.md's tree names modules that do not exist: {unknown}"


def test_each_module_is_named_once() -> None:
    named, _ = read_tree(tree_text())
    twice = sorted(name for name, count in Counter(named).items() if count > 1)
    assert twice == []


def test_every_package_folder_has_its_line() -> None:
    _, folders = read_tree(tree_text())
    missing = sorted(set(package_folders()) - {"", *folders})
    assert missing == [], f"docs/design.md's tree has no line for the folders {missing}"


def test_the_tree_names_only_folders_that_exist() -> None:
    _, folders = read_tree(tree_text())
    assert [folder for folder in folders if not (REPO / folder).is_dir()] == []


@pytest.mark.parametrize(
    ("tree", "modules", "folders"),
    [
        ("a.py   the root's module", ["a.py"], []),
        ("pkg/   a folder\n  _b.py  in it", ["pkg/_b.py"], ["pkg"]),
        ("pkg/\n  _b.py _c.py   two on one line", ["pkg/_b.py", "pkg/_c.py"], ["pkg"]),
        ("pkg/   a folder whose text\n         names _d.py", ["pkg/_d.py"], ["pkg"]),
        (
            "pkg/\n  sub/\n    _e.py\n  _f.py\nz.py",
            ["pkg/sub/_e.py", "pkg/_f.py", "z.py"],
            ["pkg", "pkg/sub"],
        ),
        ("pkg/\n  _g.py   a module whose text\n          names no folder/", ["pkg/_g.py"], ["pkg"]),
    ],
)
def test_the_rule(tree: str, modules: list[str], folders: list[str]) -> None:
    assert read_tree(tree) == (modules, folders)
