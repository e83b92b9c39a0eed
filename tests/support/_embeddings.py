"""A fake OpenAI-compatible embeddings endpoint (``POST /v1/embeddings``) for tests and benchmarks.

``EmbeddingsService(embed)`` is an ASGI app; serve it with ``BackgroundServer``.
``embed`` maps texts to vectors (default :func:`hashed_embedding`: words hashed
into a fixed number of buckets, so texts sharing words are close). ``mode``
turns it into a bad endpoint: ``"slow"`` (waits ``delay`` seconds), ``"error"``
(HTTP 500), ``"wrong_dimensions"``, ``"wrong_count"``, ``"malformed"`` (not
JSON), ``"nan"``. It counts requests and texts, and keeps the Authorization
headers it was sent.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["EmbeddingsService", "hashed_embedding"]

Embed = Callable[[Sequence[str]], list[list[float]]]


def hashed_embedding(texts: Sequence[str], dimensions: int = 64) -> list[list[float]]:
    """Deterministic vectors: each lower-case word (and its first 4 letters) adds to a bucket."""
    out = []
    for text in texts:
        vec = [0.0] * dimensions
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            for piece in (word, word[:4]):
                digest = hashlib.blake2b(piece.encode(), digest_size=4).digest()
                vec[int.from_bytes(digest, "big") % dimensions] += 1.0
        if not any(vec):
            vec[0] = 1.0
        norm = math.sqrt(sum(x * x for x in vec))
        out.append([x / norm for x in vec])
    return out


class EmbeddingsService:
    """An ASGI embeddings endpoint that answers ``POST .../embeddings``."""

    def __init__(self, embed: Embed | None = None, *, delay: float = 5.0) -> None:
        self.embed: Embed = embed or hashed_embedding
        self.mode = "ok"
        self.delay = delay
        self.requests = 0
        self.texts = 0
        self.authorization: list[str | None] = []
        self.models: list[Any] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if scope["method"] != "POST" or not scope["path"].endswith("/embeddings"):
            await _send(send, 404, b'{"error": "not found"}')
            return
        self.requests += 1
        self.authorization.append(headers.get("authorization"))
        status, payload = await self._answer(body)
        await _send(send, status, payload)

    async def _answer(self, body: bytes) -> tuple[int, bytes]:
        import json

        import anyio

        try:
            doc = json.loads(body)
            texts = doc["input"]
            texts = [texts] if isinstance(texts, str) else list(texts)
        except (ValueError, KeyError, TypeError):
            return 400, b'{"error": {"message": "bad request"}}'
        self.texts += len(texts)
        self.models.append(doc.get("model"))
        mode = self.mode
        if mode == "slow":
            await anyio.sleep(self.delay)
        if mode == "error":
            return 500, b'{"error": {"message": "the model is overloaded"}}'
        if mode == "malformed":
            return 200, b'{"data": [{"embedding": [0.1, '
        vectors = self.embed(texts)
        if mode == "wrong_dimensions":
            vectors = [v[:-1] for v in vectors]
        elif mode == "wrong_count":
            vectors = vectors[:-1]
        data: list[dict[str, Any]] = [
            {"object": "embedding", "index": i, "embedding": list(v)} for i, v in enumerate(vectors)
        ]
        if mode == "nan" and data:
            data[0]["embedding"][0] = math.nan  # json.dumps writes NaN, as some servers do
        text = json.dumps({"object": "list", "data": data, "model": doc.get("model")})
        return 200, text.encode()


async def _send(send: Any, status: int, payload: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": payload})
