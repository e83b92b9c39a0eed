"""Reading catalogs: YAML with positions, `${VAR}`, OpenAPI import, compilation, diagnostics."""

from ._diagnostics import CODES, CatalogError, Diagnostic, Severity, sort_diagnostics
from ._env import EnvSyntaxError, MissingVariableError, check_env_syntax, interpolate

__all__ = [
    "CODES",
    "CatalogError",
    "Diagnostic",
    "EnvSyntaxError",
    "MissingVariableError",
    "Severity",
    "check_env_syntax",
    "interpolate",
    "sort_diagnostics",
]
