"""The access policy: which tools a caller may call (``server.access`` rules).

No rules: every caller may call every tool. Any rule: a tool is allowed when an
``allow`` rule matching the caller covers it and no matching ``deny`` rule does
(deny takes precedence; the default is closed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolcat.catalog import Catalog
from toolcat.catalog.serving import AccessPolicy, AccessRule

from ._identity import CallerIdentity

__all__ = ["AccessDecision", "AccessGuard"]


@dataclass(frozen=True, slots=True)
class AccessDecision:
    """``allowed`` and the rule that decided (``None``: no rules, or none matched)."""

    allowed: bool
    rule: str | None = None

    @property
    def reason(self) -> str:
        if self.rule is not None:
            return f"rule '{self.rule}'"
        return "no rule allows it" if not self.allowed else "no access rules"


class AccessGuard:
    """``policy`` applied to the tools of ``catalog`` (toolset membership and tags precomputed)."""

    def __init__(self, policy: AccessPolicy, catalog: Catalog) -> None:
        self.policy = policy
        self._sets: dict[str, set[str]] = {}
        for name, members in catalog.toolsets.items():
            for member in members:
                self._sets.setdefault(member, set()).add(name)
        self._tags = {t.name: frozenset(t.tags) for t in catalog}

    @property
    def enabled(self) -> bool:
        return self.policy.enabled

    def decide(self, identity: CallerIdentity | None, tool: str) -> AccessDecision:
        """May ``identity`` (``None``: an unauthenticated caller) call ``tool``?"""
        if not self.policy.rules:
            return AccessDecision(True)
        allowed_by: str | None = None
        for rule in self.policy.rules:
            if not self._covers(rule, tool) or not matches(rule, identity):
                continue
            if rule.effect == "deny":
                return AccessDecision(False, rule.name)
            if allowed_by is None:
                allowed_by = rule.name
        return AccessDecision(allowed_by is not None, allowed_by)

    def allowed(self, identity: CallerIdentity | None, tools: Iterable[str]) -> list[str]:
        """The names of ``tools`` ``identity`` may call, in their order."""
        return [t for t in tools if self.decide(identity, t).allowed]

    def _covers(self, rule: AccessRule, tool: str) -> bool:
        grant = rule.grant
        if tool in grant.tools or "*" in grant.tools:
            return True
        if grant.toolsets and self._sets.get(tool, set()).intersection(grant.toolsets):
            return True
        return bool(grant.tags) and not self._tags.get(tool, frozenset()).isdisjoint(grant.tags)


def matches(rule: AccessRule, identity: CallerIdentity | None) -> bool:
    """Every ``when`` entry of ``rule`` matches ``identity`` (no entries: every caller)."""
    return matches_when(rule.when, identity)


def matches_when(
    when: Iterable[tuple[str, tuple[str, ...]]], identity: CallerIdentity | None
) -> bool:
    """Every ``(claim, accepted values)`` of ``when`` matches ``identity``."""
    for claim, accepted in when:
        values = _values(identity, claim)
        if values is None:
            return False
        if "*" in accepted:
            continue
        if not any(v in accepted for v in values):
            return False
    return True


def _values(identity: CallerIdentity | None, claim: str) -> list[str] | None:
    """The caller's values for ``claim`` as text, or ``None`` when it has none."""
    if identity is None:
        return None
    if claim == "scope":
        return sorted(identity.scopes)
    if claim == "api_key":
        return [identity.subject] if identity.method == "api_key" and identity.subject else None
    if claim == "sub":
        return [identity.subject] if identity.subject is not None else None
    if claim == "client_id" and identity.client_id is not None:
        return [identity.client_id]
    value = _lookup(identity.claims, claim)
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return [_text(v) for v in value]
    if claim in ("scp",) and isinstance(value, str):
        return value.split()
    return [_text(value)]


def _lookup(claims: Mapping[str, Any], claim: str) -> Any:
    if claim in claims:
        return claims[claim]
    value: Any = claims
    for part in claim.split("."):  # realm_access.roles
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)
