"""The body decoder: one layer decoded under a cap on decoded bytes, the rest refused."""

from __future__ import annotations

import gzip
import zlib

import pytest
from toolcat.executor.http._encoding import BodyDecoder, BodyTooLarge, EncodingRefused

TEXT = b"hello, " * 100


def _decode(encoding: str, body: bytes, limit: int = 10_000, step: int = 7) -> bytes:
    decoder = BodyDecoder(encoding, limit)
    out = b"".join(decoder.feed(body[i : i + step]) for i in range(0, len(body), step))
    return out + decoder.flush()


@pytest.mark.parametrize(
    "encoding,body",
    [
        ("", TEXT),
        ("identity", TEXT),
        ("gzip", gzip.compress(TEXT)),
        ("GZip", gzip.compress(TEXT)),
        ("x-gzip", gzip.compress(TEXT)),
        ("gzip", gzip.compress(TEXT[:5]) + gzip.compress(TEXT[5:])),
        ("deflate", zlib.compress(TEXT)),
        ("deflate", zlib.compress(TEXT)[2:-4]),  # raw DEFLATE
        ("identity, gzip", gzip.compress(TEXT)),
    ],
)
def test_one_layer_is_decoded_in_any_chunking(encoding: str, body: bytes) -> None:
    assert _decode(encoding, body) == TEXT
    assert _decode(encoding, body, step=1 << 20) == TEXT


@pytest.mark.parametrize(
    "encoding,body,says",
    [
        ("gzip, gzip", gzip.compress(gzip.compress(TEXT)), "2 times over"),
        ("gzip,deflate,gzip", b"x", "3 times over"),
        ("br", b"x", "'br'"),
        ("zstd", b"x", "'zstd'"),
        ("gzip", b"plain text", "corrupt"),
        ("gzip", gzip.compress(TEXT)[:-10], "ends early"),
        ("deflate", zlib.compress(TEXT) + b"tail", "after its end"),
    ],
)
def test_what_cannot_be_decoded_is_refused(encoding: str, body: bytes, says: str) -> None:
    with pytest.raises(EncodingRefused, match=says):
        _decode(encoding, body)


@pytest.mark.parametrize("encoding", ["gzip, gzip", "br", "gzip"])
def test_an_empty_body_needs_no_decoding(encoding: str) -> None:
    decoder = BodyDecoder(encoding, 10)
    assert decoder.feed(b"") + decoder.flush() == b""  # HEAD, 204, 304


@pytest.mark.parametrize("encoding", ["", "gzip", "deflate"])
def test_the_cap_counts_decoded_bytes(encoding: str) -> None:
    body = {"": TEXT, "gzip": gzip.compress(TEXT), "deflate": zlib.compress(TEXT)}[encoding]
    assert _decode(encoding, body, limit=len(TEXT)) == TEXT  # exactly the cap is fine
    with pytest.raises(BodyTooLarge):
        _decode(encoding, body, limit=len(TEXT) - 1)


def test_a_bomb_never_yields_more_than_the_cap_at_once() -> None:
    bomb = gzip.compress(bytes(5_000_000))  # 5 KB on the wire
    decoder = BodyDecoder("gzip", 1000)
    with pytest.raises(BodyTooLarge):
        decoder.feed(bomb)
    assert decoder.size <= 1000
