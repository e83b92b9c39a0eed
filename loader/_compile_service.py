"""Services compiled to the IR, and the checks of the connection settings they hold.

A service's ``base_url``, ``headers`` and ``auth`` may also be given on a tool or an MCP
server; :func:`check_strings` checks them wherever they are written: ``${VAR}`` syntax,
the URL's scheme and userinfo (TC008, TC040), header names, and where a caller's token may
be sent (TC075-TC077, TC130). ``${VAR}`` strings stay raw in the IR.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolcat.catalog import FrozenDict, NoAuth, RetryPolicy, Service, SourceLocation, Timeouts
from toolcat.catalog.common import CALLER_TOKEN_AUTH, credentials_may_travel

from ._lint import credential_in_file
from ._models_services import AuthDoc, RetryDoc, ServiceDoc, TimeoutDoc
from ._params import TOKEN
from ._scope import CompileContext, Scope
from ._shape import Locator

__all__ = [
    "USERINFO",
    "check_strings",
    "compile_retry",
    "compile_service",
    "compile_timeouts",
    "header_text",
]

_URL_START = re.compile(r"(?i)^(https?://|\$\{)")
# userinfo in a URL's authority: ``scheme://user:password@host``
USERINFO = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#]*)@([^/?#]*)")


def compile_timeouts(doc: float | TimeoutDoc | None) -> Timeouts | None:
    """The IR's timeouts from a ``timeout:`` (seconds in all, or per phase); ``None`` if unset."""
    if doc is None:
        return None
    if isinstance(doc, TimeoutDoc):
        return Timeouts(connect=doc.connect, read=doc.read, total=doc.total)
    return Timeouts(total=float(doc))


def compile_retry(doc: RetryDoc | None) -> RetryPolicy | None:
    """The IR's retry policy from a ``retry:``; ``None`` when unset."""
    if doc is None:
        return None
    return RetryPolicy(
        attempts=doc.attempts,
        backoff=doc.backoff,
        max_backoff=doc.max_backoff,
        on_status=tuple(doc.on_status),
        retry_after_cap=doc.retry_after_cap,
    )


def _literal_url(text: str) -> str | None:
    """``text`` when it is a URL as written (no ``${VAR}``); else ``None`` (checked at run time)."""
    return None if "$" in text else text


def _check_caller_token(scope: Scope, base_url: str | None, auth: AuthDoc) -> None:
    """TC075-TC077, TC130: where a caller's token may go, and what an exchange needs."""
    if auth.type not in CALLER_TOKEN_AUTH:
        return
    target = _literal_url(base_url) if base_url is not None else None
    if target is not None and not credentials_may_travel(target):
        scope.add(
            "TC075",
            f"auth {auth.type} sends the caller's token, so base_url must be https "
            f"(or http to a loopback address), not {target!r}",
            ("base_url",),
        )
    if auth.type != "token_exchange":
        return
    token_url = _literal_url(auth.token_url)
    if token_url is not None and not credentials_may_travel(token_url):
        scope.add(
            "TC076",
            "token_url receives the caller's token and the client secret, so it must be "
            f"https (or http to a loopback address), not {token_url!r}",
            ("auth", "token_url"),
        )
    if not auth.audience and not auth.resource:
        scope.add(
            "TC077",
            "a token exchange needs audience or resource (or both): the service the "
            "exchanged token is meant for",
            ("auth",),
            key=True,
        )
    if "$" not in auth.client_secret:
        scope.add(
            "TC130",
            "client_secret is written in the file; give it as ${VAR} so the secret "
            "stays out of the catalog",
            ("auth", "client_secret"),
        )


def header_text(value: Any) -> str:
    """A header value as sent: a YAML boolean as ``true`` or ``false``, anything else by str()."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_strings(
    scope: Scope,
    base_url: str | None,
    headers: Mapping[str, Any],
    auth: AuthDoc | None,
    *,
    trusted: bool = False,
) -> None:
    """``${...}`` syntax in every string that is interpolated at run time; URLs; header names."""
    if base_url is not None:
        scope.env(("base_url",), base_url)
        userinfo = USERINFO.match(base_url)
        if userinfo is not None:  # the message never repeats what is before the '@'
            scope.add(
                "TC040",
                f"base_url {userinfo.group(1)}***@{userinfo.group(3)} holds credentials "
                "before '@'; they would replace the service's auth and show in logs. "
                "Give them in auth (type: basic, or bearer) with ${VAR}",
                ("base_url",),
            )
        if not trusted and not _URL_START.match(base_url):
            scope.add(
                "TC008",
                f"base_url {base_url!r} must start with http:// or https:// "
                "(or a ${VAR} that holds the URL)",
                ("base_url",),
            )
    scope.report(credential_in_file(headers))
    for name, value in headers.items():
        if isinstance(value, str):
            scope.env(("headers", name), value)
        if not TOKEN.match(name):
            scope.add(
                "TC008",
                f"{name!r} is not a valid HTTP header name (letters, digits "
                "and !#$%&'*+-.^_`|~, no spaces or colons)",
                ("headers", name),
                key=True,
            )
    if auth is not None:
        where = getattr(auth, "location", None)
        key_name = getattr(auth, "name", None)
        if (
            where in ("header", "cookie")
            and isinstance(key_name, str)
            and not TOKEN.match(key_name)
        ):
            scope.add(
                "TC008",
                f"the API key goes in {where} {key_name!r}, which is not a valid {where} name "
                "(letters, digits and !#$%&'*+-.^_`|~; no spaces, colons, CR or LF)",
                ("auth", "name"),
            )
        for key, value in auth.model_dump(by_alias=True).items():
            if isinstance(value, str) and key != "type":
                scope.env(("auth", key), value)
        _check_caller_token(scope, base_url, auth)


def compile_service(
    name: str,
    doc: ServiceDoc,
    *,
    ctx: CompileContext,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
    trusted: bool = False,
) -> Service:
    """A :class:`Service` from its document (``${VAR}`` strings stay raw).

    ``trusted``: created by the OpenAPI importer, whose own diagnostics cover
    the base URL (a spec may have only a relative server URL).
    """
    scope = Scope(ctx, file, base, locate, f"service '{name}'")
    check_strings(scope, doc.base_url, doc.headers, doc.auth, trusted=trusted)
    line, col = locate(base, True)
    defaults = Service(name=name, base_url=doc.base_url)
    return Service(
        name=name,
        base_url=doc.base_url,
        headers=FrozenDict({k: header_text(v) for k, v in doc.headers.items()}),
        auth=doc.auth.to_spec() if doc.auth is not None else NoAuth(),
        timeouts=compile_timeouts(doc.timeout) or defaults.timeouts,
        retry=compile_retry(doc.retry) or defaults.retry,
        max_response_chars=doc.max_response_chars or defaults.max_response_chars,
        max_response_bytes=doc.max_response_bytes or defaults.max_response_bytes,
        source=SourceLocation(file, line, col),
        validate_responses=doc.validate_responses,
        spec=_spec_path(file, doc.spec),
    )


def _spec_path(file: str, spec: str | None) -> str | None:
    """A service's ``spec:``, relative to the file that declares it."""
    if spec is None:
        return None
    import os

    return os.path.normpath(os.path.join(os.path.dirname(file), spec))
