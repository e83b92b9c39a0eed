"""OpenAPI 3.0/3.1 and Swagger 2.0 import: operations become catalog tool documents."""

from ._emit import catalog_document, render_catalog, render_header
from ._import import import_openapi
from ._options import ImportOptions, ImportResult, OperationReport, Selection
from ._update import (
    ImportRecord,
    UpdateOutcome,
    edits_since_import,
    merge_update,
    narrowed_ref_root,
    operation_key,
    parse_record,
    render_document,
    render_record,
)

__all__ = [
    "ImportOptions",
    "ImportRecord",
    "ImportResult",
    "OperationReport",
    "Selection",
    "UpdateOutcome",
    "catalog_document",
    "edits_since_import",
    "import_openapi",
    "merge_update",
    "narrowed_ref_root",
    "operation_key",
    "parse_record",
    "render_catalog",
    "render_document",
    "render_header",
    "render_record",
]
