"""Loading a catalog for a command: bad input exits 2, catalog errors exit 1 with diagnostics."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._app import CliError

if TYPE_CHECKING:
    from toolcat.catalog import Catalog

__all__ = ["add_ref_root", "check_ref_root", "load_or_exit", "read_catalog"]


def add_ref_root(parser: Any) -> None:
    """``--ref-root DIR`` on a command whose PATH may be (or import) an OpenAPI spec."""
    parser.add_argument(
        "--ref-root",
        metavar="DIR",
        default=None,
        help="folder that a spec's $refs may read files under (default: the spec's git "
        "repository, else its folder)",
    )


def check_ref_root(ref_root: str | None) -> None:
    """``--ref-root`` must name a folder (exit 2 otherwise)."""
    from pathlib import Path

    if ref_root is not None and not Path(ref_root).is_dir():
        raise CliError(f"--ref-root {ref_root}: not a directory")


def read_catalog(paths: Sequence[str], ref_root: str | None = None) -> Any:
    """``load_catalog(paths)``; a missing or unreadable PATH becomes a one-line exit 2."""
    from toolcat.loader import CatalogInputError, load_catalog

    check_ref_root(ref_root)
    try:
        if ref_root is None:
            return load_catalog(list(paths))
        return load_catalog(list(paths), ref_root=ref_root)
    except CatalogInputError as exc:
        raise CliError(str(exc), 2) from exc


def load_or_exit(paths: Sequence[str], ref_root: str | None = None) -> Catalog:
    """The compiled catalog, or its errors on stderr and exit code 1."""
    result = read_catalog(paths, ref_root)
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
