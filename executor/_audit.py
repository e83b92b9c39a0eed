"""The audit log: one JSON line per tool call, allowed or refused.

A line holds the time, a request id, the caller (subject, client, how verified),
the tool, the decision and the rule that made it, the arguments with secrets and
sensitive fields masked, the HTTP status, the outcome and the duration. Lines are
JSON with every non-ASCII and control character escaped, so a forged ``sub`` (a
newline, U+2028) stays inside its string: one call, one line.

While the log cannot be written, calls that ``fail_closed`` covers are refused
before anything is sent; the others go on and a warning is logged.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Literal, Protocol

from toolcat.catalog import ToolDefinition
from toolcat.catalog.serving import AuditSettings

from ._calls import ToolResult, echo_name
from ._identity import CallerIdentity
from ._redact import Redactor
from ._secrets import mask_secrets, secret_shape

__all__ = [
    "MAX_IDENTITY_CHARS",
    "AuditLog",
    "AuditSink",
    "AuditTrail",
    "RotatingFileSink",
    "StreamSink",
]

log = logging.getLogger("toolcat.executor")

#: The most characters of a subject or client id written to a line (the rest is cut).
MAX_IDENTITY_CHARS = 256
# Seconds between two warnings about the same unwritable log.
_WARN_EVERY = 10.0

FailClosed = Literal["non_safe", "always", "never"]


class AuditSink(Protocol):
    """Where lines go: ``write`` returns whether the line was written (never raises)."""

    def write(self, line: str) -> bool: ...

    def ready(self) -> bool: ...

    def close(self) -> None: ...


class StreamSink:
    """Lines to a text stream; ``None``: ``sys.stdout`` as it is at each write."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._failed = False

    def write(self, line: str) -> bool:
        stream = self._stream if self._stream is not None else sys.stdout
        try:
            with self._lock:
                stream.write(line)
                stream.flush()
        except (OSError, ValueError):  # closed or full
            self._failed = True
            return False
        self._failed = False
        return True

    def ready(self) -> bool:
        return not self._failed

    def close(self) -> None:
        pass


class RotatingFileSink:
    """Lines appended to ``path``; when a line would take it past ``max_bytes`` it
    becomes ``path.1`` (``path.1`` becomes ``path.2``, ... up to ``backups``).
    The file is opened on first use and again after a failure. After a failed open,
    :meth:`ready` tries to open it again; after a failed write (a full disk), the sink
    stays unready until a write succeeds (the next line, of a refused call, tries)."""

    def __init__(self, path: str, max_bytes: int, backups: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self._file: IO[bytes] | None = None
        self._size = 0
        self._failed: Literal["open", "write"] | None = None
        self._lock = threading.Lock()

    def _open(self) -> IO[bytes]:
        if self._file is None:
            # 0o600: the lines name callers and hold (masked) arguments
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._file = os.fdopen(fd, "ab")
            self._size = os.fstat(fd).st_size
        return self._file

    def _rotate(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self.backups <= 0:
            os.truncate(self.path, 0)
            return
        for n in range(self.backups - 1, 0, -1):
            older = f"{self.path}.{n}"
            if os.path.exists(older):
                os.replace(older, f"{self.path}.{n + 1}")
        os.replace(self.path, f"{self.path}.1")

    def write(self, line: str) -> bool:
        data = line.encode("utf-8")
        with self._lock:
            try:
                out = self._open()
            except OSError:
                self._failed = "open"
                return False
            try:
                if self._size and self._size + len(data) > self.max_bytes:
                    self._rotate()
                    out = self._open()
                out.write(data)
                out.flush()
                self._size += len(data)
            except OSError:
                self._drop()
                self._failed = "write"
                return False
            self._failed = None
            return True

    def ready(self) -> bool:
        with self._lock:
            if self._failed == "write":
                return False
            try:
                self._open()
            except OSError:
                self._failed = "open"
                return False
            self._failed = None
            return True

    def _drop(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None

    def close(self) -> None:
        with self._lock:
            self._drop()


@dataclass(slots=True)
class AuditTrail:
    """What one call's line needs that only the steps know (filled as it goes)."""

    start: float = field(default_factory=time.perf_counter)
    decision: str = "allow"
    rule: str | None = None
    arguments: Any = None  # the parsed arguments, once parsed
    tool: ToolDefinition | None = None
    redactor: Redactor | None = None
    sent: bool = False  # handed to the transport: the service may have the request


class AuditLog:
    """Writes the audit line of each call to ``sink``.

    >>> AuditLog.from_settings(AuditSettings("-")).fail_closed   # doctest: +SKIP
    'non_safe'
    """

    def __init__(
        self,
        sink: AuditSink,
        *,
        fail_closed: FailClosed = "non_safe",
        max_argument_chars: int = 4096,
    ) -> None:
        self.sink = sink
        self.fail_closed = fail_closed
        self.max_argument_chars = max_argument_chars
        self._warned = 0.0
        self._paths: dict[str, Any] = {}

    @classmethod
    def from_settings(cls, settings: AuditSettings) -> AuditLog:
        sink: AuditSink = (
            StreamSink()
            if settings.path == "-"
            else RotatingFileSink(settings.path, settings.max_bytes, settings.backups)
        )
        return cls(
            sink,
            fail_closed=settings.fail_closed,
            max_argument_chars=settings.max_argument_chars,
        )

    def must_write(self, safe: bool) -> bool:
        """Whether a call (``safe``: it changes nothing) is refused while the log cannot
        be written."""
        if self.fail_closed == "always":
            return True
        return self.fail_closed == "non_safe" and not safe

    def permits(self, safe: bool) -> bool:
        """``False`` when a call must not be sent: the log is unwritable and
        ``fail_closed`` covers the call. Otherwise ``True`` (with a warning)."""
        if self.sink.ready():
            return True
        if self.must_write(safe):
            return False
        self._warn("the call goes on without waiting for it (fail_closed does not cover it)")
        return True

    def write(self, result: ToolResult, trail: AuditTrail, identity: CallerIdentity | None) -> None:
        line = self.line(result, trail, identity)
        if not self.sink.write(line):
            self._warn("this call's line is lost")

    def line(self, result: ToolResult, trail: AuditTrail, identity: CallerIdentity | None) -> str:
        """The JSON line (with its newline) for one call; ``arguments`` comes last."""
        call = result.call
        record: dict[str, Any] = {
            "time": _now(),
            "request_id": os.urandom(16).hex(),
            "call_id": echo_name(call.id) if call.id is not None else None,
            "identity": _identity(identity),
            "tool": echo_name(call.name),
            "decision": trail.decision,
            "rule": trail.rule,
            "status": result.status,
            "outcome": _outcome(result, trail),
            "duration_ms": round((time.perf_counter() - trail.start) * 1000, 3),
        }
        # ensure_ascii: CR, LF, U+2028 and every other control stays escaped in the line
        head = _ENCODER.encode(record)
        return f'{head[:-1]},"arguments":{self._arguments(call.arguments, trail)}}}\n'

    def _arguments(self, raw: Any, trail: AuditTrail) -> str:
        """The arguments as JSON text (ASCII), masked, cut at ``max_argument_chars``."""
        args = trail.arguments
        if args is None:
            if isinstance(raw, Mapping):
                args = dict(raw)
            elif isinstance(raw, str) and len(raw) <= self.max_argument_chars:
                try:
                    args = json.loads(raw)
                except ValueError:
                    return _dumps({"_unparsed_chars": len(raw)})
            else:
                return _dumps({"_unparsed_chars": len(raw) if isinstance(raw, str) else None})
        if trail.tool is not None:
            args = masked(args, trail.tool, self._paths)
        text = _dumps(args)
        if trail.redactor:  # the call's own secrets, wherever an argument holds one
            masked_text = trail.redactor(text)
            if masked_text != text:
                text = masked_text
                try:
                    json.loads(text)
                except ValueError:  # a mask inside an escape: keep the text only, as a string
                    return _dumps({"_truncated": text[: self.max_argument_chars]})
        if len(text) > self.max_argument_chars:
            return _dumps({"_truncated": text[: self.max_argument_chars], "_chars": len(text)})
        return text

    def _warn(self, what: str) -> None:
        now = time.monotonic()
        if now - self._warned >= _WARN_EVERY:
            self._warned = now
            log.warning("the audit log cannot be written: %s", what)

    def close(self) -> None:
        self.sink.close()


# one encoder for every line: json.dumps with options builds a new one each call
_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), default=str)


def _outcome(result: ToolResult, trail: AuditTrail) -> str:
    """``ok``, the error's type, or ``unknown`` for a call cut after it was sent."""
    error = result.error
    if error is None:
        return "ok"
    if error.type == "cancelled" and trail.sent:
        return "unknown"  # the service may or may not have acted on it
    return error.type


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)


_second: list[Any] = [None, ""]  # the last whole second formatted, and its text


def _now() -> str:
    """UTC now as 2026-12-01T03:04:05.678Z (the seconds' text is cached)."""
    now = time.time()
    whole = int(now)
    if _second[0] != whole:
        _second[:] = [whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))]
    return f"{_second[1]}.{int((now - whole) * 1000):03d}Z"


def _identity(identity: CallerIdentity | None) -> dict[str, Any] | None:
    if identity is None:
        return None
    return {
        "subject": _cut(identity.subject),
        "client": _cut(identity.client_id),
        "method": identity.method,
        "issuer": _cut(identity.issuer),
    }


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_IDENTITY_CHARS:
        return text
    return text[:MAX_IDENTITY_CHARS] + f"…[+{len(text) - MAX_IDENTITY_CHARS} chars]"


# -- sensitive arguments ------------------------------------------------------------


def masked(args: Any, tool: ToolDefinition, cache: dict[str, Any]) -> Any:
    """``args`` with every value the tool marks secret replaced by ``***``."""
    if tool.name not in cache:
        cache[tool.name] = secret_shape(tool.input_schema, tool.sensitive_arguments)
    return mask_secrets(args, cache[tool.name])[0]
