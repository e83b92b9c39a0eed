"""Batch commands run without the cyclic collector; the others, and the caller, keep it."""

from __future__ import annotations

import argparse
import gc
from collections.abc import Callable
from pathlib import Path

import pytest
from toolcat.cli import _app


def _recording(seen: list[bool], code: int = 0) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        seen.append(gc.isenabled())
        return code

    return run


def test_the_batch_commands_are_commands() -> None:
    names = {n.replace("_", "-") for n in _app._COMMAND_MODULES}
    assert _app._BATCH <= names
    assert {"serve", "chat", "call", "test"}.isdisjoint(_app._BATCH)


def test_a_batch_command_runs_without_the_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolcat.cli import _cmd_catalog_schema

    seen: list[bool] = []
    monkeypatch.setattr(_cmd_catalog_schema, "run", _recording(seen))
    assert gc.isenabled()
    assert _app.main(["catalog-schema"]) == 0
    assert seen == [False]
    assert gc.isenabled()  # given back to the caller


def test_a_long_running_command_collects(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolcat.cli import _cmd_hash_key

    seen: list[bool] = []
    monkeypatch.setattr(_cmd_hash_key, "run", _recording(seen))
    assert _app.main(["hash-key"]) == 0
    assert seen == [True]
    assert gc.isenabled()


def test_the_collector_comes_back_after_an_error(tmp_path: Path) -> None:
    assert _app.main(["list", str(tmp_path / "missing.yaml")]) == 2
    assert gc.isenabled()


def test_a_caller_without_the_collector_is_left_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolcat.cli import _cmd_hash_key

    seen: list[bool] = []
    monkeypatch.setattr(_cmd_hash_key, "run", _recording(seen))
    gc.disable()
    try:
        assert _app.main(["hash-key"]) == 0
        assert seen == [False]
        assert not gc.isenabled()
    finally:
        gc.enable()
