"""Output schemas: the first 2xx response with a JSON body, its named schemas as ``$defs``."""

from __future__ import annotations

from typing import Any

from ._errors import RefError
from ._refs import Resolver
from ._schemas import OUT, SchemaConverter
from ._swagger2 import response_as_v3

__all__ = ["MAX_OUTPUT_DEFINITIONS", "output_schema"]

MAX_OUTPUT_DEFINITIONS = 32  # larger response schemas are left out (see docs/openapi.md)


def _is_json(media: str) -> bool:
    m = media.split(";", 1)[0].strip().lower()
    # text/json: JSON under an older name (ASP.NET's specs write it)
    return m in ("application/json", "text/json", "*/*", "application/*") or m.endswith("+json")


def output_schema(
    op: dict[str, Any],
    file: str,
    converter: SchemaConverter,
    resolver: Resolver,
    swagger: bool,
    produces: list[str],
    notes: list[str],
) -> Any:
    """The operation's output schema, or ``None`` (with a note when one was left out)."""
    responses = op.get("responses")
    if not isinstance(responses, dict):
        return None
    codes = sorted(
        (str(c) for c in responses if str(c).startswith("2")),
        key=lambda c: (c.upper() == "2XX", c),
    )
    for code in codes:
        raw = responses.get(code, responses.get(int(code)) if code.isdigit() else None)
        try:
            resp, rfile = resolver.deref(raw, file)
            if not isinstance(resp, dict):
                continue
            if swagger:
                resp = response_as_v3(resp, produces)
            content = resp.get("content")
            if not isinstance(content, dict):
                continue
            media = next((m for m in content if _is_json(str(m))), None)
            if (
                media is None
                or not isinstance(content[media], dict)
                or "schema" not in content[media]
            ):
                continue
            raw_schema = content[media]["schema"]
            if converter.raw_closure_exceeds(raw_schema, rfile, MAX_OUTPUT_DEFINITIONS):
                notes.append(
                    f"no output schema: the {code} response reaches more than "
                    f"{MAX_OUTPUT_DEFINITIONS} named schemas"
                )
                return None
            schema, defs = converter.convert(raw_schema, rfile, OUT)
        except RefError as exc:
            notes.append(f"no output schema: {exc}")
            return None
        if len(defs) > MAX_OUTPUT_DEFINITIONS:
            notes.append(f"no output schema: the {code} response needs {len(defs)} definitions")
            return None
        if not isinstance(schema, dict):
            return None
        return {**schema, "$defs": defs} if defs else schema
    return None
