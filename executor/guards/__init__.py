"""Guards: the concerns around a call (access, quotas, audit, confirmation, idempotency,
telemetry), each a small object behind one protocol (:class:`Guard`), assembled by
:func:`assemble` from an executor's settings in the order they run::

    call stage     Tracing ─> Access ─> Quota                 (before the arguments are read)
    request stage  Audit ─> Confirmation ─> Concurrency ─> Idempotency   (before sending)
"""

import typing as _t

from ._access import Access
from ._audit import Audit
from ._base import CallState, Guard, Stage
from ._confirm import Confirmation
from ._idempotency import Idempotency
from ._quota import Concurrency, Quota
from ._telemetry import Tracing

if _t.TYPE_CHECKING:
    from toolcat.executor._access import AccessGuard
    from toolcat.executor._audit import AuditLog
    from toolcat.executor._quota import QuotaGuard
    from toolcat.executor._settings import ExecutorSettings
    from toolcat.executor._shared import IdempotencyStore
    from toolcat.executor._telemetry import Telemetry

__all__ = [
    "Access",
    "Audit",
    "CallState",
    "Concurrency",
    "Confirmation",
    "Guard",
    "Idempotency",
    "Quota",
    "Stage",
    "Tracing",
    "assemble",
]


def assemble(
    settings: "ExecutorSettings",
    *,
    telemetry: "Telemetry",
    access: "AccessGuard",
    quotas: "QuotaGuard",
    audit: "AuditLog | None",
    idempotency: "IdempotencyStore",
) -> tuple[Guard, ...]:
    """The guards ``settings`` asks for, in the order they run (a policy that is off
    costs nothing: its guard is left out)."""
    guards: list[Guard] = [Tracing(telemetry)]
    if access.enabled:
        guards.append(Access(access))
    if quotas.enabled:
        guards.append(Quota(quotas))
    if audit is not None:
        guards.append(Audit(audit))
    guards.append(Confirmation(settings.confirm))
    if quotas.policy.concurrency:
        guards.append(Concurrency(quotas))
    guards.append(Idempotency(idempotency, settings.idempotency_seconds, settings.shared))
    return tuple(guards)
