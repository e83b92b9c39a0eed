"""securitySchemes and security requirements to catalog auth, secrets as ``${VAR}`` placeholders."""

from __future__ import annotations

import re
from typing import Any

from toolcat.loader._params import TOKEN

__all__ = ["auth_for", "env_name"]


def env_name(service: str, scheme: str, suffix: str = "") -> str:
    """``PETSTORE_API_KEY``-style variable names; the spec never supplies a secret value."""
    words = f"{service}_{scheme}"
    if suffix and not words.upper().endswith(suffix):
        words += f"_{suffix}"
    name = re.sub(r"[^A-Z0-9]+", "_", words.upper()).strip("_") or "API"
    return name if not name[0].isdigit() else f"API_{name}"


def _literal(text: str) -> str:
    """Spec text that the catalog interpolates: ``$`` doubled so it stays literal."""
    return text.replace("$", "$$")


def _var(service: str, scheme: str, suffix: str = "") -> str:
    return "${" + env_name(service, scheme, suffix) + "}"


def _scheme_auth(
    name: str, scheme: Any, service: str, scopes: Any
) -> tuple[dict[str, Any] | None, str | None]:
    if not isinstance(scheme, dict):
        return None, f"security scheme {name!r} is not defined"
    kind = scheme.get("type")
    if kind == "apiKey":
        where = scheme.get("in")
        if where not in ("header", "query", "cookie") or not isinstance(scheme.get("name"), str):
            return None, f"apiKey scheme {name!r} needs 'in' (header, query, cookie) and 'name'"
        if where != "query" and not TOKEN.match(scheme["name"]):
            return None, (
                f"apiKey scheme {name!r}: {scheme['name']!r} is not a valid {where} name "
                "(no spaces, colons or control characters), so it cannot be sent"
            )
        return {
            "type": "api_key",
            "in": where,
            "name": _literal(scheme["name"]),
            "value": _var(service, name),
        }, None
    if kind == "http":
        http = str(scheme.get("scheme", "")).lower()
        if http == "bearer":
            return {"type": "bearer", "token": _var(service, name, "TOKEN")}, None
        if http == "basic":
            return {
                "type": "basic",
                "username": _var(service, name, "USERNAME"),
                "password": _var(service, name, "PASSWORD"),
            }, None
        return None, f"HTTP auth scheme {http!r} ({name}) is not supported"
    if kind == "oauth2":
        flows = scheme.get("flows")
        cc = flows.get("clientCredentials") if isinstance(flows, dict) else None
        if isinstance(cc, dict) and isinstance(cc.get("tokenUrl"), str):
            auth: dict[str, Any] = {
                "type": "oauth2_client_credentials",
                "token_url": _literal(cc["tokenUrl"]),
                "client_id": _var(service, name, "CLIENT_ID"),
                "client_secret": _var(service, name, "CLIENT_SECRET"),
            }
            if isinstance(scopes, list) and scopes:
                auth["scopes"] = [str(s) for s in scopes]
            return auth, None
        # Interactive flows: the user brings an access token.
        return {"type": "bearer", "token": _var(service, name, "TOKEN")}, None
    if kind == "openIdConnect":
        return {"type": "bearer", "token": _var(service, name, "TOKEN")}, None
    return None, f"security scheme {name!r} of type {kind!r} is not supported"


def auth_for(
    requirements: Any, schemes: dict[str, Any], service: str
) -> tuple[dict[str, Any] | None, list[str]]:
    """The auth for a list of alternative requirements, and notes on what could not be mapped.

    The first alternative that maps to one scheme wins; ``[]`` or only ``{}``
    means no auth. ``None`` means "not stated" (inherit).
    """
    notes: list[str] = []
    if not isinstance(requirements, list):
        return None, notes
    if not requirements:
        return {"type": "none"}, notes
    optional = False
    partial: dict[str, Any] | None = None
    for req in requirements:
        if not isinstance(req, dict):
            continue
        if not req:
            optional = True
            continue
        for name, scopes in req.items():
            auth, note = _scheme_auth(str(name), schemes.get(name), service, scopes)
            if note:
                notes.append(note)
            elif len(req) == 1:
                return auth, []
            elif partial is None:
                partial = auth
                notes.append(
                    f"the requirement {sorted(req)} needs several schemes at once; "
                    f"only {name!r} is sent"
                )
    if partial is not None:
        return partial, notes
    if optional:
        return {"type": "none"}, notes
    return None, notes
