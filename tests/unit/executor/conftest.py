"""Fixtures of the executor unit tests: the IR factory module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _load_factory() -> ModuleType:
    name = "toolcat_executor_test_factory"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("factory.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def f() -> ModuleType:
    """The factory: ``f.tool(...)``, ``f.p(...)``, ``f.catalog(...)``, ``f.Recorder()``."""
    return _load_factory()
