"""Compile validated documents into the IR: tools (input schema, body, command) and services.

Parameters are placed by :mod:`._params`. The checks that need a tool's whole
picture (definitions, body and templates, ``${VAR}`` syntax, lint) run on the
way and add diagnostics; a tool with errors compiles to ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolcat.catalog import (
    BodySpec,
    FrozenDict,
    HttpCommand,
    NoAuth,
    ParamLocation,
    ResponseSpec,
    RetryPolicy,
    Service,
    SourceLocation,
    Timeouts,
    ToolAnnotations,
    ToolDefinition,
    ToolExample,
    method_semantics,
)
from toolcat.catalog.common import CALLER_TOKEN_AUTH, credentials_may_travel

from ._definitions import SharedDefinitions, local_refs
from ._lint import (
    TOOL_RULES,
    duplicate_example_names,
    example_result_without_response,
    idempotency_key_on_safe_method,
)
from ._models import (
    AuthDoc,
    ExampleDoc,
    McpExampleDoc,
    McpToolDoc,
    RetryDoc,
    ServiceDoc,
    TimeoutDoc,
    ToolDoc,
)
from ._params import TOKEN, CompiledParameters, compile_parameters, path_variables
from ._schemas import ref_loops
from ._scope import CompileContext, Scope
from ._shape import Locator, closest
from ._templates import template_strings

__all__ = ["CompileContext", "compile_service", "compile_tool"]

_SELECT_NAMES = frozenset({"body", "status", "headers"})
_URL_START = re.compile(r"(?i)^(https?://|\$\{)")
# userinfo in a URL's authority: ``scheme://user:password@host``
_USERINFO = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#]*)@([^/?#]*)")


def _timeouts(doc: float | TimeoutDoc | None) -> Timeouts | None:
    if doc is None:
        return None
    if isinstance(doc, TimeoutDoc):
        return Timeouts(connect=doc.connect, read=doc.read, total=doc.total)
    return Timeouts(total=float(doc))


def _retry(doc: RetryDoc | None) -> RetryPolicy | None:
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


def _header_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _check_strings(
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
        userinfo = _USERINFO.match(base_url)
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
    _check_strings(scope, doc.base_url, doc.headers, doc.auth, trusted=trusted)
    line, col = locate(base, True)
    defaults = Service(name=name, base_url=doc.base_url)
    return Service(
        name=name,
        base_url=doc.base_url,
        headers=FrozenDict({k: _header_text(v) for k, v in doc.headers.items()}),
        auth=doc.auth.to_spec() if doc.auth is not None else NoAuth(),
        timeouts=_timeouts(doc.timeout) or defaults.timeouts,
        retry=_retry(doc.retry) or defaults.retry,
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


def compile_tool(
    doc: ToolDoc,
    *,
    ctx: CompileContext,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
    trusted: bool = False,
    errors_only: bool = False,
    shared: SharedDefinitions | None = None,
) -> ToolDefinition | None:
    """One :class:`ToolDefinition`, or ``None`` when the tool has errors (all reported).

    ``errors_only`` reports errors but no warnings (a document salvaged from a
    failed shape check, whose warnings could be echoes of that failure).
    ``shared``: the ``definitions:`` of the tool's file; the ones the tool reaches
    join its own (which may not reuse their names).
    """
    scope = Scope(ctx, file, base, locate, f"tool '{doc.name}'", errors_only)
    method = doc.method
    defs = _input_definitions(doc, scope, shared, trusted)
    variables = path_variables(doc.path)
    if doc.path and not doc.path.startswith("/"):
        scope.add("TC008", f"path {doc.path!r} must start with '/'", ("path",))
    if not trusted and doc.path.count("{") != doc.path.count("}"):
        scope.add(
            "TC008",
            f"path {doc.path!r} has unbalanced braces; write each placeholder as {{name}}",
            ("path",),
        )
    for var in variables:
        if not re.fullmatch(r"[A-Za-z0-9_.\-~]+", var):
            scope.add("TC008", f"path placeholder {{{var}}} is not a valid name", ("path",))

    params = compile_parameters(doc, scope, variables, defs, trusted=trusted)
    output = _checked_definitions(doc, scope, defs, shared, trusted)
    body = _body(doc, scope, params)
    _check_templates(doc, scope, frozenset(params.properties))
    _check_strings(scope, doc.base_url, doc.headers, doc.auth, trusted=trusted)
    for rule in TOOL_RULES:  # imported tools too: the same tools give the same findings
        scope.report(rule(doc))
    if doc.idempotency_key is not None:
        _check_idempotency_key(doc, scope, params)
    if scope.errors:
        return None

    # arguments bound to the caller's context are filled by the runtime: no model sees them
    bound = {arg: p.from_ for arg, p in (doc.parameters or {}).items() if p.from_}
    input_schema = model_input_schema(params, bound, defs)
    examples = _examples(doc, scope, input_schema) if doc.examples else ()
    if scope.errors:
        return None
    response = doc.response
    line, col = locate(base, False)
    values = ctx.values
    return ToolDefinition(
        name=doc.name,
        description=doc.description or "",
        input_schema=values.freeze(input_schema),
        command=HttpCommand(
            service=doc.service,
            method=method,
            path=doc.path,
            parameters=tuple(values.record(b) for b in params.bindings),
            body=body,
            response=values.record(
                ResponseSpec(select=response.select, max_chars=response.max_chars)
                if response
                else ResponseSpec()
            ),
            timeouts=_timeouts(doc.timeout),
            retry=_retry(doc.retry),
            retry_unsafe=doc.retry_unsafe,
            auth=doc.auth.to_spec() if doc.auth is not None else None,
            base_url=doc.base_url,
            headers=values.freeze({k: _header_text(v) for k, v in doc.headers.items()}),
        ),
        output_schema=values.freeze(output) if isinstance(output, dict) else None,
        annotations=values.record(_annotations(doc)),
        confirm=bool(doc.confirm),
        return_direct=doc.return_direct,
        tags=tuple(doc.tags),
        source=SourceLocation(file, line, col),
        context_arguments=values.freeze(bound),
        examples=examples,
        sensitive_arguments=tuple(
            arg for arg, p in (doc.parameters or {}).items() if p.sensitive and arg not in bound
        ),
        idempotency_key=doc.idempotency_key,
        callers=tuple(doc.callers or ()),
    )


def _input_definitions(
    doc: ToolDoc | McpToolDoc, scope: Scope, shared: SharedDefinitions | None, trusted: bool
) -> dict[str, Any]:
    """The definitions the tool's input schema may refer to: its own, and the shared ones
    of its file that its parameters and definitions reach."""
    own = dict(doc.definitions or {})
    if shared is None:
        return own
    _check_clashes(doc, scope, shared)
    roots = [*(p.model_extra or {} for p in (doc.parameters or {}).values()), *own.values()]
    reached = shared.reach(roots, hidden=own)
    shared.check_input(reached, scope.ctx, trusted)
    return {**{n: shared.defs[n] for n in reached}, **own}


def _checked_definitions(
    doc: ToolDoc | McpToolDoc,
    scope: Scope,
    defs: dict[str, Any],
    shared: SharedDefinitions | None,
    trusted: bool,
) -> Any:
    """The checks of the tool's own definitions and output schema; the output schema,
    with the shared definitions it reaches."""
    ctx = scope.ctx
    own = doc.definitions or {}
    for name, definition in own.items():
        for issue in ctx.schemas.check(definition, trusted=trusted, defs=defs):
            scope.add(
                issue.code,
                f"definition '{name}': {issue.message}",
                ("definitions", name, *issue.path),
                key=issue.key,
            )
    for name, chain in ref_loops(defs):
        if name not in own:
            continue  # reported once where the shared definition is written
        scope.add(
            "TC022",
            f"definition '{name}': its $refs loop with no schema in between ({chain}), "
            "so no value could ever be checked against it; give one of them a schema",
            ("definitions", name),
            key=True,
        )
    if doc.output_schema is not None and not trusted:
        for issue in ctx.schemas.check(doc.output_schema):
            if issue.code in ("TC022", "TC045"):
                scope.add(
                    issue.code, f"output_schema: {issue.message}", ("output_schema", *issue.path)
                )
    return _output_schema(doc, scope, shared, trusted)


def _check_idempotency_key(doc: ToolDoc, scope: Scope, params: CompiledParameters) -> None:
    """TC083 when ``idempotency_key`` names neither an argument nor a header of the tool;
    TC134 when the method is safe (a safe call is never recorded)."""
    key = doc.idempotency_key
    assert key is not None
    headers = {h.lower() for h in doc.headers}
    headers.update(
        b.wire_name.lower() for b in params.bindings if b.location is ParamLocation.HEADER
    )
    if key not in params.properties and key.lower() not in headers:
        known = sorted({*params.properties, *doc.headers})
        hint = f" (it has: {', '.join(known[:10])})" if known else ""
        scope.add(
            "TC083",
            f"idempotency_key names '{key}', which is neither an argument nor a header of "
            f"this tool{hint}; name the argument or header that carries the key",
            ("idempotency_key",),
        )
    else:
        scope.report(idempotency_key_on_safe_method(doc))


_REQUEST_KEYS = ("method", "path", "query", "headers", "body")
_RESPONSE_KEYS = ("status", "headers", "body")


def _set_keys(doc: Any, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """The keys of an example's request/response that are set (null: not compared)."""
    if doc is None:
        return None
    return {k: getattr(doc, k) for k in keys if getattr(doc, k) is not None}


def _example_request(example: ExampleDoc | McpExampleDoc) -> dict[str, Any] | None:
    if isinstance(example, McpExampleDoc):  # the upstream's arguments, as written
        return example.request
    return _set_keys(example.request, _REQUEST_KEYS)


def _example_response(example: ExampleDoc | McpExampleDoc) -> dict[str, Any] | None:
    if isinstance(example, McpExampleDoc):  # a CallToolResult, in MCP's names
        if example.response is None:
            return None
        return example.response.model_dump(by_alias=True, exclude_none=True)
    return _set_keys(example.response, _RESPONSE_KEYS)


def model_input_schema(
    params: CompiledParameters, bound: Mapping[str, Any], defs: Mapping[str, Any]
) -> dict[str, Any]:
    """The input schema a model sees: the compiled parameters but those ``bound`` to the
    caller's context, and the definitions they reach."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {k: v for k, v in params.properties.items() if k not in bound},
        "required": [r for r in params.required if r not in bound],
        "additionalProperties": False,
    }
    if params.reachable:
        schema["$defs"] = {name: defs[name] for name in params.reachable}
    return schema


def _examples(
    doc: ToolDoc | McpToolDoc, scope: Scope, input_schema: dict[str, Any]
) -> tuple[ToolExample, ...]:
    """The tool's examples, each checked: arguments against the input schema (TC065),
    a result without a response (TC120), a name used twice (TC121)."""
    if not doc.examples:
        return ()
    from ._schemas import ValueCheck

    check = ValueCheck(input_schema)
    out: list[ToolExample] = []
    examples: list[ExampleDoc | McpExampleDoc] = list(doc.examples)
    scope.report(duplicate_example_names(examples))
    for i, example in enumerate(examples):
        at = ("examples", i)
        label = f"example {example.name!r}" if example.name else f"example {i + 1}"
        errors = sorted(check.errors(example.arguments), key=lambda e: e[0])
        for path, message in errors[:5]:
            where = "/".join(str(p) for p in path)
            scope.add(
                "TC065",
                f"{label}: arguments{f' at {where}' if where else ''}: {message}; "
                "fix the example or the tool's parameters",
                (*at, "arguments", *path),
            )
        scope.report(example_result_without_response(example, label, at))
        line, col = scope.locate((*scope.base, *at), False)
        freeze = scope.ctx.values.freeze
        out.append(
            ToolExample(
                arguments=freeze(example.arguments),
                name=example.name,
                request=freeze(_example_request(example)),
                response=freeze(_example_response(example)),
                result=freeze(example.result),
                source=SourceLocation(scope.file, line, col),
            )
        )
    return tuple(out)


def _check_clashes(doc: ToolDoc | McpToolDoc, scope: Scope, shared: SharedDefinitions) -> None:
    """TC050 for a tool's own definition (or output ``$defs``) named like a shared one."""
    output = doc.output_schema if isinstance(doc.output_schema, dict) else {}
    found = output.get("$defs")
    out_defs: dict[str, Any] = found if isinstance(found, dict) else {}
    own: dict[str, Any] = dict(doc.definitions or {})
    for where, names in ((("definitions",), own), (("output_schema", "$defs"), out_defs)):
        for name in names:
            if name in shared.defs:
                line, col = shared.locate(("definitions", name), True)
                scope.add(
                    "TC050",
                    f"definition '{name}' is also a shared definition of this file "
                    f"({shared.file}:{line}:{col}); '#/$defs/{name}' would mean either. "
                    "Rename one, or drop the tool's copy",
                    (*where, name),
                    key=True,
                )


def _output_schema(
    doc: ToolDoc | McpToolDoc, scope: Scope, shared: SharedDefinitions | None, trusted: bool
) -> Any:
    """The tool's output schema, with the shared definitions it reaches as ``$defs``."""
    output = doc.output_schema
    if not isinstance(output, dict):
        return output
    found = output.get("$defs")
    own: dict[str, Any] = found if isinstance(found, dict) else {}
    if shared is None:
        return output
    unknown = sorted(n for n in local_refs(output) if n not in own and n not in shared.defs)
    if unknown:
        scope.add(
            "TC051",
            f"output_schema refers to '#/$defs/{unknown[0]}', which is neither in its own "
            "$defs nor in this file's definitions; add the definition or fix the name",
            ("output_schema",),
        )
        return output
    reached = shared.reach([output], hidden=own)
    if not reached:
        return output
    scope.errors += shared.check_output(reached, scope.ctx, trusted)
    return {**output, "$defs": {**{n: shared.defs[n] for n in reached}, **own}}


def _body(doc: ToolDoc, scope: Scope, params: CompiledParameters) -> BodySpec | None:
    binary, required = params.binary, params.required
    media = doc.content_type or ("multipart/form-data" if binary else "application/json")
    if binary and not media.startswith("multipart/"):
        scope.add(
            "TC025",
            f"file parameters need content_type: multipart/form-data, not {media}",
            ("content_type",),
        )
    if doc.body_argument is not None:
        if doc.body is not None:
            scope.add("TC025", "set either 'body' or 'body_argument', not both", ("body_argument",))
        if doc.body_argument not in params.properties:
            hint = closest(doc.body_argument, list(params.properties))
            extra = f"; did you mean '{hint}'?" if hint else "; declare it under parameters"
            scope.add(
                "TC025",
                f"body_argument '{doc.body_argument}' is not a parameter{extra}",
                ("body_argument",),
            )
        return BodySpec(
            media_type=media,
            argument=doc.body_argument,
            binary_fields=tuple(binary),
            required=doc.body_argument in required,
        )
    if doc.body is not None:
        template = scope.ctx.values.freeze(doc.body)
        return BodySpec(media_type=media, template=template, binary_fields=tuple(binary))
    if params.has_body:
        return BodySpec(media_type=media, binary_fields=tuple(binary), required=bool(required))
    return None


def _check_templates(doc: ToolDoc, scope: Scope, declared: frozenset[str]) -> None:
    checker = scope.ctx.templates
    if doc.body is not None:
        for path, source in template_strings(doc.body, ("body",)):
            for issue in checker.check(source, declared, "body template"):
                scope.add(
                    issue.code, _hinted(issue.message, declared), path, line_offset=issue.line - 1
                )
    if doc.response is not None and doc.response.select is not None:
        for issue in checker.check(doc.response.select, _SELECT_NAMES, "response.select"):
            scope.add(issue.code, issue.message, ("response", "select"), line_offset=issue.line - 1)


def _hinted(message: str, declared: frozenset[str]) -> str:
    m = re.search(r"refers to '([^']+)'", message)
    if m:
        hint = closest(m.group(1), list(declared))
        if hint:
            return message.split("; use one of")[0] + f"; did you mean '{hint}'?"
    return message


def _annotations(doc: ToolDoc) -> ToolAnnotations:
    method = method_semantics(doc.method)
    derived: dict[str, Any] = {
        "read_only": method.read_only,
        "destructive": method.destructive,
        "idempotent": method.idempotent,
        "open_world": None,
        "title": None,
    }
    given = doc.annotations.model_dump(exclude_none=True) if doc.annotations else {}
    derived.update(given)
    return ToolAnnotations(**derived)
