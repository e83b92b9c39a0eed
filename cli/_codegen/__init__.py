"""``toolcat codegen``: a typed code API of a catalog, in Python or TypeScript.

The tools are read as the MCP server lists them (``_plan``), their schemas become a small
type model (``_types``, named by ``_names``), and each language renders it (``_python``,
``_typescript``). The output is a function of the catalog alone: a rerun writes the same
bytes.
"""

from __future__ import annotations

import typing

from . import _plan, _python, _typescript
from ._plan import GROUPINGS, GroupBy

if typing.TYPE_CHECKING:
    from toolcat.catalog import Catalog

__all__ = ["GROUPINGS", "GroupBy", "LANGUAGES", "generate"]

LANGUAGES = ("python", "typescript")


def generate(
    catalog: Catalog,
    lang: str,
    package: str,
    by: GroupBy = "service",
    toolset: str | None = None,
) -> dict[str, str]:
    """Relative path -> text of every file of the package for ``lang``: the tools of
    ``catalog`` (of one ``toolset``: :class:`~toolcat.catalog.UnknownToolsetError` when it
    has none of that name), in modules grouped ``by`` service, toolset or tag.

    >>> from toolcat.catalog import Catalog
    >>> sorted(generate(Catalog([], []), "python", "api"))[:2]
    ['api/__init__.py', 'api/_client.py']
    """
    if lang == "python":
        return _python.render(_plan.plan(catalog, by, _python.PY_RESERVED, toolset), package)
    if lang == "typescript":
        return _typescript.render(
            _plan.plan(catalog, by, _typescript.TS_RESERVED, toolset), package
        )
    raise ValueError(f"unknown language {lang!r}: choose from {', '.join(LANGUAGES)}")
