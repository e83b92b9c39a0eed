"""State shared by replicas, in Redis (``server.redis``): quota buckets, calls at once per
service, OAuth access tokens and idempotency records.

The ``redis`` client library is imported here only, and only when a Redis is configured
(``pip install 'toolcat[redis]'``). Every Redis command has a short timeout; a Redis that
does not answer raises :class:`SharedStateError`, which the callers turn into a decision:
quotas and idempotency records fail closed for non-safe calls, caches fail open. Every
such failure is a warning log line (at most one per ``_WARN_EVERY`` seconds per use) and a
count on the metric ``toolcat.shared_state.errors``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from toolcat._errors import ToolcatError
from toolcat.catalog.serving import RedisSettings, redis_url_problem

if TYPE_CHECKING:
    from ._quota import Bucket

__all__ = [
    "MAX_IDEMPOTENCY_RECORDS",
    "IdempotencyStore",
    "MemoryIdempotencyStore",
    "RedisIdempotencyStore",
    "RedisQuotaStore",
    "RedisState",
    "RedisTokens",
    "SharedStateError",
    "connect_redis",
]

logger = logging.getLogger("toolcat.executor.shared")

#: Idempotency records the in-process store keeps at most (the oldest go first).
MAX_IDEMPOTENCY_RECORDS = 10_000
#: A stored result larger than this (JSON characters) keeps only what the model reads.
_MAX_RECORD_CHARS = 256 * 1024
_WARN_EVERY = 10.0  # seconds between two warning lines about the same use


class SharedStateError(ToolcatError):
    """Redis did not answer (or answered with an error); the message is one line."""


# -- connecting ------------------------------------------------------------------------


class RedisState:
    """One Redis: a client (sync; its connection pool is thread-safe), the key prefix and
    the settings. Make it with :func:`connect_redis`."""

    def __init__(self, client: Any, settings: RedisSettings, errors: type[BaseException]) -> None:
        self.client = client
        self.settings = settings
        self.prefix = settings.prefix
        self._errors = errors  # redis.RedisError: every failure of the client
        self._warned: dict[str, float] = {}
        self._counter: Any = None
        self.failures = 0  # Redis failures seen (tests and the readiness probe)

    def key(self, kind: str, *parts: str) -> str:
        """``PREFIX KIND:HASH``: callers' names and secrets never appear in a key."""
        digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:40]
        return f"{self.prefix}{kind}:{digest}"

    def run(self, what: str, op: Callable[[], Any]) -> Any:
        """``op()`` (Redis commands); a failure of Redis raises :class:`SharedStateError`."""
        try:
            return op()
        except self._errors as exc:
            raise SharedStateError(f"Redis did not answer ({what}): {_reason(exc)}") from exc

    def ping(self) -> None:
        self.run("PING", self.client.ping)

    def failed(self, use: str, outcome: str, error: SharedStateError) -> None:
        """Count a failure of ``use`` (quota, concurrency, oauth_token, idempotency) that
        ended ``outcome`` (fail_open, fail_closed); log a warning now and then."""
        self.failures += 1
        now = time.monotonic()
        if now - self._warned.get(use, -_WARN_EVERY) >= _WARN_EVERY:
            self._warned[use] = now
            logger.warning("shared state: %s (%s, %s)", error, use, outcome.replace("_", " "))
        counter = self._metric()
        if counter is not None:
            counter.add(
                1, {"toolcat.shared_state.use": use, "toolcat.shared_state.outcome": outcome}
            )

    def _metric(self) -> Any:
        if self._counter is None:
            try:
                from opentelemetry import metrics
            except ImportError:
                self._counter = False
                return None
            from toolcat import __version__

            meter = metrics.get_meter("toolcat.executor", __version__)
            self._counter = meter.create_counter(
                "toolcat.shared_state.errors",
                unit="{error}",
                description="Redis (server.redis) failures, by use and outcome",
            )
        return self._counter or None

    def close(self) -> None:
        self.client.close()


def connect_redis(
    settings: RedisSettings, url: str | None = None, *, check: bool = True
) -> RedisState:
    """A :class:`RedisState` for ``url`` (default: ``settings.url``, already resolved).

    Raises :class:`SharedStateError` with one line: a malformed URL, the ``redis`` library
    missing, or (``check``) a Redis that does not answer PING.
    """
    url = settings.url if url is None else url
    problem = redis_url_problem(url)
    if problem is not None:
        raise SharedStateError(f"the Redis URL is malformed: {problem}")
    try:
        import redis
    except ImportError:
        raise SharedStateError(
            "server.redis needs the redis client library: pip install 'toolcat[redis]'"
        ) from None
    try:
        client = redis.Redis.from_url(
            url,
            socket_timeout=settings.timeout,
            socket_connect_timeout=settings.timeout,
            retry_on_timeout=False,
            health_check_interval=30,
        )
    except ValueError as exc:  # what from_url refuses that the check above let through
        raise SharedStateError(f"the Redis URL is malformed: {exc}") from None
    state = RedisState(client, settings, redis.RedisError)
    if check:
        try:
            state.ping()
        except SharedStateError as exc:
            client.close()
            raise SharedStateError(f"cannot reach Redis at {_shown(url)}: {_cause(exc)}") from None
    return state


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _cause(exc: SharedStateError) -> str:
    return str(exc).split("): ", 1)[-1]


def _shown(url: str) -> str:
    """``url`` without its password."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + host))


# -- quotas ----------------------------------------------------------------------------

# Token buckets, all or none, on the Redis server's clock (replicas' clocks never count).
# KEYS: the buckets; ARGV: rate, burst for each. Returns the seconds to wait ("0": taken).
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local levels = {}
local wait = 0
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local v = redis.call('HMGET', KEYS[i], 't', 'a')
  local tokens = burst
  if v[1] then
    local elapsed = now - tonumber(v[2])
    if elapsed < 0 then elapsed = 0 end
    tokens = math.min(burst, tonumber(v[1]) + elapsed * rate)
  end
  levels[i] = tokens
  if tokens < 1 then
    wait = math.max(wait, (1 - tokens) / rate)
  end
end
if wait > 0 then return tostring(wait) end
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  redis.call('HSET', KEYS[i], 't', tostring(levels[i] - 1), 'a', tostring(now))
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate * 1000) + 1000)
end
return '0'
"""

# A place among a service's calls at once: a lease that expires (a replica that dies
# mid-call frees its places). KEYS[1]: the service's set; ARGV: limit, lease ms, id.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 1000)
return 1
"""

# Delete KEYS[1] only while it holds ARGV[1] (a lock, a rejected token).
_DELETE_IF = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisQuotaStore:
    """The quota buckets (:class:`~toolcat.executor.QuotaStore`) and the calls at once per
    service in Redis, shared by every replica that uses the same Redis and prefix.

    ``take`` and ``acquire`` raise :class:`SharedStateError` when Redis does not answer;
    :class:`~toolcat.executor.QuotaGuard` decides what that means for the call.
    """

    shared = True

    def __init__(self, state: RedisState) -> None:
        self.state = state
        self._take = state.client.register_script(_TAKE)
        self._acquire = state.client.register_script(_ACQUIRE)

    def take(self, buckets: Sequence[Bucket]) -> float:
        keys = [self.state.key("quota", *b.key) for b in buckets]
        args: list[float | int] = []
        for b in buckets:
            args += [repr(float(b.rate)), b.burst]  # type: ignore[list-item]
        wait = self.state.run("quota", lambda: self._take(keys=keys, args=args))
        return float(wait)

    def acquire(self, service: str, limit: int) -> str | None:
        """A lease among ``service``'s ``limit`` calls at once, or ``None`` when full."""
        lease = uuid.uuid4().hex
        ms = int(self.state.settings.lease_seconds * 1000)
        key = self.state.key("calls", service)
        got = self.state.run(
            "concurrency", lambda: self._acquire(keys=[key], args=[limit, ms, lease])
        )
        return lease if int(got) == 1 else None

    def release(self, service: str, lease: str) -> None:
        key = self.state.key("calls", service)
        self.state.run("concurrency", lambda: self.state.client.zrem(key, lease))


# -- OAuth access tokens ---------------------------------------------------------------

_POLL = 0.05  # seconds between two looks at the cache while another replica fetches


class RedisTokens:
    """Client-credentials access tokens shared by replicas, fetched by one at a time.

    A token is kept under the prefix with a TTL of its lifetime less the expiry margin,
    keyed by a hash of (token URL, client id, client secret, scopes): never logged. A
    replica that finds no token takes a lock (``SET NX`` with an expiry of
    ``lock_seconds``) and fetches; the others wait for the token to appear. Redis down:
    each replica fetches its own (the cache fails open), with a warning.
    """

    def __init__(self, state: RedisState, lock_seconds: float = 10.0) -> None:
        self.state = state
        self.lock_seconds = lock_seconds
        self._delete_if = state.client.register_script(_DELETE_IF)

    def _keys(self, key: Any) -> tuple[str, str]:
        token = self.state.key("oauth", json.dumps(key, default=str))
        return token, token + ":lock"

    def lookup(self, key: Any, stale: str | None) -> tuple[str, float] | None:
        """The shared token (not ``stale``) and its seconds left, or ``None``; a ``stale``
        one is dropped."""
        token_key, _ = self._keys(key)

        def op() -> Any:
            pipe = self.state.client.pipeline(transaction=False)
            pipe.get(token_key)
            pipe.pttl(token_key)
            return pipe.execute()

        raw, ms = self.state.run("oauth token", op)
        if raw is None or ms is None or ms <= 0:
            return None
        value = raw.decode()
        if stale is not None and value == stale:
            self.state.run("oauth token", lambda: self._delete_if(keys=[token_key], args=[stale]))
            return None
        return value, ms / 1000.0

    def lock(self, key: Any) -> str | None:
        """The fetch lock's id when this replica got it, else ``None``."""
        _, lock_key = self._keys(key)
        me = uuid.uuid4().hex
        ms = int(self.lock_seconds * 1000)
        got = self.state.run(
            "oauth lock", lambda: self.state.client.set(lock_key, me, nx=True, px=ms)
        )
        return me if got else None

    def unlock(self, key: Any, me: str) -> None:
        _, lock_key = self._keys(key)
        self.state.run("oauth lock", lambda: self._delete_if(keys=[lock_key], args=[me]))

    def store(self, key: Any, value: str, seconds: float) -> None:
        """Keep ``value`` for ``seconds`` (a token without a stated lifetime: an hour)."""
        token_key, _ = self._keys(key)
        ms = int((seconds if seconds != float("inf") else 3600.0) * 1000)
        if ms <= 0:
            return
        self.state.run("oauth token", lambda: self.state.client.set(token_key, value, px=ms))


# -- idempotency records ---------------------------------------------------------------


class IdempotencyStore(Protocol):
    """Where idempotency records live. ``begin`` records ``key`` as running for ``seconds``
    and returns ``None`` (the call may go), or returns the record already there: ``{"state":
    "running"}`` or ``{"state": "done", "result": {...}}``. ``finish`` keeps the result for
    ``seconds``; ``forget`` drops the record (the request was never sent)."""

    def begin(self, key: str, seconds: float) -> dict[str, Any] | None: ...

    def finish(self, key: str, result: dict[str, Any], seconds: float) -> None: ...

    def forget(self, key: str) -> None: ...


class MemoryIdempotencyStore:
    """Records in this process (one replica), at most :data:`MAX_IDEMPOTENCY_RECORDS`."""

    shared = False

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        max_records: int = MAX_IDEMPOTENCY_RECORDS,
    ) -> None:
        self._clock = clock
        self._max = max_records
        self._lock = threading.Lock()
        self._records: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()

    def begin(self, key: str, seconds: float) -> dict[str, Any] | None:
        now = self._clock()
        with self._lock:
            held = self._records.get(key)
            if held is not None and held[0] > now:
                return held[1]
            self._put(key, {"state": "running"}, now + seconds)
            return None

    def finish(self, key: str, result: dict[str, Any], seconds: float) -> None:
        with self._lock:
            self._put(key, {"state": "done", "result": result}, self._clock() + seconds)

    def forget(self, key: str) -> None:
        with self._lock:
            self._records.pop(key, None)

    def _put(self, key: str, record: dict[str, Any], until: float) -> None:
        self._records.pop(key, None)
        self._records[key] = (until, record)
        while len(self._records) > self._max:
            self._records.popitem(last=False)


class RedisIdempotencyStore:
    """Records in Redis: ``SET NX`` with an expiry, so one replica sends the call."""

    shared = True

    def __init__(self, state: RedisState) -> None:
        self.state = state

    def _key(self, key: str) -> str:
        return self.state.key("idem", key)

    def begin(self, key: str, seconds: float) -> dict[str, Any] | None:
        k = self._key(key)
        ms = max(1, int(seconds * 1000))
        running = json.dumps({"state": "running"})

        def op() -> Any:
            pipe = self.state.client.pipeline(transaction=False)
            pipe.set(k, running, nx=True, px=ms)
            pipe.get(k)
            return pipe.execute()

        took, raw = self.state.run("idempotency", op)
        if took:
            return None
        if raw is None:  # expired between the two commands: a record for the next try
            return {"state": "running"}
        try:
            record: dict[str, Any] = json.loads(raw)
        except ValueError:
            return {"state": "running"}
        return record

    def finish(self, key: str, result: dict[str, Any], seconds: float) -> None:
        k = self._key(key)
        text = json.dumps({"state": "done", "result": result})
        ms = max(1, int(seconds * 1000))
        self.state.run("idempotency", lambda: self.state.client.set(k, text, px=ms))

    def forget(self, key: str) -> None:
        k = self._key(key)
        self.state.run("idempotency", lambda: self.state.client.delete(k))


def result_record(result: Any) -> dict[str, Any]:
    """A :class:`~toolcat.executor.ToolResult` as a JSON-ready record (bounded)."""
    record: dict[str, Any] = {
        "ok": result.ok,
        "content": result.content,
        "status": result.status,
        "data": result.data,
        "errors": [[e.type, e.msg, list(e.loc)] for e in result.errors],
        "headers": dict(result.headers),
        "return_direct": result.return_direct,
        "truncated": result.truncated,
        "notes": list(result.notes),
    }
    try:
        size = len(json.dumps(record, default=str))
    except (TypeError, ValueError, RecursionError):
        size = _MAX_RECORD_CHARS + 1
    if size > _MAX_RECORD_CHARS:
        record["data"] = None  # the model reads content; data was only its parsed twin
    return record
