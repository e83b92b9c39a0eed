"""The guard protocol and the state of one call that guards read and write."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from toolcat.executor._audit import AuditTrail
from toolcat.executor._flow import Flow, no_io

if TYPE_CHECKING:
    from toolcat.executor._calls import ToolCall, ToolResult
    from toolcat.executor._identity import CallerIdentity
    from toolcat.executor._transport import Plan, Prepared

__all__ = ["CallState", "Guard", "Stage"]

#: ``call``: before the arguments are read (the tool and the caller are known);
#: ``request``: once the request is prepared, just before the transport sends it.
Stage = Literal["call", "request"]


@dataclass(slots=True)
class CallState:
    """One call as it goes through the pipeline: the core fills it, guards read it."""

    call: ToolCall
    identity: CallerIdentity | None
    trail: AuditTrail = field(default_factory=AuditTrail)
    plan: Plan | None = None  # None: no tool of that name
    prepared: Prepared | None = None
    reached: bool = False  # the transport says the request may have reached the service
    held: dict[str, Any] = field(default_factory=dict)  # what a guard keeps for its after/end


class Guard:
    """One concern around a call (access, quotas, audit, confirmation, ...).

    The core calls ``before`` at the guard's ``stage``, in the order the guards were
    assembled; a result from it stops the call there (nothing is sent). ``after``
    runs, in reverse order, for every request guard whose ``before`` ran, with the
    call's result, and may replace it. ``end`` runs for every guard exactly once per
    call, whatever happened (a refusal, an error, ``asyncio`` cancellation), and must
    not wait on anything: it is where a call is written down. ``before`` and ``after``
    are flows (see ``_flow``): a hook that needs I/O yields an effect.

    ``applies`` is asked once per tool (``None``: a name the catalog lacks): a guard
    that has nothing to do for a tool's calls is left out of them, its ``before``,
    ``after`` and ``end`` included.
    """

    stage: ClassVar[Stage] = "request"

    def applies(self, plan: Plan | None) -> bool:
        return True

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        return no_io(None)

    def after(self, state: CallState, result: ToolResult) -> Flow[ToolResult]:
        return no_io(result)

    def end(self, state: CallState, result: ToolResult) -> None:
        return None
