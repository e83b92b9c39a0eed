"""Loading a catalog for a command: bad input exits 2, catalog errors exit 1 with diagnostics."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._app import CliError

if TYPE_CHECKING:
    from toolcat.catalog import Catalog

__all__ = ["load_or_exit", "read_catalog"]


def read_catalog(paths: Sequence[str]) -> Any:
    """``load_catalog(paths)``; a missing or unreadable PATH becomes a one-line exit 2."""
    from toolcat.loader import CatalogInputError, load_catalog

    try:
        return load_catalog(list(paths))
    except CatalogInputError as exc:
        raise CliError(str(exc), 2) from exc


def load_or_exit(paths: Sequence[str]) -> Catalog:
    """The compiled catalog, or its errors on stderr and exit code 1."""
    result = read_catalog(paths)
    if result.catalog is None:
        from ._formats import format_text

        errors = [d for d in result.diagnostics if str(d.severity) == "error"]
        sys.stderr.write(format_text(errors, result.files, "error"))
        noun = "error" if len(errors) == 1 else "errors"
        raise CliError(
            f"the catalog has {len(errors)} {noun}; see 'toolcat validate' for details", 1
        )
    catalog: Catalog = result.catalog
    return catalog
