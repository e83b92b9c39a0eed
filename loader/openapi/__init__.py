"""OpenAPI 3.0/3.1 and Swagger 2.0 import: operations become catalog tool documents."""

from toolcat._lazy import lazy_names as _lazy_names

from ._import import import_openapi
from ._options import ImportOptions, ImportResult, OperationReport, Selection

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

# The YAML writer (and its regular expressions, compiled on import) only for
# `toolcat import openapi`: loading a catalog that imports a spec never writes one.
_UPDATE: tuple[str, ...] = ("ImportRecord", "UpdateOutcome", "merge_update", "operation_key")
_UPDATE += ("edits_since_import",)
_UPDATE += ("parse_record", "render_document", "render_record")  # `toolcat import --update`
_UPDATE += ("narrowed_ref_root",)
__getattr__, __dir__ = _lazy_names(
    __name__,
    {
        "catalog_document": "._emit",
        "render_catalog": "._emit",
        "render_header": "._emit",
        **dict.fromkeys(_UPDATE, "._update"),
    },
    __all__,
)
