"""Reading and compiling catalogs: YAML with positions, OpenAPI import, checks, diagnostics.

Pipeline (module names)::

    PATH... ─> find and read files (_files, driven by _load) ─> YAML with positions (_yaml)
      ─> each file's sections (_load_file, _load_sections; what the stages share: _load_state)
      ─> shape check: the pydantic file models (_models, _models_*), their errors made
         diagnostics (_shape)
      ─> openapi: entries (_load_imports) ─> the importer (_import ─> toolcat.loader.openapi)
      ─> compile to the IR (HTTP tools _compile, MCP servers and tools _compile_mcp, both
         with _compile_schemas; services _compile_service; parameters _params, schema
         checks _schemas, templates _templates, names and scope _scope)
      ─> names across files (_load_finish)
      ─> toolcat.catalog.Catalog
    every stage reports Diagnostics (_diagnostics), collected and sorted, never raised early;
    each code is registered once (RULES): the steps' codes in _codes, the lint rules, one
    function per code, in _lint

``load`` returns the catalog or raises :class:`CatalogError`; ``load_catalog`` returns a
:class:`LoadResult` with every diagnostic and the files read.
"""

from toolcat.catalog import EnvSyntaxError, MissingVariableError
from toolcat.catalog.common import check_env_syntax, interpolate

from . import _codes, _lint  # noqa: F401  (they register every code in RULES)
from ._diagnostics import (
    CODES,
    RULES,
    CatalogError,
    Diagnostic,
    Rule,
    Severity,
    rules_table,
    sort_diagnostics,
)
from ._files import (
    MAX_FILE_BYTES,
    CatalogInputError,
    FileReadError,
    catalog_files_in,
    read_regular_file,
)
from ._format_schema import SCHEMA_ID, catalog_json_schema, render_catalog_json_schema
from ._load import load, load_catalog, load_documents
from ._load_state import LoadResult
from ._yaml import read_yaml

__all__ = [
    "CODES",
    "CatalogError",
    "CatalogInputError",
    "Diagnostic",
    "EnvSyntaxError",
    "FileReadError",
    "LoadResult",
    "MAX_FILE_BYTES",
    "MissingVariableError",
    "RULES",
    "Rule",
    "SCHEMA_ID",
    "Severity",
    "catalog_files_in",
    "catalog_json_schema",
    "check_env_syntax",
    "interpolate",
    "load",
    "load_catalog",
    "load_documents",
    "read_regular_file",
    "read_yaml",
    "render_catalog_json_schema",
    "rules_table",
    "sort_diagnostics",
]
