"""Reading catalogs: YAML with positions, `${VAR}`, OpenAPI import, compilation, diagnostics."""

from toolcat.catalog import EnvSyntaxError, MissingVariableError, check_env_syntax, interpolate

from ._diagnostics import CODES, CatalogError, Diagnostic, Severity, sort_diagnostics
from ._files import CatalogInputError
from ._format_schema import SCHEMA_ID, catalog_json_schema, render_catalog_json_schema
from ._load import LoadResult, load, load_catalog, load_documents

__all__ = [
    "CODES",
    "CatalogError",
    "CatalogInputError",
    "Diagnostic",
    "EnvSyntaxError",
    "LoadResult",
    "MissingVariableError",
    "SCHEMA_ID",
    "Severity",
    "catalog_json_schema",
    "check_env_syntax",
    "interpolate",
    "load",
    "load_catalog",
    "load_documents",
    "render_catalog_json_schema",
    "sort_diagnostics",
]
