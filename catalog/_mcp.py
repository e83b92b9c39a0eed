"""Tools of upstream MCP servers: the server entries and the command that calls one tool.

A catalog's ``mcp_servers:`` section compiles to :class:`McpUpstream` values; a tool bound to
an upstream tool (``mcp: {server, tool, pin}``) has an :class:`McpCommand` where an HTTP tool
has an ``HttpCommand``. Like the rest of the IR these are frozen, and strings that may hold
``${VAR}`` (command arguments, environment values, URLs, headers, auth fields) are kept raw:
the executor resolves them when it connects, never at load time.

The pin is a digest of the upstream's own definition of the tool as it was reviewed: its
name, description, input and output schema and annotations, exactly as the server listed
them (before any rename or override the catalog applies). :func:`mcp_pin` computes it; the
importer writes it and the runtime compares it with what the server lists now.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from ._auth import AuthSpec, NoAuth
from ._frozen import FrozenDict, thaw
from ._keywords import SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_ONE
from ._model import MAX_RESPONSE_CHARS, SourceLocation

__all__ = [
    "PIN_FIELDS",
    "McpCommand",
    "McpHealth",
    "McpUpstream",
    "OnChange",
    "mcp_parameter",
    "mcp_pin",
    "mcp_schema",
    "mcp_title",
]

OnChange = Literal["refuse", "warn", "accept"]

# the parts of an upstream tool's definition a pin covers, as MCP names them
PIN_FIELDS = ("name", "description", "inputSchema", "outputSchema", "annotations")


@dataclass(frozen=True, slots=True)
class McpHealth:
    """How the replicas of an HTTP upstream with several URLs are probed: every
    ``interval`` seconds (less often, up to four times that, while one keeps failing), each
    probe given ``timeout`` seconds to answer."""

    interval: float = 10.0
    timeout: float = 5.0


@dataclass(frozen=True, slots=True)
class McpUpstream:
    """An upstream MCP server: a stdio ``command`` or one or more streamable-HTTP ``urls``.

    Exactly one of ``command`` and ``urls`` is set (the loader checks it). Several URLs are
    replicas of one upstream, balanced with health checks (``health``). ``env`` is
    everything a stdio upstream gets besides ``PATH``; ``cwd`` is absolute (the loader
    resolves it against the catalog file's folder). ``timeout`` is the default for one
    call, in seconds; a tool's ``McpCommand.timeout`` overrides it.
    """

    name: str
    command: tuple[str, ...] = ()  # argv, raw
    urls: tuple[str, ...] = ()  # raw
    env: FrozenDict = field(default_factory=FrozenDict)  # name -> raw value
    cwd: str | None = None
    headers: FrozenDict = field(default_factory=FrozenDict)  # raw, HTTP upstreams only
    auth: AuthSpec = field(default_factory=NoAuth)  # HTTP upstreams only
    timeout: float = 30.0
    on_change: OnChange = "refuse"
    health: McpHealth = field(default_factory=McpHealth)  # probes of replicas (several URLs)
    max_response_chars: int = MAX_RESPONSE_CHARS  # what the model sees of one result at most
    source: SourceLocation | None = None
    # the entry's ``x-`` keys as written: read by tools around toolcat, never by the executor
    extensions: FrozenDict = field(default_factory=FrozenDict)

    @property
    def stdio(self) -> bool:
        return bool(self.command)


@dataclass(frozen=True, slots=True)
class McpCommand:
    """The upstream tool a catalog tool calls, and how its arguments map onto it.

    ``arguments`` renames: catalog argument name -> the upstream's name, for the arguments
    the catalog renamed (the others keep their names). ``fixed`` holds upstream arguments the
    model never sees, always sent with these values. Context arguments
    (``ToolDefinition.context_arguments``) are filled from the caller, as for HTTP tools;
    ``required_context`` names those a call may not go without.
    """

    server: str
    tool: str  # the upstream's name of the tool
    pin: str  # "sha256:<hex>" of the reviewed definition (see mcp_pin)
    timeout: float | None = None  # overrides the server's
    arguments: FrozenDict = field(default_factory=FrozenDict)
    fixed: FrozenDict = field(default_factory=FrozenDict)
    # the context arguments a call must carry (those not ``required: false``): without one
    # the call is refused before anything is sent, as for an HTTP tool's
    required_context: tuple[str, ...] = ()


def mcp_pin(definition: Mapping[str, Any]) -> str:
    """The pin of an upstream tool's definition: sha256 of its :data:`PIN_FIELDS`.

    ``definition`` is the tool as the server lists it (MCP's JSON names: ``inputSchema``,
    ``outputSchema``, ``annotations``). Absent and ``null`` fields are left out, and keys are
    sorted, so the pin does not depend on key order or on how a server spells "not given".

    >>> mcp_pin({"name": "echo", "inputSchema": {"type": "object"}})
    'sha256:a85008edb2a361a39358ef9a40ccff45a3a4938fd90bb7d55450a050284e4723'
    """
    covered = {k: thaw(definition[k]) for k in PIN_FIELDS if definition.get(k) is not None}
    digest = hashlib.sha256(orjson.dumps(covered, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"sha256:{digest}"


def mcp_title(tool: Mapping[str, Any]) -> str | None:
    """The title an upstream tool shows: its own ``title``, else ``annotations.title``.

    ``tool`` is the tool as the server lists it.

    >>> mcp_title({"name": "x", "annotations": {"title": "Hinted"}})
    'Hinted'
    >>> mcp_title({"name": "x", "title": "Own", "annotations": {"title": "Hinted"}})
    'Own'
    """
    hints = tool.get("annotations")
    title = tool.get("title") or (hints.get("title") if isinstance(hints, Mapping) else None)
    return title if isinstance(title, str) and title else None


_OLD_DEFS = "#/definitions/"


def mcp_schema(schema: Any) -> Any:
    """An upstream's input or output schema in the catalog's dialect, JSON Schema 2020-12.

    MCP lets a server declare an older draft (``$schema``: draft-07, as zod-to-json-schema
    writes it). Its keywords that 2020-12 spells otherwise are rewritten, at every level:
    ``definitions`` to ``$defs`` (and ``#/definitions/...`` refs with it), the array form
    of ``items`` to ``prefixItems`` (``additionalItems`` to ``items``), and
    ``dependencies`` to ``dependentRequired`` or ``dependentSchemas``. The draft's
    ``$schema`` stamp is dropped, at every level: left beside the rewritten keywords it
    would have a validator read them as that draft (``items`` after ``prefixItems``
    checking every item), and the catalog's schemas are 2020-12 without one. A 2020-12
    schema without a stamp comes back equal.

    >>> mcp_schema({"definitions": {"p": {"type": "string"}},
    ...             "properties": {"a": {"$ref": "#/definitions/p"}}})
    {'$defs': {'p': {'type': 'string'}}, 'properties': {'a': {'$ref': '#/$defs/p'}}}
    >>> mcp_schema({"$schema": "http://json-schema.org/draft-07/schema#",
    ...             "items": [{"type": "string"}], "additionalItems": False})
    {'prefixItems': [{'type': 'string'}], 'items': False}
    """
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$schema":
            continue  # the result is 2020-12, whatever the server declared
        elif key == "definitions" and isinstance(value, Mapping) and "$defs" not in schema:
            out["$defs"] = {name: mcp_schema(sub) for name, sub in value.items()}
        elif key == "$ref" and isinstance(value, str) and value.startswith(_OLD_DEFS):
            out[key] = "#/$defs/" + value[len(_OLD_DEFS) :]
        elif key == "items" and isinstance(value, list):
            out["prefixItems"] = [mcp_schema(sub) for sub in value]
            if "additionalItems" in schema:
                out["items"] = mcp_schema(schema["additionalItems"])
        elif key == "additionalItems" and isinstance(schema.get("items"), list):
            continue  # became items, above
        elif key == "dependencies" and isinstance(value, Mapping):
            for name, needs in value.items():
                kind = "dependentRequired" if isinstance(needs, list) else "dependentSchemas"
                out.setdefault(kind, {})[name] = (
                    needs if kind == "dependentRequired" else mcp_schema(needs)
                )
        elif key in SUBSCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: mcp_schema(sub) for name, sub in value.items()}
        elif key in SUBSCHEMA_ONE:
            out[key] = mcp_schema(value)
        elif key in SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [mcp_schema(sub) for sub in value]
        else:
            out[key] = value
    return out


def mcp_parameter(schema: Mapping[str, Any], required: bool) -> dict[str, Any]:
    """An upstream argument's schema as the catalog parameter ``toolcat import mcp`` writes
    (its description already in place), for an argument that is ``required`` or not.

    ``required`` is both the catalog's placement key (a boolean) and a JSON Schema keyword
    (the list of an object's required properties). The catalog reads a list as the
    schema's, and the argument as required unless a ``default`` stands beside it. So the
    boolean is written only where that reading would be wrong, and then a list moves into
    ``allOf`` with the rest of the schema, the description staying outside for the model:

    >>> mcp_parameter({"type": "object", "required": ["name"]}, required=False)
    {'allOf': [{'type': 'object', 'required': ['name']}], 'required': False}
    >>> mcp_parameter({"type": "string", "default": "a"}, required=True)
    {'type': 'string', 'default': 'a', 'required': True}
    """
    out = dict(schema)
    if required != ("default" in out):
        return out  # the catalog's own reading: required without a default, else optional
    if isinstance(out.get("required"), list):
        inner = {k: v for k, v in out.items() if k != "description"}
        out = {k: v for k, v in out.items() if k == "description"}
        out["allOf"] = [inner]
    out["required"] = required
    return out
