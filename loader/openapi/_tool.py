"""One operation to one tool document: its arguments, body, servers, auth, output, flags."""

from __future__ import annotations

import re
from typing import Any

from toolcat.catalog import method_semantics

from ._args import Arg, assign_names, conforming, safe_argument
from ._bodies import JSON, request_body
from ._describe import describe_arguments, operation_description
from ._errors import OperationSkipped
from ._importer import Importer
from ._names import base_name, snake_case, unique_name
from ._params import merged_parameters, parameter_args
from ._responses import output_schema
from ._schemas import spec_text
from ._security import auth_for
from ._servers import under_base
from ._swagger2 import body_from_parameters, parameter_as_v3

__all__ = ["operation_tool"]

_TEMPLATE_VAR = re.compile(r"\{([^{}]+)\}")
_PLACEHOLDER = re.compile(r"[A-Za-z0-9_.\-~]+")

#: The header that names one attempt of a call (draft-ietf-httpapi-idempotency-key-header):
#: an imported non-safe operation with it gets ``idempotency_key``.
_IDEM = "idempotency-key"


def operation_tool(  # noqa: C901, PLR0915  one operation to one tool document: parameters, body, responses, security, texts
    importer: Importer,
    method: str,
    path: str,
    op: dict[str, Any],
    op_id: str | None,
    tags: list[str],
    item: dict[str, Any],
    item_file: str,
    notes: list[str],
) -> dict[str, Any]:
    if not path.startswith("/"):
        raise OperationSkipped("its path does not start with '/'")
    bad = [v for v in _TEMPLATE_VAR.findall(path) if not _PLACEHOLDER.fullmatch(v)]
    if bad:
        raise OperationSkipped(f"its path placeholder {{{bad[0]}}} is not a plain name")
    defs: dict[str, Any] = {}
    params = merged_parameters(
        importer.resolver, item.get("parameters"), item_file, op.get("parameters"), item_file
    )
    if importer.swagger:
        consumes = _texts(op.get("consumes") or importer.doc.get("consumes"))
        plain = [
            (parameter_as_v3(p), f) for p, f in params if p.get("in") not in ("body", "formData")
        ]
        rb = body_from_parameters(params, consumes)
        body_raw, body_file = rb if rb else (None, item_file)
    else:
        plain = params
        body_raw, body_file = None, item_file
        if "requestBody" in op:
            body_raw, body_file = importer.resolver.deref(op["requestBody"], item_file)
    args = parameter_args(plain, importer.converter, defs)
    in_template = _TEMPLATE_VAR.findall(path)
    declared = {a.wire for a in args if a.location == "path"}
    for var in in_template:
        if var not in declared:
            args.append(Arg(var, "path", True, {"type": "string"}))
            notes.append(f"path variable {var!r} is not declared; taken as a string")
    unused = declared.difference(in_template)
    if unused:
        args = [a for a in args if not (a.location == "path" and a.wire in unused)]
        notes.append(f"path parameters not in the path were left out: {', '.join(sorted(unused))}")
    body = request_body(
        body_raw, body_file, importer.converter, defs, {safe_argument(a.wire) for a in args}
    )
    if body is not None:
        args.extend(body.args if body.argument is None else [body.argument])
    assign_names(args)
    for arg in args:
        arg.schema = conforming(arg.schema, defs, notes, f"argument {arg.argument!r}")
    describe_arguments(args, path, importer.options, notes)
    for def_name, def_schema in list(defs.items()):
        if isinstance(def_schema, bool):  # 3.1 boolean schemas, as objects
            def_schema = {} if def_schema else {"not": {}}
        defs[def_name] = conforming(def_schema, defs, notes, f"definition {def_name!r}")

    override = importer.options.overrides.get(op_id or "", {}) if op_id else {}
    override = override if isinstance(override, dict) else {}
    if isinstance(override.get("name"), str):
        name = override["name"]
    else:
        key = f"{method} {path}"
        stem = base_name(op_id, method, path)
        if importer.options.naming == "snake_case":
            stem = snake_case(stem)
        name = unique_name(importer.options.prefix + stem, key, importer.taken)
    importer.taken.add(name)

    tool: dict[str, Any] = {"name": name}
    tool["description"] = (
        override["description"]
        if isinstance(override.get("description"), str)
        else operation_description(op, method, path, importer.options)
    )
    tool["service"] = importer.service
    tool["method"] = method
    tool["path"] = path
    foreign = False
    base = importer.operation_base_url(op, item)
    if base is not None and base != importer.base_url:
        if under_base(base, importer.credentialed_base()):
            tool["base_url"] = base
        else:  # another host or base path: its own service, without credentials
            tool["service"] = importer.server_service(base, method, path, op)
            foreign = True
    if importer.service not in importer.options.existing_services and not foreign:
        # A service the catalog defines brings its own auth; the spec's does not override it.
        if "security" in op:
            auth, auth_notes = auth_for(op["security"], importer.schemes, importer.service)
            notes.extend(auth_notes)
            if auth is not None and auth != (importer.service_auth or {"type": "none"}):
                tool["auth"] = auth
        else:  # it inherits the spec's security: what of it could not be mapped
            notes.extend(importer.service_notes)
    if body is not None:
        if body.media_type != JSON:
            tool["content_type"] = body.media_type
        if body.argument is not None:
            tool["body_argument"] = body.argument.argument
    if args:
        tool["parameters"] = {a.argument: a.to_doc() for a in args}
        if not method_semantics(method).safe:
            # Stripe's convention (and the IETF draft's): a header that names one attempt
            named = [a.argument for a in args if a.location == "header" and a.wire.lower() == _IDEM]
            if named:
                tool["idempotency_key"] = named[0]
    if defs:
        reached = _reachable(defs, [a.schema for a in args])
        if reached:
            tool["definitions"] = {n: defs[n] for n in sorted(reached)}
    output = (
        _output_schema(importer, op, item_file, notes)
        if importer.options.output_schemas != "none"
        else None
    )
    if output is not None:
        tool["output_schema"] = output
    annotations: dict[str, Any] = {}
    if isinstance(op.get("summary"), str) and op["summary"].strip():
        annotations["title"] = op["summary"].strip()
    semantics = method_semantics(method)
    annotations["read_only"] = semantics.read_only
    annotations["destructive"] = semantics.destructive
    annotations["idempotent"] = semantics.idempotent
    tool["annotations"] = annotations
    tags_override = override.get("tags")
    if isinstance(tags_override, list):
        tool["tags"] = [str(t) for t in tags_override]
    elif tags:
        tool["tags"] = tags
    for flag in ("confirm", "return_direct"):
        if isinstance(override.get(flag), bool):
            tool[flag] = override[flag]
    if "confirm" not in tool and semantics.needs_confirm:
        # the import policy decides, and says so: a write is never silently unconfirmed
        wanted = importer.options.confirm_methods
        tool["confirm"] = True if wanted is None else method in wanted
    return tool


def _output_schema(importer: Importer, op: dict[str, Any], file: str, notes: list[str]) -> Any:
    produces = _texts(op.get("produces") or importer.doc.get("produces"))
    return output_schema(
        op, file, importer.converter, importer.resolver, importer.swagger, produces, notes
    )


_DEF_REF = re.compile(r'"\$ref":"#/\$defs/([^"]+)"')  # in spec_text's compact text


def _reachable(defs: dict[str, Any], roots: list[Any]) -> set[str]:
    """The definitions the argument schemas reach (readOnly pruning can orphan some)."""
    seen: set[str] = set()
    todo = [spec_text(r) for r in roots]
    while todo:
        for name in _DEF_REF.findall(todo.pop()):
            if name in defs and name not in seen:
                seen.add(name)
                todo.append(spec_text(defs[name]))
    return seen


def _texts(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
