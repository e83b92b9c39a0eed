"""The catalog file format, version 1, as light frozen objects: the load path without pydantic.

The pydantic models in :mod:`._models` define the format (and generate its
JSON Schema); importing and building them costs more than a small catalog's
whole load. So each document is first checked here by hand: a document these
checks accept is one the models accept, and it becomes the same values in
plain frozen objects with the same attribute names. Anything they do not accept
for sure (a wrong type, an unknown key, a value out of bounds, a str subclass)
gives ``None``, and :func:`._shape.validate_item` asks pydantic, which decides and
explains exactly as before. ``tests/unit/test_fast_docs.py`` fails when these
classes drift from the models, and checks that both paths give the same values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from toolcat.catalog import METHODS, HttpMethod

__all__ = [
    "AccessGrantDoc",
    "AccessRuleDoc",
    "AnnotationsDoc",
    "ApiKeyAuthDoc",
    "ApiKeyEntryDoc",
    "AuditDoc",
    "AuthDoc",
    "BasicAuthDoc",
    "BearerAuthDoc",
    "Doc",
    "EmbeddingsDoc",
    "ExampleDoc",
    "ExampleRequestDoc",
    "ExampleResponseDoc",
    "ForwardCallerTokenDoc",
    "IntrospectionDoc",
    "JwtAuthDoc",
    "NoAuthDoc",
    "OAuth2ClientCredentialsDoc",
    "OpenApiEntryDoc",
    "OpenApiOverrideDoc",
    "OpenApiRuleDoc",
    "OpenApiRuleMatchDoc",
    "OpenApiSelectionDoc",
    "ParameterDoc",
    "QuotaDoc",
    "RedisDoc",
    "ResponseDoc",
    "RetryDoc",
    "SearchDoc",
    "ServerAuthDoc",
    "ServerDoc",
    "ServiceDoc",
    "TimeoutDoc",
    "TokenExchangeDoc",
    "ToolDoc",
    "ToolsetDoc",
    "from_model",
    "openapi_entry",
]

_BAD: Any = object()  # a value the fast check does not accept
Check = Callable[[Any], Any]  # the value as the model holds it, or _BAD
_REQUIRED: Any = object()


class _Field:
    def __init__(
        self,
        attr: str,
        check: Check,
        default: Any = _REQUIRED,
        *,
        key: str | None = None,
        factory: Callable[[], Any] | None = None,
    ) -> None:
        self.attr, self.key, self.check = attr, key or attr, check
        self.default, self.factory = default, factory

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED and self.factory is None


class Doc:
    """A checked document: frozen, with the attributes of its pydantic model."""

    FIELDS: ClassVar[tuple[_Field, ...]] = ()
    EXTRA: ClassVar[bool] = False  # unknown keys kept in model_extra (ParameterDoc)
    model_extra: dict[str, Any] | None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Doc) or type(other) is not type(self):
            return NotImplemented
        return self.model_dump() == other.model_dump() and self.model_extra == other.model_extra

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.attr}={getattr(self, f.attr)!r}" for f in self.FIELDS)
        return f"{type(self).__name__}({inner})"

    @classmethod
    def parse(cls, data: Any) -> Any:
        """The document as this class, or ``None`` when the fast check is not sure."""
        value = _model(cls)(data)
        return None if value is _BAD else value

    def model_dump(self, *, by_alias: bool = False, exclude_none: bool = False) -> dict[str, Any]:
        """As pydantic's ``model_dump`` (the modes the loader uses)."""
        out: dict[str, Any] = {}
        for f in self.FIELDS:
            value = getattr(self, f.attr)
            if exclude_none and value is None:
                continue
            out[f.key if by_alias else f.attr] = _dump(value, by_alias, exclude_none)
        if self.model_extra:
            out.update(self.model_extra)
        return out


def _dump(value: Any, by_alias: bool, exclude_none: bool) -> Any:
    if isinstance(value, Doc):
        return value.model_dump(by_alias=by_alias, exclude_none=exclude_none)
    if type(value) is dict:
        return {k: _dump(v, by_alias, exclude_none) for k, v in value.items()}
    if type(value) is list:
        return [_dump(v, by_alias, exclude_none) for v in value]
    return value


def _build(cls: type[Doc], values: dict[str, Any], extra: dict[str, Any] | None) -> Doc:
    obj = object.__new__(cls)
    state = obj.__dict__  # one update, past the frozen __setattr__
    state.update(values)
    state["model_extra"] = extra
    return obj


_CHECKS: dict[type[Doc], Check] = {}


def _model(cls: type[Doc]) -> Check:
    check = _CHECKS.get(cls)
    if check is None:
        check = _CHECKS[cls] = _make_check(cls)
    return check


def _make_check(cls: type[Doc]) -> Check:
    fields = cls.FIELDS
    # plain tuples, looked up once here: the check runs for every parameter of every tool
    keys = {f.key: (f.attr, f.check) for f in fields}
    plan = tuple((f.attr, f.required, f.factory, f.default) for f in fields)
    attrs_only = {f.attr for f in fields if f.attr != f.key}  # populate_by_name: ask pydantic

    def check(data: Any) -> Any:
        if type(data) is not dict:
            return _BAD
        values: dict[str, Any] = {}
        extra: dict[str, Any] | None = {} if cls.EXTRA else None
        for key, raw in data.items():
            known = keys.get(key)
            if known is None:
                if extra is None or type(key) is not str or key in attrs_only:
                    return _BAD
                extra[key] = raw
                continue
            value = known[1](raw)
            if value is _BAD:
                return _BAD
            values[known[0]] = value
        for attr, required, factory, default in plan:
            if attr not in values:
                if required:
                    return _BAD
                values[attr] = factory() if factory is not None else default
        return _build(cls, values, extra)

    return check


# --- value checks: each returns the value as the strict model holds it, or _BAD ---


def _str(v: Any) -> Any:
    return v if type(v) is str else _BAD


def _bool(v: Any) -> Any:
    return v if type(v) is bool else _BAD


def _any(v: Any) -> Any:
    return v


def _int(lo: int | None = None, hi: int | None = None) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not int or (lo is not None and v < lo) or (hi is not None and v > hi):
            return _BAD
        return v

    return check


def _float(gt: float | None = None, ge: float | None = None) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not float and type(v) is not int:
            return _BAD
        try:
            v = float(v)
        except OverflowError:  # an int too large for a float: pydantic's words
            return _BAD
        if v != v or (gt is not None and not v > gt) or (ge is not None and not v >= ge):
            return _BAD  # NaN: pydantic's own words about it
        return v

    return check


def _optional(inner: Check) -> Check:
    def check(v: Any) -> Any:
        return None if v is None else inner(v)

    return check


def _literal(*choices: str) -> Check:
    allowed = frozenset(choices)

    def check(v: Any) -> Any:
        return v if type(v) is str and v in allowed else _BAD

    return check


def _list(inner: Check) -> Check:
    def check(v: Any) -> Any:
        if not isinstance(v, list):  # FrozenList from the importer too: a plain list back
            return _BAD
        out = [inner(x) for x in v]
        return _BAD if any(x is _BAD for x in out) else out

    return check


def _dict(inner: Check) -> Check:
    def check(v: Any) -> Any:
        if not isinstance(v, dict):  # FrozenDict from the importer too: a plain dict back
            return _BAD
        out: dict[str, Any] = {}
        for k, x in v.items():
            if type(k) is not str:
                return _BAD
            value = inner(x)
            if value is _BAD:
                return _BAD
            out[k] = value
        return out

    return check


def _first(*members: Check) -> Check:
    """A union whose members take disjoint Python types (the first that accepts wins)."""

    def check(v: Any) -> Any:
        for member in members:
            value = member(v)
            if value is not _BAD:
                return value
        return _BAD

    return check


def _header(v: Any) -> Any:  # str | int | float | bool, each kept as it is
    return v if type(v) in (str, int, float, bool) else _BAD


def _method(v: Any) -> Any:
    if type(v) is not str:
        return _BAD
    upper = v.upper()
    return upper if upper in METHODS else _BAD


def _nested(cls: type[Doc]) -> Check:
    return lambda v: _model(cls)(v)


def _plain_dict(v: Any) -> Any:  # dict[str, Any]
    if not isinstance(v, dict) or any(type(k) is not str for k in v):
        return _BAD
    return dict(v)


class TimeoutDoc(Doc):
    connect: float | None
    read: float | None
    total: float | None


TimeoutDoc.FIELDS = (
    _Field("connect", _optional(_float(gt=0)), None),
    _Field("read", _optional(_float(gt=0)), None),
    _Field("total", _optional(_float(gt=0)), None),
)


_SECONDS = _float(gt=0)


def _timeout(v: Any) -> Any:  # seconds, or {connect, read, total}
    if type(v) is dict:
        return _model(TimeoutDoc)(v)
    return _SECONDS(v)


class RetryDoc(Doc):
    attempts: int
    backoff: float
    max_backoff: float
    on_status: list[int]
    retry_after_cap: float


RetryDoc.FIELDS = (
    _Field("attempts", _int(1, 20), 1),
    _Field("backoff", _float(ge=0), 0.2),
    _Field("max_backoff", _float(ge=0), 10.0),
    _Field("on_status", _list(_int(100, 599)), factory=lambda: [429, 502, 503, 504]),
    _Field("retry_after_cap", _float(ge=0), 30.0),
)


class NoAuthDoc(Doc):
    type: Literal["none"]


class BearerAuthDoc(Doc):
    type: Literal["bearer"]
    token: str


class BasicAuthDoc(Doc):
    type: Literal["basic"]
    username: str
    password: str


class ApiKeyAuthDoc(Doc):
    type: Literal["api_key"]
    in_: Literal["header", "query", "cookie"]
    name: str
    value: str


class OAuth2ClientCredentialsDoc(Doc):
    type: Literal["oauth2_client_credentials"]
    token_url: str
    client_id: str
    client_secret: str
    scopes: list[str] | str


NoAuthDoc.FIELDS = (_Field("type", _literal("none")),)
BearerAuthDoc.FIELDS = (_Field("type", _literal("bearer")), _Field("token", _str))
BasicAuthDoc.FIELDS = (
    _Field("type", _literal("basic")),
    _Field("username", _str),
    _Field("password", _str),
)
ApiKeyAuthDoc.FIELDS = (
    _Field("type", _literal("api_key")),
    _Field("in_", _literal("header", "query", "cookie"), key="in"),
    _Field("name", _str),
    _Field("value", _str),
)
OAuth2ClientCredentialsDoc.FIELDS = (
    _Field("type", _literal("oauth2_client_credentials")),
    _Field("token_url", _str),
    _Field("client_id", _str),
    _Field("client_secret", _str),
    _Field("scopes", _first(_list(_str), _str), factory=list),
)


class ForwardCallerTokenDoc(Doc):
    type: Literal["forward_caller_token"]


class TokenExchangeDoc(Doc):
    type: Literal["token_exchange"]
    token_url: str
    client_id: str
    client_secret: str
    audience: str | None
    resource: str | None
    scopes: list[str] | str
    timeout: float
    max_lifetime: float


def _exchange_timeout(v: Any) -> Any:
    value = _float(gt=0)(v)
    return _BAD if value is _BAD or value > 60 else value


ForwardCallerTokenDoc.FIELDS = (_Field("type", _literal("forward_caller_token")),)
TokenExchangeDoc.FIELDS = (
    _Field("type", _literal("token_exchange")),
    _Field("token_url", _str),
    _Field("client_id", _str),
    _Field("client_secret", _str),
    _Field("audience", _optional(_str), None),
    _Field("resource", _optional(_str), None),
    _Field("scopes", _first(_list(_str), _str), factory=list),
    _Field("timeout", _exchange_timeout, 5.0),
    _Field("max_lifetime", _float(gt=0), 3600.0),
)

AuthDoc = (
    NoAuthDoc
    | BearerAuthDoc
    | BasicAuthDoc
    | ApiKeyAuthDoc
    | OAuth2ClientCredentialsDoc
    | ForwardCallerTokenDoc
    | TokenExchangeDoc
)
_AUTH_TYPES: dict[str, type[Doc]] = {
    "none": NoAuthDoc,
    "bearer": BearerAuthDoc,
    "basic": BasicAuthDoc,
    "api_key": ApiKeyAuthDoc,
    "oauth2_client_credentials": OAuth2ClientCredentialsDoc,
    "forward_caller_token": ForwardCallerTokenDoc,
    "token_exchange": TokenExchangeDoc,
}


def _auth(v: Any) -> Any:
    if type(v) is not dict:
        return _BAD
    tag = v.get("type")
    cls = _AUTH_TYPES.get(tag) if type(tag) is str else None
    return _BAD if cls is None else _model(cls)(v)


class ServiceDoc(Doc):
    base_url: str
    description: str | None
    headers: dict[str, str | int | float | bool]
    auth: AuthDoc | None
    timeout: float | TimeoutDoc | None
    retry: RetryDoc | None
    max_response_chars: int | None
    max_response_bytes: int | None
    validate_responses: Literal["warn", "error"] | None
    spec: str | None


ServiceDoc.FIELDS = (
    _Field("base_url", _str),
    _Field("description", _optional(_str), None),
    _Field("headers", _dict(_header), factory=dict),
    _Field("auth", _optional(_auth), None),
    _Field("timeout", _optional(_timeout), None),
    _Field("retry", _optional(_nested(RetryDoc)), None),
    _Field("max_response_chars", _optional(_int(1)), None),
    _Field("max_response_bytes", _optional(_int(1)), None),
    _Field("validate_responses", _optional(_literal("warn", "error")), None),
    _Field("spec", _optional(_str), None),
)


Style = Literal[
    "form", "spaceDelimited", "pipeDelimited", "deepObject", "simple", "label", "matrix"
]


class ParameterDoc(Doc):
    EXTRA = True
    in_: Literal["path", "query", "header", "cookie", "body"] | None
    name: str | None
    required: bool | list[str] | None
    style: Style | None
    explode: bool | None
    allow_reserved: bool | None
    content_type: str | None
    file: bool | None
    from_: str | None
    sensitive: bool | None


_CONTEXT_SOURCE = re.compile(r"(claims|context)\.[A-Za-z0-9_:/-]+(\.[A-Za-z0-9_:/-]+)*")


def _context_source(v: Any) -> Any:
    return v if type(v) is str and _CONTEXT_SOURCE.fullmatch(v) else _BAD


ParameterDoc.FIELDS = (
    _Field("in_", _optional(_literal("path", "query", "header", "cookie", "body")), None, key="in"),
    _Field("name", _optional(_str), None),
    _Field("required", _optional(_first(_bool, _list(_str))), None),
    _Field(
        "style",
        _optional(
            _literal(
                "form",
                "spaceDelimited",
                "pipeDelimited",
                "deepObject",
                "simple",
                "label",
                "matrix",
            )
        ),
        None,
    ),
    _Field("explode", _optional(_bool), None),
    _Field("allow_reserved", _optional(_bool), None),
    _Field("content_type", _optional(_str), None),
    _Field("file", _optional(_bool), None),
    _Field("from_", _optional(_context_source), None, key="from"),
    _Field("sensitive", _optional(_bool), None),
)


class ResponseDoc(Doc):
    select: str | None
    max_chars: int | None


ResponseDoc.FIELDS = (
    _Field("select", _optional(_str), None),
    _Field("max_chars", _optional(_int(1)), None),
)


class AnnotationsDoc(Doc):
    title: str | None
    read_only: bool | None
    destructive: bool | None
    idempotent: bool | None
    open_world: bool | None


AnnotationsDoc.FIELDS = (
    _Field("title", _optional(_str), None),
    _Field("read_only", _optional(_bool), None),
    _Field("destructive", _optional(_bool), None),
    _Field("idempotent", _optional(_bool), None),
    _Field("open_world", _optional(_bool), None),
)


class ExampleRequestDoc(Doc):
    method: HttpMethod | None
    path: str | None
    query: dict[str, str | int | float | bool | list[str | int | float | bool]] | None
    headers: dict[str, str | int | float | bool] | None
    body: Any


ExampleRequestDoc.FIELDS = (
    _Field("method", _optional(_method), None),
    _Field("path", _optional(_str), None),
    _Field("query", _optional(_dict(_first(_header, _list(_header)))), None),
    _Field("headers", _optional(_dict(_header)), None),
    _Field("body", _any, None),
)


class ExampleResponseDoc(Doc):
    status: int
    headers: dict[str, str | int | float | bool]
    body: Any


ExampleResponseDoc.FIELDS = (
    _Field("status", _int(100, 599), 200),
    _Field("headers", _dict(_header), factory=dict),
    _Field("body", _any, None),
)


class ExampleDoc(Doc):
    name: str | None
    arguments: dict[str, Any]
    request: ExampleRequestDoc | None
    response: ExampleResponseDoc | None
    result: Any


ExampleDoc.FIELDS = (
    _Field("name", _optional(_str), None),
    _Field("arguments", _plain_dict, factory=dict),
    _Field("request", _optional(_nested(ExampleRequestDoc)), None),
    _Field("response", _optional(_nested(ExampleResponseDoc)), None),
    _Field("result", _any, None),
)


class ToolDoc(Doc):
    name: str
    description: str | None
    service: str
    method: HttpMethod
    path: str
    parameters: dict[str, ParameterDoc] | None
    body: Any
    body_argument: str | None
    content_type: str | None
    response: ResponseDoc | None
    confirm: bool | None
    return_direct: bool
    timeout: float | TimeoutDoc | None
    retry: RetryDoc | None
    retry_unsafe: bool
    tags: list[str]
    definitions: dict[str, dict[str, Any] | bool] | None
    output_schema: dict[str, Any] | bool | None
    annotations: AnnotationsDoc | None
    auth: AuthDoc | None
    base_url: str | None
    headers: dict[str, str | int | float | bool]
    examples: list[ExampleDoc] | None
    idempotency_key: str | None


ToolDoc.FIELDS = (
    _Field("name", _str),
    _Field("description", _optional(_str), None),
    _Field("service", _str),
    _Field("method", _method),
    _Field("path", _str),
    _Field("parameters", _optional(_dict(_nested(ParameterDoc))), None),
    _Field("body", _any, None),
    _Field("body_argument", _optional(_str), None),
    _Field("content_type", _optional(_str), None),
    _Field("response", _optional(_nested(ResponseDoc)), None),
    _Field("confirm", _optional(_bool), None),
    _Field("return_direct", _bool, False),
    _Field("timeout", _optional(_timeout), None),
    _Field("retry", _optional(_nested(RetryDoc)), None),
    _Field("retry_unsafe", _bool, False),
    _Field("tags", _list(_str), factory=list),
    _Field("definitions", _optional(_dict(_first(_plain_dict, _bool))), None),
    _Field("output_schema", _optional(_first(_plain_dict, _bool)), None),
    _Field("annotations", _optional(_nested(AnnotationsDoc)), None),
    _Field("auth", _optional(_auth), None),
    _Field("base_url", _optional(_str), None),
    _Field("headers", _dict(_header), factory=dict),
    _Field("examples", _optional(_list(_nested(ExampleDoc))), None),
    _Field("idempotency_key", _optional(_str), None),
)


class ToolsetDoc(Doc):
    """The long form of a toolset; the loader reads it by hand (for its x- keys)."""

    tools: list[str]


ToolsetDoc.FIELDS = (_Field("tools", _list(_str)),)


class OpenApiSelectionDoc(Doc):
    tags: list[str] | None
    operations: list[str] | None
    paths: list[str] | None
    methods: list[HttpMethod] | None


OpenApiSelectionDoc.FIELDS = (
    _Field("tags", _optional(_list(_str)), None),
    _Field("operations", _optional(_list(_str)), None),
    _Field("paths", _optional(_list(_str)), None),
    _Field("methods", _optional(_list(_method)), None),
)


class OpenApiOverrideDoc(Doc):
    name: str | None
    description: str | None
    confirm: bool | None
    return_direct: bool | None
    tags: list[str] | None
    service: str | None
    method: HttpMethod | None
    path: str | None
    parameters: dict[str, ParameterDoc] | None
    body: Any
    body_argument: str | None
    content_type: str | None
    response: ResponseDoc | None
    timeout: float | TimeoutDoc | None
    retry: RetryDoc | None
    retry_unsafe: bool | None
    definitions: dict[str, dict[str, Any] | bool] | None
    output_schema: dict[str, Any] | bool | None
    annotations: AnnotationsDoc | None
    auth: AuthDoc | None
    base_url: str | None
    headers: dict[str, str | int | float | bool] | None
    idempotency_key: str | None


OpenApiOverrideDoc.FIELDS = (
    _Field("name", _optional(_str), None),
    _Field("description", _optional(_str), None),
    _Field("confirm", _optional(_bool), None),
    _Field("return_direct", _optional(_bool), None),
    _Field("tags", _optional(_list(_str)), None),
    _Field("service", _optional(_str), None),
    _Field("method", _optional(_method), None),
    _Field("path", _optional(_str), None),
    _Field("parameters", _optional(_dict(_nested(ParameterDoc))), None),
    _Field("body", _any, None),
    _Field("body_argument", _optional(_str), None),
    _Field("content_type", _optional(_str), None),
    _Field("response", _optional(_nested(ResponseDoc)), None),
    _Field("timeout", _optional(_timeout), None),
    _Field("retry", _optional(_nested(RetryDoc)), None),
    _Field("retry_unsafe", _optional(_bool), None),
    _Field("definitions", _optional(_dict(_first(_plain_dict, _bool))), None),
    _Field("output_schema", _optional(_first(_plain_dict, _bool)), None),
    _Field("annotations", _optional(_nested(AnnotationsDoc)), None),
    _Field("auth", _optional(_auth), None),
    _Field("base_url", _optional(_str), None),
    _Field("headers", _optional(_dict(_header)), None),
    _Field("idempotency_key", _optional(_str), None),
)


class OpenApiRuleMatchDoc(Doc):
    tags: list[str] | None
    methods: list[HttpMethod] | None
    paths: list[str] | None
    operations: list[str] | None


OpenApiRuleMatchDoc.FIELDS = (
    _Field("tags", _optional(_list(_str)), None),
    _Field("methods", _optional(_list(_method)), None),
    _Field("paths", _optional(_list(_str)), None),
    _Field("operations", _optional(_list(_str)), None),
)


class OpenApiRuleDoc(Doc):
    match: OpenApiRuleMatchDoc | None
    confirm: bool | None
    toolsets: list[str] | None
    timeout: float | TimeoutDoc | None
    retry: RetryDoc | None
    description_prefix: str | None
    exclude: bool | None


OpenApiRuleDoc.FIELDS = (
    _Field("match", _optional(_nested(OpenApiRuleMatchDoc)), None),
    _Field("confirm", _optional(_bool), None),
    _Field("toolsets", _optional(_list(_str)), None),
    _Field("timeout", _optional(_timeout), None),
    _Field("retry", _optional(_nested(RetryDoc)), None),
    _Field("description_prefix", _optional(_str), None),
    _Field("exclude", _optional(_bool), None),
)


class OpenApiEntryDoc(Doc):
    spec: str
    service: str | None
    include: OpenApiSelectionDoc | None
    exclude: OpenApiSelectionDoc | None
    prefix: str
    tools: dict[str, OpenApiOverrideDoc] | None
    ref_root: str | None
    overlays: list[str] | None
    rules: list[OpenApiRuleDoc] | None
    output_schemas: str | None
    descriptions: str | None
    description_max: int | None
    base_url_style: str | None
    naming: str | None
    confirm_methods: list[HttpMethod] | None


OpenApiEntryDoc.FIELDS = (
    _Field("spec", _str),
    _Field("service", _optional(_str), None),
    _Field("include", _optional(_nested(OpenApiSelectionDoc)), None),
    _Field("exclude", _optional(_nested(OpenApiSelectionDoc)), None),
    _Field("prefix", _str, ""),
    _Field("tools", _optional(_dict(_nested(OpenApiOverrideDoc))), None),
    _Field("ref_root", _optional(_str), None),
    _Field("overlays", _optional(_list(_str)), None),
    _Field("rules", _optional(_list(_nested(OpenApiRuleDoc))), None),
    _Field("output_schemas", _optional(_literal("shared", "inline", "none")), None),
    _Field("descriptions", _optional(_literal("markdown", "keep")), None),
    _Field("description_max", _optional(_int(40, 100000)), None),
    _Field("base_url_style", _optional(_literal("env", "fixed")), None),
    _Field("naming", _optional(_literal("operation_id", "snake_case")), None),
    _Field("confirm_methods", _optional(_list(_method)), None),
)


# --- the ``server:`` section (serving over HTTP) ---

_SCOPE = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")  # RFC 6749 §3.3 scope-token
_KEY_NAME = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
_KEY_HASH = re.compile(r"sha256:[0-9a-f]{64}")
_JWT_ALGORITHMS: tuple[str, ...] = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
_JWT_ALGORITHMS += ("ES256", "ES384", "ES512", "EdDSA")


def _matching(pattern: re.Pattern[str]) -> Check:
    def check(v: Any) -> Any:
        # fullmatch, and no final newline (pydantic's pattern ends with $, which would allow
        # one): a value the fast check is unsure of goes to pydantic anyway
        return v if type(v) is str and pattern.fullmatch(v) else _BAD

    return check


def _bounded_float(ge: float, le: float) -> Check:
    inner = _float(ge=ge)

    def check(v: Any) -> Any:
        value = inner(v)
        return _BAD if value is _BAD or value > le else value

    return check


def _non_empty(inner: Check) -> Check:
    def check(v: Any) -> Any:
        return _BAD if isinstance(v, list) and not v else inner(v)

    return check


class JwtAuthDoc(Doc):
    issuer: str
    jwks_url: str
    audience: str | None
    algorithms: list[str] | None
    leeway: float
    required_claims: list[str]
    jwks_cache_seconds: float
    jwks_min_refresh: float


JwtAuthDoc.FIELDS = (
    _Field("issuer", _str),
    _Field("jwks_url", _str),
    _Field("audience", _optional(_str), None),
    _Field(
        "algorithms",
        _optional(_non_empty(_list(_literal(*_JWT_ALGORITHMS)))),
        None,
    ),
    _Field("leeway", _bounded_float(0, 300), 30),
    _Field("required_claims", _list(_str), factory=list),
    _Field("jwks_cache_seconds", _bounded_float(60, 86400), 3600),
    _Field("jwks_min_refresh", _bounded_float(1, 3600), 30),
)


class IntrospectionDoc(Doc):
    url: str
    client_id: str | None
    client_secret: str | None
    cache_seconds: float


IntrospectionDoc.FIELDS = (
    _Field("url", _str),
    _Field("client_id", _optional(_str), None),
    _Field("client_secret", _optional(_str), None),
    _Field("cache_seconds", _bounded_float(0, 3600), 300),
)


class ApiKeyEntryDoc(Doc):
    name: str
    hash: str
    scopes: list[str]


ApiKeyEntryDoc.FIELDS = (
    _Field("name", _matching(_KEY_NAME)),
    _Field("hash", _matching(_KEY_HASH)),
    _Field("scopes", _list(_matching(_SCOPE)), factory=list),
)


class ServerAuthDoc(Doc):
    jwt: JwtAuthDoc | None
    introspection: IntrospectionDoc | None
    api_keys: list[ApiKeyEntryDoc]
    required_scopes: list[str]
    client_claims: list[str]


_CLAIM_NAME = re.compile(r"[\x21-\x7E]{1,256}")


def _client_claims(v: Any) -> Any:  # 1-8 claim names
    checked = _list(_matching(_CLAIM_NAME))(v)
    return checked if checked is _BAD or 1 <= len(checked) <= 8 else _BAD


ServerAuthDoc.FIELDS = (
    _Field("jwt", _optional(_nested(JwtAuthDoc)), None),
    _Field("introspection", _optional(_nested(IntrospectionDoc)), None),
    _Field("api_keys", _list(_nested(ApiKeyEntryDoc)), factory=list),
    _Field("required_scopes", _list(_matching(_SCOPE)), factory=list),
    _Field("client_claims", _client_claims, factory=lambda: ["client_id", "azp"]),
)


def _claim_value(v: Any) -> Any:
    return v if type(v) is str and 1 <= len(v) <= 1024 else _BAD


def _claim_values(v: Any) -> Any:  # a value, or a list of them
    return _claim_value(v) if type(v) is str else _list(_claim_value)(v)


def _when(v: Any) -> Any:  # dict[ClaimName, ClaimValue | list[ClaimValue]]
    if type(v) is not dict:
        return _BAD
    out = {}
    for key, value in v.items():
        if type(key) is not str or not _CLAIM_NAME.fullmatch(key):
            return _BAD
        checked = _claim_values(value)
        if checked is _BAD:
            return _BAD
        out[key] = checked
    return out


class AccessGrantDoc(Doc):
    toolsets: list[str]
    tools: list[str]
    tags: list[str]


AccessGrantDoc.FIELDS = (
    _Field("toolsets", _list(_str), factory=list),
    _Field("tools", _list(_str), factory=list),
    _Field("tags", _list(_str), factory=list),
)


class AccessRuleDoc(Doc):
    name: str | None
    when: dict[str, str | list[str]]
    allow: AccessGrantDoc | None
    deny: AccessGrantDoc | None


AccessRuleDoc.FIELDS = (
    _Field("name", _optional(_str), None),
    _Field("when", _when, factory=dict),
    _Field("allow", _optional(_nested(AccessGrantDoc)), None),
    _Field("deny", _optional(_nested(AccessGrantDoc)), None),
)


def _non_empty_str(v: Any) -> Any:
    return v if type(v) is str and v else _BAD


class AuditDoc(Doc):
    path: str
    max_bytes: int
    backups: int
    fail_closed: str
    max_argument_chars: int


AuditDoc.FIELDS = (
    _Field("path", _non_empty_str),
    _Field("max_bytes", _int(1024), 100 * 1024 * 1024),
    _Field("backups", _int(0, 1000), 5),
    _Field("fail_closed", _literal("non_safe", "always", "never"), "non_safe"),
    _Field("max_argument_chars", _int(64), 4096),
)


class QuotaDoc(Doc):
    name: str | None
    when: dict[str, str | list[str]]
    rate: str
    burst: int | None
    toolsets: list[str]
    tools: list[str]
    tags: list[str]
    per: str


QuotaDoc.FIELDS = (
    _Field("name", _optional(_str), None),
    _Field("when", _when, factory=dict),
    _Field("rate", _str),
    _Field("burst", _optional(_int(1)), None),
    _Field("toolsets", _list(_str), factory=list),
    _Field("tools", _list(_str), factory=list),
    _Field("tags", _list(_str), factory=list),
    _Field("per", _literal("tool", "rule"), "tool"),
)


def _concurrency(v: Any) -> Any:  # dict[str, int >= 1]
    if type(v) is not dict:
        return _BAD
    for key, value in v.items():
        if type(key) is not str or type(value) is not int or value < 1:
            return _BAD
    return v


class RedisDoc(Doc):
    url: str
    prefix: str
    timeout: float
    lease_seconds: float
    idempotency_seconds: float


RedisDoc.FIELDS = (
    _Field("url", _non_empty_str),
    _Field("prefix", _str, "toolcat:"),
    _Field("timeout", _float(gt=0), 0.5),
    _Field("lease_seconds", _float(gt=0), 300.0),
    _Field("idempotency_seconds", _float(gt=0), 600.0),
)


class ServerDoc(Doc):
    resource: str | None
    authorization_servers: list[str] | None
    auth: ServerAuthDoc | None
    access: list[AccessRuleDoc] | None
    audit: AuditDoc | None
    quotas: list[QuotaDoc] | None
    concurrency: dict[str, int] | None
    redis: RedisDoc | None


ServerDoc.FIELDS = (
    _Field("resource", _optional(_str), None),
    _Field("authorization_servers", _optional(_list(_str)), None),
    _Field("auth", _optional(_nested(ServerAuthDoc)), None),
    _Field("access", _optional(_list(_nested(AccessRuleDoc))), None),
    _Field("audit", _optional(_nested(AuditDoc)), None),
    _Field("quotas", _optional(_list(_nested(QuotaDoc))), None),
    _Field("concurrency", _optional(_concurrency), None),
    _Field("redis", _optional(_nested(RedisDoc)), None),
)


def _pin(v: Any) -> Any:  # a name or glob of 1-200 characters
    return v if type(v) is str and 0 < len(v) <= 200 else _BAD


# --- the ``search:`` section ---


def _seconds(le: float) -> Check:
    inner = _float(gt=0)

    def check(v: Any) -> Any:
        value = inner(v)
        return _BAD if value is _BAD or value > le else value

    return check


class EmbeddingsDoc(Doc):
    url: str
    model: str
    api_key: str | None
    dimensions: int | None
    timeout: float
    cache: str | None
    weight: float
    k: int


EmbeddingsDoc.FIELDS = (
    _Field("url", _non_empty_str),
    _Field("model", _non_empty_str),
    _Field("api_key", _optional(_str), None),
    _Field("dimensions", _optional(_int(1, 16384)), None),
    _Field("timeout", _seconds(120), 10.0),
    _Field("cache", _optional(_str), None),
    _Field("weight", _bounded_float(0, 10), 1.0),
    _Field("k", _int(1, 1000), 60),
)


class SearchDoc(Doc):
    pinned: list[str] | dict[str, list[str]] | None
    embeddings: EmbeddingsDoc | None


SearchDoc.FIELDS = (
    _Field("pinned", _optional(_first(_list(_pin), _dict(_list(_pin)))), None),
    _Field("embeddings", _optional(_nested(EmbeddingsDoc)), None),
)


def openapi_entry(spec: str) -> OpenApiEntryDoc:
    """The entry of a spec named on the command line: ``{spec: PATH}``, everything else default."""
    entry: OpenApiEntryDoc = _model(OpenApiEntryDoc)({"spec": spec})
    return entry


def from_model(value: Any) -> Any:
    """A pydantic document (or a dict/list of them) as the light objects here."""
    model_fields = getattr(type(value), "model_fields", None)
    if model_fields is not None:
        cls = _BY_NAME[type(value).__name__]
        values = {f.attr: from_model(getattr(value, f.attr)) for f in cls.FIELDS}
        extra = getattr(value, "model_extra", None)
        return _build(cls, values, dict(extra or {}) if cls.EXTRA else None)
    if type(value) is dict:
        return {k: from_model(v) for k, v in value.items()}
    if type(value) is list:
        return [from_model(v) for v in value]
    return value


_BY_NAME: dict[str, type[Doc]] = {
    cls.__name__: cls
    for cls in (
        TimeoutDoc,
        RetryDoc,
        NoAuthDoc,
        BearerAuthDoc,
        BasicAuthDoc,
        ApiKeyAuthDoc,
        OAuth2ClientCredentialsDoc,
        ForwardCallerTokenDoc,
        TokenExchangeDoc,
        ServiceDoc,
        ParameterDoc,
        ResponseDoc,
        AnnotationsDoc,
        ExampleRequestDoc,
        ExampleResponseDoc,
        ExampleDoc,
        ToolDoc,
        OpenApiSelectionDoc,
        OpenApiOverrideDoc,
        OpenApiEntryDoc,
        OpenApiRuleMatchDoc,
        OpenApiRuleDoc,
        JwtAuthDoc,
        IntrospectionDoc,
        ApiKeyEntryDoc,
        ServerAuthDoc,
        AccessGrantDoc,
        AccessRuleDoc,
        AuditDoc,
        QuotaDoc,
        RedisDoc,
        ServerDoc,
        EmbeddingsDoc,
        SearchDoc,
    )
}
