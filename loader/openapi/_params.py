"""Operation parameters: path-level and operation-level merged (the operation wins)."""

from __future__ import annotations

from typing import Any

from toolcat.loader._params import TOKEN

from ._args import Arg
from ._errors import OperationSkipped
from ._refs import Resolver
from ._schemas import IN, SchemaConverter

__all__ = ["IGNORED_HEADERS", "merged_parameters", "parameter_args"]

# OpenAPI 3: header parameters with these names are ignored (the request sets them).
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_STYLES = frozenset(
    {"form", "spaceDelimited", "pipeDelimited", "deepObject", "simple", "label", "matrix"}
)
_LOCATIONS = frozenset({"path", "query", "header", "cookie"})


def merged_parameters(
    resolver: Resolver, path_params: Any, path_file: str, op_params: Any, op_file: str
) -> list[tuple[dict[str, Any], str]]:
    """Resolved parameters with the file each lives in; the operation's win over the path's."""
    merged: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for raw, file in ((path_params, path_file), (op_params, op_file)):
        if not isinstance(raw, list):
            continue
        for item in raw:
            param, pfile = resolver.deref(item, file)
            if not isinstance(param, dict) or not isinstance(param.get("name"), str):
                raise OperationSkipped("a parameter has no name")
            merged[(str(param.get("in")), param["name"])] = (param, pfile)
    return list(merged.values())


def parameter_args(
    params: list[tuple[dict[str, Any], str]], converter: SchemaConverter, defs: dict[str, Any]
) -> list[Arg]:
    """OpenAPI 3 parameters (path, query, header, cookie) as arguments; ``defs`` collects $defs."""
    args: list[Arg] = []
    for param, file in params:
        location = param.get("in")
        name = param["name"]
        if type(location) is not str or location not in _LOCATIONS:
            raise OperationSkipped(
                f"parameter {name!r} is in {location!r}, which is not a location"
            )
        if location in ("header", "cookie") and not TOKEN.match(name):
            # CR/LF or a colon in a header name would forge headers; a space splits a cookie
            raise OperationSkipped(
                f"the {location} parameter {name!r} is not a valid {location} name "
                "(letters, digits and !#$%&'*+-.^_`|~; no spaces, colons, CR or LF)",
                code="TC204",
            )
        if location == "header" and name.lower() in IGNORED_HEADERS:
            continue
        content_type = None
        raw_schema = param.get("schema")
        content = param.get("content")
        if isinstance(content, dict) and content:
            content_type, media = next(iter(content.items()))
            raw_schema = media.get("schema") if isinstance(media, dict) else None
        schema, found = converter.convert(raw_schema if raw_schema is not None else {}, file, IN)
        defs.update(found)
        if "example" in param and isinstance(schema, dict) and "examples" not in schema:
            schema = {**schema, "examples": [param["example"]]}
        if param.get("deprecated") is True and isinstance(schema, dict):
            schema = {**schema, "deprecated": True}
        style = param.get("style")
        explode = param.get("explode")
        args.append(
            Arg(
                wire=name,
                location=location,
                required=location == "path" or param.get("required") is True,
                schema=schema,
                description=param.get("description")
                if isinstance(param.get("description"), str)
                else None,
                style=style if type(style) is str and style in _STYLES else None,
                explode=explode if isinstance(explode, bool) else None,
                allow_reserved=param.get("allowReserved") is True,
                content_type=content_type if isinstance(content_type, str) else None,
            )
        )
    return args
