"""Which Host and Origin headers the HTTP transport answers to: DNS-rebinding protection.

A browser page on ``http://evil.example:8000`` whose name an attacker re-points
at the server's address sends ``Host: evil.example:8000``; a page on another
site that calls the server sends its own ``Origin``. :class:`HostGuard` answers
such requests ``421`` (Host) or ``403`` (Origin) before anything else runs, on
every bind address.

Allowed by default: the bind address and the loopback names (``localhost``,
``127.0.0.1``, ``[::1]``), each with the port the connection arrived on; on a
wildcard bind (``0.0.0.0``, ``::``) only the loopback names. ``allowed_hosts``
adds ``HOST`` (any port), ``HOST:PORT`` or ``*`` (any Host: the check is off).
An absent ``Origin`` (a client that is not a browser) is allowed; a present one
must be an origin of an allowed host (``http`` or ``https``) or one of
``allowed_origins`` (``scheme://host[:port]``, ``null``, or ``*`` for any).
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["HostGuard", "HostPolicy"]

log = logging.getLogger("toolcat.serve")

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "[::]"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_BOUND = -1  # the port the connection arrived on (the one the server is bound to)
_ANY = None  # any port, or none given

# (name, port): name lowercased, an IPv6 literal in brackets; port _BOUND, _ANY or a number
_Entry = tuple[str, int | None]


def _name(raw: str) -> str:
    """A host name or address as compared: lowercased, no trailing dot, IPv6 in brackets."""
    name = raw.strip().lower()
    bracketed = name.startswith("[") and name.endswith("]")
    if bracketed:
        name = name[1:-1]
    if bracketed or ":" in name:  # an IPv6 literal: one spelling (::1, not 0:0:0:0:0:0:0:1)
        return f"[{ipaddress.IPv6Address(name).compressed}]"
    return name.rstrip(".")


def _split(value: str) -> tuple[str, str | None]:
    """``host[:port]`` as (host, port text): ``[v6]:port``, ``[v6]``, a bare ``::1``."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            raise ValueError("an IPv6 address must be closed with ']'")
        rest = value[end + 1 :]
        if rest and not rest.startswith(":"):
            raise ValueError("text after ']' must be ':PORT'")
        return value[: end + 1], rest[1:] if rest else None
    if value.count(":") > 1:  # a bare IPv6 literal cannot carry a port
        return value, None
    host, colon, port = value.partition(":")
    return host, port if colon else None


def _port(text: str) -> int:
    if not text.isascii() or not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"the port must be 1-65535, got {text!r}")
    return int(text)


def _valid_name(name: str) -> bool:
    if name.startswith("["):
        return True  # checked by ipaddress in _name
    return bool(name) and name.isascii() and all(c.isalnum() or c in "-._" for c in name)


def parse_allowed_host(value: str) -> _Entry | None:
    """``HOST``, ``HOST:PORT``, ``HOST:*``, ``[V6]:PORT`` as an entry; ``*`` as ``None``.

    Raises ``ValueError`` with a one-line reason for anything else.
    """
    value = value.strip()
    if value == "*":
        return None
    host, port = _split(value)
    try:
        name = _name(host)
    except ValueError as exc:
        raise ValueError(f"not an IPv6 address: {host!r}") from exc
    if not _valid_name(name):
        raise ValueError(f"not a host name or address: {host!r}")
    if port is None or port == "*":
        return (name, _ANY)
    return (name, _port(port))


def _parse_origin(value: str) -> tuple[str, str, int] | None:
    """``scheme://host[:port]`` as (scheme, name, port); ``None`` when it is not one."""
    scheme, sep, rest = value.strip().partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in _DEFAULT_PORTS or not rest or "/" in rest or "@" in rest:
        return None
    try:
        host, port = _split(rest)
        name = _name(host)
        number = _DEFAULT_PORTS[scheme] if port is None else _port(port)
    except ValueError:
        return None
    if not _valid_name(name):
        return None
    return scheme, name, number


def parse_allowed_origin(value: str) -> str:
    """``scheme://host[:port]`` (http or https), ``null`` or ``*``, as compared.

    Raises ``ValueError`` with a one-line reason for anything else.
    """
    value = value.strip()
    if value in ("*", "null"):
        return value
    parsed = _parse_origin(value)
    if parsed is None:
        raise ValueError(
            f"not an origin: {value!r} (scheme://host[:port], e.g. https://app.example.com)"
        )
    return "{}://{}:{}".format(*parsed)


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The Host and Origin values the server answers to; build it with :meth:`for_bind`.

    >>> policy = HostPolicy.for_bind("0.0.0.0", allowed_hosts=["api.example.com"])
    >>> policy.host_allowed("api.example.com", bound_port=8000, scheme="http")
    True
    >>> policy.host_allowed("evil.example:8000", bound_port=8000, scheme="http")
    False
    """

    hosts: tuple[_Entry, ...]
    any_host: bool = False
    origins: frozenset[str] = frozenset()
    any_origin: bool = False
    wildcard_bind: bool = False  # only the loopback names are answered by default

    @classmethod
    def for_bind(
        cls,
        bind: str,
        *,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
    ) -> HostPolicy:
        """The defaults for a server bound to ``bind`` plus what the options add.

        Raises ``ValueError`` (one line) for an option value that is not a host or origin.
        """
        wildcard = bind.strip().lower() in WILDCARD_BINDS
        names = list(LOOPBACK_NAMES)
        if not wildcard:
            try:
                own = _name(bind)
            except ValueError:  # not an address the server could bind to; listen fails later
                own = bind.strip().lower()
            if own not in names:
                names.insert(0, own)
        hosts: list[_Entry] = [(name, _BOUND) for name in names]
        any_host = False
        for value in allowed_hosts:
            try:
                entry = parse_allowed_host(value)
            except ValueError as exc:
                raise ValueError(f"--allowed-host {value!r}: {exc}") from exc
            if entry is None:
                any_host = True
            elif entry not in hosts:
                hosts.append(entry)
        origins: set[str] = set()
        any_origin = False
        for value in allowed_origins:
            try:
                origin = parse_allowed_origin(value)
            except ValueError as exc:
                raise ValueError(f"--allowed-origin: {exc}") from exc
            if origin == "*":
                any_origin = True
            else:
                origins.add(origin)
        return cls(tuple(hosts), any_host, frozenset(origins), any_origin, wildcard)

    def _matches(self, name: str, port: int, bound_port: int) -> bool:
        for allowed, allowed_port in self.hosts:
            if allowed != name:
                continue
            if allowed_port is _ANY or allowed_port == port:
                return True
            if allowed_port == _BOUND and port == bound_port:
                return True
        return False

    def host_allowed(self, header: str | None, *, bound_port: int, scheme: str) -> bool:
        """Whether a request with this ``Host`` header is answered (a missing one is not)."""
        if self.any_host:
            return True
        if not header:
            return False
        try:
            host, port = _split(header.strip())
            name = _name(host)
            number = _DEFAULT_PORTS.get(scheme, 80) if port is None else _port(port)
        except ValueError:
            return False
        return _valid_name(name) and self._matches(name, number, bound_port)

    def origin_allowed(self, header: str | None, *, bound_port: int) -> bool:
        """Whether a request with this ``Origin`` header is answered (an absent one is)."""
        if header is None or self.any_origin:
            return True
        value = header.strip()
        if value == "null":
            return "null" in self.origins
        parsed = _parse_origin(value)
        if parsed is None:
            return False
        scheme, name, port = parsed
        if f"{scheme}://{name}:{port}" in self.origins:
            return True
        # a page served from a name the server answers to is the server's own origin
        return scheme in ("http", "https") and self._matches(name, port, bound_port)

    def describe(self) -> str:
        """The allowed hosts in one line, for the start-up message."""
        if self.any_host:
            return "any Host"
        shown = []
        for name, port in self.hosts:
            shown.append(name if port is _ANY else f"{name}:{'PORT' if port == _BOUND else port}")
        return ", ".join(shown)


class HostGuard:
    """ASGI middleware: ``421`` for a Host and ``403`` for an Origin the policy refuses.

    Wraps the whole app, so nothing behind it (the MCP transport, any auth or
    metadata route) runs for a refused request. The request body is never read.
    """

    def __init__(self, app: Any, policy: HostPolicy, port: int = 0) -> None:
        self.app = app
        self.policy = policy
        self.port = port  # the configured port: used when the connection does not say

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        server = scope.get("server")
        bound = server[1] if server and server[1] is not None else self.port
        host: str | None = None
        origin: str | None = None
        for key, value in scope.get("headers", ()):
            if key == b"host":
                host = value.decode("latin-1") if host is None else ""  # two Hosts: refused
            elif key == b"origin":
                origin = value.decode("latin-1") if origin is None else ""
        scheme = str(scope.get("scheme", "http"))
        if not self.policy.host_allowed(host, bound_port=bound, scheme=scheme):
            log.warning("refused a request for Host %s (421); see --allowed-host", _shown(host))
            await _refuse(
                scope,
                send,
                421,
                "Misdirected Request: this server does not answer "
                "to that Host (toolcat serve --allowed-host adds one)",
            )
            return
        if not self.policy.origin_allowed(origin, bound_port=bound):
            log.warning(
                "refused a request from Origin %s (403); see --allowed-origin", _shown(origin)
            )
            await _refuse(
                scope,
                send,
                403,
                "Forbidden: requests from that Origin are not "
                "allowed (toolcat serve --allowed-origin adds one)",
            )
            return
        await self.app(scope, receive, send)


def _shown(value: str | None) -> str:
    if value is None:
        return "(none)"
    return repr(value if len(value) <= 100 else value[:100] + "...")


async def _refuse(scope: dict[str, Any], send: Any, status: int, text: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = (text + "\n").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
