"""--watch without waiting: which edits count as a change, and a broken catalog at start.

The watcher's reloads, which poll real files, are tested in
tests/integration/mcp/test_watch_reload.py.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from toolcat.executor.mcp_server import CatalogLoadFailed, McpServer

SPEC = """\
openapi: 3.1.0
info: {title: t, version: "1"}
servers: [{url: "http://127.0.0.1:9"}]
paths:
  /a:
    get:
      operationId: getA
      responses: {"200": {description: ok}}
"""

CATALOG = """\
toolcat: 1
services:
  svc: {base_url: "http://127.0.0.1:9"}
openapi:
  - spec: spec.yaml
    service: svc
"""


def backdate(*paths: Path) -> None:
    """Files written long before the server starts: their stat alone is trusted."""
    old = time.time() - 3600
    for path in paths:
        os.utime(path, (old, old))


def test_nothing_reloads_while_nothing_changes(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "catalog.yaml").write_text(CATALOG)
    backdate(tmp_path / "spec.yaml", tmp_path / "catalog.yaml")
    server = McpServer([str(tmp_path)], watch=True)
    server.load()
    assert not server._changed()
    (tmp_path / "other.yml").write_text("toolcat: 1\n")  # a new file under a directory PATH
    assert server._changed()


def test_a_broken_catalog_at_start_raises_with_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("toolcat: 1\ntools: [{name: x}]\n")
    with pytest.raises(CatalogLoadFailed) as info:
        McpServer([str(tmp_path / "c.yaml")]).load()
    assert info.value.diagnostics and "c.yaml" in str(info.value.diagnostics[0])
