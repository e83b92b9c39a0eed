"""Files import writes: a rename for a regular file, the target itself for anything else."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from toolcat.cli._import_update import write_atomically, write_catalog


def test_a_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "catalog.yaml"
    target.write_text("old\n", encoding="utf-8")
    write_atomically(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["catalog.yaml"]  # no temporary left


def test_a_fifo_is_written_into_and_stays_a_fifo(tmp_path: Path) -> None:
    """As ``-o /dev/null`` must: a rename would put a regular file where the device was."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs os.mkfifo")
    target = tmp_path / "out"
    os.mkfifo(target)
    got: list[str] = []
    reader = threading.Thread(
        target=lambda: got.append(target.read_text(encoding="utf-8")), daemon=True
    )
    reader.start()
    write_atomically(target, "tools: []\n")
    reader.join(timeout=10)
    assert got == ["tools: []\n"]
    assert stat.S_ISFIFO(os.stat(target).st_mode)


def test_an_import_into_a_regular_file_keeps_its_record_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "catalog.yaml"
    write_catalog(str(target), "tools: []\n", "\n# toolcat-import-record: {}\n")
    assert target.read_text(encoding="utf-8") == "tools: []\n"
    record = tmp_path / "catalog.yaml.import-record"
    assert record.read_text(encoding="utf-8") == "# toolcat-import-record: {}\n"


def test_an_import_into_a_fifo_sends_catalog_and_record_as_one_stream(tmp_path: Path) -> None:
    """As ``-o /dev/null`` must: nothing is left beside the device (no ``null.import-record``
    in /dev)."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs os.mkfifo")
    target = tmp_path / "out"
    os.mkfifo(target)
    got: list[str] = []
    reader = threading.Thread(
        target=lambda: got.append(target.read_text(encoding="utf-8")), daemon=True
    )
    reader.start()
    write_catalog(str(target), "tools: []\n", "\n# toolcat-import-record: {}\n")
    reader.join(timeout=10)
    assert got == ["tools: []\n\n# toolcat-import-record: {}\n"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
