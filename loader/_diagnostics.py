"""Diagnostics: what is wrong in a catalog, where, and what to change.

Every code is stable once published; docs/diagnostics.md lists each with a
broken and a fixed example. Codes ``TC0xx`` are catalog errors, ``TC1xx`` lint
warnings, ``TC2xx`` OpenAPI import findings.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolcat._errors import ToolcatError

__all__ = [
    "CODES",
    "RULES",
    "CatalogError",
    "Diagnostic",
    "Rule",
    "Severity",
    "register",
    "rules_table",
    "sort_diagnostics",
]


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


@dataclass(frozen=True, slots=True)
class Rule:
    """One diagnostic code: its short name (what docs and SARIF rules show), its default
    severity and a one-line summary; ``check`` is the function that finds it, for a lint
    rule (``toolcat.loader._lint``)."""

    code: str
    name: str
    severity: Severity
    summary: str
    check: Callable[..., Any] | None = None


# Every code, registered once: the loader's steps declare theirs in _codes, each lint
# rule registers itself with its function in _lint. Loading toolcat.loader registers all.
RULES: dict[str, Rule] = {}


def register(
    code: str, name: str, severity: Severity, summary: str, check: Callable[..., Any] | None = None
) -> Rule:
    """Register ``code``; a code is registered once."""
    if code in RULES:
        raise ValueError(f"diagnostic code {code} is already registered")
    rule = RULES[code] = Rule(code, name, severity, summary, check)
    return rule


class _Codes(Mapping[str, tuple[str, Severity]]):
    """``code -> (name, default severity)``, read from the registry."""

    def __getitem__(self, code: str) -> tuple[str, Severity]:
        rule = RULES[code]
        return rule.name, rule.severity

    def __iter__(self) -> Iterator[str]:
        return iter(RULES)

    def __len__(self) -> int:
        return len(RULES)


CODES: Mapping[str, tuple[str, Severity]] = _Codes()


def rules_table() -> str:
    """The table of docs/diagnostics.md: every registered code, in order."""
    rows = ["| code | name | severity | summary |", "|---|---|---|---|"]
    for code in sorted(RULES):
        r = RULES[code]
        rows.append(f"| {code} | {r.name} | {r.severity} | {r.summary} |")
    return "\n".join(rows) + "\n"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: ``file:line:col: severity code message``.

    ``line`` and ``column`` are 1-based; ``path`` is the YAML path of the value
    (``("tools", 0, "parameters", "id")``) when there is one.
    """

    code: str
    message: str
    file: str
    line: int = 1
    column: int = 1
    severity: Severity = field(default=Severity.ERROR)
    path: tuple[str | int, ...] = ()

    @classmethod
    def make(
        cls,
        code: str,
        message: str,
        file: str,
        line: int = 1,
        column: int = 1,
        path: Sequence[str | int] = (),
        severity: Severity | None = None,
    ) -> Diagnostic:
        """A diagnostic whose severity defaults to the one registered for ``code``."""
        default = CODES[code][1]
        return cls(code, message, file, line, column, severity or default, tuple(path))

    @property
    def name(self) -> str:
        return CODES.get(self.code, (self.code, self.severity))[0]

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity} {self.code} {self.message}"


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Most relevant first: errors before warnings, then by file and position.

    A value the YAML reader already rejected (TC001 at its position, e.g. an
    unsupported ``!tag``) gets no further findings there: they would be echoes.
    """
    items = list(dict.fromkeys(diagnostics))  # the same finding twice (schema variants)
    broken = {(d.file, d.line, d.column) for d in items if d.code == "TC001"}
    if broken:
        items = [d for d in items if d.code == "TC001" or (d.file, d.line, d.column) not in broken]
    return sorted(items, key=lambda d: (d.severity.rank, d.file, d.line, d.column, d.code))


class CatalogError(ToolcatError):
    """Loading failed; ``diagnostics`` holds every problem found, most relevant first."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        errors = [d for d in self.diagnostics if d.severity is Severity.ERROR]
        first = str(errors[0]) if errors else "no details"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{first}{more}")
