"""Writing an import as a readable YAML catalog (``toolcat import openapi``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from toolcat._errors import ToolcatError
from toolcat.catalog import FrozenDict, FrozenList, method_semantics
from toolcat.loader._yaml_scalars import plain_is_text

from ._definitions import shared_definitions
from ._options import ImportOptions, ImportResult

__all__ = ["catalog_document", "render_catalog", "render_header"]

_BaseDumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):  # type: ignore[misc]
    """Plain YAML: no anchors for shared schemas, block style, multi-line text as ``|`` blocks."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_text(dumper: Any, data: str) -> Any:
    style = "|" if "\n" in data and not any(c.isspace() and c not in " \n" for c in data) else None
    if style is None and data and not plain_is_text(data):
        style = "'"  # PyYAML quotes what YAML 1.1 reads otherwise; 1.2 adds 1e5, 0o17
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _represent_text)
_Dumper.add_representer(FrozenDict, lambda d, v: d.represent_dict(dict(v)))
_Dumper.add_representer(FrozenList, lambda d, v: d.represent_list(list(v)))

_VERSIONS = {"2.0": "Swagger 2.0", "3.0": "OpenAPI 3.0", "3.1": "OpenAPI 3.1", "3.2": "OpenAPI 3.2"}


def catalog_document(result: ImportResult) -> dict[str, Any]:
    """The catalog (``toolcat: 1``, ``services``, ``definitions``, ``tools``) that loads
    to the same tools.

    With ``output_schemas: shared`` (the default) every definition a tool needs
    (its arguments' and its output schema's) is written once, in the file's
    ``definitions:``; ``inline`` keeps a copy in each tool, as tools are imported.
    """
    doc: dict[str, Any] = {"toolcat": 1}
    if result.services:
        doc["services"] = result.services
    tools = [_plain(tool) for tool in result.tools]
    if result.output_schemas == "inline":
        doc["tools"] = tools
        return doc
    tools, definitions = shared_definitions(tools)
    if definitions:
        doc["definitions"] = definitions
    doc["tools"] = tools
    return doc


_PATH_VAR = re.compile(r"\{([^{}]*)\}")
# OpenAPI's default style per location (explode: true for form, else false)
_DEFAULT_STYLE = {"query": "form", "path": "simple", "header": "simple"}


def _plain(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool without what the catalog gives it anyway (docs/catalog-format.md): an
    argument's ``in`` where it is the default for its name and the method, ``required:
    true`` without a default, annotations that follow from the method."""
    out = dict(tool)
    method = str(tool.get("method", "GET"))
    semantics = method_semantics(method)
    params = tool.get("parameters")
    if isinstance(params, dict):
        variables = set(_PATH_VAR.findall(str(tool.get("path", ""))))
        plain: dict[str, Any] = {}
        for arg, param in params.items():
            param = dict(param)
            wire = param.get("name", arg)
            if wire in variables:
                where = "path"
            elif param.get("file") or arg == tool.get("body_argument"):
                where = "body"
            else:
                where = "query" if semantics.query_arguments else "body"
            style = _DEFAULT_STYLE.get(param.get("in", where))
            if (
                style is not None
                and param.get("style", style) == style
                and param.get("explode", style == "form") == (style == "form")
            ):  # OpenAPI's default for the location, which the executor applies too
                param.pop("style", None)
                param.pop("explode", None)
            if param.get("in") == where:
                del param["in"]
            if param.get("required") is True and "default" not in param:
                del param["required"]
            plain[arg] = param
        out["parameters"] = plain
    annotations = tool.get("annotations")
    if isinstance(annotations, dict):
        derived = {
            "read_only": semantics.read_only,
            "destructive": semantics.destructive,
            "idempotent": semantics.idempotent,
        }
        kept = {k: v for k, v in annotations.items() if derived.get(k, not v) != v}
        if kept:
            out["annotations"] = kept
        else:
            del out["annotations"]
    return out


def render_catalog(
    result: ImportResult,
    spec: str | Path,
    options: ImportOptions | None = None,
    *,
    document: dict[str, Any] | None = None,
) -> str:
    """The YAML text of :func:`catalog_document`, with a header saying where it came from
    and, given the ``options`` of the import, how it was written. ``document``: that
    document when the caller has it already (the import record is written from it too)."""
    header = render_header(result, spec, options)
    doc = catalog_document(result) if document is None else document
    try:
        lines: list[str] = []
        _block(doc, 0, lines)
        return header + "\n".join(lines) + "\n"
    except _NeedsPyYAML:
        pass
    body = yaml.dump(
        doc,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return header + body


def render_header(
    result: ImportResult,
    spec: str | Path,
    options: ImportOptions | None = None,
    written: int | None = None,
) -> str:
    """The comment lines that head a written catalog. ``written``: how many tools the file
    holds when that is not how many were imported (``--update`` kept hand edits)."""
    skipped = sum(1 for r in result.report if r.skipped)
    version = _VERSIONS.get(result.version or "", "OpenAPI")
    counts = f"{len(result.report)} operations: {len(result.tools)} imported, {skipped} left out"
    if written is not None and written != len(result.tools):
        counts += f"; {written} tools written, with the hand edits --update kept"
    header = (
        f"# Generated by `toolcat import openapi` from {Path(spec).name} ({version}).\n"
        f"# {counts}.\n"
        "# Secrets are ${VAR} placeholders: set them in the environment, never in this file.\n"
    )
    if options is not None:
        header += _options_line(options)
    return header


def _options_line(options: ImportOptions) -> str:
    """The header line that says how the tools were written (the import's options)."""
    wanted = options.confirm_methods
    confirm = (
        "every method that is not safe"
        if wanted is None
        else (",".join(sorted(wanted)) if wanted else "none")
    )
    return (
        f"# Options: --output-schemas {options.output_schemas}"
        f" --descriptions {'markdown' if options.markdown else 'keep'}"
        f" --description-max {options.description_max}"
        f" --base-url-style {'env' if options.base_url_env else 'fixed'}"
        f" --naming {options.naming}.\n"
        f"# Policy: confirm: true for {confirm}; writes not named there get confirm: false.\n"
    )


# -- a small block-style YAML writer ----------------------------------------------
# PyYAML's representer walks every node in Python and dominates the time of
# `toolcat import openapi` on large specs (GitHub: 10 MB of YAML). This writer
# emits the same data in plain block style, quoting any string that is not
# obviously a plain scalar as a JSON string (JSON strings are valid YAML
# double-quoted scalars); anything unusual falls back to PyYAML.


class _NeedsPyYAML(ToolcatError):
    """A value this writer does not handle; PyYAML writes the document instead."""


_PLAIN = re.compile(r"[A-Za-z_$/][A-Za-z0-9_ ./$()+,{}-]*\Z")
_RESERVED = frozenset(
    "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF "
    "null Null NULL".split()
)
# Characters PyYAML refuses in a stream, and line breaks YAML folds inside quotes.
_UNSAFE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\x85\u2028\u2029]"
)
_LITERAL_BAD = re.compile(r"[ \t]\n|[ \t]\Z|\r|\t")


def _text(value: str) -> str:
    if (
        _PLAIN.match(value)
        and value not in _RESERVED
        and not value.endswith(" ")
        and " #" not in value
    ):
        return value
    quoted = json.dumps(value, ensure_ascii=False)
    if _UNSAFE.search(quoted):
        quoted = json.dumps(value, ensure_ascii=True)
    return quoted


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    t = type(value)
    if t is int:
        return str(value)
    if t is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise _NeedsPyYAML
        return repr(value)
    if t is str:
        return _text(value)
    raise _NeedsPyYAML


def _literal(value: str, indent: int) -> list[str] | None:
    """``|`` block lines for readable multi-line text, or ``None`` when quoting is safer."""
    if "\n" not in value or _LITERAL_BAD.search(value) or _UNSAFE.search(value):
        return None
    body = value[:-1] if value.endswith("\n") else value
    if body.endswith("\n") or not body.strip() or body.lstrip("\n")[:1] in (" ", "#"):
        return None
    lines = body.split("\n")
    if lines[0] == "":
        return None
    pad = " " * indent
    head = "|" if value.endswith("\n") else "|-"
    return [head] + [pad + line if line else "" for line in lines]


def _key(key: Any) -> str:
    if type(key) is not str or len(key) > 1000:
        raise _NeedsPyYAML
    return _text(key)


_FLOW_UNSAFE = frozenset(",[]{}")
FLOW_WIDTH = 100  # a small mapping or list of plain values is one line up to this width


def _flow_item(value: Any, room: int) -> str | None:
    if isinstance(value, dict | list):
        return _flow(value, room) if value else ("{}" if isinstance(value, dict) else "[]")
    if type(value) is str and ("\n" in value or len(value) > room):
        return None
    text = _scalar(value)
    if type(value) is str and text == value and _FLOW_UNSAFE.intersection(value):
        text = json.dumps(value, ensure_ascii=False)
        if _UNSAFE.search(text):
            text = json.dumps(value, ensure_ascii=True)
    return text


def _flow(value: Any, room: int) -> str | None:
    """``{a: 1, b: [x, y]}`` for a small collection that fits in ``room`` characters."""
    parts: list[str] = []
    used = 2
    if isinstance(value, dict):
        for k, v in value.items():
            if type(k) is not str:
                return None
            key = _flow_item(k, room - used)
            item = _flow_item(v, room - used) if key is not None else None
            if item is None:
                return None
            parts.append(f"{key}: {item}")
            used += len(parts[-1]) + 2
            if used > room:
                return None
        return "{" + ", ".join(parts) + "}"
    for v in value:
        item = _flow_item(v, room - used)
        if item is None:
            return None
        parts.append(item)
        used += len(item) + 2
        if used > room:
            return None
    return "[" + ", ".join(parts) + "]"


def _wrapped(values: list[Any], indent: int, first: int) -> list[str] | None:
    """A long list of scalars as a flow sequence over several lines (``enum: [a, b,``...)."""
    items: list[str] = []
    for v in values:
        if isinstance(v, dict | list):
            return None
        item = _flow_item(v, FLOW_WIDTH)
        if item is None:
            return None
        items.append(item)
    lines: list[str] = []
    line = "["
    pad = " " * indent
    for i, item in enumerate(items):
        piece = item + ("]" if i == len(items) - 1 else ",")
        room = first if not lines else FLOW_WIDTH
        if line not in ("[", pad) and len(line) + 1 + len(piece) > room:
            lines.append(line)
            line = pad + piece
        else:
            line = line + ("" if line in ("[", pad) else " ") + piece
    lines.append(line)
    return lines


def _block(node: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(node, dict):
        for k, v in node.items():
            key = _key(k)
            if (
                isinstance(v, dict | list)
                and v
                and (flow := _flow(v, FLOW_WIDTH - indent - len(key) - 2)) is not None
            ):
                out.append(f"{pad}{key}: {flow}")
            elif (
                isinstance(v, list)
                and v
                and (wrapped := _wrapped(v, indent + 2, FLOW_WIDTH - indent - len(key) - 2))
                is not None
            ):
                out.append(f"{pad}{key}: {wrapped[0]}")
                out.extend(wrapped[1:])
            elif isinstance(v, dict) and v:
                out.append(f"{pad}{key}:")
                _block(v, indent + 2, out)
            elif isinstance(v, list) and v:
                out.append(f"{pad}{key}:")
                _block(v, indent, out)
            elif isinstance(v, dict | list):
                out.append(f"{pad}{key}: {'{}' if isinstance(v, dict) else '[]'}")
            elif type(v) is str and "\n" in v and (lit := _literal(v, indent + 2)) is not None:
                out.append(f"{pad}{key}: {lit[0]}")
                out.extend(lit[1:])
            else:
                out.append(f"{pad}{key}: {_scalar(v)}")
        return
    for item in node:  # a list: "- " items at this indent
        if isinstance(item, dict) and item:
            sub: list[str] = []
            _block(item, indent + 2, sub)
            sub[0] = f"{pad}- {sub[0][indent + 2 :]}"
            out.extend(sub)
        elif isinstance(item, list) and item:
            sub = []
            _block(item, indent + 2, sub)
            sub[0] = f"{pad}- {sub[0][indent + 2 :]}"
            out.extend(sub)
        elif isinstance(item, dict | list):
            out.append(f"{pad}- {'{}' if isinstance(item, dict) else '[]'}")
        elif type(item) is str and "\n" in item and (lit := _literal(item, indent + 2)) is not None:
            out.append(f"{pad}- {lit[0]}")
            out.extend(lit[1:])
        else:
            out.append(f"{pad}- {_scalar(item)}")
