"""HTTP method semantics: the one table every layer reads (RFC 9110 §9).

| method  | safe | idempotent | arguments without ``in:`` | a request body |
|---------|------|------------|---------------------------|----------------|
| GET     | yes  | yes        | query                     | discouraged    |
| HEAD    | yes  | yes        | query                     | discouraged    |
| OPTIONS | yes  | yes        | query                     | allowed        |
| TRACE   | yes  | yes        | query                     | discouraged    |
| DELETE  | no   | yes        | query                     | allowed        |
| PUT     | no   | yes        | body                      | expected       |
| POST    | no   | no         | body                      | expected       |
| PATCH   | no   | no         | body                      | expected       |

What follows from the two RFC columns:

- ``read_only`` (MCP ``readOnlyHint``) is *safe*; ``destructive``
  (``destructiveHint``) is *not safe*, MCP's conservative default for a write.
- *idempotent* is the ``idempotentHint`` and decides whether the executor may
  retry a request without the tool's ``retry_unsafe``.
- A tool with an unsafe method should state ``confirm`` (lint TC104).
- A body on GET, HEAD or TRACE has no meaning in HTTP (RFC 9110 §9.3.1, §9.3.2;
  §9.3.8 forbids it on TRACE): lint TC108.

A method outside the table (``QUERY`` of OpenAPI 3.2, ``CONNECT``, extension
methods) is not accepted in a catalog; :func:`method_semantics` still answers
for one, conservatively (unsafe, not idempotent, arguments in the body).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

__all__ = ["METHODS", "HttpMethod", "MethodSemantics", "method_semantics"]

# the order is the catalog format's (the published JSON Schema lists it so)
HttpMethod = Literal["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "TRACE"]
METHODS: tuple[HttpMethod, ...] = get_args(HttpMethod)


@dataclass(frozen=True, slots=True)
class MethodSemantics:
    """What toolcat assumes about one HTTP method; see the module's table."""

    method: str  # upper case
    safe: bool  # RFC 9110 §9.2.1: the client asks for no change on the server
    idempotent: bool  # RFC 9110 §9.2.2: repeating the request is harmless, so retries are
    query_arguments: bool  # arguments without ``in:`` go in the query (else the body)
    body_discouraged: bool  # HTTP gives a request body no meaning: lint TC108

    @property
    def read_only(self) -> bool:
        """The default ``read_only`` annotation (MCP ``readOnlyHint``)."""
        return self.safe

    @property
    def destructive(self) -> bool:
        """The default ``destructive`` annotation (MCP ``destructiveHint``)."""
        return not self.safe

    @property
    def retryable(self) -> bool:
        """Whether the executor retries it without the tool's ``retry_unsafe``."""
        return self.idempotent

    @property
    def needs_confirm(self) -> bool:
        """Whether a tool should state ``confirm`` (lint TC104): the method changes data."""
        return not self.safe


def _row(method: str, safe: bool, idempotent: bool, query: bool, no_body: bool) -> MethodSemantics:
    return MethodSemantics(method, safe, idempotent, query, no_body)


_TABLE: dict[str, MethodSemantics] = {
    s.method: s
    for s in (
        _row("GET", safe=True, idempotent=True, query=True, no_body=True),
        _row("HEAD", safe=True, idempotent=True, query=True, no_body=True),
        _row("OPTIONS", safe=True, idempotent=True, query=True, no_body=False),
        _row("TRACE", safe=True, idempotent=True, query=True, no_body=True),
        _row("DELETE", safe=False, idempotent=True, query=True, no_body=False),
        _row("PUT", safe=False, idempotent=True, query=False, no_body=False),
        _row("POST", safe=False, idempotent=False, query=False, no_body=False),
        _row("PATCH", safe=False, idempotent=False, query=False, no_body=False),
    )
}
assert set(_TABLE) == set(METHODS), "every accepted method has one row"


def method_semantics(method: str) -> MethodSemantics:
    """The semantics of ``method`` (any case); unknown methods get the cautious answer.

    >>> method_semantics("trace").safe, method_semantics("PUT").idempotent
    (True, True)
    >>> method_semantics("QUERY").retryable
    False
    """
    upper = method.upper()
    found = _TABLE.get(upper)
    if found is None:
        return MethodSemantics(
            upper, safe=False, idempotent=False, query_arguments=False, body_discouraged=False
        )
    return found
