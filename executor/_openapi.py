"""Requests and responses checked against an OpenAPI 3.x spec with openapi-core.

Used by services' ``validate_responses`` (at run time) and by ``toolcat test
--conformance``. openapi-core is optional (the ``conformance`` extra) and is
imported only when a spec is first checked, never with the executor.

The checked spec is given one server, ``CHECK_HOST``, and loses its path and
operation servers: a request is matched to its operation by its path below the
base URL it was sent to, whatever the catalog's base URL says (a
``${BASE_URL}`` override, a test host). ``$ref``s follow the one retrieval policy
(``toolcat.catalog``'s): files under the spec's ``$ref`` root, never a URL.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from toolcat._errors import ToolcatError
from toolcat.catalog.common import (
    RefRefused,
    default_ref_root,
    is_json_media_type,
    ref_file,
    refuse_retrieval,
)

if TYPE_CHECKING:
    import httpx

    from ._plan import ToolPlan
    from .http._dispatch import Reply
    from .http._render import Draft

__all__ = [
    "CHECK_HOST",
    "OpenApiSpec",
    "SpecUnavailable",
    "describe_violation",
    "openapi_request",
    "openapi_response",
    "response_problem",
]

CHECK_HOST = "http://toolcat.test"
_OPERATIONS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_LOCK = threading.Lock()
_CACHE: dict[str, OpenApiSpec] = {}


class SpecUnavailable(ToolcatError):
    """The spec cannot be used for checks (missing openapi-core, unreadable, not 3.x)."""


def _one_server(spec: dict[str, Any]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for key, item in (spec.get("paths") or {}).items():
        if isinstance(item, dict):
            item = {k: v for k, v in item.items() if k != "servers"}
            for op in _OPERATIONS:
                if isinstance(item.get(op), dict) and "servers" in item[op]:
                    item[op] = {k: v for k, v in item[op].items() if k != "servers"}
        paths[key] = item
    return {**spec, "servers": [{"url": CHECK_HOST}], "paths": paths}


class _Handlers(Mapping[str, Any]):
    """jsonschema-path's ``$ref`` readers by URI scheme, as the retrieval policy allows.

    jsonschema-path reads a URL of a scheme it has no handler for with urllib, so this
    has one for every scheme: ``file`` reads a file the policy allows (JSON or YAML,
    under the spec's ``$ref`` root: :func:`toolcat.catalog.common.ref_file`), every other
    scheme is refused (then openapi-core cannot check, which says so).
    """

    def __init__(self, spec: Path) -> None:
        from jsonschema_path.handlers.file import FilePathHandler

        self._spec = str(spec.resolve())
        self._root = default_ref_root(spec)
        self._read = FilePathHandler()

    def __contains__(self, scheme: object) -> bool:
        return True

    def __getitem__(self, scheme: str) -> Callable[[str], Any]:
        return self._file if scheme == "file" else refuse_retrieval

    def __iter__(self) -> Iterator[str]:
        return iter(("file",))

    def __len__(self) -> int:
        return 1

    def _file(self, uri: str) -> Any:
        from urllib.request import url2pathname

        parts = urlsplit(uri)
        if parts.netloc not in ("", "localhost"):
            return refuse_retrieval(uri)  # file://host/...: another machine's share
        try:
            real = ref_file(url2pathname(parts.path), self._spec, self._root)
        except RefRefused:
            return refuse_retrieval(uri)
        return self._read(real.as_uri())


def _json_media_types(document: Mapping[str, Any]) -> set[str]:
    """Every JSON media type the spec's request bodies and responses name."""
    found: set[str] = set()
    todo: list[Any] = [document.get("paths"), document.get("components")]
    while todo:  # the spec is a tree of JSON values: each node is met once
        node = todo.pop()
        if isinstance(node, dict):
            content = node.get("content")
            if isinstance(content, dict):
                found.update(str(m) for m in content if is_json_media_type(str(m)))
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return found


class OpenApiSpec:
    """One spec, read once: its operations by (METHOD, path template), and openapi-core's
    validators over it."""

    def __init__(self, path: str, document: Any) -> None:
        if not isinstance(document, dict) or not str(document.get("openapi", "")).startswith("3."):
            raise SpecUnavailable(
                f"{path} is not an OpenAPI 3.x spec (openapi-core checks 3.0 to 3.2)"
            )
        self.path = path
        self.operations: set[tuple[str, str]] = set()
        for key, item in (document.get("paths") or {}).items():
            if isinstance(item, dict):
                for op in _OPERATIONS:
                    if isinstance(item.get(op), dict):
                        self.operations.add((op.upper(), str(key)))
        from jsonschema_path import SchemaPath
        from openapi_core import Config, OpenAPI
        from openapi_core.deserializing.media_types.util import json_loads

        schema_path = SchemaPath.from_dict(
            _one_server(document),
            base_uri=Path(path).resolve().as_uri(),
            handlers=_Handlers(Path(path)),
        )
        # None: the spec is not validated first (openapi-core checks for it; its stub says not).
        # openapi-core reads application/json and application/vnd.api+json as JSON; the
        # spec's other JSON media types (text/json, application/merge-patch+json...) get
        # its JSON reader too, as the executor encodes them.
        json_types: dict[str, Callable[[bytes], Any]] = {
            m: json_loads for m in _json_media_types(document)
        }
        config = Config(
            spec_validator_cls=None,  # type: ignore[arg-type]
            extra_media_type_deserializers=json_types,
        )
        self.openapi = OpenAPI(schema_path, config=config)

    @classmethod
    def read(cls, path: str) -> OpenApiSpec:
        """The spec at ``path`` (cached per process); :class:`SpecUnavailable` when it cannot be."""
        key = str(Path(path).resolve())
        with _LOCK:
            found = _CACHE.get(key)
        if found is not None:
            return found
        try:
            from jsonschema_path.readers import FilePathReader
        except ImportError as exc:
            raise SpecUnavailable(
                "checking against the spec needs openapi-core: pip install 'toolcat[conformance]'"
            ) from exc
        try:
            document, _ = FilePathReader(path).read()
        except Exception as exc:
            raise SpecUnavailable(f"cannot read {path}: {exc}") from exc
        spec = cls(path, document)
        with _LOCK:
            _CACHE.setdefault(key, spec)
        return spec

    def has(self, method: str, template: str) -> bool:
        return (method.upper(), template) in self.operations

    def request_problem(self, request: Any) -> str | None:
        """Why ``request`` (from :func:`openapi_request`) does not conform, or ``None``;
        :class:`SpecUnavailable` when openapi-core cannot check it."""
        return self._problem(self.openapi.validate_request, request)

    @staticmethod
    def _problem(check: Any, *args: Any) -> str | None:
        """openapi-core's finding (its ``OpenAPIError``) as text; anything else it raises
        means it could not check, which is :class:`SpecUnavailable`, not a finding."""
        from openapi_core.exceptions import OpenAPIError

        try:
            with warnings.catch_warnings():  # "Unsupported scheme type" (oauth2, openIdConnect)
                warnings.simplefilter("ignore")
                check(*args)
        except OpenAPIError as exc:
            cause = _foreign_cause(exc)
            if cause is None:
                return describe_violation(exc)
            raise SpecUnavailable(
                f"openapi-core could not check it ({type(cause).__name__}: {cause})"[:500]
            ) from exc
        except Exception as exc:
            raise SpecUnavailable(
                f"openapi-core could not check it ({type(exc).__name__}: {exc})"[:500]
            ) from exc
        return None

    def response_problem(self, request: Any, response: Any) -> str | None:
        """Why ``response`` to ``request`` does not conform, or ``None``."""
        return self._problem(self.openapi.validate_response, request, response)


class _Request:
    """openapi-core's request protocol over a sent ``httpx.Request``."""

    def __init__(self, request: httpx.Request, base_path: str) -> None:
        from http.cookies import SimpleCookie

        from openapi_core.datatypes import RequestParameters
        from werkzeug.datastructures import Headers, ImmutableMultiDict

        raw = request.url.raw_path.decode("ascii", errors="replace").split("?", 1)[0]
        if base_path and raw.startswith(base_path):
            raw = raw[len(base_path) :] or "/"
        self.host_url = CHECK_HOST
        self.path = raw
        self.full_url_pattern = CHECK_HOST + raw
        self.method = request.method.lower()
        cookies: dict[str, str] = {}
        for header in request.headers.get_list("cookie"):
            jar: SimpleCookie = SimpleCookie()
            jar.load(header)
            cookies.update({k: m.value for k, m in jar.items()})
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(list(request.url.params.multi_items())),
            header=Headers(list(request.headers.multi_items())),
            cookie=ImmutableMultiDict(cookies),
        )
        self.content_type = request.headers.get("content-type", "").lower()
        self.body = request.content or None


class _Response:
    """openapi-core's response protocol over a status, headers and body."""

    def __init__(self, status: int, headers: httpx.Headers, body: bytes) -> None:
        from werkzeug.datastructures import Headers

        self.status_code = status
        self.headers = Headers(list(headers.multi_items()))
        self.content_type = headers.get("content-type", "").lower()
        self.data = body


def openapi_request(request: httpx.Request, base_path: str = "") -> Any:
    """``request`` as openapi-core reads one, its path taken below ``base_path``."""
    return _Request(request, base_path)


def openapi_response(status: int, headers: httpx.Headers, body: bytes) -> Any:
    return _Response(status, headers, body)


def _foreign_cause(exc: BaseException) -> BaseException | None:
    """An exception under openapi-core's error that is not its own (a KeyError of a style
    it cannot deserialize): a limit of the checker, not a finding about the request."""
    from openapi_core.exceptions import OpenAPIError

    seen: set[int] = set()
    cause = exc.__cause__ or exc.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if not isinstance(cause, OpenAPIError) and not _is_schema_error(cause):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


def _is_schema_error(exc: BaseException) -> bool:
    """jsonschema's and the casters' findings about a value are findings too; openapi-core's
    ValueError("not available") is not: the spec pairs a style and a type that it cannot
    read (Stripe's deepObject arrays), whatever the request holds."""
    module = type(exc).__module__
    if module.startswith(("jsonschema", "openapi_schema_validator")):
        return True
    return isinstance(exc, ValueError) and str(exc) != "not available"


def describe_violation(exc: BaseException) -> str:
    """An openapi-core validation error with its causes, on one line (at most 2000 chars)."""
    parts = [str(exc)]
    seen = {id(exc)}
    cause = exc.__cause__ or exc.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        text = str(cause)
        if text and text not in parts and not text.startswith("(<"):
            parts.append(text)
        for error in getattr(cause, "schema_errors", ()) or ():
            parts.append(getattr(error, "message", str(error)))
        cause = cause.__cause__ or cause.__context__
    return "; ".join(" ".join(p.split()) for p in parts if p)[:2000]


_SAID: set[str] = set()  # reasons a service's responses are not checked, logged once each


def _once(message: str) -> None:
    from ._telemetry import logger

    with _LOCK:
        if message in _SAID:
            return
        _SAID.add(message)
    logger.warning("%s", message)


def response_problem(plan: ToolPlan, draft: Draft, reply: Reply) -> str | None:
    """Why ``reply`` breaks the spec of ``plan``'s service (``validate_responses``), or
    ``None`` (it conforms, or it cannot be checked: logged once per reason)."""
    import httpx

    service = plan.service
    if not service.spec:
        _once(f"service {service.name}: validate_responses is set but no spec is known")
        return None
    try:
        spec = OpenApiSpec.read(service.spec)
    except SpecUnavailable as exc:
        _once(f"service {service.name}: responses are not checked: {exc}")
        return None
    command = plan.command
    if not spec.has(command.method, command.path):
        _once(
            f"service {service.name}: responses of tool {plan.tool.name} are not checked: "
            f"{command.method} {command.path} is not an operation of {service.spec}"
        )
        return None
    base_path = draft.base.raw_path.decode("ascii", errors="replace").split("?", 1)[0]
    request = openapi_request(httpx.Request(draft.method, reply.url), base_path.rstrip("/"))
    try:
        return spec.response_problem(
            request, openapi_response(reply.status, reply.headers, reply.body)
        )
    except SpecUnavailable as exc:
        _once(f"service {service.name}: a response of tool {plan.tool.name} was not checked: {exc}")
        return None
