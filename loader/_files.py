"""Finding and reading catalog files: PATH arguments, directories, OpenAPI sniffing, progress."""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcat._errors import ToolcatError
from toolcat.catalog.common import loads_json

__all__ = [
    "MAX_FILE_BYTES",
    "CatalogInputError",
    "FileReadError",
    "Progress",
    "SourceFile",
    "duplicate_finder",
    "find_files",
    "loads_json_document",
    "looks_like_spec",
    "read_regular_file",
    "sniff_json_spec",
    "sniff_spec",
]

# The one cap on a file the loader reads (a catalog file, a spec, a file a $ref
# names). Specs take theirs from ImportOptions.max_spec_bytes (`--max-spec-mb`,
# `max_spec_mb:` on an `openapi:` entry), whose default is this constant.
MAX_FILE_BYTES = 64 * 1024 * 1024

_SUFFIXES = (".yaml", ".yml")
# Matched at the start of a line that holds the key's word (found with str.find,
# so a 10 MB file is not scanned by a regular expression line by line).
# A document may be indented as a whole ("---\n  swagger: '2.0'"), hence the [ ]*.
_YAML_SPEC = re.compile(r"[ ]*[\"']?(openapi|swagger)[\"']?\s*:\s*[\"']?\d")
_YAML_CATALOG = re.compile(r"[ ]*[\"']?toolcat[\"']?\s*:")


class CatalogInputError(ToolcatError, OSError):
    """A PATH argument that cannot be read: missing, unreadable, or a directory without catalogs.

    ``str()`` is one line naming the path; the CLI prints it and exits 2.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class FileReadError(ToolcatError, OSError):
    """A file that may not be read: not a regular file, over the size cap, or unreadable.

    ``too_large`` tells the size cap apart from the other reasons (specs report it as TC207).
    """

    def __init__(self, reason: str, *, too_large: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.too_large = too_large

    def __str__(self) -> str:
        return self.reason


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _is_stream(path: str | os.PathLike[str]) -> bool:
    """``/dev/stdin`` or ``/dev/fd/N``: a pipe the caller handed over (``cat c.yaml | toolcat
    validate /dev/stdin``), read up to the cap; a named FIFO on disk is refused."""
    name = os.fspath(path)
    return name == "/dev/stdin" or name.startswith(("/dev/fd/", "/proc/self/fd/"))


def _refuse(mode: int, size: int, max_bytes: int, stream: bool = False) -> None:
    if stream and stat.S_ISFIFO(mode):
        return
    if not stat.S_ISREG(mode):
        raise FileReadError(f"{_kind(mode)}, not a regular file: only regular files are read")
    if size > max_bytes:
        raise FileReadError(
            f"the file is {size:,} bytes, over the limit of {max_bytes:,} bytes", too_large=True
        )


def read_regular_file(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, else :class:`FileReadError`.

    Devices (``/dev/zero``), FIFOs and sockets are refused from ``stat`` before
    the file is opened, so a FIFO without a writer cannot block (a pipe handed
    over as ``/dev/stdin`` or ``/dev/fd/N`` is read, up to the cap); the file is
    opened non-blocking and checked again (it may have been swapped), and never
    more than ``max_bytes + 1`` bytes are read (it may be growing).
    """
    stream = _is_stream(path)
    try:
        info = os.stat(path)
        _refuse(info.st_mode, info.st_size, max_bytes, stream)
        nonblocking = 0 if stream and stat.S_ISFIFO(info.st_mode) else getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, os.O_RDONLY | nonblocking | getattr(os, "O_BINARY", 0))
    except FileReadError:
        raise
    except OSError as exc:
        raise FileReadError(exc.strerror or str(exc)) from exc
    try:
        try:
            info = os.fstat(fd)
            _refuse(info.st_mode, info.st_size, max_bytes, stream)
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = _read_upto(f, max_bytes + 1, info.st_size if not stream else 0)
        except FileReadError:
            raise
        except OSError as exc:
            raise FileReadError(exc.strerror or str(exc)) from exc
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise FileReadError(f"the file is over the limit of {max_bytes:,} bytes", too_large=True)
    return data


def _read_upto(f: Any, limit: int, size: int) -> bytes:
    """At most ``limit`` bytes, read in pieces the size of the file (or 1 MiB).

    ``f.read(limit)`` allocates ``limit`` bytes before it reads one: every
    catalog file briefly cost the whole 64 MiB cap.
    """
    parts: list[bytes] = []
    got = 0
    step = max(min(size + 1, limit), 1) if size else 1 << 20
    while got < limit:
        part = f.read(min(step, limit - got))
        if not part:
            break
        parts.append(part)
        got += len(part)
        step = 1 << 20  # the file grew, or a stream: go on in 1 MiB pieces
    return b"".join(parts)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file to load; ``top`` when it was named on the command line."""

    path: Path
    display: str
    top: bool


def catalog_files_in(directory: Path, exclude: Callable[[Path], bool] | None = None) -> list[Path]:
    """The catalog files a directory PATH reads, sorted: regular ``*.yaml`` and ``*.yml``
    files (any case) below it, none in a hidden folder or hidden itself, none for which
    ``exclude`` is true. What a load reads, and what ``serve --watch`` watches for."""
    return sorted(
        p
        for p in directory.rglob("*")
        if p.suffix.lower() in _SUFFIXES
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(directory).parts)
        and (exclude is None or not exclude(p))
    )


def find_files(
    paths: Sequence[str | os.PathLike[str]], exclude: Callable[[Path], bool] | None = None
) -> list[SourceFile]:
    """The files a list of PATHs names: files as given, directories walked (sorted).

    ``exclude``: files found while walking a directory for which it is true are left out
    (a PATH named itself is always read).
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]  # one PATH given bare, not as a list
    found: list[SourceFile] = []
    seen: set[Path] = set()
    if not paths:
        raise CatalogInputError("(none)", "no catalog path given")
    for raw in paths:
        path = Path(raw)
        display = os.fspath(raw)
        if not display:  # Path("") is the current directory: never what was meant
            raise CatalogInputError("''", "empty path")
        if path.is_dir():
            members = catalog_files_in(path, exclude)
            if not members:
                raise CatalogInputError(display, "directory holds no *.yaml or *.yml catalog files")
            real_dir = path.resolve()
            for member in members:
                key = member.resolve()
                if not key.is_relative_to(real_dir):
                    # a symlink out of the folder: a directory PATH reads only what is in it
                    # (the message names the link, never what it points at or holds)
                    raise CatalogInputError(
                        os.path.join(display, os.fspath(member.relative_to(path))),
                        "a link to a file outside the directory; a directory PATH loads "
                        "only files inside it (name the file itself to load it)",
                    )
                if key not in seen:
                    seen.add(key)
                    found.append(
                        SourceFile(
                            member,
                            os.path.join(display, os.fspath(member.relative_to(path))),
                            top=False,
                        )
                    )
        elif path.exists():
            if not os.access(path, os.R_OK):
                raise CatalogInputError(display, "permission denied")
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                found.append(SourceFile(path, display, top=True))
        else:
            raise CatalogInputError(display, "no such file or directory")
    return found


def _key_line(text: str, words: tuple[str, ...], pattern: re.Pattern[str]) -> bool:
    """Whether ``pattern`` matches at the start of a line that holds one of ``words``."""
    for word in words:
        at = text.find(word)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            if pattern.match(text, start):
                return True
            at = text.find(word, max(at + 1, text.find("\n", at) + 1 or len(text)))
    return False


def duplicate_finder(found: list[str]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """A ``json.loads`` ``object_pairs_hook`` that notes each key written twice in ``found``.

    ``json.loads`` keeps the last value of a duplicate key silently, so a spec
    whose ``paths`` names ``/items`` twice lost an operation without a word.
    """

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        value = dict(items)
        if len(value) != len(items):
            seen: set[str] = set()
            for k, _ in items:
                if k in seen:
                    found.append(k)
                seen.add(k)
        return value

    return pairs


def loads_json_document(data: str | bytes) -> tuple[Any, list[str]]:
    """(the JSON value of ``data``, the keys written twice in one object, in order).

    :func:`~toolcat.catalog.common.loads_json` with :func:`duplicate_finder`, which calls
    Python for every object of the text (a large part of reading a big spec). Most
    documents are first read by orjson (Rust, a core dependency), and proven free of
    duplicate keys by counting colons: outside strings the text has one per key it
    writes, and orjson's compact text of the value one per key the value kept. Inside
    strings both have the same colons, unless the text escapes one (``\\u003a``: that
    text takes the slow path). A key written twice drops a key, and its value's
    colons, from the value, so the counts differ. Where they do, or orjson reads a
    number differently (an integer past 64 bits becomes a float), or refuses the text
    (``NaN``, a lone surrogate, a BOM, UTF-16, nesting past 254 levels), the value comes
    from ``json.loads`` as before, and the duplicates with it.
    """
    fast = _orjson_document(data)
    if fast is not None:
        return fast[0], []
    duplicates: list[str] = []
    return loads_json(data, object_pairs_hook=duplicate_finder(duplicates)), duplicates


def _orjson_document(data: str | bytes) -> tuple[Any] | None:
    """``(value,)`` where orjson reads ``data`` as ``json.loads`` does, with no key twice."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    text = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if b"\\u003" in text and (b"\\u003a" in text or b"\\u003A" in text):
        return None  # an escaped colon inside a string: the counts would not agree
    try:
        value = orjson.loads(text)
        compact = orjson.dumps(value)  # refuses what nests past 254: within loads_json's 256
    except (TypeError, ValueError):  # orjson's errors subclass these
        return None
    if _EXPONENT.search(compact.translate(_DIGITS_TO_0)):
        return None  # a float orjson wrote with an exponent: maybe an integer past 64 bits
    if text.count(b":") != compact.count(b":"):
        return None  # a key written twice (or more): json.loads' hook names it
    return (value,)


# orjson writes 2.0**70 as "1.1805916207174113e+21" and 1e-07 as "1e-7"; with every digit
# made "0" the pattern starts with a literal, which the regex engine finds fast (a UUID's
# "468e-974b" in a string is no match; "1e+5," in one is, and costs only the slow path)
_DIGITS_TO_0 = bytes.maketrans(b"123456789", b"000000000")
_EXPONENT = re.compile(rb"0e[-+]0+[,\]}]")


def sniff_json_spec(raw: bytes, path: Path) -> tuple[bool, Any] | None:
    """:func:`sniff_spec` of a JSON file, decided from its bytes by the fast read (a spec
    is then never decoded to text), or ``None`` where only :func:`sniff_spec` can say."""
    if path.suffix.lower() != ".json" and raw.lstrip()[:1] != b"{":
        return None
    fast = _orjson_document(raw)  # orjson checks the UTF-8 itself
    if fast is None:
        return None
    spec = _is_spec_document(fast[0])
    return spec, fast[0] if spec else None


def _is_spec_document(data: Any) -> bool:
    """Whether parsed JSON is an OpenAPI/Swagger document rather than a catalog."""
    return (
        isinstance(data, dict)
        and ("openapi" in data or "swagger" in data)
        and "toolcat" not in data
    )


def sniff_spec(text: str, path: Path) -> tuple[bool, Any]:
    """(whether a file is an OpenAPI/Swagger document rather than a catalog, the spec parsed).

    A JSON file is parsed once here and recognised by its top-level keys; the
    parsed spec comes back so the importer need not parse it again (``None``
    when the file was recognised without parsing it, as YAML specs are).
    """
    if path.suffix.lower() == ".json" or text.lstrip()[:1] == "{":
        try:
            data, duplicates = loads_json_document(text)
        except ValueError:
            data = None  # not JSON after all: YAML, or broken; look at the lines
        else:
            spec = _is_spec_document(data)
            # a duplicate key: the importer reads the file again and says where
            return spec, data if spec and not duplicates else None
    if _key_line(text, ("openapi", "swagger"), _YAML_SPEC) and not _key_line(
        text, ("toolcat",), _YAML_CATALOG
    ):
        return True, None
    return False, None


def looks_like_spec(text: str, path: Path) -> bool:
    """Whether a file is an OpenAPI/Swagger document rather than a catalog."""
    return sniff_spec(text, path)[0]


class Progress:
    """A one-line counter on stderr, shown only for long loads in an interactive terminal."""

    def __init__(self, total: int, enabled: bool | None) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty() and not os.environ.get("CI")
        self.enabled = enabled and total >= 20
        self.total = total
        self._shown = False

    def step(self, done: int) -> None:
        if self.enabled and (done % 10 == 0 or done == self.total):
            sys.stderr.write(f"\rtoolcat: reading {done}/{self.total} files")
            sys.stderr.flush()
            self._shown = True

    def close(self) -> None:
        if self._shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
