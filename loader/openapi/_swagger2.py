"""Swagger 2.0 pieces in OpenAPI 3 shape: parameters, bodies, responses, servers, security."""

from __future__ import annotations

from typing import Any

from ._errors import OperationSkipped

__all__ = [
    "body_from_parameters",
    "parameter_as_v3",
    "response_as_v3",
    "schemes_as_v3",
    "server_url",
]

# collectionFormat -> (style, explode) for query; path and header only know csv.
_COLLECTION = {
    "csv": ("form", False),
    "ssv": ("spaceDelimited", False),
    "pipes": ("pipeDelimited", False),
    "multi": ("form", True),
}
_NOT_SCHEMA = frozenset(
    {"name", "in", "required", "description", "collectionFormat", "allowEmptyValue", "schema"}
)


def _inline_schema(param: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in param.items() if k not in _NOT_SCHEMA}


def parameter_as_v3(param: dict[str, Any]) -> dict[str, Any]:
    """A 2.0 path/query/header parameter as an OpenAPI 3 parameter object."""
    out: dict[str, Any] = {"name": param["name"], "in": param.get("in")}
    for k in ("required", "description"):
        if k in param:
            out[k] = param[k]
    out["schema"] = _inline_schema(param)
    if param.get("type") == "array":
        fmt = param.get("collectionFormat", "csv")
        fmt = fmt if isinstance(fmt, str) else "csv"
        if fmt == "tsv":
            raise OperationSkipped(
                f"parameter {param['name']!r} uses collectionFormat tsv "
                "(no OpenAPI 3 style matches it)"
            )
        if param.get("in") == "query" and fmt in _COLLECTION:
            out["style"], out["explode"] = _COLLECTION[fmt]
        elif param.get("in") in ("path", "header") and fmt not in ("csv", None):
            raise OperationSkipped(
                f"parameter {param['name']!r} in {param.get('in')} uses collectionFormat {fmt}"
            )
    return out


def body_from_parameters(
    params: list[tuple[dict[str, Any], str]], consumes: list[str]
) -> tuple[dict[str, Any], str] | None:
    """The ``body`` or ``formData`` parameters of a 2.0 operation as one requestBody."""
    body = [(p, f) for p, f in params if p.get("in") == "body"]
    form = [(p, f) for p, f in params if p.get("in") == "formData"]
    if body and form:
        raise OperationSkipped("it has both a body parameter and formData parameters")
    if body:
        param, file = body[0]
        media = [m for m in consumes if "form" not in m] or ["application/json"]
        rb: dict[str, Any] = {
            "required": param.get("required") is True,
            "content": {m: {"schema": param.get("schema", {})} for m in media},
        }
        if isinstance(param.get("description"), str):
            rb["description"] = param["description"]
        return rb, file
    if form:
        has_file = any(p.get("type") == "file" for p, _ in form)
        wants_multipart = any("multipart/form-data" in m for m in consumes)
        media_type = (
            "multipart/form-data"
            if has_file or wants_multipart
            else "application/x-www-form-urlencoded"
        )
        props: dict[str, Any] = {}
        required: list[str] = []
        for p, _ in form:
            schema = _inline_schema(p)
            if isinstance(p.get("description"), str):
                schema["description"] = p["description"]
            props[p["name"]] = schema
            if p.get("required") is True:
                required.append(p["name"])
        schema_obj: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            schema_obj["required"] = required
        files = {f for _, f in form}
        if len(files) > 1:  # refs in inline form schemas would resolve against one file only
            raise OperationSkipped("its formData parameters come from different files")
        return {"required": bool(required), "content": {media_type: {"schema": schema_obj}}}, form[
            0
        ][1]
    return None


def response_as_v3(response: dict[str, Any], produces: list[str]) -> dict[str, Any]:
    """A 2.0 response object with its schema under ``content`` (JSON when the API produces it)."""
    if "schema" not in response:
        return {}
    media = next((m for m in produces if "json" in m), None) if produces else "application/json"
    return {"content": {media: {"schema": response["schema"]}}} if media else {}


def server_url(doc: dict[str, Any]) -> str | None:
    """``scheme://host/basePath`` from a 2.0 spec; a relative URL when there is no host."""
    host = doc.get("host")
    base = doc.get("basePath") if isinstance(doc.get("basePath"), str) else ""
    if not isinstance(host, str) or not host:
        return base or None
    found = doc.get("schemes")
    schemes: list[Any] = found if isinstance(found, list) else []
    scheme = "https" if "https" in schemes or not schemes else schemes[0]
    if scheme not in ("http", "https"):
        scheme = "https"
    return f"{scheme}://{host}{base}"


def schemes_as_v3(definitions: Any) -> dict[str, Any]:
    """``securityDefinitions`` as OpenAPI 3 ``securitySchemes``."""
    out: dict[str, Any] = {}
    if not isinstance(definitions, dict):
        return out
    for name, d in definitions.items():
        if not isinstance(d, dict):
            continue
        kind = d.get("type")
        if kind == "basic":
            out[name] = {"type": "http", "scheme": "basic"}
        elif kind == "apiKey":
            out[name] = {"type": "apiKey", "in": d.get("in"), "name": d.get("name")}
        elif kind == "oauth2":
            raw_flow = str(d.get("flow"))
            flow = {"application": "clientCredentials", "accessCode": "authorizationCode"}.get(
                raw_flow, raw_flow
            )
            out[name] = {
                "type": "oauth2",
                "flows": {flow: {"tokenUrl": d.get("tokenUrl"), "scopes": d.get("scopes", {})}},
            }
    return out
