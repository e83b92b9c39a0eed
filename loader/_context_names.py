"""TC145: an argument that could send a context-bound parameter's wire name.

A parameter filled from the caller's context (``from: claims.tenant``) must be the
only one that sends its name. An object argument serialised into the query as
``form`` and exploded (the default) sends one query parameter per key, so a key
``tenant`` would add ``?tenant=globex`` beside the context's value; so would a key of
the whole-body argument, beside a context-bound body field; so would a header whose
name differs from a context-bound one only in case. The executor refuses
such calls; this finds the schemas that let a model try.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolcat.catalog import ParameterBinding, ParamLocation
from toolcat.catalog.common import pattern_search

from ._lint import Finding, lint

__all__ = ["context_parameter_reachable"]


_DEFS = "#/$defs/"


def _may_have_key(schema: Any, key: str, defs: Mapping[str, Any], depth: int = 0) -> bool:
    """Whether an instance of ``schema`` may be an object holding ``key`` (when unsure, yes)."""
    if not isinstance(schema, Mapping):
        return schema is not False
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS) and ref[len(_DEFS) :] in defs and depth < 8:
        if not _may_have_key(defs[ref[len(_DEFS) :]], key, defs, depth + 1):
            return False
    elif ref is not None:
        return True
    if any(k in schema for k in ("allOf", "anyOf", "oneOf", "if")):
        return True
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if kind is not None and "object" not in kinds:
        return False
    if key in (schema.get("properties") or {}):
        return True
    patterns = schema.get("patternProperties") or {}
    if any(pattern_search(str(p), key) for p in patterns):
        return True
    return schema.get("additionalProperties", True) is not False


def _same_header(b: ParameterBinding, target: ParameterBinding) -> bool:
    header = ParamLocation.HEADER
    return (
        b.location is header
        and target.location is header
        and (b.wire_name.lower() == target.wire_name.lower())
    )


def _spreads_keys(b: ParameterBinding, body_argument: str | None) -> ParamLocation | None:
    """Where ``b`` sends one parameter per key of an object value, if it does."""
    if b.location is ParamLocation.QUERY and b.content_type is None:
        if (b.style or "form") == "form" and b.explode is not False:
            return ParamLocation.QUERY
    if b.location is ParamLocation.BODY and b.argument == body_argument:
        return ParamLocation.BODY
    return None


@lint(
    "TC145",
    "context-parameter-reachable",
    "an argument that could send the wire name of a parameter filled from the caller's context",
)
def context_parameter_reachable(
    doc: Any,
    bindings: list[ParameterBinding],
    schemas: Mapping[str, Any],
    defs: Mapping[str, Any],
) -> Iterator[Finding]:
    """TC145 for each argument of ``doc`` that could send the wire name of a context-bound
    parameter in its place (``schemas``: argument -> its schema; ``defs``: the tool's
    definitions, which ``#/$defs/NAME`` refs name)."""
    sources = {arg: p.from_ for arg, p in (doc.parameters or {}).items() if p.from_}
    if not sources:
        return
    bound = [b for b in bindings if b.argument in sources]
    for b in bindings:
        if b.argument in sources:
            continue
        twin = next((t for t in bound if _same_header(b, t)), None)
        if twin is not None:  # X-Tenant and x-tenant are one header (TC025 compares exactly)
            yield Finding(
                f"parameter '{b.argument}' sends header '{b.wire_name}', which is header "
                f"'{twin.wire_name}' of '{twin.argument}', filled from the caller's context "
                f"({sources[twin.argument]}); such calls are refused: give it another 'name'",
                ("parameters", b.argument),
                key=True,
            )
            continue
        where = _spreads_keys(b, doc.body_argument)
        if where is None:
            continue
        for target in bound:
            if target.location is where and _may_have_key(
                schemas.get(b.argument), target.wire_name, defs
            ):
                yield Finding(
                    f"parameter '{b.argument}' sends each key of an object as a {where.value} "
                    f"parameter, so a key '{target.wire_name}' would send a second value "
                    f"for '{target.argument}', which comes from the caller's context "
                    f"({sources[target.argument]}); such calls are refused: give "
                    f"'{b.argument}' additionalProperties: false"
                    + (" (or style: deepObject)" if where is ParamLocation.QUERY else ""),
                    ("parameters", b.argument),
                    key=True,
                )
                break
