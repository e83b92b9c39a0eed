"""HTTP tools compiled to the IR: the path, the body, templates, annotations, the command.

Parameters are placed by :mod:`._params`, the schemas and examples checked by
:mod:`._compile_schemas`, the connection settings a tool overrides by
:mod:`._compile_service`. The checks that need a tool's whole picture (definitions,
body and templates, ``${VAR}`` syntax, lint) run on the way and add diagnostics; a tool
with errors compiles to ``None``.
"""

from __future__ import annotations

import re
from typing import Any

from toolcat.catalog import (
    BodySpec,
    HttpCommand,
    ParamLocation,
    ResponseSpec,
    SourceLocation,
    ToolAnnotations,
    ToolDefinition,
    method_semantics,
)
from toolcat.catalog.common import is_json_media_type

from ._compile_schemas import (
    checked_definitions,
    compile_examples,
    input_definitions,
    model_input_schema,
)
from ._compile_service import check_strings, compile_retry, compile_timeouts, header_text
from ._definitions import SharedDefinitions
from ._lint import TOOL_RULES, idempotency_key_on_safe_method
from ._models_tools import ToolDoc
from ._params import CompiledParameters, compile_parameters, path_variables
from ._scope import CompileContext, Scope
from ._shape import Locator, closest
from ._templates import template_strings

__all__ = ["compile_tool"]

_SELECT_NAMES = frozenset({"body", "status", "headers"})


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
    defs = input_definitions(doc, scope, shared, trusted)
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
    output = checked_definitions(doc, scope, defs, shared, trusted)
    body = _body(doc, scope, params)
    _check_templates(doc, scope, frozenset(params.properties))
    check_strings(scope, doc.base_url, doc.headers, doc.auth, trusted=trusted)
    for rule in TOOL_RULES:  # imported tools too: the same tools give the same findings
        scope.report(rule(doc))
    if doc.idempotency_key is not None:
        _check_idempotency_key(doc, scope, params)
    if scope.errors:
        return None

    # arguments bound to the caller's context are filled by the runtime: no model sees them
    bound = {arg: p.from_ for arg, p in (doc.parameters or {}).items() if p.from_}
    input_schema = model_input_schema(params, bound, defs)
    examples = compile_examples(doc, scope, input_schema) if doc.examples else ()
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
            timeouts=compile_timeouts(doc.timeout),
            retry=compile_retry(doc.retry),
            retry_unsafe=doc.retry_unsafe,
            auth=doc.auth.to_spec() if doc.auth is not None else None,
            base_url=doc.base_url,
            headers=values.freeze({k: header_text(v) for k, v in doc.headers.items()}),
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
        # The body arguments of a POST, PUT or PATCH go out as one JSON object even when
        # none is given ({}): a spec may require the body (requestBody.required) though
        # none of its properties is required, and {} conforms whether it does or not.
        sent_always = is_json_media_type(media) and not method_semantics(doc.method).query_arguments
        return BodySpec(
            media_type=media, binary_fields=tuple(binary), required=bool(required) or sent_always
        )
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
