"""The seam between the feedback loop and a model provider: one small Protocol."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor import ToolResult

    from ._common import ModelTurn

__all__ = ["ModelClient", "TextCallback"]

TextCallback = Callable[[str], None]
"""Receives each piece of streamed assistant text as it arrives."""


@runtime_checkable
class ModelClient(Protocol):
    """A chat model that can call tools, in one provider's wire format.

    The loop keeps the conversation in the provider's own message shape: the
    client builds the user message, turns the catalog's tools into the
    provider's tool list, sends one request, and turns tool results into the
    messages the provider expects next.
    """

    provider: str  # the executor's provider name: "openai" or "anthropic"

    def user_message(self, text: str) -> dict[str, Any]: ...

    def tool_specs(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]: ...

    def result_messages(self, results: Sequence[ToolResult]) -> list[dict[str, Any]]: ...

    async def create(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]],
        tool_choice: str,
        system: str | None = None,
        stream: bool = False,
        on_text: TextCallback | None = None,
    ) -> ModelTurn: ...

    async def aclose(self) -> None: ...
