"""OAuth 2.0 token exchange (RFC 8693): the caller's token traded for one meant for a service.

A service with ``auth: {type: token_exchange, ...}`` never receives the caller's
token: the executor posts it (as ``subject_token``) to the configured token
endpoint, with toolcat's own client credentials, and sends the access token it
gets back. :class:`~._auth.TokenCache` caches that token per (service, caller,
hash of the caller's token) until it expires, asks once per key however many
calls wait, and bounds both the time an exchange may take and the answer's size.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

__all__ = [
    "ACCESS_TOKEN_TYPE",
    "EXCHANGE_GRANT",
    "ExchangeConfig",
    "ExchangeGrant",
    "not_after",
]

EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"


@dataclass(frozen=True, slots=True)
class ExchangeConfig:
    """Resolved token-exchange settings of one service (the secret is never shown)."""

    token_url: str
    client_id: str
    client_secret: str = field(repr=False)
    audience: str | None = None
    resource: str | None = None
    scopes: tuple[str, ...] = ()
    timeout: float = 5.0
    max_lifetime: float = 3600.0


@dataclass(frozen=True, slots=True)
class ExchangeGrant:
    """One exchange to make: ``config`` for the caller's ``subject_token`` on ``service``.

    ``expires_at`` is when the caller's token expires (monotonic clock), if known:
    an exchanged token is never used past it.
    """

    config: ExchangeConfig
    service: str
    caller: str | None  # CallerIdentity.key: whose exchanged token this is
    subject_token: str = field(repr=False)
    expires_at: float | None = None

    label = "token-exchange endpoint"

    @property
    def key(self) -> tuple[object, ...]:
        """Per service, client, target and caller; the caller's token only as a hash."""
        c = self.config
        digest = hashlib.sha256(self.subject_token.encode()).hexdigest()
        return ("exchange", self.service, c.token_url, c.client_id, c.audience, c.resource,
                c.scopes, self.caller, digest)  # fmt: skip

    def form(self) -> dict[str, str]:
        data = {
            "grant_type": EXCHANGE_GRANT,
            "subject_token": self.subject_token,
            "subject_token_type": ACCESS_TOKEN_TYPE,
            "requested_token_type": ACCESS_TOKEN_TYPE,
        }
        if self.config.audience:
            data["audience"] = self.config.audience
        if self.config.resource:
            data["resource"] = self.config.resource
        if self.config.scopes:
            data["scope"] = " ".join(self.config.scopes)
        return data

    def time_cap(self) -> float:
        """The longest an exchange may take, in seconds."""
        return self.config.timeout

    def lifetime_cap(self, now: float) -> float:
        """The latest moment (on the cache's clock at ``now``) an exchanged token may be used."""
        latest = now + self.config.max_lifetime
        if self.expires_at is not None:
            latest = min(latest, self.expires_at)
        return latest


def not_after(
    exp: object, *, clock: float | None = None, wall: float | None = None
) -> float | None:
    """The monotonic moment a token whose ``exp`` claim is ``exp`` (epoch seconds) expires."""
    if not isinstance(exp, int | float) or isinstance(exp, bool):
        return None
    now_wall = time.time() if wall is None else wall
    now_clock = time.monotonic() if clock is None else clock
    return now_clock + (float(exp) - now_wall)
