"""The examples in the package's docstrings are run: an example that no longer reads
what the code returns misleads whoever copies it."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest
import toolcat

# not the package's code (the repository root is the package) or not importable alone
_OUTSIDE = ("toolcat.tests", "toolcat.benchmarks", "toolcat.scripts", "toolcat.examples")


def _modules() -> list[str]:
    return sorted(
        m.name
        for m in pkgutil.walk_packages(toolcat.__path__, "toolcat.", onerror=lambda _: None)
        if not m.name.startswith(_OUTSIDE) and not m.name.endswith("__main__")
    )


def _with_examples() -> list[str]:
    found = []
    finder = doctest.DocTestFinder()
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra that is not installed
            continue
        if any(test.examples for test in finder.find(module)):
            found.append(name)
    return found


MODULES = _with_examples()


def test_the_package_has_examples() -> None:
    assert len(MODULES) >= 20, MODULES  # 27 modules had examples when this test was written


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples fail in {name}"
