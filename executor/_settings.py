"""One settings object for an executor: whoever builds one (server, loop, CLI, app) fills it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx
    from toolcat.catalog import ToolDefinition
    from toolcat.catalog.serving import AccessPolicy, AuditSettings, QuotaPolicy

    from ._audit import AuditLog
    from ._calls import ToolCall
    from ._quota import QuotaStore
    from ._shared import IdempotencyStore, RedisState
    from ._transport import Transport

__all__ = ["ConfirmCallback", "ExecutorSettings"]

ConfirmCallback = Callable[["ToolCall", "ToolDefinition"], "bool | Awaitable[bool]"]


@dataclass(frozen=True, slots=True)
class ExecutorSettings:
    """How an :class:`~toolcat.executor.Executor` runs its calls; every field has a default.

    >>> settings = ExecutorSettings(env={"ORDERS_TOKEN": "t"}, max_concurrency=4)
    >>> settings.max_concurrency
    4

    ``env`` is the mapping ``${VAR}`` reads (``None``: the catalog's own ``env``, else
    ``os.environ`` at call time). ``client``/``async_client`` are used as they are and not
    closed; without them the executor pools its own and closes them. Tools with
    ``confirm: true`` run only when ``confirm(call, tool)`` returns true; without a
    callback they are refused. ``sleep``/``async_sleep`` are the waits between retries.
    ``telemetry`` turns the OpenTelemetry spans and metrics on (on the global providers,
    or on those passed in). ``access`` is the access policy; ``audit`` writes one JSON
    line per call (an :class:`AuditLog`, or the settings of one, which the executor then
    opens and closes); ``quotas`` limits calls per caller and tool and per service, its
    buckets in ``quota_store`` (default: in this process). ``shared`` (a Redis, see
    :func:`connect_redis`) shares OAuth client-credentials tokens with other replicas;
    ``idempotency`` keeps the records of tools with an ``idempotency_key`` (default: in
    this process) for ``idempotency_seconds``. ``transports`` runs other kinds of
    command: the type of a tool's command -> the transport that runs it (HTTP commands
    have theirs).
    """

    env: Mapping[str, str] | None = None
    client: httpx.Client | None = None
    async_client: httpx.AsyncClient | None = None
    confirm: ConfirmCallback | None = None
    max_concurrency: int = 8
    sleep: Callable[[float], None] = time.sleep
    async_sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
    telemetry: bool = True
    tracer_provider: Any = None
    meter_provider: Any = None
    access: AccessPolicy | None = None
    audit: AuditLog | AuditSettings | None = None
    quotas: QuotaPolicy | None = None
    quota_store: QuotaStore | None = None
    shared: RedisState | None = None
    idempotency: IdempotencyStore | None = None
    idempotency_seconds: float = 600.0
    transports: Mapping[type, Transport] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
