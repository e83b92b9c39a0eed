"""OpenAPI 3.0/3.1 and Swagger 2.0 import: operations become catalog tool documents."""

from toolcat._lazy import lazy_names as _lazy_names

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

# The YAML writer (and its regular expressions, ~5 ms to compile) only for
# `toolcat import openapi`: loading a catalog that imports a spec never writes one.
__getattr__, __dir__ = _lazy_names(__name__, {"render_catalog": "._emit"}, __all__)
