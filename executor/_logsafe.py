"""No log line carries a secret or a forged line: a filter on httpx's, httpcore's and
toolcat's loggers.

httpx logs every request line (``HTTP Request: GET https://host/x?api_key=...``) at
INFO, httpcore logs response headers at DEBUG; either may hold a credential. The
filter masks, in every record of those loggers, the secrets of the call in flight
(a :class:`Redactor` set for the current context by :func:`redacted_logs`) and the
value of any query parameter whose name looks like a credential. Control characters
and line separators in a record's message (a tool name, a subject, an upstream's text,
whatever type carried them) are escaped, so CR, LF, NEL or U+2028 cannot start a
forged log line.
"""

from __future__ import annotations

import logging
import re
from contextvars import ContextVar

from toolcat.catalog.common import escape_controls

from ._redact import MASK, Redactor

__all__ = ["LOGGERS", "SecretFilter", "install", "mask_query", "redacted_logs"]

# A logger's filters see only the records logged to that logger, not its children's:
# every logger that may carry a URL or headers is named here.
LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "toolcat.agent",
    "toolcat.executor",
    "toolcat.serve",
)

_current: ContextVar[Redactor | None] = ContextVar("toolcat_log_redactor", default=None)
# key=..., api_key=..., access_token=..., X-Amz-Signature=... in a query string.
_SECRET_QUERY = re.compile(
    r"(?i)([?&;][^=&#\s\"'<>]*(?:key|token|secret|passw|auth|session|signature|sig|"
    r"credential|cookie)[^=&#\s\"'<>]*=)[^&#\s\"'<>]+"
)


def mask_query(text: str) -> str:
    """``text`` with the values of credential-like query parameters masked."""
    return _SECRET_QUERY.sub(lambda m: m.group(1) + MASK, text) if "=" in text else text


class SecretFilter(logging.Filter):
    """Rewrites a record's message (and traceback): secrets masked, controls and line
    separators escaped; drops nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        redactor = _current.get()
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to the handler to report
            return True
        masked = mask_query(message)
        if redactor:
            masked = redactor(masked)
        # the whole line, whatever put a line end in it (an argument of any type, an
        # f-string): CR, LF, NEL, U+2028, ... cannot start a forged line
        masked = escape_controls(masked)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = redactor(mask_query(text)) if redactor else mask_query(text)
        return True


_FILTER = SecretFilter()


def install() -> None:
    """Put the filter on every logger in :data:`LOGGERS` (once)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


def redacted_logs(redactor: Redactor) -> _Redacting:
    """While inside, log records of this context (thread or task) mask ``redactor``'s secrets.

    The filter is on the loggers from this module's import on (nothing in ``logging``
    takes a logger's filters off), so a call pays for no check of them."""
    return _Redacting(redactor)


class _Redacting:
    """The context manager of :func:`redacted_logs` (a class: every call enters one, and a
    generator-based one costs twice as much)."""

    __slots__ = ("_redactor", "_token")

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor

    def __enter__(self) -> None:
        self._token = _current.set(self._redactor)

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._token)


install()  # on import: a record logged before the first call is filtered too
