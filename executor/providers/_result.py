"""The one shape every exporter returns: the tools, and notes on what a conversion changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ExportNote", "ExportResult"]


@dataclass(frozen=True, slots=True)
class ExportNote:
    """Something an export changed or could not carry over, for one tool.

    ``pointer`` is a JSON pointer into the tool's input schema ("" = its root).
    """

    tool: str
    pointer: str
    message: str

    def __str__(self) -> str:
        where = f" at {self.pointer}" if self.pointer else ""
        return f"{self.tool}{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What every exporter returns: the JSON-ready tools and the notes on what changed.

    ``tools`` is the value of the request field that carries tools, as the
    provider takes it (for MCP: the ``tools`` of a ``tools/list`` result).
    """

    provider: str
    tools: list[dict[str, Any]]
    notes: tuple[ExportNote, ...] = field(default=())
