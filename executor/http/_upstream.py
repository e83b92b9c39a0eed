"""The caller's token on its way upstream: forwarded as is, or the exchange to make for it.

Only a service whose auth is ``forward_caller_token`` or ``token_exchange`` reads the
token of the call's :class:`~._identity.ToolContext`; it goes only to an https or
loopback base URL (and token endpoint), and only a token that can be a header value.
"""

from __future__ import annotations

import httpx
from toolcat.catalog.common import credentials_may_travel
from toolcat.executor._calls import CallStopped, ToolError
from toolcat.executor._identity import ToolContext
from toolcat.executor._redact import MASK, Redactor

from ._auth import ResolvedAuth
from ._exchange import ExchangeGrant, not_after
from ._policy import is_bearer_text

__all__ = ["CallerTokenRefused", "caller_credentials"]


class CallerTokenRefused(CallStopped):
    """The call may not send (or exchange) the caller's token; ``error`` for the result."""


def caller_credentials(
    auth: ResolvedAuth,
    url: httpx.URL,
    service: str,
    context: ToolContext,
    redactor: Redactor,
    headers: list[tuple[str, str]],
    preview: bool,
) -> ExchangeGrant | None:
    """Appends the caller's token to ``headers`` (forward), or returns the exchange to
    make for it. ``url`` is the service's base URL (every request lies under it).

    Raises :class:`CallerTokenRefused`, with nothing sent, for a URL or token endpoint
    that is not https or loopback, a call without a caller token (a ``preview`` shows
    ``Bearer ***`` instead), a token that could not be a header value.
    """
    how = "forwards" if auth.forward else "exchanges"
    if not credentials_may_travel(str(url)):
        raise CallerTokenRefused(
            ToolError(
                "refused_by_policy",
                f"service {service!r} {how} the caller's token, which goes only over https "
                f"or to a loopback address, not to {url.scheme}://{url.host}; nothing was sent",
            )
        )
    exchange = auth.exchange
    if exchange is not None and not credentials_may_travel(exchange.token_url):
        raise CallerTokenRefused(
            ToolError(
                "refused_by_policy",
                f"the token_url of service {service!r} is not https or a loopback address; "
                "the caller's token was not sent to it",
            )
        )
    token = context.token
    if token is None:
        if not preview:
            raise CallerTokenRefused(
                ToolError(
                    "refused_by_policy",
                    f"service {service!r} {how} the caller's token, and this call carries "
                    "none (the caller must sign in with a bearer token); it was not sent",
                )
            )
        if exchange is None:
            headers.append(("Authorization", "Bearer " + MASK))
            return None
        token = ""
    else:
        redactor.add_token(token)
        if not is_bearer_text(token):
            raise CallerTokenRefused(
                ToolError(
                    "refused_by_policy",
                    "the caller's token is not a bearer token that can be sent "
                    "(empty, too long, or holding spaces or control characters); it was not sent",
                )
            )
    if exchange is None:
        headers.append(("Authorization", f"Bearer {token}"))
        return None
    identity = context.identity
    return ExchangeGrant(
        exchange,
        service,
        identity.key if identity is not None else None,
        token,
        not_after(identity.claims.get("exp")) if identity is not None else None,
    )
