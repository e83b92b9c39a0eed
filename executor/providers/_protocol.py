"""The seam: what a provider is, and the names of the built-in ones."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition
    from toolcat.executor._calls import ToolCall, ToolResult

    from ._result import ExportResult

__all__ = ["Provider", "ProviderName"]

ProviderName = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp"]
"""The built-in providers' names, in registry order (a test pins it to the registry)."""


@runtime_checkable
class Provider(Protocol):
    """One LLM API's shapes: export tools, read the model's calls, write a result back.

    Every method is a pure conversion (no I/O, no secrets): a provider reads
    names, descriptions, schemas and annotations, never services or auth.

    Optional: ``carries_output_schemas``, whether ``tools()`` writes tools' output
    schemas (MCP's ``outputSchema``). A provider that says ``False`` lets ``toolcat
    schema`` load imported specs without computing them; one that does not say is
    given them.
    """

    name: str  # the registry key, e.g. "openai"
    supports_strict: bool  # whether ``tools(strict=True)`` means something

    def tools(
        self,
        catalog: Catalog | Iterable[ToolDefinition],
        *,
        strict: bool = False,
        toolset: str | None = None,
    ) -> ExportResult:
        """The tools (of one toolset) as the provider's request takes them.

        The built-in providers take one more keyword, ``budget``: each tool's input
        schema is kept within that many characters of compact JSON
        (``toolcat.catalog.schema.fit_schema``; default
        ``toolcat.catalog.schema.DEFAULT_SCHEMA_BUDGET``; 0 or ``None``: no budget).
        :func:`export_catalog` passes it only when asked, so a provider from
        outside need not take it.
        """
        ...

    def parse_calls(self, message: Any) -> list[ToolCall]:
        """The tool calls in one model turn (a response, a message, or its calls)."""
        ...

    def format_result(self, result: ToolResult) -> dict[str, Any]:
        """One result as the provider takes it back: a message, item, block or part."""
        ...
