"""Catalog text written to files and loaded, the one way tests do it: ``catalog_files``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcat.catalog import Catalog, HttpCommand, ToolDefinition
from toolcat.loader import LoadResult, load_catalog

__all__ = ["CatalogFiles", "http_command"]


def http_command(tool: ToolDefinition) -> HttpCommand:
    """The command of a tool the test knows to be an HTTP tool (fails the test otherwise)."""
    assert isinstance(tool.command, HttpCommand), f"{tool.name} is not an HTTP tool"
    return tool.command


@dataclass(frozen=True)
class CatalogFiles:
    """Writes catalogs into ``folder`` and loads them; a load with errors fails the test,
    its diagnostics in the message. The fixture ``catalog_files`` is one for ``tmp_path``.

    Keywords of :meth:`load` and :meth:`catalog` go to ``load_catalog``.
    """

    folder: Path

    def write(self, text: str, name: str = "catalog.yaml") -> Path:
        path = self.folder / name
        path.write_text(text, encoding="utf-8")
        return path

    def load(
        self, text: str, name: str = "catalog.yaml", **keywords: Any
    ) -> tuple[Catalog, LoadResult]:
        """The catalog written as ``name`` and loaded, and the whole result (server
        settings, warnings)."""
        result = load_catalog([str(self.write(text, name))], progress=False, **keywords)
        assert result.catalog is not None, [str(d) for d in result.diagnostics]
        return result.catalog, result

    def catalog(self, text: str, name: str = "catalog.yaml", **keywords: Any) -> Catalog:
        return self.load(text, name, **keywords)[0]
