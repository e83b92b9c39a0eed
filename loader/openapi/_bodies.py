"""Request bodies: pick a media type, then lift the properties to arguments or keep one ``body``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._args import Arg, safe_argument
from ._errors import OperationSkipped, RefError
from ._schemas import IN, SchemaConverter

__all__ = ["Body", "JSON", "is_binary", "request_body"]

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
TEXT = "text/plain"
OCTET = "application/octet-stream"

_FILE_PART = {
    "anyOf": [
        {"type": "string", "description": "The file's content as text."},
        {
            "type": "object",
            "properties": {
                "filename": {"type": "string"},
                "content_base64": {"type": "string", "contentEncoding": "base64"},
                "content_type": {"type": "string"},
            },
            "required": ["content_base64"],
            "additionalProperties": False,
        },
    ]
}
_TOKEN = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*")
_BINARY_PREFIXES = ("image/", "audio/", "video/", "font/")
_BINARY = frozenset(
    {
        "application/pdf",
        "application/zip",
        "application/gzip",
        "application/x-gzip",
        "application/x-tar",
        "application/x-zip-compressed",
        "application/x-7z-compressed",
    }
)
_DEFS = "#/$defs/"
_NOT_LIFTABLE = ("allOf", "anyOf", "oneOf", "not", "if", "patternProperties", "$ref")


@dataclass(slots=True)
class Body:
    """The body arguments of a tool and how the body is encoded."""

    media_type: str = JSON
    args: list[Arg] = field(default_factory=list)
    argument: Arg | None = None  # the whole body is this argument's value


def _kind(media: str) -> tuple[int, str] | None:
    m = media.split(";", 1)[0].strip().lower()
    if m == JSON or (m.startswith("application/") and m.endswith("+json")):
        return (0, m)
    if m == "text/json":  # JSON under an older name (ASP.NET's specs write it)
        return (1, m)
    if m in ("application/*", "*/*"):
        return (1, JSON)
    if m == FORM:
        return (2, m)
    if m == MULTIPART:
        return (3, m)
    if m in (TEXT, "text/*"):
        return (4, TEXT)
    if m.startswith("text/") and _TOKEN.fullmatch(m[5:]) or _is_text_document(m):
        return (5, m)  # text/xml, application/xml, YAML...: the argument is the text, sent as is
    if m == OCTET:
        return (6, m)
    if m.startswith(_BINARY_PREFIXES) and _TOKEN.fullmatch(m.split("/", 1)[1]) or m in _BINARY:
        return (7, m)  # image/png, application/pdf...: base64 text, sent as bytes
    return None


_TEXT_DOCUMENTS = frozenset(
    {
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/jwt",
        "application/sql",
        "application/graphql",
        "application/javascript",
    }
)


def _is_text_document(m: str) -> bool:
    """Textual application/* types whose body is one document (XML, YAML, a JWT...)."""
    if m in _TEXT_DOCUMENTS:
        return True
    return (
        m.startswith("application/")
        and m.endswith(("+xml", "+yaml"))
        and bool(_TOKEN.fullmatch(m.split("/", 1)[1]))
    )


def is_binary(media_type: str) -> bool:
    """Whether a chosen body media type carries bytes (the argument is base64 text)."""
    kind = _kind(media_type)
    return kind is not None and kind[0] >= 6


def _choose(content: dict[str, Any]) -> tuple[str, Any] | None:
    best: tuple[int, str, Any] | None = None
    for media, obj in content.items():
        kind = _kind(str(media))
        if kind and (best is None or kind[0] < best[0]):
            best = (kind[0], kind[1], obj)
    return (best[1], best[2]) if best else None


def _is_file(schema: Any) -> bool:
    return isinstance(schema, dict) and (
        schema.get("format") in ("binary", "base64")
        or schema.get("contentEncoding") in ("binary", "base64")
        or ("contentMediaType" in schema and schema.get("type") == "string")
    )


def request_body(
    rb: dict[str, Any] | None,
    file: str,
    converter: SchemaConverter,
    defs: dict[str, Any],
    taken: set[str],
) -> Body | None:
    """The body of an operation; ``taken`` holds the argument names of its parameters.

    The body is required when the spec says ``required: true``, or when its schema
    lists required properties: many specs never write ``required: true`` on a body
    whose schema plainly needs ``email`` and ``password``, and a model that may leave
    them out gets a 400. A body the spec leaves optional that requires no property
    stays optional.
    """
    if not isinstance(rb, dict) or not isinstance(rb.get("content"), dict) or not rb["content"]:
        return None
    required = rb.get("required") is True
    chosen = _choose(rb["content"])
    if chosen is None:
        kinds = ", ".join(sorted(str(m) if str(m).strip() else repr(m) for m in rb["content"]))
        if required:
            raise OperationSkipped(f"its request body media types ({kinds}) are not supported")
        return None  # an optional body we cannot send is left out
    media_type, media = chosen
    raw = media.get("schema") if isinstance(media, dict) else None
    description = rb.get("description") if isinstance(rb.get("description"), str) else None
    if media_type != "text/json" and (
        media_type.startswith("text/") or _is_text_document(media_type)
    ):
        schema: Any = {"type": "string"}
        if media_type != TEXT:
            description = ((description or "") + f" The {media_type} text, sent as is.").strip()
        # an XML document whose schema requires elements must be sent (AWS's query APIs)
        required = required or _requires_properties(raw, file, converter)
    elif is_binary(media_type):
        schema = {"type": "string", "contentEncoding": "base64"}
        shown = "" if media_type == OCTET else f" ({media_type})"
        description = ((description or "") + f" Base64-encoded bytes{shown}.").strip()
    else:
        schema, found = converter.convert(raw if raw is not None else {}, file, IN)
        defs.update(found)
    if not required and _takes_nothing(schema):
        return None  # only {} could be sent (Stripe's GETs declare such bodies): nothing to ask
    required = required or bool(_required_properties(schema, defs))
    body = Body(media_type=media_type)
    lifted = _lift(schema, media_type, taken)
    if lifted is not None:
        encoding = media.get("encoding") if isinstance(media, dict) else None
        if isinstance(encoding, dict) and media_type in (FORM, MULTIPART):
            _apply_encoding(lifted, encoding)
        body.args = lifted
    else:
        body.argument = Arg("body", "body", required, schema, description)
    return body


def _requires_properties(raw: Any, file: str, converter: SchemaConverter) -> bool:
    """Whether the schema of a body sent as text requires properties (a ref that does not
    resolve says nothing: the text body never needed its schema)."""
    if not isinstance(raw, dict):
        return False
    try:
        schema, found = converter.convert(raw, file, IN)
    except RefError:
        return False
    return bool(_required_properties(schema, found))


def _takes_nothing(schema: Any) -> bool:
    """An object schema without properties that allows no others: the body can only be ``{}``."""
    if not isinstance(schema, dict) or schema.get("additionalProperties", True) is not False:
        return False
    if schema.get("type", "object") != "object" or schema.get("properties"):
        return False
    return not any(k in schema for k in ("patternProperties", *_NOT_LIFTABLE))


def _required_properties(
    schema: Any, defs: dict[str, Any], seen: frozenset[str] = frozenset()
) -> set[str]:
    """The properties an object schema requires: its own, its ``allOf`` members' and those
    of the ``#/$defs/`` schema it refers to (each definition followed once)."""
    if not isinstance(schema, dict):
        return set()
    names = schema.get("required")
    found = {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS) and ref not in seen:
        found |= _required_properties(defs.get(ref[len(_DEFS) :]), defs, seen | {ref})
    members = schema.get("allOf")
    for member in members if isinstance(members, list) else ():
        found |= _required_properties(member, defs, seen)
    return found


def _lift(schema: Any, media_type: str, taken: set[str]) -> list[Arg] | None:
    if media_type not in (FORM, MULTIPART) and not media_type.endswith("json"):
        return None
    if not isinstance(schema, dict) or any(k in schema for k in _NOT_LIFTABLE):
        return None
    if schema.get("type", "object") != "object":
        return None
    props = schema.get("properties")
    extra = schema.get("additionalProperties", False)
    if not isinstance(props, dict) or not props or extra not in (False, None):
        return None  # free-form extra properties cannot become named arguments
    names = [safe_argument(n) for n in props]
    if len(set(names)) != len(names) or taken.intersection(names):
        return None  # ambiguous: keep the body whole
    req = _required_properties(schema, {})  # a lifted body has no $ref or allOf
    args = []
    for wire, prop in props.items():
        is_file = media_type == MULTIPART and _is_file(prop)
        if is_file:
            desc = prop.get("description") if isinstance(prop.get("description"), str) else None
            arg = Arg(wire, "body", wire in req, _FILE_PART, desc, file=True)
        else:
            arg = Arg(wire, "body", wire in req, prop)
        args.append(arg)
    return args


_STYLES = frozenset({"form", "spaceDelimited", "pipeDelimited", "deepObject"})


def _apply_encoding(args: list[Arg], encoding: dict[str, Any]) -> None:
    """OpenAPI ``encoding`` of form and multipart bodies, per property, onto the arguments."""
    for arg in args:
        enc = encoding.get(arg.wire)
        if not isinstance(enc, dict):
            continue
        style = enc.get("style")
        if isinstance(style, str) and style in _STYLES:
            arg.style = style
        if isinstance(enc.get("explode"), bool):
            arg.explode = enc["explode"]
        if enc.get("allowReserved") is True:
            arg.allow_reserved = True
        if isinstance(enc.get("contentType"), str) and "," not in enc["contentType"]:
            arg.content_type = enc["contentType"]
