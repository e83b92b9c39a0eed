"""Typed failures of the importer: a whole spec refused, or one operation skipped."""

from __future__ import annotations

from dataclasses import dataclass

from toolcat._errors import ToolcatError

__all__ = ["OperationSkipped", "RefError", "SpecError"]


@dataclass(eq=False)
class SpecError(ToolcatError):
    """The spec as a whole cannot be imported; ``code`` is TC201, TC202 or TC207."""

    code: str
    path: str
    reason: str
    line: int = 1  # where in the file, when the parser knows (1-based)
    column: int = 1

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(eq=False)
class RefError(ToolcatError):
    """A ``$ref`` that cannot be followed: missing target, URL, or outside the allowed tree."""

    ref: str
    file: str
    reason: str

    def __str__(self) -> str:
        return f"cannot resolve $ref {self.ref!r} in {self.file}: {self.reason}"


@dataclass(eq=False)
class OperationSkipped(ToolcatError):
    """One operation cannot become a tool; the rest of the spec still imports."""

    reason: str
    code: str = "TC204"

    def __str__(self) -> str:
        return self.reason
