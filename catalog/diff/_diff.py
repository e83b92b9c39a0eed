"""What changed between two catalogs, tool by tool, for the model and for callers.

:func:`diff_catalogs` compares the compiled IR (never the files): each tool's input
schema (with its ``$ref``s followed, see :mod:`._diff_schema`), its HTTP command
(method, path, service, argument bindings, body), its service's effective base URL
and auth, or for a tool of an MCP server its server, upstream tool, pin, renames and
the server's entry (:mod:`._diff_mcp`), its annotations and its confirmation. Every
difference is one :class:`ToolChange` with a stable rule id from :data:`CHANGE_RULES`:

- ``TD1xx`` *breaking*: a caller or a model that worked with the old catalog can
  fail with the new one (a tool or argument gone, a value refused, another request);
- ``TD2xx`` *safety*: the new catalog asks for less care (no confirmation, a write
  where a read was, no destructive hint);
- ``TD3xx`` *note*: anything else that changed; models read descriptions and schemas.

A catalog compared with itself gives no change. A renamed tool is a removal and an
addition; when the removed tool's method and path (or MCP server and upstream tool)
are the added tool's, both say so.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from toolcat.catalog._auth import AuthSpec
from toolcat.catalog._catalog import Catalog
from toolcat.catalog._depth import recursion_headroom
from toolcat.catalog._mcp import McpCommand
from toolcat.catalog._methods import method_semantics
from toolcat.catalog._model import HttpCommand, Service, SourceLocation, ToolDefinition

from ._diff_mcp import mcp_changes
from ._diff_schema import SchemaDiff
from ._schema_parts import pointer

__all__ = ["CHANGE_RULES", "ChangeKind", "ChangeRule", "ToolChange", "diff_catalogs"]


class ChangeKind(enum.StrEnum):
    """The class of a change, most serious first."""

    BREAKING = "breaking"
    SAFETY = "safety"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {ChangeKind.BREAKING: 0, ChangeKind.SAFETY: 1, ChangeKind.NOTE: 2}


@dataclass(frozen=True, slots=True)
class ChangeRule:
    """One rule: its stable id, a short name, its class and what it means."""

    id: str
    name: str
    kind: ChangeKind
    summary: str


def _rules(*rows: tuple[str, str, ChangeKind, str]) -> Mapping[str, ChangeRule]:
    return MappingProxyType({r[0]: ChangeRule(*r) for r in rows})


_B, _S, _N = ChangeKind.BREAKING, ChangeKind.SAFETY, ChangeKind.NOTE

# The one table of rules (docs/cli.md "toolcat diff" prints it; a test keeps them equal).
CHANGE_RULES: Mapping[str, ChangeRule] = _rules(
    ("TD101", "tool-removed", _B, "a tool is gone (a rename is a removal and an addition)"),
    ("TD102", "argument-removed", _B, "an argument or a nested property is gone"),
    ("TD103", "argument-now-required", _B, "an existing argument or property became required"),
    ("TD104", "required-argument-added", _B, "a new argument or property is required"),
    ("TD105", "type-narrowed", _B, "a type changed or lost a member; an alternative is gone"),
    ("TD106", "enum-value-removed", _B, "an enum lost a value"),
    ("TD107", "constraint-tightened", _B, "a bound, length, pattern, format, enum or "
     "additionalProperties: false refuses values the old schema accepted"),
    ("TD108", "method-changed", _B, "the HTTP method changed"),
    ("TD109", "path-changed", _B, "the path template changed"),
    ("TD110", "service-changed", _B, "the tool calls another service"),
    ("TD111", "base-url-changed", _B, "the effective base URL changed"),
    ("TD112", "auth-changed", _B, "the effective authentication changed"),
    ("TD113", "binding-changed", _B, "an argument goes elsewhere in the request, or the "
     "body is built differently"),
    ("TD114", "transport-changed", _B, "the tool calls an MCP server where it called an "
     "HTTP service, or the reverse"),
    ("TD115", "mcp-server-changed", _B, "the tool calls another MCP server, or its server "
     "is started or reached differently"),
    ("TD116", "upstream-tool-changed", _B, "the tool calls another tool of its MCP server"),
    ("TD201", "confirm-dropped", _S, "the tool no longer needs confirmation"),
    ("TD202", "became-write", _S, "a read-only tool may now change data"),
    ("TD203", "destructive-hint-removed", _S, "a tool that was marked destructive is not"),
    ("TD204", "on-change-loosened", _S, "the tool's MCP server refuses (or logs) a changed "
     "upstream definition no longer"),
    ("TD301", "tool-added", _N, "a new tool"),
    ("TD302", "description-changed", _N, "the tool's description or title changed"),
    ("TD303", "argument-added", _N, "a new optional argument or property"),
    ("TD304", "schema-text-changed", _N, "a schema's description, title, default or "
     "examples changed"),
    ("TD305", "constraint-relaxed", _N, "the schema accepts more than before (widening)"),
    ("TD306", "schema-changed", _N, "a schema change not classified above (not, if, "
     "output schema, ...)"),
    ("TD307", "tool-changed", _N, "another field changed (tags, annotations, timeouts, "
     "retry, response, headers, toolsets, confirm added)"),
    ("TD308", "upstream-definition-changed", _N, "the pin changed: the upstream definition "
     "of the tool changed since it was reviewed"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ToolChange:
    """One change to one tool.

    ``location`` is a JSON Pointer into the tool as the IR holds it
    (``/input_schema/properties/limit/maximum``, ``/command/method``; empty for a
    tool removed or added). ``source`` is where the new catalog declares the tool
    (the old one's for a removed tool), when known.
    """

    rule: str
    tool: str
    location: str
    message: str
    source: SourceLocation | None = None

    @property
    def name(self) -> str:
        return CHANGE_RULES[self.rule].name

    @property
    def kind(self) -> ChangeKind:
        return CHANGE_RULES[self.rule].kind


def diff_catalogs(old: Catalog, new: Catalog) -> tuple[ToolChange, ...]:
    """Every change from ``old`` to ``new``: breaking first, then safety, then notes.

    Within a class, changes keep the tools' order (the old catalog's, then the tools
    that only the new one has) and, within a tool, the order they were found in.

    >>> empty = Catalog(tools=[], services=[])
    >>> diff_catalogs(empty, empty)
    ()
    """
    with recursion_headroom():  # schemas nest up to MAX_NESTING_DEPTH; the walk recurses
        found = _diff(old, new)
    ranked = sorted(enumerate(found), key=lambda pair: (pair[1].kind.rank, pair[0]))
    return tuple(change for _, change in ranked)


def _diff(old: Catalog, new: Catalog) -> list[ToolChange]:
    found: list[ToolChange] = []
    added = [t for t in new if t.name not in old]
    removed = [t for t in old if t.name not in new]
    renamed_to = _renames(removed, added)
    renamed_from = {v: k for k, v in renamed_to.items()}
    for tool in old:
        other = new.get(tool.name)
        if other is None:
            hint = renamed_to.get(tool.name)
            said = f" (likely renamed to '{hint}': same {_same(tool)})" if hint else ""
            found.append(ToolChange("TD101", tool.name, "", f"tool removed{said}", tool.source))
        else:
            found.extend(_ToolDiff(old, new, tool, other).run())
    for tool in added:
        hint = renamed_from.get(tool.name)
        said = f" (likely renamed from '{hint}': same {_same(tool)})" if hint else ""
        found.append(ToolChange("TD301", tool.name, "", f"tool added{said}", tool.source))
    return found


def _same(tool: ToolDefinition) -> str:
    """What a likely rename shares: the endpoint of an HTTP tool, or an upstream tool."""
    return "method and path" if isinstance(tool.command, HttpCommand) else "server and tool"


def _renames(removed: list[ToolDefinition], added: list[ToolDefinition]) -> dict[str, str]:
    """Removed tool -> added tool, where exactly one of each has the same method and path."""

    def endpoint(t: ToolDefinition) -> tuple[str, str, str]:
        c = t.command
        if isinstance(c, HttpCommand):
            return ("http", c.method.upper(), c.path)
        return ("mcp", c.server, c.tool)

    gone: dict[tuple[str, str, str], list[str]] = {}
    came: dict[tuple[str, str, str], list[str]] = {}
    for t in removed:
        gone.setdefault(endpoint(t), []).append(t.name)
    for t in added:
        came.setdefault(endpoint(t), []).append(t.name)
    return {
        names[0]: came[key][0]
        for key, names in gone.items()
        if len(names) == 1 and len(came.get(key, ())) == 1
    }


class _ToolDiff:
    """The changes of one tool present in both catalogs."""

    def __init__(self, old: Catalog, new: Catalog, a: ToolDefinition, b: ToolDefinition) -> None:
        self._old, self._new, self._a, self._b = old, new, a, b
        self._found: list[ToolChange] = []

    def _say(self, rule: str, location: str, message: str) -> None:
        self._found.append(ToolChange(rule, self._b.name, location, message, self._b.source))

    def run(self) -> list[ToolChange]:
        a, b = self._a, self._b
        if a.description != b.description:
            self._say("TD302", "/description", "description changed")
        if a.annotations.title != b.annotations.title:
            self._say("TD302", "/annotations/title", "title changed")
        if a.input_schema != b.input_schema:  # deep: the schema's $defs included
            SchemaDiff(a.input_schema, b.input_schema, self._say, "/input_schema").run()
        self._commands(a.command, b.command)
        self._safety()
        self._other()
        return self._found

    # -- the request --------------------------------------------------------------------

    def _commands(self, a: HttpCommand | McpCommand, b: HttpCommand | McpCommand) -> None:
        if isinstance(a, HttpCommand) and isinstance(b, HttpCommand):
            self._command(a, b)
        elif isinstance(a, McpCommand) and isinstance(b, McpCommand):
            servers = self._old.mcp_servers.get(a.server), self._new.mcp_servers.get(b.server)
            mcp_changes(a, b, *servers, self._say)
        else:
            before, after = (_called(c) for c in (a, b))
            self._say("TD114", "/command", f"calls {after} now (was {before})")

    def _command(self, a: HttpCommand, b: HttpCommand) -> None:
        if a.method.upper() != b.method.upper():
            self._say("TD108", "/command/method", f"method {a.method} -> {b.method}")
        if a.path != b.path:
            self._say("TD109", "/command/path", f"path {a.path} -> {b.path}")
        if a.service != b.service:
            self._say("TD110", "/command/service", f"service '{a.service}' -> '{b.service}'")
        old_service, new_service = (
            self._old.services.get(a.service),
            self._new.services.get(b.service),
        )
        self._endpoint(a, b, old_service, new_service)
        self._bindings(a, b)
        if a.body != b.body:
            self._body(a, b)
        headers_before = {**(old_service.headers if old_service else {}), **a.headers}
        headers_after = {**(new_service.headers if new_service else {}), **b.headers}
        if headers_before != headers_after:
            names = sorted(
                k for k in {*headers_before, *headers_after}
                if headers_before.get(k) != headers_after.get(k)
            )  # fmt: skip
            self._say("TD307", "/command/headers", f"constant headers changed: {', '.join(names)}")
        for field in ("response", "timeouts", "retry", "retry_unsafe"):
            if getattr(a, field) != getattr(b, field):
                self._say("TD307", f"/command/{field}", f"{field} changed")
        if old_service is not None and new_service is not None:
            for field in ("timeouts", "retry", "max_response_chars", "max_response_bytes"):
                if getattr(old_service, field) != getattr(new_service, field):
                    self._say("TD307", f"/service/{field}", f"the service's {field} changed")

    def _endpoint(
        self, a: HttpCommand, b: HttpCommand, old: Service | None, new: Service | None
    ) -> None:
        """Where the request goes, and with which credentials (neither value is shown)."""
        if _base_url(a, old) != _base_url(b, new):
            # the URL itself is not shown: like auth values, it may carry a credential
            where = "/command/base_url" if a.base_url or b.base_url else "/service/base_url"
            self._say("TD111", where, "base URL changed")
        old_auth, new_auth = _auth(a, old), _auth(b, new)
        if old_auth != new_auth:
            where = "/command/auth" if a.auth or b.auth else "/service/auth"
            shown_old, shown_new = _show_auth(old_auth), _show_auth(new_auth)
            what = f"{shown_old} -> {shown_new}" if shown_old != shown_new else f"{shown_new}: "
            what += "credentials or token URL changed" if shown_old == shown_new else ""
            self._say("TD112", where, f"auth {what}")

    def _bindings(self, a: HttpCommand, b: HttpCommand) -> None:
        """How each argument both sides have is sent."""
        old_bindings = {p.argument: p for p in a.parameters}
        for binding in b.parameters:
            before = old_bindings.get(binding.argument)
            if before is None:
                continue
            changes = [
                f"{field} {getattr(before, field)} -> {getattr(binding, field)}"
                for field in _BINDING_FIELDS
                if getattr(before, field) != getattr(binding, field)
            ]
            if changes:
                where = pointer("command", "parameters", binding.argument)
                self._say("TD113", where, f"argument '{binding.argument}': {', '.join(changes)}")

    def _body(self, a: HttpCommand, b: HttpCommand) -> None:
        before, after = a.body, b.body
        if before is None or after is None:
            what = "the request has a body now" if before is None else "the request has no body now"
            self._say("TD113", "/command/body", what)
            return
        for field in ("media_type", "argument", "template", "binary_fields"):
            if getattr(before, field) != getattr(after, field):
                shown = f"{getattr(before, field)} -> {getattr(after, field)}"
                if field == "template":
                    shown = "changed"
                self._say("TD113", f"/command/body/{field}", f"body {field} {shown}")
        if before.required != after.required:
            rule = "TD103" if after.required else "TD305"
            state = "required" if after.required else "optional"
            self._say(rule, "/command/body/required", f"the request body is {state} now")

    # -- confirmation and hints ---------------------------------------------------------

    def _safety(self) -> None:
        a, b = self._a, self._b
        if a.confirm and not b.confirm:
            self._say("TD201", "/confirm", "confirmation dropped: the tool runs without asking")
        elif b.confirm and not a.confirm:
            self._say("TD307", "/confirm", "confirmation added")
        old_ro, new_ro = _read_only(a), _read_only(b)
        if old_ro and not new_ro:
            where = (
                "/command/method"
                if b.annotations.read_only is None and isinstance(b.command, HttpCommand)
                else "/annotations/read_only"
            )
            why = f" ({b.command.method})" if isinstance(b.command, HttpCommand) else ""
            self._say("TD202", where, f"was read-only, may now change data{why}")
        elif new_ro and not old_ro:
            self._say("TD307", "/annotations/read_only", "read-only now")
        if _destructive(a) and not _destructive(b) and not new_ro:
            self._say("TD203", "/annotations/destructive", "no longer marked destructive")
        elif _destructive(b) and not _destructive(a) and not old_ro:
            self._say("TD307", "/annotations/destructive", "marked destructive now")

    def _other(self) -> None:
        a, b = self._a, self._b
        for field in ("idempotent", "open_world"):
            if field == "idempotent" and _follows_method(a, b):
                continue  # the method's own answer on both sides: TD108 says it
            if getattr(a.annotations, field) != getattr(b.annotations, field):
                shown = f"{getattr(a.annotations, field)} -> {getattr(b.annotations, field)}"
                self._say("TD307", f"/annotations/{field}", f"{field} hint {shown}")
        if a.return_direct != b.return_direct:
            self._say(
                "TD307", "/return_direct", f"return_direct {a.return_direct} -> {b.return_direct}"
            )
        if a.tags != b.tags:
            self._say("TD307", "/tags", f"tags {list(a.tags)} -> {list(b.tags)}")
        if a.context_arguments != b.context_arguments:
            self._say("TD307", "/context_arguments", "context arguments changed")
        if a.output_schema != b.output_schema:
            self._say("TD306", "/output_schema", "output schema changed")
        before = [n for n, members in self._old.toolsets.items() if a.name in members]
        after = [n for n, members in self._new.toolsets.items() if b.name in members]
        if sorted(before) != sorted(after):
            self._say("TD307", "/toolsets", f"toolsets {sorted(before)} -> {sorted(after)}")


_BINDING_FIELDS = ("location", "wire_name", "style", "explode", "allow_reserved", "content_type")


def _called(command: HttpCommand | McpCommand) -> str:
    if isinstance(command, HttpCommand):
        return f"{command.method} {command.path} of service '{command.service}'"
    return f"tool '{command.tool}' of MCP server '{command.server}'"


def _base_url(command: HttpCommand, service: Service | None) -> str | None:
    return command.base_url or (service.base_url if service else None)


def _auth(command: HttpCommand, service: Service | None) -> AuthSpec | None:
    return command.auth if command.auth is not None else (service.auth if service else None)


def _show_auth(auth: AuthSpec | None) -> str:
    """The kind of auth and where it goes, never a value (values may be secrets)."""
    if auth is None:
        return "none"
    where = getattr(auth, "location", None)
    name = getattr(auth, "name", None)
    scopes = getattr(auth, "scopes", None)
    parts: list[str] = [auth.type]
    if where and name:
        parts.append(f"in {where} '{name}'")
    if scopes:
        parts.append(f"scopes {' '.join(scopes)}")
    return " ".join(parts)


def _follows_method(a: ToolDefinition, b: ToolDefinition) -> bool:
    """Whether each tool's idempotent hint is its method's (so a change comes from it)."""
    return all(
        isinstance(t.command, HttpCommand)
        and t.annotations.idempotent in (None, method_semantics(t.command.method).idempotent)
        for t in (a, b)
    )


def _read_only(tool: ToolDefinition) -> bool:
    """Stated, else the method's; a tool of an MCP server is not read-only unless stated."""
    stated, command = tool.annotations.read_only, tool.command
    if stated is not None:
        return stated
    return isinstance(command, HttpCommand) and method_semantics(command.method).read_only


def _destructive(tool: ToolDefinition) -> bool:
    """MCP's reading: a destructive hint only means something on a tool that writes."""
    if _read_only(tool):
        return False
    stated = tool.annotations.destructive
    return True if stated is None else stated
