"""The import policy of `toolcat import mcp`: which upstream tools, named how, confirmed when.

The same kinds of policy as an OpenAPI import (docs/openapi.md), over MCP tools: a name
prefix; include and exclude by name glob and by annotation; rules for many tools at once
(in order, a later one wins); per-tool overrides keyed by the upstream's tool name, which
win over every rule; the confirm policy; the description budget. Command-line options
and a policy file (``--policy FILE``, YAML) give the same things; both are checked by
the models below (``extra="forbid"``), so a misspelt key is an error, never ignored.

Annotations are matched by their effective value, with MCP's defaults for hints a
server leaves out: ``readOnlyHint`` false, ``destructiveHint`` true (for a tool that is
not read-only), ``idempotentHint`` false (true for a read-only tool), ``openWorldHint``
true. So ``--exclude-annotation destructiveHint`` also leaves out a tool that says
nothing about itself: MCP tells clients to assume the worst of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from toolcat._errors import ToolcatError

__all__ = [
    "MCP_CONFIRM_POLICIES",
    "HINTS",
    "McpOverride",
    "McpPolicy",
    "McpRule",
    "McpSelection",
    "McpPolicyError",
    "effective_hints",
    "parse_mcp_hint",
    "mcp_policy_file",
    "policy_from_document",
]

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
ConfirmPolicy = Literal["not-read-only", "destructive", "all", "none"]
MCP_CONFIRM_POLICIES: tuple[str, ...] = ("not-read-only", "destructive", "all", "none")
_STRICT = ConfigDict(frozen=True, extra="forbid")
Hint = Literal["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]


class McpPolicyError(ToolcatError, ValueError):
    """A policy that cannot be used; the message is one line naming where it is wrong."""


def effective_hints(annotations: Mapping[str, Any] | None) -> dict[str, bool]:
    """Each MCP hint as a client must read it, defaults filled in (see the module doc)."""
    given = annotations or {}
    read_only = given.get("readOnlyHint") is True
    return {
        "readOnlyHint": read_only,
        "destructiveHint": not read_only and given.get("destructiveHint") is not False,
        "idempotentHint": read_only or given.get("idempotentHint") is True,
        "openWorldHint": given.get("openWorldHint") is not False,
    }


def parse_mcp_hint(text: str) -> tuple[str, bool]:
    """``readOnlyHint`` or ``readOnlyHint=false`` -> ``("readOnlyHint", False)``."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if name not in HINTS:
        raise McpPolicyError(
            f"{text!r}: an annotation is one of {', '.join(HINTS)} (HINT or HINT=false)"
        )
    if not sep:
        return name, True
    if value.strip().lower() not in ("true", "false"):
        raise McpPolicyError(f"{text!r}: write {name}=true or {name}=false")
    return name, value.strip().lower() == "true"


@dataclass(frozen=True, slots=True)
class McpSelection:
    """Tools by name glob (``fnmatch``, case-sensitive) and by annotation values.

    Within ``tools`` or ``annotations`` the values are alternatives; when both are given,
    a tool must match each (as the OpenAPI selection does).
    """

    tools: tuple[str, ...] = ()
    annotations: tuple[tuple[str, bool], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tools or self.annotations)

    def matches(self, name: str, hints: Mapping[str, bool]) -> bool:
        if self.tools and not any(fnmatchcase(name, g) for g in self.tools):
            return False
        return not self.annotations or any(hints[h] is v for h, v in self.annotations)

    def why(self, name: str, hints: Mapping[str, bool]) -> str:
        """What of this selection ``name`` matched, for the report."""
        parts = [g for g in self.tools if fnmatchcase(name, g)][:1]
        parts += [f"{h}={str(v).lower()}" for h, v in self.annotations if hints[h] is v][:1]
        return ", ".join(parts)

    def merged(self, other: McpSelection) -> McpSelection:
        return McpSelection(
            tuple(dict.fromkeys([*self.tools, *other.tools])),
            tuple(dict.fromkeys([*self.annotations, *other.annotations])),
        )


@dataclass(frozen=True, slots=True)
class McpRule:
    """Settings for every tool a rule matches (``match`` empty: every tool)."""

    match: McpSelection = McpSelection()
    annotations: tuple[tuple[str, bool], ...] = ()  # every one must hold (AND)
    exclude: bool = False
    confirm: bool | None = None
    tags: tuple[str, ...] = ()
    toolsets: tuple[str, ...] = ()
    description_prefix: str | None = None
    timeout: float | None = None
    hide: tuple[str, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)

    def applies(self, name: str, hints: Mapping[str, bool]) -> bool:
        if self.match.tools and not any(fnmatchcase(name, g) for g in self.match.tools):
            return False
        return all(hints[h] is v for h, v in self.annotations)


@dataclass(frozen=True, slots=True)
class McpOverride:
    """One upstream tool's settings; they win over every rule.

    ``rename`` maps the upstream's argument names to the names the model sees; ``hide``
    lists upstream arguments the model never sees (optional ones: the upstream's default
    applies); ``fixed`` gives upstream arguments a value the model never sees or sets;
    ``parameters`` merges JSON Schema keys into an argument's schema (by the name the
    model sees).
    """

    name: str | None = None
    description: str | None = None
    confirm: bool | None = None
    tags: tuple[str, ...] = ()
    toolsets: tuple[str, ...] = ()
    timeout: float | None = None
    rename: Mapping[str, str] = field(default_factory=dict)
    hide: tuple[str, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    parameters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class McpPolicy:
    """Everything an MCP import is asked to do besides where the server is."""

    prefix: str | None = None  # None: "<server>_"
    include: McpSelection = McpSelection()
    exclude: McpSelection = McpSelection()
    confirm: ConfirmPolicy = "not-read-only"
    description_max: int | None = None  # None: the command's default
    rules: tuple[McpRule, ...] = ()
    tools: Mapping[str, McpOverride] = field(default_factory=dict)


# ---- the policy file, as pydantic models (errors become one located line) ----


class _SelectionDoc(BaseModel):
    model_config = _STRICT
    tools: list[str] | None = Field(None, description="Name globs (fnmatch) of upstream tools.")
    annotations: dict[Hint, bool] | list[Hint] | None = None


class _RuleDoc(BaseModel):
    model_config = _STRICT
    match: _SelectionDoc | None = None
    exclude: bool = False
    confirm: bool | None = None
    tags: list[str] = Field(default_factory=list)
    toolsets: list[str] = Field(default_factory=list)
    description_prefix: str | None = None
    timeout: float | None = Field(None, gt=0)
    hide: list[str] = Field(default_factory=list)
    fixed: dict[str, Any] = Field(default_factory=dict)


class _OverrideDoc(BaseModel):
    model_config = _STRICT
    name: str | None = None
    description: str | None = None
    confirm: bool | None = None
    tags: list[str] = Field(default_factory=list)
    toolsets: list[str] = Field(default_factory=list)
    timeout: float | None = Field(None, gt=0)
    rename: dict[str, str] = Field(default_factory=dict)
    hide: list[str] = Field(default_factory=list)
    fixed: dict[str, Any] = Field(default_factory=dict)
    parameters: dict[str, dict[str, Any]] = Field(default_factory=dict)


class _PolicyDoc(BaseModel):
    model_config = _STRICT
    prefix: str | None = None
    include: _SelectionDoc | None = None
    exclude: _SelectionDoc | None = None
    confirm: ConfirmPolicy | None = None
    description_max: int | None = Field(None, ge=40, le=100_000)
    rules: list[_RuleDoc] = Field(default_factory=list)
    tools: dict[str, _OverrideDoc] = Field(default_factory=dict)


def _pairs(value: Mapping[Hint, bool] | list[Hint] | None) -> tuple[tuple[str, bool], ...]:
    if value is None:
        return ()
    if isinstance(value, list):
        return tuple((h, True) for h in value)
    return tuple((str(h), v) for h, v in value.items())


def _selection(doc: _SelectionDoc | None) -> McpSelection:
    if doc is None:
        return McpSelection()
    return McpSelection(tuple(doc.tools or ()), _pairs(doc.annotations))


def policy_from_document(document: Any, file: str) -> McpPolicy:
    """The policy a file holds (already read as YAML); :class:`McpPolicyError` on a bad one."""
    if document is None:
        return McpPolicy()
    try:
        doc = _PolicyDoc.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise McpPolicyError(f"{file}: {where}: {first['msg']}{more}") from None
    rules = tuple(
        McpRule(
            match=McpSelection(tuple((r.match.tools if r.match else None) or ())),
            annotations=_pairs(r.match.annotations if r.match else None),
            exclude=r.exclude,
            confirm=r.confirm,
            tags=tuple(r.tags),
            toolsets=tuple(r.toolsets),
            description_prefix=r.description_prefix,
            timeout=r.timeout,
            hide=tuple(r.hide),
            fixed=dict(r.fixed),
        )
        for r in doc.rules
    )
    tools = {
        name: McpOverride(
            name=o.name,
            description=o.description,
            confirm=o.confirm,
            tags=tuple(o.tags),
            toolsets=tuple(o.toolsets),
            timeout=o.timeout,
            rename=dict(o.rename),
            hide=tuple(o.hide),
            fixed=dict(o.fixed),
            parameters={k: dict(v) for k, v in o.parameters.items()},
        )
        for name, o in doc.tools.items()
    }
    return McpPolicy(
        prefix=doc.prefix,
        include=_selection(doc.include),
        exclude=_selection(doc.exclude),
        confirm=doc.confirm or "not-read-only",
        description_max=doc.description_max,
        rules=rules,
        tools=tools,
    )


def mcp_policy_file(file: str) -> McpPolicy:
    """The policy in the YAML file ``file``; :class:`McpPolicyError` (one line) when it cannot
    be read or is not a policy."""
    from pathlib import Path

    from toolcat.loader._diagnostics import CatalogError
    from toolcat.loader._yaml import read_yaml

    try:
        text = Path(file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise McpPolicyError(f"{file}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise McpPolicyError(
            f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    try:
        document = read_yaml(text, file)
    except CatalogError as exc:
        raise McpPolicyError(str(exc.diagnostics[0]) if exc.diagnostics else str(exc)) from None
    return policy_from_document(document, file)
