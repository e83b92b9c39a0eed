"""A command's output arrives whole through a pipe, with its exit code and its warnings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolcat.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_large_export_arrives_whole_on_both_streams(tmp_path: Path) -> None:
    """The output is far larger than a pipe's buffer; the warning is written after it."""
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
