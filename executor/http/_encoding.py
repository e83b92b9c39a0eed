"""Undo a response's ``Content-Encoding`` under a cap on the decoded bytes.

One layer of ``gzip`` (or ``x-gzip``) or ``deflate`` is decoded; ``identity`` is
nothing. A stacked encoding (``gzip, gzip``) or an unknown one is refused: a few
kilobytes of stacked gzip expand to gigabytes, and httpx's own decoders expand a
whole chunk before anyone can count it. Here every step of zlib is asked for at
most one byte more than the cap leaves, so memory stays within the cap however
the body was built.
"""

from __future__ import annotations

import zlib

from toolcat._errors import ToolcatError

__all__ = ["ACCEPT_ENCODING", "BodyDecoder", "BodyTooLarge", "EncodingRefused"]

#: What requests advertise: the encodings :class:`BodyDecoder` undoes.
ACCEPT_ENCODING = "gzip, deflate"

_GZIP = zlib.MAX_WBITS | 16
_ZLIB = zlib.MAX_WBITS
_RAW_DEFLATE = -zlib.MAX_WBITS


class EncodingRefused(ToolcatError):
    """The body's encoding is stacked, unknown or corrupt; ``str()`` says which."""


class BodyTooLarge(ToolcatError):
    """The decoded body went past the cap."""


class BodyDecoder:
    """Feed raw bytes in, get decoded bytes out; never more than ``limit`` in all.

    >>> import gzip
    >>> d = BodyDecoder("gzip", limit=100)
    >>> d.feed(gzip.compress(b"hello")) + d.flush()
    b'hello'
    """

    def __init__(self, content_encoding: str, limit: int) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",")]
        codings = [c for c in codings if c and c != "identity"]
        # Refused when the first byte of body comes: a HEAD, 204 or 304 has none to decode.
        self._refusal: str | None = None
        if len(codings) > 1:
            self._refusal = (
                f"the response is encoded {len(codings)} times over ({', '.join(codings)}); "
                "only one layer is decoded"
            )
        self.coding = codings[0] if len(codings) == 1 else ""
        if self.coding not in ("", "gzip", "x-gzip", "deflate"):
            self._refusal = (
                f"the response uses the content encoding {self.coding[:40]!r}; "
                f"only {ACCEPT_ENCODING} are decoded"
            )
        self.limit = limit
        self.size = 0  # decoded bytes so far
        self._wbits = _GZIP if self.coding in ("gzip", "x-gzip") else _ZLIB
        decodes = self.coding and self._refusal is None
        self._zlib = zlib.decompressobj(self._wbits) if decodes else None
        self._started = False

    def feed(self, data: bytes) -> bytes:
        """The decoded bytes ``data`` gives; raises :class:`BodyTooLarge` past the cap."""
        if self._refusal is not None and data:
            raise EncodingRefused(self._refusal)
        if self._zlib is None:
            return self._count(data)
        out = bytearray()
        while data:
            try:
                chunk = self._zlib.decompress(data, self.limit - self.size - len(out) + 1)
            except zlib.error as exc:
                if self.coding == "deflate" and not self._started:
                    # Servers send "deflate" as raw DEFLATE as often as zlib-wrapped.
                    self._wbits, self._started = _RAW_DEFLATE, True
                    self._zlib = zlib.decompressobj(self._wbits)
                    continue
                raise EncodingRefused(f"the {self.coding} response body is corrupt") from exc
            self._started = True
            out += chunk
            if self.size + len(out) > self.limit:
                raise BodyTooLarge
            if not self._zlib.eof:
                break  # all of data went in (a tail would have meant the cap was passed)
            # Another gzip member may follow the one that ended.
            data = self._zlib.unused_data
            if data and self._wbits == _GZIP:
                self._zlib = zlib.decompressobj(self._wbits)
            elif data:
                raise EncodingRefused(f"the {self.coding} response body has data after its end")
        return self._count(bytes(out))

    def flush(self) -> bytes:
        """What is left once the body ended; a body cut short is corrupt."""
        if self._zlib is None or not self._started:
            return b""
        tail = self._zlib.flush(self.limit - self.size + 1)
        if not self._zlib.eof:
            raise EncodingRefused(f"the {self.coding} response body ends early")
        return self._count(tail)

    def _count(self, data: bytes) -> bytes:
        self.size += len(data)
        if self.size > self.limit:
            raise BodyTooLarge
        return data
