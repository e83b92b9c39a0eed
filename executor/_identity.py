"""Who is calling: the verified identity a server sets for the call path to read.

The MCP server sets it from the token of the HTTP request a tool call runs for;
an access policy, ``from: claims.x`` bindings and audit lines read it through
:func:`current_identity`. It never holds the token itself: the caller's token
travels apart, in :attr:`ToolContext.token`, read only by services configured to
forward or exchange it (``auth: forward_caller_token`` / ``token_exchange``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from toolcat.catalog import FrozenDict
from toolcat.catalog.common import freeze
from toolcat.catalog.serving import DEFAULT_CLIENT_CLAIMS

__all__ = [
    "CallerIdentity",
    "ToolContext",
    "caller",
    "context_value",
    "current_context",
    "current_identity",
    "with_context",
]

AuthMethod = Literal["jwt", "introspection", "api_key"]


@dataclass(frozen=True, slots=True)
class CallerIdentity:
    """A verified caller: ``subject`` (``sub``, or the API key's name), the OAuth
    ``client_id`` when known, granted ``scopes``, every verified ``claims`` value
    (frozen), the ``issuer`` and how it was verified (``method``).

    >>> CallerIdentity("alice", method="jwt", scopes=frozenset({"tools"})).has_scope("tools")
    True
    """

    subject: str | None
    method: AuthMethod
    client_id: str | None = None
    issuer: str | None = None
    scopes: frozenset[str] = frozenset()
    claims: FrozenDict = field(default_factory=FrozenDict)

    @classmethod
    def make(
        cls,
        *,
        subject: str | None,
        method: AuthMethod,
        client_id: str | None = None,
        issuer: str | None = None,
        scopes: Iterable[str] = (),
        claims: dict[str, Any] | None = None,
    ) -> CallerIdentity:
        frozen = freeze(dict(claims or {}))
        assert isinstance(frozen, FrozenDict)
        return cls(subject, method, client_id, issuer, frozenset(scopes), frozen)

    @classmethod
    def from_claims(
        cls,
        claims: Mapping[str, Any],
        *,
        method: AuthMethod,
        issuer: str | None = None,
        client_claims: Iterable[str] = DEFAULT_CLIENT_CLAIMS,
    ) -> CallerIdentity:
        """The identity verified ``claims`` (a JWT's, an introspection answer's) describe:
        ``sub`` as the subject, the first of ``client_claims`` that is a non-empty string
        as the client, ``scope``/``scp`` as the scopes (split on ASCII spaces only, as
        RFC 6749 writes them: a no-break space is part of a scope, not a separator).

        >>> who = CallerIdentity.from_claims({"azp": "ci", "scope": "a b"}, method="jwt")
        >>> who.subject, who.client_id, sorted(who.scopes)
        (None, 'ci', ['a', 'b'])
        """
        client = next((v for n in client_claims if isinstance(v := claims.get(n), str) and v), None)
        subject = claims.get("sub")
        return cls.make(
            subject=subject if isinstance(subject, str) and subject else None,
            method=method,
            client_id=client,
            issuer=issuer,
            scopes=scopes_of(claims),
            claims=dict(claims),
        )

    @property
    def identified(self) -> bool:
        """Whether the identity names someone: a subject or a client (the server refuses a
        token that names neither)."""
        return bool(self.subject) or bool(self.client_id)

    @property
    def key(self) -> str:
        """Who this caller is, as the one string every per-caller state is keyed by
        (idempotency records, quota buckets, exchanged tokens, confirmations): how it was
        verified, the issuer, and the subject or, without one, the client. Two callers
        get the same key only when they are the same caller.

        An identity that names no one (only an application can make one; the server
        refuses such tokens) is keyed by a digest of its claims, so it is never merged
        with another caller.

        >>> CallerIdentity.make(subject=None, client_id="ci", method="jwt", issuer="https://i/").key
        '["jwt","https://i/","client","ci"]'
        """
        if self.subject:
            who = ["sub", self.subject]
        elif self.client_id:
            who = ["client", self.client_id]
        else:
            text = json.dumps(self.claims, sort_keys=True, default=str)
            who = ["claims", hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()]
        return json.dumps([self.method, self.issuer or "", *who], separators=(",", ":"))

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes


def scopes_of(claims: Mapping[str, Any]) -> list[str]:
    """The scopes in ``claims``: ``scope`` (RFC 8693/9068: one string, scopes apart by
    ASCII spaces) or ``scp`` (a list of strings, or one such string)."""
    scopes: list[str] = []
    for name in ("scope", "scp"):
        value = claims.get(name)
        if isinstance(value, str):
            scopes.extend(s for s in value.split(" ") if s)
        elif isinstance(value, list):
            scopes.extend(v for v in value if isinstance(v, str))
    return scopes


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a call carries besides its arguments: the verified caller (set by a server
    from the token, or by an embedding app that verified it), application
    ``values`` (set by the embedding app; frozen) and the caller's bearer ``token``
    (the server's inbound token, or one the app holds for its user).

    The token goes upstream only to services that say so (``forward_caller_token``,
    or exchanged first with ``token_exchange``); it is never shown in a ``repr``,
    never a value ``from: context.x`` can read, and never part of a schema.

    >>> ToolContext.make(values={"user_id": "u1"}).values["user_id"]
    'u1'
    >>> "s3cret" in repr(ToolContext.make(token="s3cret"))
    False
    """

    identity: CallerIdentity | None = None
    values: FrozenDict = field(default_factory=FrozenDict)
    token: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def make(
        cls,
        identity: CallerIdentity | None = None,
        values: dict[str, Any] | None = None,
        *,
        token: str | None = None,
    ) -> ToolContext:
        frozen = freeze(dict(values or {}))
        assert isinstance(frozen, FrozenDict)
        return cls(identity, frozen, token)


_current: ContextVar[CallerIdentity | None] = ContextVar("toolcat_caller", default=None)


def current_identity() -> CallerIdentity | None:
    """The identity of the caller of the tool call running in this context, if verified."""
    return _current.get()


@contextmanager
def caller(identity: CallerIdentity | None) -> Iterator[None]:
    """While inside, :func:`current_identity` returns ``identity`` (this task or thread)."""
    token = _current.set(identity)
    try:
        yield
    finally:
        _current.reset(token)


_values: ContextVar[FrozenDict | None] = ContextVar("toolcat_context_values", default=None)
_bearer: ContextVar[str | None] = ContextVar("toolcat_caller_token", default=None)


def current_context() -> ToolContext:
    """The context of the call running here: the caller, the application's values and
    the caller's token."""
    return ToolContext(_current.get(), _values.get() or FrozenDict(), _bearer.get())


@contextmanager
def with_context(context: ToolContext) -> Iterator[None]:
    """While inside, calls run with ``context`` (its identity, values and token)."""
    token = _values.set(context.values)
    bearer = _bearer.set(context.token)
    try:
        with caller(context.identity):
            yield
    finally:
        _bearer.reset(bearer)
        _values.reset(token)


def context_value(context: ToolContext, source: str) -> Any:
    """The value ``source`` names (``claims.a.b`` or ``context.a.b``), or ``None``."""
    kind, _, path = source.partition(".")
    if kind == "claims":
        if context.identity is None:
            return None
        value: Any = context.identity.claims
    else:
        value = context.values
    if path in value:
        return value[path]
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value
