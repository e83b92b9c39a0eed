"""The repository's settings for `toolcat validate`: ``toolcat.toml`` or ``[tool.toolcat]``.

Found from the working directory upward to the repository root (the first folder
holding ``.git``): in each folder ``toolcat.toml`` wins, else a ``pyproject.toml``
with a ``[tool.toolcat]`` table. A file that is not valid TOML, or holds an unknown
key or a wrong value, is one line naming ``file:line`` (exit 2).

```toml
roots = ["teams/*/catalog", "platform"]   # each one a separate catalog
exclude = ["deploy/**", "*.schema.yaml"]  # globs, relative to this file's folder
fail_on = "warning"                       # the default --fail-on (error | warning)
ignore = ["TC110"]                        # codes never reported
max_annotations = 50                      # --format github
baseline = "toolcat-baseline.json"        # the default --baseline

[severity]
TC103 = "error"                           # error | warning | info | off
```
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._app import CliError

__all__ = ["Config", "compile_globs", "find_config", "load_config", "read_config"]

_KEYS = ("baseline", "exclude", "fail_on", "ignore", "max_annotations", "roots", "severity")
FAIL_ON = ("error", "warning")
SEVERITIES = ("error", "warning", "info", "off")
_CODE = re.compile(r"^TC\d{3}$")


@dataclass(frozen=True)
class Config:
    """The settings; ``path`` is the file they came from (``None``: no file, the defaults)."""

    path: Path | None = None
    roots: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    ignore: frozenset[str] = frozenset()
    severity: Mapping[str, str] = field(default_factory=dict)
    max_annotations: int | None = None
    baseline: str | None = None
    fail_on: str | None = None  # validate's --fail-on when the command line gives none

    @property
    def folder(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def root_dirs(self) -> list[Path]:
        """Each root as a folder (or file); a glob expands to every match, sorted.

        A root (or a match, or what a link points at) outside the repository that holds
        the settings is refused: the settings of a repository read only its own files."""
        found: list[Path] = []
        for root in self.roots:
            if any(ch in root for ch in "*?["):
                matches = sorted(p for p in self.folder.glob(root) if not _hidden(p, self.folder))
                if not matches:
                    raise CliError(f"{self._where('roots')}: root {root!r} matches nothing")
            else:
                matches = [self.folder / root]
                if not matches[0].exists():
                    raise CliError(f"{self._where('roots')}: root {root!r} does not exist")
            repository = _repository(self.folder)
            for path in matches:
                if not path.resolve().is_relative_to(repository):
                    raise CliError(
                        f"{self._where('roots')}: root {root!r} lies outside the repository "
                        f"({_shown(repository)}); roots name folders inside it"
                    )
            found.extend(matches)
        return found

    def _where(self, key: str) -> str:
        if self.path is None:
            return "toolcat"
        return f"{_shown(self.path)}:{_line_of(self.path, key)}"


def _repository(folder: Path) -> Path:
    """The repository holding ``folder``: the nearest folder with ``.git``, else ``folder``."""
    real = folder.resolve()
    return next((here for here in (real, *real.parents) if (here / ".git").exists()), real)


def _hidden(path: Path, base: Path) -> bool:
    try:
        return any(part.startswith(".") for part in path.relative_to(base).parts)
    except ValueError:
        return False


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (ValueError, OSError):
        return str(path)


def _line_of(path: Path, key: str) -> int:
    """The first line of ``path`` that sets ``key`` (or opens table ``key``); 1 if none."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    pattern = re.compile(rf"^\s*(\[\s*)?[\"']?{re.escape(key)}[\"']?\s*(=|\])")
    for number, line in enumerate(lines, 1):
        if pattern.match(line):
            return number
    return 1


def find_config(start: Path | None = None) -> Path | None:
    """The settings file for ``start`` (default: the working directory), or ``None``."""
    import tomllib

    folder = (start or Path.cwd()).resolve()
    for here in (folder, *folder.parents):
        candidate = here / "toolcat.toml"
        if candidate.is_file():
            return candidate
        pyproject = here / "pyproject.toml"
        if pyproject.is_file():
            from toolcat.loader import FileReadError, read_regular_file

            try:
                data = tomllib.loads(read_regular_file(pyproject).decode("utf-8"))
            except (FileReadError, OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                data = {}  # not ours to judge: only a [tool.toolcat] table makes it ours
            if isinstance(data.get("tool"), dict) and "toolcat" in data["tool"]:
                return pyproject
        if (here / ".git").exists():
            return None  # the repository root: settings above it belong to someone else
    return None


def load_config(path: Path | None) -> Config:
    """The settings in ``path`` (``None``: the defaults); a bad file is one line, exit 2."""
    import tomllib

    if path is None:
        return Config()
    from ._inputs import read_user_file

    shown = _shown(path)
    text = read_user_file(str(path), "the toolcat settings")  # a FIFO or a huge file: exit 2
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = (
            f"{shown}:{at.group(1)}:{at.group(2)}" if at else f"{shown}:{text.count(chr(10)) + 1}"
        )
        reason = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(exc))
        raise CliError(f"{where}: not valid TOML: {reason}") from exc
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("toolcat")
        if not isinstance(table, dict):
            raise CliError(
                f"{shown}:{_line_of(path, 'tool.toolcat')}: [tool.toolcat] is not a table"
            )
        data = table
    return read_config(data, path)


def read_config(data: Mapping[str, Any], path: Path | None = None) -> Config:
    """Check the keys and values of a settings table; the first problem is a CliError."""

    def fail(key: str, message: str) -> CliError:
        where = f"{_shown(path)}:{_line_of(path, key)}" if path is not None else "toolcat"
        return CliError(f"{where}: {message}")

    for key in data:
        if key not in _KEYS:
            raise fail(key, f"unknown key {key!r}; known keys: {', '.join(_KEYS)}")

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise fail(key, f"{key!r} must be a list of non-empty strings")
        return tuple(value)

    roots = strings("roots")
    exclude = strings("exclude")
    for pattern in exclude:
        try:
            _glob_regex(pattern)
        except re.error as exc:
            raise fail("exclude", f"exclude {pattern!r} is not a valid glob: {exc}") from exc
    ignore = strings("ignore")
    for code in ignore:
        _check_code(code, "ignore", fail)
    severity = _severity(data.get("severity", {}), fail)
    cap = data.get("max_annotations")
    if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 0):
        raise fail("max_annotations", "'max_annotations' must be a whole number, 0 or more")
    baseline = data.get("baseline")
    if baseline is not None and (not isinstance(baseline, str) or not baseline):
        raise fail("baseline", "'baseline' must be a file name")
    fail_on = data.get("fail_on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise fail("fail_on", f"'fail_on' must be one of {', '.join(FAIL_ON)}")
    return Config(
        path=path,
        roots=roots,
        exclude=exclude,
        ignore=frozenset(ignore),
        severity=dict(severity),
        max_annotations=cap,
        baseline=baseline,
        fail_on=fail_on,
    )


def _severity(severity: Any, fail: Callable[[str, str], CliError]) -> dict[str, Any]:
    """The ``[severity]`` table: a known code and a severity each."""
    if not isinstance(severity, dict):
        raise fail("severity", '\'severity\' must be a table of CODE = "error"|"warning"|...')
    for code, level in severity.items():
        if code in _KEYS:  # `echo 'baseline = ...' >> toolcat.toml` after the [severity] table
            raise fail(
                code,
                f"{code!r} is inside the [severity] table; move it above the first [table] "
                "(TOML puts every key after a [table] header into that table)",
            )
        _check_code(code, code, fail)
        if level not in SEVERITIES:
            raise fail(code, f"severity of {code} must be one of {', '.join(SEVERITIES)}")
    return severity


def _check_code(code: str, key: str, fail: Callable[[str, str], CliError]) -> None:
    from toolcat.loader import CODES

    if not _CODE.match(code) or code not in CODES:
        raise fail(key, f"{code!r} is not a toolcat diagnostic code (see docs/diagnostics.md)")


# -- globs --------------------------------------------------------------------------


def _glob_regex(pattern: str) -> str:
    """A gitignore-like glob as a linear-time pattern of the whole relative path: ``*`` and ``?``
    stay inside one folder, ``**`` crosses folders, ``[...]`` a character class; a
    pattern without ``/`` (but a trailing one) matches a name at any depth.

    The engine matches in time linear in the name, whatever the glob (``re`` backtracked:
    ``*a*a*a*a*a*b`` took seconds on one long file name). Raises ``re.error`` when
    the glob cannot be read."""
    from toolcat.catalog.common import pattern_runs

    body = pattern.strip("/")
    if "/" not in body and not pattern.startswith("/"):  # a leading / anchors it here
        body = f"**/{body}"
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = body.find("]", i + 1)
            if end < 0:
                raise re.error("an unclosed '['")
            cls = body[i + 1 : end]
            out.append("[" + ("^" + cls[1:] if cls.startswith("!") else cls) + "]")
            i = end + 1
        else:
            out.append(re.escape(ch))
            i += 1
    # a pattern naming a folder excludes everything below it
    regex = r"(?s)\A(?:" + "".join(out) + r")(?:/.*)?\z"
    if not pattern_runs(regex):
        raise re.error("the linear-time regex engine cannot run this glob")
    return regex


def compile_globs(patterns: Sequence[str], base: Path) -> Callable[[Path], bool] | None:
    """A predicate: does a file match one of ``patterns`` (relative to ``base``)?"""
    if not patterns:
        return None
    from toolcat.catalog.common import pattern_search

    regexes = [_glob_regex(p) for p in patterns]
    bases = (Path(os.path.abspath(base)), base.resolve())

    def excluded(path: Path) -> bool:
        for where, folder in zip((Path(os.path.abspath(path)), path.resolve()), bases, strict=True):
            try:
                rel = where.relative_to(folder).as_posix()
            except ValueError:
                continue
            return any(pattern_search(r, rel) for r in regexes)
        return False

    return excluded
