"""An identity provider's answer (a JWKS, an introspection answer), read with bounds.

The body is streamed and the read stops at ``max_bytes`` (a 300 MB answer is never
held), asked for without compression (so a small body cannot inflate past the cap),
and parsed with a nesting bound (a deeply nested answer is refused, never a
``RecursionError``). Every failure is :class:`AnswerRefused`, whose message is a
fixed reason, safe to log.
"""

from __future__ import annotations

from typing import Any

import httpx
from toolcat._errors import ToolcatError
from toolcat.catalog.common import loads_json

__all__ = ["MAX_ANSWER_DEPTH", "AnswerRefused", "read_json"]

#: The most levels of objects and arrays an identity provider's answer may nest
#: (a JWKS needs 3, introspection answers with structured claims a few more).
MAX_ANSWER_DEPTH = 32


class AnswerRefused(ToolcatError, ValueError):
    """An identity provider's answer that cannot be used; the message says why."""


async def read_json(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    max_bytes: int,
    what: str,
    **request: Any,
) -> Any:
    """The JSON value of a ``200`` answer to ``method url``, read up to ``max_bytes``.

    ``what`` names the answer in reasons ("JWKS", "introspection answer");
    ``request`` goes to :meth:`httpx.AsyncClient.stream` (``data``, ``auth``, ...).
    Raises :class:`AnswerRefused`, or ``httpx.HTTPError`` when no answer came.
    """
    headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
    async with client.stream(method, url, headers=headers, **request) as response:
        if response.status_code != 200:
            raise AnswerRefused(f"the {what} came with HTTP {response.status_code}")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise AnswerRefused(f"the {what} is larger than {max_bytes} bytes")
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise AnswerRefused(f"the {what} is larger than {max_bytes} bytes")
    try:
        return loads_json(bytes(body), MAX_ANSWER_DEPTH)
    except ValueError as exc:  # not JSON, not UTF-8, or nested past the bound
        raise AnswerRefused(f"the {what} is not JSON of at most {MAX_ANSWER_DEPTH} levels") from exc
