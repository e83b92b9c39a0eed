"""The disk cache of semantic search: one file per tool vector, keyed by a content hash."""

from __future__ import annotations

import hashlib
import math
import os
import stat
import struct
import threading
from collections.abc import Sequence
from pathlib import Path

from ._embeddings import MAX_DIMENSIONS

__all__ = ["MAX_CACHE_BYTES", "VectorCache", "default_cache_dir"]

#: The largest on-disk vector cache; over it, the oldest files go until it is at 3/4.
MAX_CACHE_BYTES = 256 * 1024 * 1024

_MAGIC = b"TCVEC1\n"
_HEADER = struct.Struct("<I")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/toolcat/embeddings``, else ``~/.cache/toolcat/embeddings``."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "toolcat" / "embeddings"


class VectorCache:
    """Tool vectors on disk, one file per content hash: ``DIR/ab/abcdef....vec``.

    The directory is created 0700 and files 0600, written to a temporary name
    and renamed (readers never see half a file). A file that is not a regular
    file, is too large, or does not hold a well-formed vector of the expected
    size is ignored (and replaced when the vector is fetched again). A directory
    that others may write to is not used (``problem`` says so).
    """

    def __init__(self, directory: Path, max_bytes: int = MAX_CACHE_BYTES) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.problem: str | None = None
        self._pruned = False
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = directory.lstat()
            if not stat.S_ISDIR(info.st_mode):
                self.problem = "the embeddings cache is not a directory"
            elif info.st_mode & 0o022:
                self.problem = "the embeddings cache directory is writable by others; not used"
            elif hasattr(os, "getuid") and info.st_uid != os.getuid():
                self.problem = "the embeddings cache directory belongs to another user; not used"
        except OSError as exc:
            self.problem = f"the embeddings cache cannot be used: {exc.strerror or exc}"

    @staticmethod
    def key(model: str, dimensions: int | None, text: str) -> str:
        blob = f"{model}\x00{dimensions or ''}\x00{text}".encode("utf-8", "surrogatepass")
        return hashlib.sha256(blob).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.vec"

    def get(self, key: str, dimensions: int | None) -> list[float] | None:
        if self.problem:
            return None
        path = self._path(key)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            limit = len(_MAGIC) + _HEADER.size + 4 * MAX_DIMENSIONS
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                return None
            raw = os.read(fd, limit + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        return _decode(raw, dimensions)

    def put(self, key: str, vector: Sequence[float]) -> None:
        if self.problem:
            return
        path = self._path(key)
        data = _MAGIC + _HEADER.pack(len(vector)) + struct.pack(f"<{len(vector)}f", *vector)
        tmp = path.with_name(f".{key}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except OSError:
            try:
                tmp.unlink()
            except OSError:
                pass

    def prune(self) -> None:
        """Over ``max_bytes``: delete the least recently written files down to 3/4 of it."""
        if self.problem or self._pruned:
            return
        self._pruned = True
        files: list[tuple[float, int, str]] = []
        total = 0
        try:
            for shard in os.scandir(self.directory):
                if not shard.is_dir(follow_symlinks=False):
                    continue
                for entry in os.scandir(shard.path):
                    if entry.is_file(follow_symlinks=False) and entry.name.endswith(".vec"):
                        info = entry.stat(follow_symlinks=False)
                        files.append((info.st_mtime, info.st_size, entry.path))
                        total += info.st_size
        except OSError:
            return
        if total <= self.max_bytes:
            return
        for _, size, name in sorted(files):
            if total <= self.max_bytes * 3 // 4:
                break
            try:
                os.unlink(name)
                total -= size
            except OSError:
                pass


def _decode(raw: bytes, dimensions: int | None) -> list[float] | None:
    head = len(_MAGIC) + _HEADER.size
    if len(raw) < head or not raw.startswith(_MAGIC):
        return None
    (dims,) = _HEADER.unpack_from(raw, len(_MAGIC))
    if not 0 < dims <= MAX_DIMENSIONS or len(raw) != head + 4 * dims:
        return None
    if dimensions is not None and dims != dimensions:
        return None
    vec = list(struct.unpack_from(f"<{dims}f", raw, head))
    norm = math.sqrt(math.fsum(x * x for x in vec))
    if not math.isfinite(norm) or abs(norm - 1.0) > 1e-3:
        return None
    return vec
