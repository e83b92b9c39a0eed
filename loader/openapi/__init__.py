"""OpenAPI 3.0/3.1 and Swagger 2.0 import: operations become catalog tool documents."""

from ._emit import render_catalog
from ._import import import_openapi
from ._options import ImportOptions, ImportResult, OperationReport, Selection

__all__ = [
    "ImportOptions",
    "ImportResult",
    "OperationReport",
    "Selection",
    "import_openapi",
    "render_catalog",
]
