"""Files import writes: a rename for a regular file, the target itself for anything else."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from toolcat.cli._import_update import write_atomically, write_catalog


def test_a_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "catalog.yaml"
    target.write_text("old\n", encoding="utf-8")
    write_atomically(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["catalog.yaml"]  # no temporary left


def read_fifo_while(target: Path, write: Callable[[], None]) -> str:
    """What ``write`` sends into a FIFO made at ``target``, read by a thread meanwhile."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs os.mkfifo")
    os.mkfifo(target)
    got: list[str] = []
    reader = threading.Thread(
        target=lambda: got.append(target.read_text(encoding="utf-8")), daemon=True
    )
    reader.start()
    write()
    reader.join(timeout=10)
    assert len(got) == 1
    return got[0]


def test_a_fifo_is_written_into_and_stays_a_fifo(tmp_path: Path) -> None:
    """As ``-o /dev/null`` must: a rename would put a regular file where the device was."""
    target = tmp_path / "out"
    assert read_fifo_while(target, lambda: write_atomically(target, "tools: []\n")) == (
        "tools: []\n"
    )
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
    target = tmp_path / "out"
    record = "\n# toolcat-import-record: {}\n"
    got = read_fifo_while(target, lambda: write_catalog(str(target), "tools: []\n", record))
    assert got == "tools: []\n" + record
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
