"""Shared by the CLI input-cap tests: a FIFO nobody writes to, and the one-line refusal."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs os.mkfifo")
    path = tmp_path / "input.yaml"
    os.mkfifo(path)
    writer = os.open(path, os.O_RDWR)  # a writer that never writes: a read would block forever
    try:
        yield path
    finally:
        os.close(writer)


def one_line_refusal(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2 with one line on stderr holding every one of ``words``, and no traceback."""
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert "Traceback" not in done.stderr
