"""Reading catalogs: YAML with positions, `${VAR}`, OpenAPI import, compilation, diagnostics."""

from toolcat.catalog import EnvSyntaxError, MissingVariableError, check_env_syntax, interpolate

from ._diagnostics import CODES, CatalogError, Diagnostic, Severity, sort_diagnostics
from ._files import CatalogInputError
from ._load import LoadResult, load, load_catalog, load_documents
from ._yaml import read_yaml

__all__ = [
    "CODES",
    "CatalogError",
    "CatalogInputError",
    "Diagnostic",
    "EnvSyntaxError",
    "LoadResult",
    "MissingVariableError",
    "Severity",
    "check_env_syntax",
    "interpolate",
    "load",
    "load_catalog",
    "load_documents",
    "read_yaml",
    "sort_diagnostics",
]
