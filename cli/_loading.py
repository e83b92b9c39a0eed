"""Loading a catalog for a command: bad input exits 2, catalog errors exit 1 with diagnostics."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._app import CliError

if TYPE_CHECKING:
    from toolcat.catalog import Catalog

__all__ = [
    "add_ref_root",
    "catalog_or_exit",
    "check_ref_root",
    "load_or_exit",
    "read_catalog",
    "report_failed_load",
]


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


def read_catalog(
    paths: Sequence[str],
    ref_root: str | None = None,
    exclude: Any = None,
    *,
    output_schemas: bool = True,
) -> Any:
    """``load_catalog(paths)``; a missing or unreadable PATH becomes a one-line exit 2.

    ``exclude``: a predicate on the files met while walking a directory PATH.
    ``output_schemas=False``: imported tools without output schemas (see load_catalog).
    """
    from toolcat.loader import CatalogInputError, load_catalog

    check_ref_root(ref_root)
    try:
        return load_catalog(
            list(paths), ref_root=ref_root, exclude=exclude, output_schemas=output_schemas
        )
    except CatalogInputError as exc:
        raise CliError(str(exc), 2) from exc


def report_failed_load(diagnostics: Sequence[Any], files: Sequence[str]) -> int:
    """Write a failed load's findings on stderr exactly as ``toolcat validate`` prints them.

    The same ``file:line:col: severity code message`` lines (warnings
    included, most relevant first) and the same summary line, so ``serve``,
    ``call`` and ``chat`` on a broken catalog say what ``validate`` says
    (``list`` and ``schema`` print only the errors, see :func:`load_or_exit`).
    Returns the count of errors.
    """
    from ._formats import format_text, summary_line

    shown = list(diagnostics)
    sys.stderr.write(format_text(shown, list(files), "error"))
    sys.stderr.write(f"toolcat: {summary_line(shown, list(files))}\n")
    sys.stderr.flush()
    return sum(1 for d in shown if str(d.severity) == "error")


def load_or_exit(
    paths: Sequence[str],
    ref_root: str | None = None,
    *,
    like_validate: bool = False,
    output_schemas: bool = True,
) -> Catalog:
    """The compiled catalog, or its errors on stderr and exit code 1.

    ``like_validate`` (``call``, ``chat``): every finding and the summary line,
    exactly as ``toolcat validate`` prints them; otherwise (``list``,
    ``schema``) only the errors that block loading. ``output_schemas``: as
    :func:`read_catalog`'s.
    """
    result = read_catalog(paths, ref_root, output_schemas=output_schemas)
    return catalog_or_exit(result, like_validate=like_validate)


def catalog_or_exit(result: Any, *, like_validate: bool = False) -> Catalog:
    """``result``'s catalog, or its errors on stderr and exit code 1 (see :func:`load_or_exit`)."""
    if result.catalog is None:
        if like_validate:
            errors = report_failed_load(result.diagnostics, result.files)
        else:
            from ._formats import format_text

            blocking = [d for d in result.diagnostics if str(d.severity) == "error"]
            sys.stderr.write(format_text(blocking, result.files, "error"))
            errors = len(blocking)
        noun = "error" if errors == 1 else "errors"
        raise CliError(f"the catalog has {errors} {noun}; see 'toolcat validate' for details", 1)
    catalog: Catalog = result.catalog
    return catalog
