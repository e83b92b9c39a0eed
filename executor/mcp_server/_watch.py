"""What ``--watch`` compares against: the watched files as they were just before a load.

The snapshot is taken *before* the catalog is read, so an edit that lands while
a load runs differs from it and is picked up by the next poll. Each file is
seen through its inode, size, mtime and ctime; a file whose mtime is too recent
to trust (another write within the same timestamp tick would leave all four
unchanged) is also seen through a hash of its content until a poll finds it
settled. ``stamps`` is what the watcher compares while it waits for a write to
settle before it loads (with a content hash of each recently written file), and
``open_for_writing`` says which watched files a process still holds open to write.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FileSnapshot", "open_for_writing", "stamps", "unchanged", "watched_names"]

# Longer than any filesystem's timestamp granularity (FAT: 2 s), with a margin.
RACY_NS = 3_000_000_000

_Stamp = tuple[int, int, int, int]  # inode, size, mtime_ns, ctime_ns


@dataclass(frozen=True, slots=True)
class _Seen:
    stamp: _Stamp | None  # None: no such file (or it cannot be stat'ed)
    digest: bytes | None = None  # the content's hash, while the mtime is too recent to trust


def _stamp(name: str) -> _Stamp | None:
    try:
        st = os.stat(name)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _digest(name: str) -> bytes | None:
    """A hash of the file, read through the loader's reader: a regular file under the size
    cap (a FIFO or a device put in a watched folder never blocks or floods the watcher)."""
    from toolcat.loader import FileReadError, read_regular_file

    try:
        data = read_regular_file(name)
    except FileReadError:
        return None  # the load that follows reports it, located
    return hashlib.blake2b(data, digest_size=16).digest()


def stamps(names: Iterable[str]) -> dict[str, _Seen]:
    """Each file's inode, size, mtime and ctime now (``None``: not there), with a hash of
    its content while the mtime is too recent to trust: what settling compares, two
    readings a settle interval apart."""
    now_ns = time.time_ns()
    readings = {}
    for name in names:
        stamp = _stamp(name)
        readings[name] = _Seen(stamp, _digest(name) if _recent(stamp, now_ns) else None)
    return readings


def unchanged(before: dict[str, _Seen], after: dict[str, _Seen]) -> bool:
    """Whether two readings of ``stamps`` show the same files: the same names and stat,
    and the same content where both readings hashed it (a file whose mtime grew old
    between the two is hashed only in the first)."""
    if before.keys() != after.keys():
        return False
    for name, seen in before.items():
        now = after[name]
        if seen.stamp != now.stamp:
            return False
        if seen.digest is not None and now.digest is not None and seen.digest != now.digest:
            return False
    return True


def open_for_writing(names: Iterable[str]) -> dict[str, int]:
    """The watched files that a process holds open for writing, each with one such pid.

    Linux only (elsewhere: none found): each process's open files are read from
    /proc/PID/fd, so only processes this one may inspect count (its own user's, or
    every one when run as root; not another container's or another host's). It reads
    every process's descriptors, so the watcher asks only when a change has settled.
    """
    wanted = {os.path.realpath(name): name for name in names}
    found: dict[str, int] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return found
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:  # gone, or not ours to inspect
            continue
        for fd in fds:
            try:
                name = wanted.get(os.readlink(f"/proc/{pid}/fd/{fd}"))
                if name is not None and name not in found and _writable(pid, fd):
                    found[name] = pid
            except OSError:
                continue
    return found


def _writable(pid: int, fd: str) -> bool:
    """Whether descriptor ``fd`` of ``pid`` was opened to write (its fdinfo's flags)."""
    with open(f"/proc/{pid}/fdinfo/{fd}") as f:
        for line in f:
            if line.startswith("flags:"):
                return (int(line.split()[1], 8) & os.O_ACCMODE) in (os.O_WRONLY, os.O_RDWR)
    return False


def watched_names(
    paths: Iterable[str], files: Iterable[str] = (), missing: Iterable[str] = ()
) -> set[str]:
    """What a server watches: the files its last load read (``files``, specs included),
    the specs it named that were not there (``missing``), and the PATHs, a directory
    as the catalog files a load of it reads now (so a new one counts)."""
    from toolcat.loader import catalog_files_in

    names = set(files) | set(missing)
    for p in paths:
        if os.path.isdir(p):
            names.update(str(f) for f in catalog_files_in(Path(p)))
        else:
            names.add(p)
    return names


def _recent(stamp: _Stamp | None, now_ns: int) -> bool:
    return stamp is not None and now_ns - stamp[2] < RACY_NS


class FileSnapshot:
    """The state of ``names`` now; ``changed`` says whether they differ from it later."""

    def __init__(self, names: Iterable[str]) -> None:
        self.taken_ns = time.time_ns()
        # True when a file may have changed while a load read it: the next poll reloads.
        self.unsettled = False
        self._seen: dict[str, _Seen] = {}
        for name in names:
            stamp = _stamp(name)
            digest = _digest(name) if _recent(stamp, self.taken_ns) else None
            self._seen[name] = _Seen(stamp, digest)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._seen)

    def add_loaded(self, names: Iterable[str]) -> None:
        """Files that a load named and this snapshot (taken before that load) did not know.

        They are seen as they are now. When one was written from shortly before
        the snapshot on, it may have changed after the load read it, so the
        snapshot is marked unsettled and the next poll loads once more.
        """
        for name in names:
            if name in self._seen:
                continue
            stamp = _stamp(name)
            if stamp is not None and stamp[2] >= self.taken_ns - RACY_NS:
                self.unsettled = True
            self._seen[name] = _Seen(stamp)

    def changed(self, names: Iterable[str]) -> bool:
        """Whether ``names`` (the files watched now) differ from the snapshot.

        A file added to or gone from the watched set counts as a change. A
        hashed file whose content still matches and whose mtime is now old
        enough is settled: from then on any write changes its stat.
        """
        if self.unsettled:
            return True
        if set(names) != self._seen.keys():
            return True
        now_ns = time.time_ns()
        for name, seen in self._seen.items():
            stamp = _stamp(name)
            if stamp != seen.stamp:
                return True
            if seen.digest is None:
                continue
            if _digest(name) != seen.digest:
                return True
            if not _recent(stamp, now_ns):
                self._seen[name] = _Seen(stamp)
        return False
