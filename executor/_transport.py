"""The seam between the call pipeline and a kind of command: one transport per kind.

The core plans, parses, validates and guards a call without knowing how it runs; the
transport registered for the type of the tool's command (``HttpCommand`` ->
:class:`~toolcat.executor.http.HttpTransport`) compiles its plan, prepares the request
and sends it. A second kind of command (a tool of an upstream MCP server) is a second
transport in ``ExecutorSettings(transports={ThatCommand: ThatTransport()})``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition

    from ._arguments import ArgumentChecker
    from ._calls import ToolCall, ToolError, ToolResult
    from ._redact import Redactor
    from ._secrets import SecretShape

__all__ = ["Delivery", "Plan", "Prepared", "Transport", "transport_for"]


class Plan(Protocol):
    """What a transport compiled for one tool, once; the core reads these five."""

    @property
    def tool(self) -> ToolDefinition: ...

    @property
    def checker(self) -> ArgumentChecker: ...

    @property
    def safe(self) -> bool:
        """The call changes nothing (idempotency records and fail-open rules skip it)."""
        ...

    @property
    def target(self) -> str | None:
        """The service it calls (quotas per service, spans), if any."""
        ...

    @property
    def secrets(self) -> SecretShape | None:
        """Where the arguments hold secrets (masked in every text the core writes)."""
        ...


class Prepared(Protocol):
    """A request ready to send; its secrets are tracked by ``redactor``."""

    @property
    def redactor(self) -> Redactor: ...

    def header(self, name: str) -> str | None:
        """The value of a header (or metadata) it sends, for idempotency keys."""
        ...


@dataclass(frozen=True, slots=True)
class Delivery:
    """A transport's answer: the result, and whether the request may have reached the
    service (``False``: it provably never left, so an idempotency record is dropped)."""

    result: ToolResult
    reached: bool = True


class Transport(Protocol):
    """Runs the tools of one kind of command."""

    def plan(self, tool: ToolDefinition, catalog: Catalog) -> Plan: ...

    def prepare(self, plan: Any, arguments: dict[str, Any], *, preview: bool) -> Any:
        """The :class:`Prepared` request for validated ``arguments``, or a ``ToolError``."""
        ...

    def send(self, call: ToolCall, plan: Any, prepared: Any) -> Delivery: ...

    async def asend(self, call: ToolCall, plan: Any, prepared: Any) -> Delivery: ...

    def dry_run(self, prepared: Any) -> Any:
        """What ``prepared`` would send, secrets masked (``Executor.prepare``)."""
        ...


def transport_for(transports: Mapping[type, Transport], command: object) -> Transport | ToolError:
    """The transport registered for ``command``'s type (or a base of it)."""
    for kind in type(command).__mro__:
        found = transports.get(kind)
        if found is not None:
            return found
    from ._calls import ToolError

    return ToolError("internal", f"no transport runs {type(command).__name__} commands")
