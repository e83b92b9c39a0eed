"""``validate_responses`` over real sockets: the sample warehouse service's answers are
checked against its own spec (they conform), and against a spec that drifted from it."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from toolcat.executor import Executor, ToolCall
from toolcat.tests.support import CatalogFiles

REPO = Path(__file__).resolve().parents[3]
SPEC = REPO / "specs" / "sample-service.yaml"

CATALOG = """\
toolcat: 1
services:
  warehouse:
    base_url: {url}
    validate_responses: {mode}
openapi:
  - spec: {spec}
    service: warehouse
"""


def _executor(tmp_path: Path, url: str, mode: str, spec: Path) -> Executor:
    catalog = CatalogFiles(tmp_path).catalog(CATALOG.format(url=url, mode=mode, spec=spec.name))
    assert catalog.services["warehouse"].spec == str(spec)
    return Executor(catalog, env={})


def test_the_service_conforms_to_its_spec(warehouse: str, tmp_path: Path) -> None:
    spec = tmp_path / "sample-service.yaml"
    shutil.copyfile(SPEC, spec)
    with _executor(tmp_path, warehouse, "error", spec) as executor:
        found = executor.execute(ToolCall("searchItems", {"q": "blue"}))
        one = executor.execute(ToolCall("getItem", {"sku": "nope"}))
    assert found.ok and found.notes == (), found.content
    assert one.error is not None and one.error.type == "http_error"  # a 404 the spec states


def test_drift_shows_as_a_note(
    warehouse: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    spec = tmp_path / "sample-service.yaml"
    text = SPEC.read_text()
    assert "required: [sku, name, stock, price]" in text
    spec.write_text(text.replace("required: [sku, name, stock, price]", "required: [sku, colour]"))
    with (
        caplog.at_level(logging.WARNING, logger="toolcat.executor"),
        _executor(tmp_path, warehouse, "warn", spec) as executor,
    ):
        found = executor.execute(ToolCall("searchItems", {"q": "blue"}))
    assert found.ok
    (note,) = found.notes
    assert "colour" in note
    assert "does not conform to the spec of service warehouse" in caplog.text
