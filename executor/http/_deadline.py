"""A total deadline for sync calls: every socket read and write is held to what is left.

httpx's timeouts are per operation: a server that trickles its headers one byte
at a time never lets a read time out, so a 5 s call could run for minutes. The
async path wraps the whole call in ``asyncio.timeout``; threads have no such
thing, so the executor's own sync client gets a network backend whose streams
clamp each operation's timeout to the deadline of the call running in this
thread (a context variable the dispatcher sets) and fail once it has passed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

__all__ = ["DeadlineBackend", "bind_deadline", "deadline_scope"]

_DEADLINE: ContextVar[float | None] = ContextVar("toolcat_deadline", default=None)


def deadline_scope(deadline: float | None) -> _Scope:
    """Socket operations in this thread end by ``deadline`` (``time.monotonic``) inside."""
    return _Scope(deadline)


class _Scope:
    """The context manager of :func:`deadline_scope` (a class: every sync call enters one,
    and a generator-based one costs twice as much)."""

    __slots__ = ("_deadline", "_token")

    def __init__(self, deadline: float | None) -> None:
        self._deadline = deadline

    def __enter__(self) -> None:
        self._token = _DEADLINE.set(self._deadline)

    def __exit__(self, *exc: object) -> None:
        _DEADLINE.reset(self._token)


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the total timeout ran out")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(
            ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)
        )
        return _DeadlineStream(inner)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """Wraps a backend so that its streams keep the deadline of :func:`deadline_scope`."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(
            host, port, _left(timeout, httpcore.ConnectTimeout), local_address, socket_options
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_unix_socket(
            path, _left(timeout, httpcore.ConnectTimeout), socket_options
        )
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bind_deadline(client: httpx.Client) -> bool:
    """Give ``client``'s transports (direct and proxied) the deadline backend.

    httpx has no public hook for a network backend, so this reaches the httpcore pool
    each ``HTTPTransport`` keeps; with another transport, or an httpx that keeps it
    elsewhere, it changes nothing and says so (``False``): the total timeout is then
    checked between reads only.
    """
    mounts: dict[Any, Any] = getattr(client, "_mounts", {})
    transports = [getattr(client, "_transport", None), *mounts.values()]
    bound = False
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore.NetworkBackend) and not isinstance(
            backend, DeadlineBackend
        ):
            pool._network_backend = DeadlineBackend(backend)  # type: ignore[union-attr]
            bound = True
    return bound
