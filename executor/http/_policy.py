"""Outbound policy: requests go only to the service's own origin, redirects too."""

from __future__ import annotations

import re

import httpx

__all__ = [
    "MAX_HEADER_VALUE",
    "MAX_REDIRECTS",
    "MAX_URL_LENGTH",
    "bad_header_char",
    "is_bearer_text",
    "same_origin",
    "under_base",
]

MAX_URL_LENGTH = 16_384
MAX_HEADER_VALUE = 8_192
MAX_REDIRECTS = 5

# CR, LF and NUL split or end a header; other C0 controls and DEL are refused too.
_FORBIDDEN = frozenset(chr(c) for c in (*range(0x00, 0x09), *range(0x0A, 0x20), 0x7F))


def bad_header_char(value: str) -> str | None:
    """The first control character in ``value`` (TAB is allowed), or ``None``."""
    if value.isprintable():
        return None
    for ch in value:
        if ch in _FORBIDDEN:
            return ch
    return None


# What a bearer token may hold to be sent as ``Bearer <token>``: visible ASCII, no space.
_BEARER_TEXT = re.compile(r"[\x21-\x7e]+")


def is_bearer_text(token: str) -> bool:
    """Whether ``token`` can go in ``Authorization: Bearer <token>`` as it is: visible
    ASCII without spaces, at most :data:`MAX_HEADER_VALUE` characters (nothing that
    could split the header or add one)."""
    return len(token) <= MAX_HEADER_VALUE and _BEARER_TEXT.fullmatch(token) is not None


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    port = url.port
    if port is None:
        port = 443 if url.scheme == "https" else 80
    return (url.scheme, url.host.lower(), port)


def same_origin(a: httpx.URL, b: httpx.URL) -> bool:
    """Same scheme, host and port: the only place a tool's request may go."""
    if a.scheme == b.scheme and a.host == b.host and a.port == b.port:
        return True  # the common case; httpx drops default ports, so this is exact
    return origin(a) == origin(b)


def under_base(url: httpx.URL, base: httpx.URL) -> bool:
    """Same origin as ``base`` and a path at or below base's path, segment by segment
    (``/v1x`` is not under ``/v1``): where a service's credentials may go."""
    if not same_origin(url, base):
        return False
    prefix = base.raw_path.partition(b"?")[0].rstrip(b"/")
    path = url.raw_path.partition(b"?")[0]
    return not prefix or path == prefix or path.startswith(prefix + b"/")
