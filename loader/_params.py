"""Parameters: where each argument goes (decided once, here) and the checks of its schema.

Placement rules (DESIGN §2): a parameter whose wire name is in the path
template goes in the path; otherwise ``in:`` decides; without it, a file or the
``body_argument`` goes in the body; otherwise the method decides
(``toolcat.catalog.method_semantics``): GET, HEAD, OPTIONS, TRACE and DELETE put
it in the query, other methods in the body. A parameter is required unless it
has ``required: false`` or a ``default``. Placement keys are taken out; the rest
is JSON Schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolcat.catalog import ParameterBinding, ParamLocation, method_semantics

from ._context_names import context_parameter_reachable
from ._lint import body_on_get, parameter_without_description, unmasked_secret_argument
from ._models_tools import ParameterDoc, ToolDoc
from ._schema_walks import ref_and_pattern_keys
from ._scope import Scope

__all__ = [
    "TOKEN",
    "CompiledParameters",
    "compile_mcp_parameters",
    "compile_parameters",
    "path_variables",
]

_PATH_VAR = re.compile(r"\{([^{}]*)\}")
_REF = re.compile(r'"\$ref":\s*"#/\$defs/([^"/]+)(?:/[^"]*)?"')
_ANY_REF = re.compile(r'"\$ref":\s*"([^"]*)"')
_DEFS_REF = re.compile(r"#/\$defs/[^/]+(/.*)?")
_CONTAINERS = (dict, list, tuple)  # a tuple: `dict | list` would build a union per call
# RFC 9110 token: a header name (and a cookie name, RFC 6265). \Z, not $: "$" also
# matches before a final newline, which let "X-Id\n" through.
TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")


def path_variables(path: str) -> list[str]:
    """The ``{name}`` placeholders of a path template, in order, without repeats."""
    return list(dict.fromkeys(_PATH_VAR.findall(path)))


@dataclass
class CompiledParameters:
    """The arguments of one tool: bindings, input-schema properties, what the body needs."""

    bindings: list[ParameterBinding] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    binary: list[str] = field(default_factory=list)  # wire names of multipart file parts
    has_body: bool = False
    reachable: list[str] = field(default_factory=list)  # definitions the schemas refer to


def compile_parameters(
    doc: ToolDoc, scope: Scope, variables: Sequence[str], defs: Mapping[str, Any], *, trusted: bool
) -> CompiledParameters:
    """Place every parameter and check its schema; findings go to ``scope``."""
    method = doc.method
    semantics = method_semantics(method)
    out = CompiledParameters()
    placed: dict[tuple[ParamLocation, str], str] = {}
    refs: set[str] = set()
    for arg, p in (doc.parameters or {}).items():
        ppath = ("parameters", arg)
        schema = dict(p.model_extra or {})
        if isinstance(p.required, list):
            schema["required"] = p.required
        wire = p.name or arg
        location = _location(doc, arg, p, wire, variables, semantics.query_arguments)
        if location is ParamLocation.BODY and not out.has_body:
            scope.report(body_on_get(arg, method, p.in_ is not None), ppath)
        if isinstance(p.required, bool):
            is_required = p.required
        else:
            is_required = "default" not in schema
        _check_placement(doc, arg, p, wire, location, variables, scope, trusted=trusted)
        if p.file:
            out.binary.append(wire)
        other = placed.get((location, wire))
        if other is not None:
            scope.add(
                "TC025",
                f"parameters '{other}' and '{arg}' both send {location.value} "
                f"'{wire}'; give one a different 'name'",
                ppath,
                key=True,
            )
        placed[(location, wire)] = arg
        out.has_body = out.has_body or location is ParamLocation.BODY
        out.bindings.append(
            ParameterBinding(
                argument=arg,
                location=location,
                wire_name=wire,
                required=is_required,
                style=p.style,
                explode=p.explode,
                allow_reserved=bool(p.allow_reserved),
                content_type=p.content_type,
            )
        )
        out.properties[arg] = schema
        if is_required:
            out.required.append(arg)
        _check_schema(arg, p, schema, scope, defs, refs, trusted=trusted)
    _check_path_variables(doc, variables, placed, scope)
    scope.report(context_parameter_reachable(doc, out.bindings, out.properties, defs))
    _find_reachable(out, refs, defs, scope)
    return out


def _location(
    doc: ToolDoc,
    arg: str,
    p: ParameterDoc,
    wire: str,
    variables: Sequence[str],
    query_arguments: bool,
) -> ParamLocation:
    """Where an argument goes: its ``in:``, else the path, the body, or the method's default."""
    if p.in_ is not None:
        return ParamLocation(p.in_)
    if wire in variables:
        return ParamLocation.PATH
    if p.file or arg == doc.body_argument:
        return ParamLocation.BODY
    return ParamLocation.QUERY if query_arguments else ParamLocation.BODY


def _check_placement(
    doc: ToolDoc,
    arg: str,
    p: ParameterDoc,
    wire: str,
    location: ParamLocation,
    variables: Sequence[str],
    scope: Scope,
    *,
    trusted: bool,
) -> None:
    """The findings of one argument's place: a path without its placeholder, a header or
    cookie name that cannot be sent, a body argument or a file sent elsewhere."""
    ppath = ("parameters", arg)
    if location is ParamLocation.PATH:
        if wire not in variables:
            scope.add(
                "TC021",
                f"parameter '{arg}' is in: path but the path {doc.path!r} "
                f"has no {{{wire}}}; add {{{wire}}} to the path or change 'in'",
                ppath,
                key=True,
            )
        if p.required is False:
            scope.add(
                "TC025",
                f"path parameter '{arg}' cannot be optional; remove 'required: false'",
                (*ppath, "required"),
            )
    if (
        location in (ParamLocation.HEADER, ParamLocation.COOKIE)
        and not trusted
        and not TOKEN.match(wire)
    ):
        kind = "HTTP header" if location is ParamLocation.HEADER else "cookie"
        scope.add(
            "TC008",
            f"parameter '{arg}' goes in {location.value} {wire!r}, which is not a valid "
            f"{kind} name (letters, digits and !#$%&'*+-.^_`|~; no spaces, colons, "
            "CR or LF); set 'name:' to one",
            ppath,
            key=True,
        )
    if arg == doc.body_argument and location is not ParamLocation.BODY:
        scope.add(
            "TC025",
            f"parameter '{arg}' is the body_argument, so it cannot go in "
            f"the {location.value}; remove its 'in'",
            (*ppath, "in"),
        )
    if p.file and location is not ParamLocation.BODY:
        scope.add(
            "TC025", f"parameter '{arg}' is a file, so it must go in the body", (*ppath, "in")
        )


def _check_path_variables(
    doc: ToolDoc,
    variables: Sequence[str],
    placed: Mapping[tuple[ParamLocation, str], str],
    scope: Scope,
) -> None:
    """Each ``{placeholder}`` of the path is filled by exactly one path parameter."""
    for var in variables:
        misplaced = next(
            (
                arg
                for (loc, wire), arg in placed.items()
                if wire == var and loc is not ParamLocation.PATH
            ),
            None,
        )
        if misplaced is not None and ("path", var) not in {(k[0].value, k[1]) for k in placed}:
            where = (doc.parameters or {})[misplaced].in_
            scope.add(
                "TC025",
                f"parameter '{misplaced}' fills {{{var}}} of the path "
                f"{doc.path!r} but says in: {where}; remove its 'in' (or rename the "
                "placeholder)",
                ("parameters", misplaced, "in") if where else ("parameters", misplaced),
            )
        elif ("path", var) not in {(k[0].value, k[1]) for k in placed}:
            scope.add(
                "TC020",
                f"path {doc.path!r} has {{{var}}} but no parameter fills it; add "
                f"a parameter '{var}' (or one with in: path and name: {var})",
                ("path",),
            )


# what a parameter of a tool of an MCP server cannot say: its arguments travel as one
# object, each under its own name (mcp.arguments renames)
_PLACEMENT_KEYS = (
    ("in_", "in"),
    ("name", "name"),
    ("style", "style"),
    ("explode", "explode"),
    ("allow_reserved", "allow_reserved"),
    ("content_type", "content_type"),
    ("file", "file"),
)


def compile_mcp_parameters(
    parameters: Mapping[str, ParameterDoc], scope: Scope, defs: Mapping[str, Any]
) -> CompiledParameters:
    """The arguments of a tool of an MCP server: the same schema checks as an HTTP tool's,
    no placement (TC094 for a placement key); ``bindings`` stays empty."""
    out = CompiledParameters()
    refs: set[str] = set()
    for arg, p in parameters.items():
        ppath = ("parameters", arg)
        for attribute, key in _PLACEMENT_KEYS:
            if getattr(p, attribute) is not None:
                advice = "rename it with mcp.arguments" if key == "name" else "remove it"
                scope.add(
                    "TC094",
                    f"parameter '{arg}': '{key}' places an HTTP argument, but a tool of an "
                    f"MCP server sends its arguments as one object; {advice}",
                    (*ppath, key),
                    key=True,
                )
        schema = dict(p.model_extra or {})
        if isinstance(p.required, list):
            schema["required"] = p.required
        is_required = p.required if isinstance(p.required, bool) else "default" not in schema
        out.properties[arg] = schema
        if is_required:
            out.required.append(arg)
        _check_schema(arg, p, schema, scope, defs, refs, trusted=False)
    _find_reachable(out, refs, defs, scope)
    return out


def _check_schema(
    arg: str,
    p: ParameterDoc,
    schema: dict[str, Any],
    scope: Scope,
    defs: Mapping[str, Any],
    refs: set[str],
    *,
    trusted: bool,
) -> None:
    """One parameter's schema checks (refs, metaschema, description, secrets); the
    definitions it refers to are added to ``refs``."""
    ctx = scope.ctx
    ppath = ("parameters", arg)
    misspelt = False
    # imported schemas skip the checks that need the key, unless they hold a $ref
    # one walk tells both whether the key is needed and whether patterns are there
    has_ref, has_pattern = ref_and_pattern_keys(schema) if trusted else (True, True)
    key = ctx.schemas.key(schema) if not trusted or has_ref else None
    if key is not None and '"$ref"' in key:
        refs.update(_REF.findall(key))
        for target in sorted(set(_ANY_REF.findall(key))):
            # refs resolve against the input schema's root, where only the tool's
            # definitions live (as $defs)
            # (a URL or a file is TC045, from the schema checks)
            if target.startswith("#") and not _DEFS_REF.fullmatch(target):
                scope.add(
                    "TC022",
                    f"parameter '{arg}' refers to {target!r}, which cannot "
                    "resolve: refer to the tool's definitions as '#/$defs/NAME'",
                    ppath,
                    key=True,
                )
    for issue in ctx.schemas.check(
        schema, trusted=trusted, defs=defs, key=key, patterns=has_pattern
    ):
        scope.add(
            issue.code,
            f"parameter '{arg}': {issue.message}",
            (*ppath, *issue.path),
            key=issue.key,
        )
        misspelt = misspelt or "'description'?" in issue.message
    if not (misspelt or p.from_):  # from: no model sees it
        scope.report(parameter_without_description(arg, schema), ppath)
    if not (trusted or p.from_ or p.sensitive):
        scope.report(unmasked_secret_argument(arg, looks_secret(arg, schema)), ppath)


def _find_reachable(
    out: CompiledParameters, refs: set[str], defs: Mapping[str, Any], scope: Scope
) -> None:
    """``out.reachable``: the definitions the arguments' schemas reach; TC022 for a
    ``$ref`` to a definition that does not exist."""
    if refs:
        out.reachable = _reachable_defs(list(out.properties.values()), defs)[0]
    for arg, schema in out.properties.items() if refs - set(out.reachable) else ():
        for name in sorted(_reachable_defs([schema], defs)[1]):
            scope.add(
                "TC022",
                f"parameter '{arg}' refers to '#/$defs/{name}', which is not "
                "under definitions; add it there or fix the $ref",
                ("parameters", arg),
                key=True,
            )


def _has_ref(value: Any) -> bool:
    """Whether a JSON value has a ``$ref`` key at any depth (cheaper than its JSON text)."""
    if isinstance(value, dict):
        if "$ref" in value:
            return True
        value = value.values()
    for item in value:
        if isinstance(item, _CONTAINERS) and _has_ref(item):
            return True
    return False


def _reachable_defs(schemas: Sequence[Any], defs: Mapping[str, Any]) -> tuple[list[str], set[str]]:
    """(definition names reachable from ``schemas``, ``$ref`` names that do not exist)."""
    seen: list[str] = []
    missing: set[str] = set()
    todo = [json.dumps(s, default=str) for s in schemas]
    while todo:
        for name in _REF.findall(todo.pop()):
            if name in seen:
                continue
            if name not in defs:
                missing.add(name)
                continue
            seen.append(name)
            todo.append(json.dumps(defs[name], default=str))
    return seen, missing


# argument names that hold a credential or personal secret (lower case, '-' and '_' dropped)
_SECRET_NAME = re.compile(
    r"password|passwd|passphrase|secret|apikey|privatekey|accesstoken|refreshtoken|"
    r"clientsecret|creditcard|cardnumber"
)
_SECRET_WORD = frozenset({"pin", "otp", "cvv", "cvc", "ssn", "token"})


def looks_secret(name: str, schema: Any) -> bool:
    """``name`` looks like a secret and ``schema`` does not mask it already (TC133).

    >>> looks_secret("api_key", {"type": "string"}), looks_secret("page_token", {})
    (True, False)
    """
    if isinstance(schema, dict) and (
        schema.get("writeOnly") is True or schema.get("format") == "password"
    ):
        return False
    flat = name.lower().replace("_", "").replace("-", "")
    return bool(_SECRET_NAME.search(flat)) or name.lower() in _SECRET_WORD
