"""The format's retry defaults are the IR's: one home (``RetryPolicy``), the format derived."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import HttpCommand, RetryPolicy
from toolcat.loader import catalog_json_schema, load_catalog
from toolcat.loader._models_services import RetryDoc

FIELDS = [f.name for f in dataclasses.fields(RetryPolicy)]


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def test_the_format_has_the_irs_fields() -> None:
    assert list(RetryDoc.model_fields) == FIELDS


@pytest.mark.parametrize("name", FIELDS)
def test_each_default_is_the_irs(name: str) -> None:
    ir = getattr(RetryPolicy(), name)
    assert _plain(RetryDoc.model_fields[name].get_default(call_default_factory=True)) == ir
    published = catalog_json_schema()["$defs"]["RetryDoc"]["properties"][name]["default"]
    assert _plain(published) == ir


def test_an_empty_retry_compiles_to_the_irs_policy(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "toolcat: 1\n"
        "services:\n  s: {base_url: 'https://api.example'}\n"
        "tools:\n"
        "  - {name: t, description: T., service: s, method: GET, path: /t, retry: {}}\n",
        encoding="utf-8",
    )
    result = load_catalog([path])
    assert result.catalog is not None, result.diagnostics
    command = result.catalog["t"].command
    assert isinstance(command, HttpCommand)
    assert command.retry == RetryPolicy()
