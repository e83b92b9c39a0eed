"""The embeddings endpoint of semantic search: OpenAI-compatible, bounded, and every failure typed.

:class:`EmbeddingsClient` posts texts in batches and checks the answer (size, count,
indexes, dimensions, numbers); anything wrong raises :class:`EmbeddingsFailure`, whose
text is the note a search shows (no secrets in it).
"""

from __future__ import annotations

import math
import os
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError
from toolcat.catalog.common import credentials_may_travel, interpolate
from toolcat.catalog.search import EmbeddingsSettings

from ._redact import Redactor

if TYPE_CHECKING:
    import httpx

__all__ = [
    "EMBEDDINGS_BATCH",
    "MAX_DIMENSIONS",
    "MAX_EMBEDDINGS_RESPONSE_BYTES",
    "EmbeddingsClient",
    "EmbeddingsFailure",
]

#: Texts sent in one request to the endpoint.
EMBEDDINGS_BATCH = 128
#: The largest answer read from the endpoint, in bytes (a batch of 128 vectors of 3,072
#: floats is about 8 MB as JSON).
MAX_EMBEDDINGS_RESPONSE_BYTES = 64 * 1024 * 1024
#: The most dimensions a vector may have (OpenAI's largest model has 3,072).
MAX_DIMENSIONS = 16_384


class EmbeddingsFailure(ToolcatError):
    """The endpoint did not give usable vectors; ``str()`` is the note (no secrets in it)."""


class EmbeddingsClient:
    """POST ``{url}/embeddings`` (or ``url`` itself when it ends with ``/embeddings``).

    The key is sent as ``Authorization: Bearer`` only to an https URL or http on
    loopback; redirects are not followed, so it never reaches another host.
    """

    def __init__(
        self,
        settings: EmbeddingsSettings,
        env: Mapping[str, str] | None = None,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        env = os.environ if env is None else env
        self.settings = settings
        self.requests = 0  # requests sent (for tests and benchmarks)
        self._redact = Redactor()
        self._transport = transport
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()
        self.problem: str | None = None
        try:
            url = interpolate(settings.url, env, where="search.embeddings.url").rstrip("/")
            key = (
                interpolate(settings.api_key, env, where="search.embeddings.api_key")
                if settings.api_key
                else ""
            )
            self.model = interpolate(settings.model, env, where="search.embeddings.model")
        except ToolcatError as exc:
            self.url, self._key, self.problem = "", "", f"embeddings endpoint not usable: {exc}"
            return
        self._redact.add(key)
        self.url = url if url.endswith("/embeddings") else f"{url}/embeddings"
        self._key = key
        if not url.lower().startswith(("https://", "http://")):
            self.problem = "embeddings url must be http(s)"
        elif key and not credentials_may_travel(url):
            self.problem = (
                "embeddings api_key is sent only over https (or http to a loopback address)"
            )

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _http(self) -> httpx.Client:
        import httpx

        with self._lock:
            if self._client is None:
                t = self.settings.timeout
                self._client = httpx.Client(
                    follow_redirects=False,
                    timeout=httpx.Timeout(t, connect=min(t, 5.0)),
                    transport=self._transport,
                )
                # an owner that never calls close() (an AgentLoop) still closes its sockets
                weakref.finalize(self, self._client.close)
            return self._client

    def embed(self, texts: Sequence[str], *, deadline: float | None = None) -> list[list[float]]:
        """One vector per text, in order; :class:`EmbeddingsFailure` on any problem."""
        if self.problem:
            raise EmbeddingsFailure(self.problem)
        out: list[list[float]] = []
        for start in range(0, len(texts), EMBEDDINGS_BATCH):
            if deadline is not None and time.monotonic() > deadline:
                raise EmbeddingsFailure(
                    f"embeddings endpoint: no answer within {self.settings.timeout:g} s"
                )
            out.extend(self._batch(texts[start : start + EMBEDDINGS_BATCH]))
        return out

    def _batch(self, texts: Sequence[str]) -> list[list[float]]:
        import httpx

        body: dict[str, Any] = {"model": self.model, "input": list(texts)}
        body["encoding_format"] = "float"
        if self.settings.dimensions is not None:
            body["dimensions"] = self.settings.dimensions
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self.requests += 1
        started = time.monotonic()
        try:
            with self._http().stream("POST", self.url, json=body, headers=headers) as response:
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > MAX_EMBEDDINGS_RESPONSE_BYTES:
                        raise EmbeddingsFailure(
                            "embeddings endpoint: answer larger than "
                            f"{MAX_EMBEDDINGS_RESPONSE_BYTES // (1024 * 1024)} MiB"
                        )
                    if time.monotonic() - started > self.settings.timeout:
                        raise httpx.ReadTimeout("total time")
                    chunks.append(chunk)
                status = response.status_code
        except httpx.TimeoutException:
            raise EmbeddingsFailure(
                f"embeddings endpoint: no answer within {self.settings.timeout:g} s"
            ) from None
        except httpx.HTTPError as exc:
            raise EmbeddingsFailure(
                self._redact(f"embeddings endpoint unreachable: {type(exc).__name__}")
            ) from None
        if status != 200:
            raise EmbeddingsFailure(f"embeddings endpoint answered HTTP {status}")
        return self._vectors(b"".join(chunks), len(texts))

    def _vectors(self, raw: bytes, count: int) -> list[list[float]]:
        import json

        try:
            doc = json.loads(raw)
        except ValueError:
            raise EmbeddingsFailure("embeddings endpoint: the answer is not JSON") from None
        data = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(data, list):
            raise EmbeddingsFailure("embeddings endpoint: the answer has no 'data' list")
        if len(data) != count:
            raise EmbeddingsFailure(f"embeddings endpoint: {len(data)} vectors for {count} texts")
        vectors: list[list[float] | None] = [None] * count
        want = self.settings.dimensions
        for position, item in enumerate(data):
            vec = item.get("embedding") if isinstance(item, dict) else None
            index = item.get("index", position) if isinstance(item, dict) else position
            if type(index) is not int or not 0 <= index < count or vectors[index] is not None:
                raise EmbeddingsFailure("embeddings endpoint: the answer's indexes are wrong")
            if not isinstance(vec, list) or not vec or len(vec) > MAX_DIMENSIONS:
                raise EmbeddingsFailure("embeddings endpoint: an embedding is not a vector")
            want = want or len(vec)
            if len(vec) != want:
                raise EmbeddingsFailure(
                    f"embeddings endpoint: a vector of {len(vec)} dimensions, expected {want}"
                )
            vectors[index] = _unit(vec)
        return [v for v in vectors if v is not None]


def _unit(vec: Sequence[Any]) -> list[float]:
    """The vector scaled to length 1; :class:`EmbeddingsFailure` for non-numbers, NaN, zero."""
    try:
        values = [float(x) for x in vec if type(x) in (int, float)]
    except (TypeError, ValueError, OverflowError):
        values = []
    if len(values) != len(vec):
        raise EmbeddingsFailure("embeddings endpoint: a vector holds something not a number")
    norm = math.sqrt(math.fsum(x * x for x in values))
    if not math.isfinite(norm) or norm == 0.0:
        raise EmbeddingsFailure("embeddings endpoint: a vector is zero, infinite or NaN")
    return [x / norm for x in values]
