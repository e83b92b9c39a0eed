"""The --watch snapshot: stat first, content while the mtime is too recent to trust."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from toolcat.executor.mcp_server import _watch
from toolcat.executor.mcp_server._watch import FileSnapshot


def old(path: Path) -> str:
    then = time.time() - 3600
    os.utime(path, (then, then))
    return str(path)


def test_a_same_size_edit_within_one_timestamp_tick_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("version: 1\n")
    frozen = _watch._stamp(str(path))
    monkeypatch.setattr(_watch, "_stamp", lambda name: frozen)  # a coarse clock: nothing moved
    snap = FileSnapshot([str(path)])
    assert not snap.changed([str(path)])
    path.write_text("version: 2\n")
    assert snap.changed([str(path)])


def test_a_settled_file_is_seen_through_its_stat_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("version: 1\n")
    snap = FileSnapshot([str(path)])
    assert snap._seen[str(path)].digest is not None  # just written: hashed
    monkeypatch.setattr(_watch, "RACY_NS", 0)  # time has passed
    assert not snap.changed([str(path)])
    assert snap._seen[str(path)].digest is None  # no more hashing on every poll
    assert not snap.changed([str(path)])
    path.write_text("version: 22\n")
    assert snap.changed([str(path)])


def test_old_files_are_not_hashed_and_added_or_removed_files_count(tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("a: 1\n")
    b.write_text("b: 1\n")
    snap = FileSnapshot([old(a)])
    assert snap._seen[str(a)].digest is None
    assert not snap.changed([str(a)])
    assert snap.changed([str(a), str(b)])
    assert snap.changed([])
    a.unlink()
    assert snap.changed([str(a)])


def test_a_missing_file_that_appears_is_a_change(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    snap = FileSnapshot([str(spec)])
    assert not snap.changed([str(spec)])
    spec.write_text("openapi: 3.1.0\n")
    assert snap.changed([str(spec)])


def test_a_file_a_load_names_that_was_just_written_reloads_once_more(tmp_path: Path) -> None:
    fresh, settled = tmp_path / "fresh.yaml", tmp_path / "settled.yaml"
    settled.write_text("x: 1\n")
    old(settled)
    snap = FileSnapshot([])
    snap.add_loaded([str(settled)])
    assert not snap.unsettled and not snap.changed([str(settled)])
    fresh.write_text("x: 1\n")  # it may have changed after the load read it
    snap.add_loaded([str(fresh)])
    assert snap.unsettled and snap.changed([str(settled), str(fresh)])


def test_a_directory_is_watched_for_the_files_a_load_of_it_reads(tmp_path: Path) -> None:
    """One rule (the loader's catalog_files_in): a new B.YAML is a catalog file the next
    load reads, so it is watched; a hidden folder's YAML or a text file is not."""
    from toolcat.loader import load_catalog

    for name in ("a.yaml", "sub/B.YAML", ".git/x.yaml", ".hidden.yml", "notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("toolcat: 1\n")
    watched = _watch.watched_names([str(tmp_path)])
    assert watched == {str(tmp_path / "a.yaml"), str(tmp_path / "sub" / "B.YAML")}
    loaded = load_catalog([tmp_path], progress=False).files
    assert sorted(loaded) == sorted(watched)


def test_settle_readings_hash_a_recent_file_only(tmp_path: Path) -> None:
    """Two readings of a file written moments ago compare its content too (a same-size
    rewrite within one timestamp tick leaves its stat alone); an old file is seen by its
    stat, so settling never rereads a large spec that did not change."""
    recent, old = tmp_path / "recent.yaml", tmp_path / "old.yaml"
    recent.write_text("a: 1\n")
    old.write_text("a: 1\n")
    os.utime(old, (1_000_000_000, 1_000_000_000))
    readings = _watch.stamps([str(recent), str(old)])
    assert readings[str(recent)].digest is not None
    assert readings[str(old)].digest is None
    recent.write_text("a: 2\n")
    assert _watch.stamps([str(recent)])[str(recent)] != readings[str(recent)]


def test_a_file_that_grows_old_between_two_readings_is_unchanged(tmp_path: Path) -> None:
    """The first reading hashed it (recent), the second did not (old by then): the same
    stat is the same file, so a broken edit is still reported, not retried forever."""
    path = tmp_path / "catalog.yaml"
    path.write_text("a: 1\n")
    first = _watch.stamps([str(path)])
    mtime = path.stat().st_mtime_ns
    os.utime(path, ns=(mtime, mtime))  # the same mtime: ctime moves
    second = _watch.stamps([str(path)])
    assert not _watch.unchanged(first, second)  # ctime moved: a change
    later = {str(path): _watch._Seen(second[str(path)].stamp)}  # the same, unhashed
    assert _watch.unchanged(second, later) and _watch.unchanged(later, second)
    assert not _watch.unchanged(second, {})
