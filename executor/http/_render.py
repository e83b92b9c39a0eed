"""Render a validated call into an HTTP request, by OpenAPI's serialization rules."""

from __future__ import annotations

import base64
import binascii
import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import unquote, urlencode

import httpx
from toolcat.catalog import MissingVariableError, ParameterBinding
from toolcat.catalog.common import is_json_media_type
from toolcat.executor._calls import CallStopped, ToolError
from toolcat.executor._identity import ToolContext, current_context
from toolcat.executor._plan import ToolPlan
from toolcat.executor._redact import Redactor, is_sensitive_header, resolve
from toolcat.executor._secrets import mask_secrets
from toolcat.executor._templates import TemplateFailure

from ._auth import TokenGrant, resolve_auth
from ._bound import doubled_context_name
from ._policy import MAX_HEADER_VALUE, MAX_URL_LENGTH, bad_header_char, under_base
from ._styles import cookie_text, header_text, path_value, query_pairs, to_text
from ._upstream import CallerTokenRefused, caller_credentials

__all__ = ["Draft", "render", "request_for"]


class _Refused(CallStopped):
    """A value the policy refuses to send (rendering stops)."""


@dataclass(slots=True)
class Draft:
    """A request ready to send (or to show in a dry run), with the call's secrets."""

    method: str
    url: httpx.URL
    headers: list[tuple[str, str | bytes]]  # non-ASCII values as UTF-8 bytes
    redactor: Redactor
    content: bytes | None = None
    data: dict[str, Any] | None = None  # multipart fields
    files: list[tuple[str, tuple[str | None, bytes, str]]] | None = None  # multipart parts
    preview: Any = None  # the body for a dry run
    oauth: TokenGrant | None = None  # a token to fetch (or exchange) before sending
    base: httpx.URL = field(default_factory=lambda: httpx.URL())
    unset: tuple[str, ...] = ()  # a dry run's unset variables, shown as their references

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (any case) as sent, if it is sent."""
        lower = name.lower()
        for header, sent in self.headers:
            if header.lower() == lower:
                return sent.decode("utf-8", "replace") if isinstance(sent, bytes) else sent
        return None


def _check_header_value(value: str, loc: tuple[str | int, ...], what: str) -> None:
    bad = bad_header_char(value)
    if bad is not None:
        raise _Refused(
            ToolError(
                "refused_by_policy",
                f"{what} contains a control character ({ord(bad):#04x}); "
                "CR, LF and NUL are never sent",
                loc,
            )
        )
    if len(value) > MAX_HEADER_VALUE:
        raise _Refused(
            ToolError(
                "refused_by_policy",
                f"{what} is {len(value)} characters; the limit is {MAX_HEADER_VALUE}",
                loc,
            )
        )


# -- path values -------------------------------------------------------------------

# Rounds of percent-decoding looked through: a proxy, a framework and an application
# may each decode once; a value still changing after this many is refused outright.
MAX_DECODE_ROUNDS = 8


def _renders_empty(value: Any) -> bool:
    """``None``, ``""``, ``[]``, ``{}``, ``[""]``, ``[None]``...: nothing to put in a segment."""
    if isinstance(value, list):
        return all(v is None or v == "" for v in value)
    if isinstance(value, Mapping):
        return all(k == "" and (v is None or v == "") for k, v in value.items())
    return value is None or value == ""


def _fully_decoded(text: str) -> str | None:
    """``text`` percent-decoded until it stops changing; ``None`` past the bound."""
    for _ in range(MAX_DECODE_ROUNDS):
        decoded = unquote(text)
        if decoded == text:
            return text
        text = decoded
    return None


def _dot_segment(text: str) -> bool:
    """Whether ``text``, decoded, holds a segment a server may resolve as ``.`` or ``..``.

    Segments split on ``/`` and ``\\`` (IIS and some frameworks read both); a segment's
    ``;params`` are ignored (Tomcat resolves ``..;x`` as ``..``), it is NFKC-normalised
    (``\\u2025`` is ``..``, ``\\uff0e`` is ``.``) and trimmed; any run of dots counts.
    """
    decoded = _fully_decoded(text)
    if decoded is None:
        return True
    if not decoded.isascii():
        decoded = unicodedata.normalize("NFKC", decoded)
    elif "." not in decoded:
        return False  # the common case: no dot at all
    for segment in decoded.replace("\\", "/").split("/"):
        core = segment.split(";", 1)[0].strip()
        if core and not core.strip("."):
            return True
    return False


def _path_refusal(text: str, allow_reserved: bool) -> str | None:
    """Why the rendered path value ``text`` may not be sent, or ``None``."""
    decoded = _fully_decoded(text)
    if decoded is None:
        return f"is percent-encoded more than {MAX_DECODE_ROUNDS} times"
    if _dot_segment(decoded):
        return "holds a '.' or '..' segment once decoded"
    if "/" in decoded:
        if not allow_reserved:
            return "holds '/' once decoded (a parameter opts in with allow_reserved)"
        if decoded.startswith("/") or "//" in decoded:
            return "starts with '/' or holds '//'"
    return None


# -- the request -------------------------------------------------------------------


_base_cache: dict[str, tuple[str, str, httpx.URL]] = {}


def _base(resolved: str) -> tuple[str, str, httpx.URL]:
    """(prefix without trailing slash, query of the base URL, parsed URL), cached."""
    hit = _base_cache.get(resolved)
    if hit is not None:
        return hit
    prefix, _, query = resolved.partition("?")
    prefix = prefix.rstrip("/")
    url = httpx.URL(prefix)
    if url.scheme not in ("http", "https") or not url.host:
        raise _Refused(
            ToolError(
                "refused_by_policy",
                f"the base URL (scheme {url.scheme[:20]!r}) is not an absolute http(s) URL; "
                "it is not shown, since it may hold a secret",
            )
        )
    if url.userinfo:
        raise _Refused(
            ToolError(
                "refused_by_policy",
                "the base URL holds credentials (user:password@); give them in the "
                "service's auth instead; nothing was sent",
            )
        )
    if len(_base_cache) > 256:
        _base_cache.clear()
    _base_cache[resolved] = hit = (prefix, query, url)
    return hit


def _shown(url: httpx.URL) -> str:
    """scheme://host[:port]/path of a base URL, never its userinfo or query."""
    port = f":{url.port}" if url.port is not None else ""
    return f"{url.scheme}://{url.host}{port}{url.raw_path.decode('ascii', 'replace')}"


def render(
    plan: ToolPlan,
    args: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    context: ToolContext | None = None,
    preview: bool = False,
) -> Draft | ToolError:
    """The request for ``args`` (already validated), or the error that stops it.

    ``context`` gives the caller's token to a service that forwards or exchanges it
    (default: the context of the call running here, read only for such a service);
    a ``preview`` (a dry run) needs none and shows ``Bearer ***`` in its place. A
    preview also renders with the auth's and the headers' unset variables standing as
    their (masked) references, and names them in ``Draft.unset``; a real call stops at
    the first with ``missing_variable``.
    """
    redactor = Redactor(mask_secrets(args, plan.secrets)[1])  # secret arguments too
    try:
        draft = _render(plan, args, env, redactor, context, preview)
        return doubled_context_name(plan, args, draft) or draft
    except _Refused as exc:
        return exc.error
    except MissingVariableError as exc:
        return ToolError("missing_variable", str(exc))
    except TemplateFailure as exc:
        return ToolError("invalid_arguments", redactor(exc.msg))


def _render(  # noqa: C901, PLR0915  the request in wire order: path, query, headers, cookies, auth, URL, body; one draft
    plan: ToolPlan,
    args: Mapping[str, Any],
    env: Mapping[str, str],
    redactor: Redactor,
    context: ToolContext | None,
    preview: bool,
) -> Draft:
    service = plan.service.name
    unset: list[str] | None = [] if preview else None
    # path
    chunks: list[str] = []
    for part in plan.path_parts:
        if isinstance(part, str):
            chunks.append(part)
            continue
        if part.argument not in args:
            raise _Refused(
                ToolError("invalid_arguments", "path argument is missing", (part.argument,))
            )
        value = args[part.argument]
        if _renders_empty(value):
            raise _Refused(
                ToolError(
                    "invalid_arguments",
                    'path argument must not be empty (null, "", [] or {}): '
                    "an empty segment would address another resource",
                    (part.argument,),
                )
            )
        text = path_value(part, value)
        refusal = _path_refusal(text, part.allow_reserved)
        if refusal is not None:
            raise _Refused(
                ToolError(
                    "refused_by_policy",
                    f"path argument {refusal}: it would change the resource addressed",
                    (part.argument,),
                )
            )
        chunks.append(text)
    path = "".join(chunks)
    if not plan.path_literal_dots and _dot_segment(path):
        raise _Refused(
            ToolError("refused_by_policy", "the path would contain a '.' or '..' segment")
        )

    # query, headers, cookies
    query: list[str] = []
    for b in plan.query:
        if b.argument in args:
            query_pairs(b, args[b.argument], query)
    headers: list[tuple[str, str]] = []
    for name, raw in plan.const_headers:
        value = resolve(
            raw,
            env,
            redactor,
            where=f"service {service} header {name}",
            secret="$" in raw or is_sensitive_header(name),
            unset=unset,
        )
        headers.append((name, value))
    for b in plan.headers:
        if b.argument in args and args[b.argument] is not None:
            text = header_text(b, args[b.argument])
            _check_header_value(text, (b.argument,), f"header {b.wire_name}")
            headers.append((b.wire_name, text))
    cookies: list[str] = []
    for b in plan.cookies:
        if b.argument in args and args[b.argument] is not None:
            value = args[b.argument]
            _check_header_value(header_text(b, value), (b.argument,), f"cookie {b.wire_name}")
            cookies.append(f"{b.wire_name}={cookie_text(b, value)}")

    # auth
    auth = resolve_auth(plan.auth, env, redactor, where=f"service {service} auth", unset=unset)
    headers.extend(auth.headers)
    query.extend(auth.query)
    cookies.extend(auth.cookies)
    if cookies:
        headers.append(("Cookie", "; ".join(cookies)))

    # URL
    base_raw = resolve(
        plan.base_url, env, redactor, where=f"service {service} base_url", secret=False
    )
    prefix, base_query, base_url = _base(base_raw)
    if base_query:
        query.insert(0, base_query)
    text_url = prefix + path + ("?" + "&".join(query) if query else "")
    if len(text_url) > MAX_URL_LENGTH:
        raise _Refused(
            ToolError(
                "refused_by_policy",
                f"the URL would be {len(text_url)} characters; the limit is {MAX_URL_LENGTH}",
            )
        )
    url = httpx.URL(text_url)
    # where the service's credentials may go: its own base URL (a tool's base_url
    # override must lie under it; an import gives a foreign server its own service)
    home = base_url
    if plan.base_url != plan.service.base_url:
        home = _base(
            resolve(
                plan.service.base_url,
                env,
                redactor,
                where=f"service {service} base_url",
                secret=False,
            )
        )[2]
    if not under_base(url, base_url) or (home is not base_url and not under_base(url, home)):
        raise _Refused(
            ToolError(
                "refused_by_policy",
                f"the request would leave the base URL of service {service!r} "
                f"({_shown(home)}); nothing was sent",
            )
        )

    grant: TokenGrant | None = auth.oauth
    if auth.forward or auth.exchange is not None:
        # the base URL decides (the request lies under it): one check per service, cached
        try:
            caller = context if context is not None else current_context()
            grant = caller_credentials(auth, home, service, caller, redactor, headers, preview)
        except CallerTokenRefused as exc:
            raise _Refused(exc.error) from None
    wire_headers: list[tuple[str, str | bytes]] = [
        (k, v if v.isascii() else v.encode()) for k, v in headers
    ]
    draft = Draft(plan.method, url, wire_headers, redactor, oauth=grant, base=home)
    draft.unset = tuple(unset or ())
    if plan.body is not None:
        _body(plan, args, draft)
    return draft


def _body(plan: ToolPlan, args: Mapping[str, Any], draft: Draft) -> None:  # noqa: C901  the body's value (template, one argument, or fields), then its media type's encoding
    spec = plan.body
    assert spec is not None
    if plan.body_template is not None:
        value = plan.body_template.render(args)
    elif spec.argument is not None:
        if spec.argument not in args:
            return
        value = args[spec.argument]
    else:
        value = {b.wire_name: args[b.argument] for b in plan.body_bindings if b.argument in args}
        if not value and not spec.required:
            return
    media = spec.media_type.split(";")[0].strip().lower()
    # OpenAPI ``encoding`` of form and multipart properties, kept on their bindings
    encoded = {
        b.wire_name: b
        for b in plan.body_bindings
        if b.style is not None or b.content_type is not None or b.allow_reserved
    }
    if spec.template is not None or spec.argument is not None:
        encoded = {}
    if media == "multipart/form-data":
        _multipart(spec.binary_fields, spec.argument, value, draft, encoded)
        return
    if media == "application/x-www-form-urlencoded":
        pairs: list[tuple[str, str]] = []
        styled: list[str] = []
        if isinstance(value, Mapping):
            for k, v in value.items():
                if k in encoded:
                    query_pairs(encoded[k], v, styled)
                elif isinstance(v, list):
                    pairs.extend((k, to_text(i)) for i in v)
                elif v is not None:
                    pairs.append((k, to_text(v)))
        else:
            pairs.append((spec.argument or "value", to_text(value)))
        text = "&".join(filter(None, [urlencode(pairs), *styled]))
        draft.content = text.encode()
        draft.preview = text
    elif media == "application/octet-stream" or not _is_textual(media):
        if isinstance(value, str):
            try:
                draft.content = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise _Refused(
                    ToolError(
                        "invalid_arguments",
                        "binary body must be base64 text",
                        (spec.argument,) if spec.argument else (),
                    )
                ) from exc
        else:
            draft.content = to_text(value).encode()
        draft.preview = f"<{len(draft.content)} bytes>"
    elif isinstance(value, str) and not is_json_media_type(media):
        # text/*, XML, YAML, JWT...: the argument is the document itself, sent as is
        draft.content = value.encode()
        draft.preview = value
    else:  # JSON and +json; a non-JSON textual type gets the JSON text too
        draft.content = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
        draft.preview = value
    draft.headers.append(("Content-Type", spec.media_type))


def _is_textual(media: str) -> bool:
    return (
        media.startswith("text/")
        or media.endswith("json")
        or media.endswith(("+xml", "+yaml"))
        or media in _TEXTUAL
    )


_TEXTUAL = frozenset(
    {
        "application/xml",
        "application/x-www-form-urlencoded",
        "application/yaml",
        "application/x-yaml",
        "application/jwt",
        "application/sql",
        "application/graphql",
        "application/javascript",
    }
)


def _multipart(
    binary: tuple[str, ...],
    argument: str | None,
    value: Any,
    draft: Draft,
    encoded: Mapping[str, ParameterBinding],
) -> None:
    if not isinstance(value, Mapping):
        value = {argument or "file": value}
    data: dict[str, Any] = {}
    files: list[tuple[str, tuple[str | None, bytes, str]]] = []
    preview: dict[str, Any] = {}
    for key, v in value.items():
        if key in binary:
            part = _file_part(key, v)
            files.append((key, part))
            preview[key] = f"<file {part[0]!r}, {part[2]}, {len(part[1])} bytes>"
        elif key in encoded and encoded[key].content_type is not None and v is not None:
            # a part with its own media type (OpenAPI encoding.contentType): JSON unless text
            ctype = str(encoded[key].content_type)
            text = v if isinstance(v, str) and not is_json_media_type(ctype) else to_text(v)
            if is_json_media_type(ctype):
                text = json.dumps(v, separators=(",", ":"), ensure_ascii=False)
            files.append((key, (None, text.encode(), ctype)))
            preview[key] = v
        elif isinstance(v, list):
            data[key] = [to_text(i) for i in v]
            preview[key] = data[key]
        elif v is not None:
            data[key] = to_text(v)
            preview[key] = data[key]
    draft.data = data
    draft.files = files
    draft.preview = preview


def _file_part(key: str, value: Any) -> tuple[str, bytes, str]:
    if isinstance(value, str):
        return (key, value.encode(), "text/plain; charset=utf-8")
    if isinstance(value, Mapping):
        filename = str(value.get("filename") or key)
        ctype = str(value.get("content_type") or "application/octet-stream")
        if "content_base64" in value:
            try:
                content = base64.b64decode(str(value["content_base64"]), validate=True)
            except (binascii.Error, ValueError) as exc:
                raise _Refused(
                    ToolError(
                        "invalid_arguments", "content_base64 is not base64", (key, "content_base64")
                    )
                ) from exc
        else:
            content = to_text(value.get("content", "")).encode()
        if bad_header_char(filename) or bad_header_char(ctype):
            raise _Refused(
                ToolError(
                    "refused_by_policy", "file name or type contains a control character", (key,)
                )
            )
        return (filename, content, ctype)
    return (key, to_text(value).encode(), "application/octet-stream")


def request_for(
    client: httpx.Client | httpx.AsyncClient,
    draft: Draft,
    headers: list[tuple[str, str | bytes]] | None = None,
    extensions: dict[str, Any] | None = None,
) -> httpx.Request:
    """The ``httpx.Request`` for ``draft``, built by ``client`` so its defaults apply;
    ``headers`` in place of the draft's, ``extensions`` (a timeout) handed to httpx."""
    # httpx takes str and bytes values in one header list; its annotation wants one kind.
    sent = cast("list[tuple[str, str]]", draft.headers if headers is None else headers)
    if draft.files is not None:
        return client.build_request(
            draft.method,
            draft.url,
            headers=sent,
            data=draft.data,
            files=draft.files,
            extensions=extensions,
        )
    return client.build_request(
        draft.method, draft.url, headers=sent, content=draft.content, extensions=extensions
    )
