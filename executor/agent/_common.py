"""What every model client reads and raises: the turn, typed errors, HTTP with retries, SSE.

Error tree (under toolcat's root, drawn whole in ``toolcat._errors``)::

    ModelError                  any failure talking to a model endpoint (a ToolcatError)
    ├── ModelHTTPError          the endpoint answered with a non-2xx status (after retries)
    ├── ModelConnectionError    no answer: connect failure, timeout, reset (after retries)
    └── ModelResponseError      an answer that is not what the protocol promises
"""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
from toolcat._errors import ToolcatError
from toolcat.executor import (
    Redactor,
    ToolCall,
    backoff_delay,
    is_sensitive_header,
    redacted_logs,
    retry_after,
)

__all__ = [
    "MAX_REPLY_BYTES",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelResponseError",
    "ModelTurn",
    "SseEvent",
    "Usage",
]

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})
_EXCERPT_CHARS = 500

#: The most bytes (after content decoding) read of one model reply, JSON or a whole
#: event stream; more is a ``ModelResponseError``. ``max_reply_bytes=`` on the clients,
#: ``toolcat chat --max-reply-bytes``.
MAX_REPLY_BYTES = 16 * 1024 * 1024
_ERROR_BODY_BYTES = 64 * 1024  # of an error reply, only this much is read (for the excerpt)
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts as the provider reported them (``None`` when it did not)."""

    input_tokens: int | None = None
    output_tokens: int | None = None

    @property
    def total_tokens(self) -> int | None:
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    def __add__(self, other: Usage | None) -> Usage:
        if other is None:
            return self
        return Usage(
            _plus(self.input_tokens, other.input_tokens),
            _plus(self.output_tokens, other.output_tokens),
        )

    def to_dict(self) -> dict[str, int | None]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None and b is None else (a or 0) + (b or 0)


@dataclass(frozen=True, slots=True)
class ModelTurn:
    """One reply of the model: the assistant message to append, its text and tool calls."""

    message: dict[str, Any]  # in the provider's own shape, appended to the conversation as is
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage | None = None
    elapsed: float = 0.0
    attempts: int = 1


class ModelError(ToolcatError):
    """Root of the errors raised when a model endpoint cannot give a usable reply."""


@dataclass(eq=False)
class ModelHTTPError(ModelError):
    """The model endpoint answered with an error status (retries, if any, are spent)."""

    status: int
    url: str
    excerpt: str = ""
    attempts: int = 1

    def __str__(self) -> str:
        tail = f": {self.excerpt}" if self.excerpt else ""
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        return f"model endpoint {self.url} answered HTTP {self.status}{tries}{tail}"


@dataclass(eq=False)
class ModelConnectionError(ModelError):
    """The model endpoint could not be reached or did not answer in time."""

    url: str
    reason: str
    attempts: int = 1

    def __str__(self) -> str:
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        return f"cannot reach model endpoint {self.url}{tries}: {self.reason}"


@dataclass(eq=False)
class ModelResponseError(ModelError):
    """The endpoint's reply does not follow the protocol (not JSON, missing fields)."""

    url: str
    reason: str

    def __str__(self) -> str:
        return f"unexpected reply from model endpoint {self.url}: {self.reason}"


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str | None
    data: str


@dataclass
class HttpSettings:
    """Where and how to reach a model endpoint. The key is read from the environment."""

    base_url: str
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 120.0
    connect_timeout: float = 10.0
    max_retries: int = 3  # retries after the first attempt
    backoff: float = 0.5
    max_backoff: float = 20.0
    retry_after_cap: float = 60.0
    max_reply_bytes: int = MAX_REPLY_BYTES

    def key(self) -> str | None:
        if self.api_key is not None:
            return self.api_key
        if self.api_key_env:
            return os.environ.get(self.api_key_env) or None
        return None


class HttpModelTransport:
    """POSTs JSON to a model endpoint with retries on 408/429/5xx and connect errors.

    Waits grow exponentially from ``backoff`` with jitter, up to ``max_backoff``;
    a ``Retry-After`` (or ``retry-after-ms``) header is honoured up to
    ``retry_after_cap`` seconds (both from ``toolcat.executor``'s retry module,
    which the tool dispatcher uses too).
    """

    def __init__(self, settings: HttpSettings, client: httpx.AsyncClient | None = None) -> None:
        self.settings = settings
        self._own_client = client is None
        self._client = client or httpx.AsyncClient(
            timeout=httpx.Timeout(settings.timeout, connect=settings.connect_timeout)
        )

    def url(self, path: str) -> str:
        return self.settings.base_url.rstrip("/") + path

    async def post_json(
        self, path: str, payload: Mapping[str, Any], headers: Mapping[str, str]
    ) -> tuple[dict[str, Any], int]:
        """The decoded JSON object of a successful reply, and the attempts it took."""
        url = self.url(path)
        redactor = self._redactor(headers)
        response, attempts, body = await self._send(url, payload, headers, redactor, stream=False)
        try:
            data = json.loads(body)
        except ValueError as exc:
            text = _text(response, body)
            shown = redactor(_excerpt(text))
            raise ModelResponseError(url, f"body is not JSON: {shown}") from exc
        if not isinstance(data, dict):
            raise ModelResponseError(url, "body is not a JSON object")
        return data, attempts

    async def post_stream(
        self, path: str, payload: Mapping[str, Any], headers: Mapping[str, str]
    ) -> tuple[AsyncIterator[SseEvent], int]:
        """Server-sent events of a successful streaming reply, and the attempts it took.

        Retries happen only before the first byte of the body: once events
        flow, a broken stream raises ``ModelConnectionError``.
        """
        url = self.url(path)
        redactor = self._redactor(headers)
        response, attempts, _ = await self._send(url, payload, headers, redactor, stream=True)
        return _sse_events(response, url, self.settings.max_reply_bytes, redactor), attempts

    def _redactor(self, headers: Mapping[str, str]) -> Redactor:
        """The secrets of a request: the key, and the values of credential headers (an
        endpoint's error body may echo them; httpx's log line may hold them)."""
        redactor = Redactor()
        key = self.settings.key()
        if key:
            redactor.add(key)
        for name, value in {**self.settings.headers, **headers}.items():
            if is_sensitive_header(name):
                redactor.add(value, value.partition(" ")[2])
        return redactor

    async def _send(
        self,
        url: str,
        payload: Mapping[str, Any],
        headers: Mapping[str, str],
        redactor: Redactor,
        *,
        stream: bool,
    ) -> tuple[httpx.Response, int, bytes]:
        """The successful response and the attempts; unless ``stream``, its body too.

        The body is always read as a stream, so that no more than
        ``max_reply_bytes`` of it is ever held.
        """
        with redacted_logs(redactor):
            return await self._attempts(url, payload, headers, redactor, stream=stream)

    async def _attempts(
        self,
        url: str,
        payload: Mapping[str, Any],
        headers: Mapping[str, str],
        redactor: Redactor,
        *,
        stream: bool,
    ) -> tuple[httpx.Response, int, bytes]:
        s = self.settings
        all_headers = {"content-type": "application/json", **s.headers, **headers}
        body = json.dumps(payload).encode()
        attempt = 0
        while True:
            attempt += 1
            last = attempt > s.max_retries
            try:
                request = self._client.build_request("POST", url, content=body, headers=all_headers)
                response = await self._client.send(request, stream=True)
                if response.is_success:
                    if stream:  # read (and capped) by the caller, event by event
                        return response, attempt, b""
                    return response, attempt, await _read_capped(response, url, s.max_reply_bytes)
                error_body = await _read_prefix(response, _ERROR_BODY_BYTES)
            except httpx.TransportError as exc:
                if last:
                    raise ModelConnectionError(url, redactor(_reason(exc)), attempt) from exc
                await asyncio.sleep(self._backoff(attempt, None))
                continue
            if response.status_code in RETRY_STATUSES and not last:
                await asyncio.sleep(self._backoff(attempt, response))
                continue
            excerpt = redactor(_error_excerpt(response, error_body))
            raise ModelHTTPError(response.status_code, url, excerpt, attempt)

    def _backoff(self, attempt: int, response: httpx.Response | None) -> float:
        s = self.settings
        if response is not None:
            hinted = retry_after(response.headers)
            if hinted is not None:
                return min(hinted, s.retry_after_cap)
        return backoff_delay(attempt, s.backoff, s.max_backoff)

    async def aclose(self) -> None:
        if self._own_client:
            await self._client.aclose()


def _too_large(url: str, cap: int) -> ModelResponseError:
    return ModelResponseError(
        url,
        f"reply is larger than {cap} bytes (max_reply_bytes; toolcat chat --max-reply-bytes)",
    )


def _check_length(response: httpx.Response, url: str, cap: int) -> None:
    """Refuse before reading when the declared length is already over the cap."""
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > cap and "content-encoding" not in response.headers:
        raise _too_large(url, cap)


async def _capped_chunks(response: httpx.Response, url: str, cap: int) -> AsyncIterator[bytes]:
    """The decoded body in chunks; ``ModelResponseError`` once it passes ``cap`` bytes."""
    _check_length(response, url, cap)
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > cap:
            raise _too_large(url, cap)
        yield chunk


async def _read_capped(response: httpx.Response, url: str, cap: int) -> bytes:
    try:
        return b"".join([chunk async for chunk in _capped_chunks(response, url, cap)])
    finally:
        await response.aclose()


async def _read_prefix(response: httpx.Response, limit: int) -> bytes:
    """At most ``limit`` bytes of the body (the rest is not read), then close."""
    parts: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            parts.append(chunk)
            size += len(chunk)
            if size >= limit:
                break
    finally:
        await response.aclose()
    return b"".join(parts)[:limit]


def _text(response: httpx.Response, body: bytes) -> str:
    return body.decode(response.encoding or "utf-8", errors="replace")


async def _capped_lines(response: httpx.Response, url: str, cap: int) -> AsyncIterator[str]:
    """Lines of the body (ended by CRLF, LF or CR, as SSE says), never past ``cap`` bytes."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending: list[str] = []  # the start of a line not ended yet
    carry = ""  # a CR at the end of a chunk: the LF may come in the next
    async for chunk in _capped_chunks(response, url, cap):
        text = carry + decoder.decode(chunk)
        carry = ""
        if text.endswith("\r"):
            text, carry = text[:-1], "\r"
        parts = _LINE_END.split(text)
        if len(parts) == 1:
            pending.append(parts[0])
            continue
        yield "".join(pending) + parts[0]
        for line in parts[1:-1]:
            yield line
        pending = [parts[-1]]
    rest = "".join(pending) + decoder.decode(b"", final=True)
    if carry or rest:
        yield rest


async def _sse_events(
    response: httpx.Response, url: str, cap: int, redactor: Redactor
) -> AsyncIterator[SseEvent]:
    event: str | None = None
    data: list[str] = []
    sent = False
    other: list[str] = []  # the start of a body that is no event stream (for the error)
    try:
        async for line in _capped_lines(response, url, cap):
            if not line:
                if data:
                    sent = True
                    yield SseEvent(event, "\n".join(data))
                event, data = None, []
                continue
            if line.startswith(":"):
                continue
            if len(other) < 3 and not line.startswith(("data:", "event:", "id:", "retry:")):
                other.append(line[:200])
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
        if data:
            sent = True
            yield SseEvent(event, "\n".join(data))
        if not sent:  # a JSON reply, an HTML page: say so rather than answer nothing
            kind = response.headers.get("content-type", "no content type")
            shown = redactor(" ".join(other)[:200]) or "an empty body"
            raise ModelResponseError(
                url,
                f"expected a stream of server-sent events but got "
                f"{kind}: {shown} (does the endpoint stream? try without "
                "--stream)",
            )
    except httpx.TransportError as exc:
        raise ModelConnectionError(url, redactor(f"stream broke: {_reason(exc)}")) from exc
    finally:
        await response.aclose()


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT_CHARS else text[:_EXCERPT_CHARS] + "…"


def _error_excerpt(response: httpx.Response, body: bytes) -> str:
    """The provider's error message when the body has one, else a bounded excerpt."""
    try:
        data = json.loads(body)
    except ValueError:
        return _excerpt(_text(response, body))
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return _excerpt(err["message"])
        if isinstance(err, str):
            return _excerpt(err)
    return _excerpt(json.dumps(data))


def parse_json_object(text: str) -> Any:
    """Tool-call arguments as assembled from a stream: decoded when they are JSON, else kept raw."""
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return text
