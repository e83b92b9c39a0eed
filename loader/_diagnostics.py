"""Diagnostics: what is wrong in a catalog, where, and what to change.

Every code is stable once published; docs/diagnostics.md lists each with a
broken and a fixed example. Codes ``TC0xx`` are catalog errors, ``TC1xx`` lint
warnings, ``TC2xx`` OpenAPI import findings.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from toolcat._errors import ToolcatError

__all__ = ["CODES", "CatalogError", "Diagnostic", "Severity", "sort_diagnostics"]


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


# code -> (short name, default severity). The name is what docs and SARIF rules show.
CODES: dict[str, tuple[str, Severity]] = {
    # -- reading files ---------------------------------------------------------
    "TC001": ("yaml-syntax", Severity.ERROR),
    "TC002": ("duplicate-key", Severity.ERROR),
    "TC003": ("unknown-key", Severity.ERROR),
    "TC004": ("wrong-type", Severity.ERROR),
    "TC005": ("missing-key", Severity.ERROR),
    "TC006": ("unsupported-version", Severity.ERROR),
    "TC007": ("file-unreadable", Severity.ERROR),
    "TC008": ("invalid-value", Severity.ERROR),
    "TC009": ("bad-env-syntax", Severity.ERROR),
    # -- names and references --------------------------------------------------
    "TC010": ("invalid-tool-name", Severity.ERROR),
    "TC011": ("duplicate-tool-name", Severity.ERROR),
    "TC012": ("unknown-service", Severity.ERROR),
    "TC013": ("duplicate-service", Severity.ERROR),
    "TC014": ("unknown-tool-in-toolset", Severity.ERROR),
    "TC015": ("duplicate-toolset", Severity.ERROR),
    "TC016": ("duplicate-server-section", Severity.ERROR),
    "TC017": ("duplicate-api-key", Severity.ERROR),
    "TC018": ("unknown-access-reference", Severity.ERROR),
    "TC019": ("invalid-access-rule", Severity.ERROR),
    # -- parameters ------------------------------------------------------------
    "TC020": ("path-variable-without-parameter", Severity.ERROR),
    "TC021": ("path-parameter-not-in-template", Severity.ERROR),
    "TC022": ("invalid-parameter-schema", Severity.ERROR),
    "TC023": ("default-violates-schema", Severity.ERROR),
    "TC024": ("enum-violates-schema", Severity.ERROR),
    "TC025": ("parameter-conflict", Severity.ERROR),
    # -- templates -------------------------------------------------------------
    "TC030": ("template-syntax", Severity.ERROR),
    "TC031": ("template-undeclared-argument", Severity.ERROR),
    "TC032": ("template-too-large", Severity.ERROR),
    # -- security ---------------------------------------------------------------
    "TC040": ("credentials-in-url", Severity.ERROR),
    "TC045": ("external-schema-ref", Severity.ERROR),
    # -- shared definitions ----------------------------------------------------
    "TC050": ("definition-name-clash", Severity.ERROR),
    "TC051": ("unknown-output-definition", Severity.ERROR),
    "TC052": ("invalid-definition-name", Severity.ERROR),
    # -- OpenAPI overlays and rules ------------------------------------------------
    "TC060": ("overlay-unreadable", Severity.ERROR),
    "TC061": ("overlay-invalid", Severity.ERROR),
    "TC062": ("overlay-bad-target", Severity.ERROR),
    "TC063": ("overlay-action-failed", Severity.ERROR),
    "TC064": ("openapi-rule-sets-nothing", Severity.ERROR),
    # -- examples and `toolcat test` ------------------------------------------
    "TC065": ("example-invalid-arguments", Severity.ERROR),
    "TC066": ("example-request-differs", Severity.ERROR),
    "TC067": ("example-result-differs", Severity.ERROR),
    "TC068": ("request-not-conforming", Severity.ERROR),
    "TC069": ("example-not-run", Severity.ERROR),
    # -- running the check (validate) ---------------------------------------------
    "TC070": ("cannot-check", Severity.ERROR),
    # -- upstream credentials ----------------------------------------------------
    "TC075": ("caller-token-over-plain-http", Severity.ERROR),
    "TC076": ("token-endpoint-not-https", Severity.ERROR),
    "TC077": ("token-exchange-without-target", Severity.ERROR),
    # -- audit and quotas (server:) ---------------------------------------------
    "TC080": ("invalid-quota", Severity.ERROR),
    "TC081": ("unknown-quota-reference", Severity.ERROR),
    # -- shared state (server.redis) and idempotency keys ------------------------
    "TC082": ("invalid-redis-settings", Severity.ERROR),
    "TC083": ("unknown-idempotency-key", Severity.ERROR),
    # -- search (search: embeddings, pinned tools) ---------------------------------
    "TC086": ("embeddings-key-in-clear", Severity.ERROR),
    "TC089": ("unknown-pinned-tool", Severity.ERROR),
    "TC090": ("unknown-pinned-toolset", Severity.ERROR),
    "TC091": ("duplicate-search-section", Severity.ERROR),
    # -- lint ------------------------------------------------------------------
    "TC101": ("missing-description", Severity.WARNING),
    "TC102": ("description-too-long", Severity.WARNING),
    "TC103": ("parameter-without-description", Severity.WARNING),
    "TC104": ("unconfirmed-write", Severity.WARNING),
    "TC105": ("toolset-too-large", Severity.WARNING),
    "TC106": ("unknown-schema-keyword", Severity.WARNING),
    "TC107": ("duplicate-toolset-member", Severity.WARNING),
    "TC108": ("body-on-get", Severity.WARNING),
    "TC109": ("yaml11-value", Severity.WARNING),
    "TC110": ("pattern-not-checked", Severity.WARNING),
    "TC115": ("env-without-braces", Severity.WARNING),
    "TC120": ("example-result-without-response", Severity.WARNING),
    "TC121": ("duplicate-example-name", Severity.WARNING),
    "TC122": ("response-validation-without-spec", Severity.WARNING),
    "TC125": ("unused-suppression", Severity.WARNING),
    "TC130": ("token-exchange-secret-in-file", Severity.WARNING),
    "TC131": ("caller-token-without-oauth-callers", Severity.WARNING),
    "TC133": ("unmasked-secret-argument", Severity.WARNING),
    "TC134": ("idempotency-key-on-safe-method", Severity.WARNING),
    "TC135": ("redis-password-in-file", Severity.WARNING),
    "TC137": ("embeddings-key-in-file", Severity.WARNING),
    "TC140": ("too-many-pinned-tools", Severity.WARNING),
    "TC141": ("pin-matches-nothing", Severity.WARNING),
    "TC142": ("pinned-tool-outside-toolset", Severity.WARNING),
    "TC145": ("context-parameter-reachable", Severity.WARNING),
    "TC146": ("namespace-too-large", Severity.WARNING),
    "TC147": ("confirm-tool-callable-from-code", Severity.WARNING),
    # -- OpenAPI import ----------------------------------------------------------
    "TC201": ("openapi-unreadable", Severity.ERROR),
    "TC202": ("openapi-unsupported-version", Severity.ERROR),
    "TC203": ("openapi-unresolved-ref", Severity.WARNING),
    "TC204": ("openapi-operation-skipped", Severity.WARNING),
    "TC205": ("openapi-no-server", Severity.WARNING),
    "TC206": ("openapi-override-unknown-operation", Severity.WARNING),
    "TC207": ("openapi-spec-too-large", Severity.ERROR),
    "TC208": ("openapi-not-available", Severity.ERROR),
    "TC209": ("openapi-server-outside-service", Severity.WARNING),
    "TC215": ("openapi-selection-matches-nothing", Severity.ERROR),
    "TC216": ("openapi-exclude-matches-nothing", Severity.WARNING),
    "TC220": ("overlay-target-matches-nothing", Severity.WARNING),
    "TC221": ("openapi-rule-matches-nothing", Severity.WARNING),
}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: ``file:line:col: severity code message``.

    ``line`` and ``column`` are 1-based; ``path`` is the YAML path of the value
    (``("tools", 0, "parameters", "id")``) when there is one.
    """

    code: str
    message: str
    file: str
    line: int = 1
    column: int = 1
    severity: Severity = field(default=Severity.ERROR)
    path: tuple[str | int, ...] = ()

    @classmethod
    def make(
        cls,
        code: str,
        message: str,
        file: str,
        line: int = 1,
        column: int = 1,
        path: Sequence[str | int] = (),
        severity: Severity | None = None,
    ) -> Diagnostic:
        """A diagnostic whose severity defaults to the one registered for ``code``."""
        default = CODES[code][1]
        return cls(code, message, file, line, column, severity or default, tuple(path))

    @property
    def name(self) -> str:
        return CODES.get(self.code, (self.code, self.severity))[0]

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity} {self.code} {self.message}"


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Most relevant first: errors before warnings, then by file and position.

    A value the YAML reader already rejected (TC001 at its position, e.g. an
    unsupported ``!tag``) gets no further findings there: they would be echoes.
    """
    items = list(dict.fromkeys(diagnostics))  # the same finding twice (schema variants)
    broken = {(d.file, d.line, d.column) for d in items if d.code == "TC001"}
    if broken:
        items = [d for d in items if d.code == "TC001" or (d.file, d.line, d.column) not in broken]
    return sorted(items, key=lambda d: (d.severity.rank, d.file, d.line, d.column, d.code))


class CatalogError(ToolcatError):
    """Loading failed; ``diagnostics`` holds every problem found, most relevant first."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        errors = [d for d in self.diagnostics if d.severity is Severity.ERROR]
        first = str(errors[0]) if errors else "no details"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{first}{more}")
