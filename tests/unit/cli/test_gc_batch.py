"""Batch commands run without the cyclic collector; the others, and the caller, keep it."""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolcat.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_batch_command_leaves_fast_with_all_its_output(tmp_path: Path) -> None:
    """Leaving without the teardown loses nothing: a large output arrives whole, with the
    exit code, on both streams (the output is far larger than a pipe's buffer)."""
    tools = "".join(
        f"  - name: tool_{i}\n    description: {'d' * 400}\n    service: s\n"
        f"    method: GET\n    path: /t/{i}\n"
        for i in range(300)
    )
    catalog = tmp_path / "many.yaml"
    catalog.write_text(
        f"toolcat: 1\nservices:\n  s:\n    base_url: https://api.example.com\ntools:\n{tools}"
    )
    done = _run("schema", str(catalog), "--provider", "openai")
    assert done.returncode == 0, done.stderr
    exported = json.loads(done.stdout)
    assert [t["function"]["name"] for t in exported] == [f"tool_{i}" for i in range(300)]
    assert "300 tools" in done.stderr  # the warning written after the output
    failed = _run("list", str(tmp_path / "missing.yaml"))
    assert failed.returncode == 2
    assert failed.stderr.startswith("toolcat: ") and failed.stdout == ""


def test_serve_starts_without_the_collector_and_serves_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """serve's start-up (the SDK's import, the load, the tool list) runs with the collector
    off; the server itself runs with it on, with what start-up built frozen out of its
    reach, and main() gives those objects back to the caller when it returns."""
    import anyio

    states: dict[str, bool] = {}
    from toolcat.executor.mcp_server import McpServer

    real_load = McpServer.load

    def load(self: McpServer, *args: Any) -> object:
        states["loading"] = gc.isenabled()
        return real_load(self, *args)

    def run(func: object, *args: object) -> None:
        states["serving"] = gc.isenabled()
        states["frozen"] = gc.get_freeze_count() > 0

    monkeypatch.setattr(McpServer, "load", load)
    monkeypatch.setattr(anyio, "run", run)
    demo = Path(__file__).resolve().parents[3] / "examples" / "demo"
    assert _app.main(["serve", str(demo)]) == 0
    assert states == {"loading": False, "serving": True, "frozen": True}
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
