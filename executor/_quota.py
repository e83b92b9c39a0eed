"""Quotas: token-bucket rate limits per caller and tool, and calls at once per service.

The buckets live behind :class:`QuotaStore` (one method), so a shared store (Redis,
for several replicas) can replace the in-process :class:`MemoryQuotaStore`.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from toolcat.catalog import Catalog, HttpCommand, method_semantics
from toolcat.catalog.serving import AccessGrant, QuotaPolicy, QuotaRule

from ._access import matches_when
from ._identity import CallerIdentity
from ._shared import SharedStateError

__all__ = [
    "MAX_BUCKETS",
    "Bucket",
    "MemoryQuotaStore",
    "QuotaDecision",
    "QuotaGuard",
    "QuotaStore",
]

#: The most buckets the in-process store keeps; the least recently used go first
#: (a forgotten bucket starts full again, which errs on the caller's side).
MAX_BUCKETS = 100_000


@dataclass(frozen=True, slots=True)
class Bucket:
    """One token bucket: ``key`` names it; it holds ``burst`` tokens at most and
    gains ``rate`` tokens a second."""

    key: tuple[str, ...]
    rate: float
    burst: int


class QuotaStore(Protocol):
    """Where buckets live. ``take`` takes one token from each of ``buckets`` (all or
    none) and returns 0, or takes nothing and returns the seconds until all have one."""

    def take(self, buckets: Sequence[Bucket]) -> float: ...


class MemoryQuotaStore:
    """Buckets in this process (thread-safe), at most :data:`MAX_BUCKETS` of them."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, max_buckets: int = MAX_BUCKETS
    ) -> None:
        self._clock = clock
        self._max = max_buckets
        self._lock = threading.Lock()
        self._state: OrderedDict[tuple[str, ...], tuple[float, float]] = OrderedDict()

    def take(self, buckets: Sequence[Bucket]) -> float:
        now = self._clock()
        with self._lock:
            levels = []
            wait = 0.0
            for b in buckets:
                tokens, at = self._state.get(b.key, (float(b.burst), now))
                tokens = min(float(b.burst), tokens + (now - at) * b.rate)
                levels.append(tokens)
                if tokens < 1.0:
                    wait = max(wait, (1.0 - tokens) / b.rate)
            if wait > 0:
                return wait
            for b, tokens in zip(buckets, levels, strict=True):
                self._state[b.key] = (tokens - 1.0, now)
                self._state.move_to_end(b.key)
            while len(self._state) > self._max:
                self._state.popitem(last=False)
            return 0.0


@dataclass(frozen=True, slots=True)
class QuotaDecision:
    """``retry_after`` seconds (0: the call may go), the rule that decided (a quota's
    name, or ``concurrency:SERVICE``) and ``what`` it is, in words."""

    retry_after: float = 0.0
    rule: str | None = None
    what: str = ""
    unavailable: bool = False  # the shared store (Redis) did not answer: not a quota's doing
    lease: str | None = None  # a place held in a shared store, to give back after the call

    @property
    def allowed(self) -> bool:
        return self.retry_after <= 0


_GRANTED = QuotaDecision()
_TAKEN = QuotaDecision()  # a place taken in this process (given back by identity)


#: Seconds a caller is told to wait when the shared store does not answer.
_UNAVAILABLE_RETRY = 1.0


class QuotaGuard:
    """``policy`` applied to the tools of ``catalog``; the buckets are in ``store``.

    A store with ``shared = True`` (Redis) also holds the calls at once per service when it
    has ``acquire``/``release``. When it does not answer, a call with a safe method goes
    (fail open) and any other is refused with an ``unavailable`` decision (fail closed).
    """

    def __init__(
        self, policy: QuotaPolicy, catalog: Catalog, store: QuotaStore | None = None
    ) -> None:
        self.policy = policy
        self.store: QuotaStore = store if store is not None else MemoryQuotaStore()
        sets: dict[str, set[str]] = {}
        for name, members in catalog.toolsets.items():
            for member in members:
                sets.setdefault(member, set()).add(name)
        self._rules: dict[str, tuple[QuotaRule, ...]] = {}
        for tool in catalog:
            covering = tuple(
                r
                for r in policy.rules
                if r.grant is None or _covers(r.grant, tool.name, sets, tool.tags)
            )
            if covering:
                self._rules[tool.name] = covering
        self._limits = dict(policy.concurrency)
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()
        self._safe = {
            t.name
            for t in catalog
            if isinstance(t.command, HttpCommand) and method_semantics(t.command.method).safe
        }
        self.shared = bool(getattr(self.store, "shared", False))
        self._leases: Any = self.store if hasattr(self.store, "acquire") else None
        self._state: Any = getattr(self.store, "state", None)  # RedisState, for warnings

    @property
    def enabled(self) -> bool:
        return self.policy.enabled

    def check(self, identity: CallerIdentity | None, tool: str) -> QuotaDecision:
        """Take a token from every bucket of ``identity`` x ``tool`` (all or none)."""
        rules = self._rules.get(tool)
        if not rules:
            return _GRANTED
        who = _caller_key(identity)
        buckets = []
        names = []
        for rule in rules:
            if not matches_quota(rule, identity):
                continue
            target = tool if rule.scope == "tool" else "*"
            buckets.append(
                Bucket((rule.name, *who, target), rule.rate / rule.per_seconds, rule.burst)
            )
            names.append(rule.name)
        if not buckets:
            return _GRANTED
        try:
            wait = self.store.take(buckets)
        except SharedStateError as exc:
            return self._down("quota", tool in self._safe, exc)
        if wait <= 0:
            return _GRANTED
        named = ", ".join(names)
        return QuotaDecision(_round_up(wait), named, f"the rate limit of quota '{named}'")

    @contextmanager
    def slot(self, service: str, *, safe: bool = False) -> Iterator[QuotaDecision]:
        """A call's place among ``service``'s calls at once: yields a refusal when full.

        ``safe``: the call's method is safe (it goes when a shared store is down)."""
        decision = self.enter(service, safe=safe)
        try:
            yield decision
        finally:
            self.leave(service, decision)

    def remote_slot(self, service: str) -> bool:
        """Whether a place among ``service``'s calls at once is taken over the network."""
        return self._leases is not None and service in self._limits

    def enter(self, service: str, *, safe: bool = False) -> QuotaDecision:
        """Take a place among ``service``'s calls at once; :meth:`leave` gives it back
        (call it whatever the decision was)."""
        limit = self._limits.get(service)
        if limit is None:
            return _GRANTED
        if self._leases is not None:
            try:
                lease = self._leases.acquire(service, limit)
            except SharedStateError as exc:
                return self._down("concurrency", safe, exc)
            if lease is None:
                return self._full(service, limit)
            return QuotaDecision(lease=lease)
        with self._lock:
            running = self._running.get(service, 0)
            if running >= limit:
                return self._full(service, limit)
            self._running[service] = running + 1
        return _TAKEN

    def leave(self, service: str, decision: QuotaDecision) -> None:
        if decision.lease is not None and self._leases is not None:
            try:
                self._leases.release(service, decision.lease)
            except SharedStateError as exc:  # the lease expires on its own
                if self._state is not None:
                    self._state.failed("concurrency", "fail_open", exc)
            return
        if decision is _TAKEN:
            with self._lock:
                self._running[service] -= 1

    def _full(self, service: str, limit: int) -> QuotaDecision:
        return QuotaDecision(
            1.0,
            f"concurrency:{service}",
            f"the limit of {limit} calls at once to service '{service}'",
        )

    def _down(self, use: str, safe: bool, exc: SharedStateError) -> QuotaDecision:
        """Redis did not answer: a safe call goes, any other is refused (retryable)."""
        if self._state is not None:
            self._state.failed(use, "fail_open" if safe else "fail_closed", exc)
        if safe:
            return _GRANTED
        return QuotaDecision(
            _UNAVAILABLE_RETRY,
            f"shared_state:{use}",
            "the shared quota store (Redis) does not answer",
            unavailable=True,
        )


def matches_quota(rule: QuotaRule, identity: CallerIdentity | None) -> bool:
    """Every ``when`` entry of ``rule`` matches ``identity`` (no entries: every caller)."""
    return matches_when(rule.when, identity)


def _caller_key(identity: CallerIdentity | None) -> tuple[str, str]:
    if identity is None:
        return ("-", "")
    return ("caller", identity.key)


def _covers(grant: AccessGrant, tool: str, sets: dict[str, set[str]], tags: Sequence[str]) -> bool:
    if tool in grant.tools or "*" in grant.tools:
        return True
    if grant.toolsets and sets.get(tool, set()).intersection(grant.toolsets):
        return True
    return bool(grant.tags) and not set(tags).isdisjoint(grant.tags)


def _round_up(seconds: float) -> float:
    """Seconds to wait, rounded up to a tenth (never 0: the bucket is empty now)."""
    return max(0.1, math.ceil(seconds * 10) / 10)
