"""Every ``${VAR}`` a catalog needs, where it is used, and whether it is set (never its value).

Read from the compiled catalog (services, MCP servers, per-tool overrides, the
``server:`` section), so specs imported on the fly count as well as YAML; each use is
placed at the first line of its declaring file, at or after the declaration,
that mentions the variable.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

__all__ = ["EnvVariable", "collect_variables", "warn_unset"]

_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass
class EnvVariable:
    """One variable: whether any use has a default, and where it is used."""

    name: str
    has_default: bool = True  # every use has a ``:-default``
    uses: list[tuple[str, str]] = field(default_factory=list)  # (where, what)

    def state(self, env: Mapping[str, str]) -> str:
        """``set``, ``empty`` (set to ""), or ``unset``."""
        if self.name not in env:
            return "unset"
        return "set" if env[self.name] else "empty"

    def required_and_missing(self, env: Mapping[str, str]) -> bool:
        """Unset (or empty) with no default on some use: a call that needs it fails."""
        return not self.has_default and not env.get(self.name)


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """``(dotted path, text)`` for every string inside a frozen IR value."""
    if isinstance(value, str):
        if "${" in value:
            yield path, value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _strings(getattr(value, f.name), f"{path}.{f.name}" if path else f.name)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, tuple | list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def _read_lines(file: str) -> tuple[str, ...]:
    from toolcat.loader import FileReadError, read_regular_file

    try:
        return tuple(read_regular_file(file).decode("utf-8-sig").splitlines())
    except (FileReadError, OSError, UnicodeDecodeError):
        return ()


def _where(
    name: str, source: Any, files: tuple[str, ...], _lines: Callable[[str], tuple[str, ...]]
) -> str:
    """``file:line`` of the first mention of ``${name`` at or after ``source``."""
    needle = "${" + name
    if source is not None:
        lines = _lines(source.file)
        for number in range(max(source.line, 1), len(lines) + 1):
            if needle in lines[number - 1]:
                return f"{source.file}:{number}"
        return f"{source.file}:{source.line}"
    for file in files:  # the server section carries no position: the first mention
        for number, line in enumerate(_lines(file), 1):
            if needle in line:
                return f"{file}:{number}"
    return files[0] if files else "the catalog"


def collect_variables(
    catalog: Any, server: Any = None, files: tuple[str, ...] = ()
) -> list[EnvVariable]:
    """The variables ``catalog`` (and its ``server:`` settings) refer to, sorted by name."""
    from toolcat.catalog import HttpCommand

    found: dict[str, EnvVariable] = {}
    seen: set[tuple[str, str, str]] = set()

    def add(text: str, where_of: Any, what: str, source: Any) -> None:
        for m in _REF.finditer(text):
            name = m.group(1)
            var = found.setdefault(name, EnvVariable(name))
            if m.group(2) is None:
                var.has_default = False
            where = where_of(name, source)
            if (name, where, what) not in seen:
                seen.add((name, where, what))
                var.uses.append((where, what))

    lines = cache(_read_lines)  # each file read once per call, never kept across calls

    def locate(name: str, source: Any) -> str:
        return _where(name, source, files, lines)

    for service in catalog.services.values():
        for path, text in _strings(
            {"base_url": service.base_url, "headers": service.headers, "auth": service.auth},
            "",
        ):
            add(text, locate, f"service {service.name}: {path}", service.source)
    for upstream in catalog.mcp_servers.values():
        parts = {
            "command": upstream.command,
            "url": upstream.urls,
            "env": upstream.env,
            "cwd": upstream.cwd,
            "headers": upstream.headers,
            "auth": upstream.auth,
        }
        for path, text in _strings(parts, ""):
            add(text, locate, f"mcp server {upstream.name}: {path}", upstream.source)
    for tool in catalog:
        cmd = tool.command
        if not isinstance(cmd, HttpCommand):  # a tool of an MCP server: its server has them
            continue
        parts = {"base_url": cmd.base_url, "headers": cmd.headers, "auth": cmd.auth}
        for path, text in _strings(parts, ""):
            add(text, locate, f"tool {tool.name}: {path}", getattr(tool, "source", None))
    if server is not None:
        for path, text in _strings(server, ""):
            add(text, locate, f"server: {path}", None)
    return [found[name] for name in sorted(found)]


def warn_unset(
    catalog: Any,
    server: Any = None,
    *,
    prefix: str = "toolcat",
    env: Mapping[str, str] | None = None,
) -> int:
    """One stderr line per variable a call needs that is unset and has no default.

    Returns how many lines were written (``serve`` and ``chat`` call this at start).
    """
    environ = os.environ if env is None else env
    count = 0
    for var in collect_variables(catalog, server):
        if var.required_and_missing(environ):
            where, what = var.uses[0]
            more = f" and {len(var.uses) - 1} more" if len(var.uses) > 1 else ""
            print(
                f"{prefix}: warning: environment variable {var.name} is not set "
                f"(needed by {what} at {where}{more}); see 'toolcat env'",
                file=sys.stderr,
            )
            count += 1
    return count
