"""The one shape every exporter returns: the tools, and notes on what a conversion changed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["ExportNote", "ExportResult"]


@dataclass(frozen=True, slots=True)
class ExportNote:
    """Something an export changed or could not carry over, for one tool or the whole request.

    ``pointer`` is a JSON pointer into the tool's input schema ("" = its root);
    ``tool`` is "" for a note on the request as a whole (more tools than the API takes).
    """

    tool: str
    pointer: str
    message: str

    def __str__(self) -> str:
        if not self.tool:
            return self.message
        where = f" at {self.pointer}" if self.pointer else ""
        return f"{self.tool}{where}: {self.message}"


class ExportResult(list[dict[str, Any]]):
    """What every exporter returns: the JSON-ready tools, as a list, with notes on what changed.

    The result *is* the value of the request field that carries tools, as the provider
    takes it (for MCP: the ``tools`` of a ``tools/list`` result), so it goes wherever an
    SDK takes a list of tools, and ``json.dumps(result)`` writes that list::

        tools = toolcat.provider("openai").tools(catalog)
        client.chat.completions.create(model=..., messages=..., tools=tools)
        for note in tools.notes:    # what a conversion changed, and a request over the limit
            print(note)

    ``notes`` holds an :class:`ExportNote` per change; ``provider`` is the provider's name;
    ``deferred`` says whether the tools wait behind the provider's own tool search.
    ``tools`` is the same tools as a plain ``list`` (for code that wants exactly one).
    It compares and serializes as the list of tools it is.
    """

    __slots__ = ("deferred", "notes", "provider")

    def __init__(
        self,
        provider: str,
        tools: Iterable[dict[str, Any]] = (),
        notes: Iterable[ExportNote] = (),
    ) -> None:
        super().__init__(tools)
        self.provider = provider
        self.notes: tuple[ExportNote, ...] = tuple(notes)
        #: whether the tools are deferred behind the provider's own tool search
        self.deferred = False

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools as a plain ``list`` (a new list; the tools themselves are shared)."""
        return list(self)

    def __repr__(self) -> str:
        return (
            f"ExportResult(provider={self.provider!r}, tools={list(self)!r}, notes={self.notes!r})"
        )
