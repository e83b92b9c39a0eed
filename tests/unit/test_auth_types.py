"""The auth types: one registry (``AUTH_TYPES``), and every list of them agrees with it.

Each registered type has exactly one file model (in the format's union, in the same
order, its ``type`` the registry's key), one resolver in the HTTP transport, and one
row in docs/catalog-format.md; a catalog written with each type compiles to its IR
spec and resolves.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import AUTH_TYPES, AuthSpec
from toolcat.catalog.common import CALLER_TOKEN_AUTH
from toolcat.executor._redact import Redactor
from toolcat.executor.http._auth import ResolvedAuth, resolve_auth, resolver
from toolcat.loader import load_catalog
from toolcat.loader._models_services import AuthDoc
from toolcat.tests.support import CatalogFiles

DOCS = Path(__file__).resolve().parents[2] / "docs" / "catalog-format.md"

# one catalog entry per type: a type added to the registry needs its row here
SAMPLES: dict[str, dict[str, Any]] = {
    "none": {},
    "bearer": {"token": "${T}"},
    "basic": {"username": "me", "password": "${T}"},
    "api_key": {"in": "query", "name": "key", "value": "${T}"},
    "oauth2_client_credentials": {
        "token_url": "https://idp.test/token",
        "client_id": "me",
        "client_secret": "${T}",
        "scopes": "read write",
    },
    "forward_caller_token": {},
    "token_exchange": {
        "token_url": "https://idp.test/token",
        "client_id": "me",
        "client_secret": "${T}",
        "audience": "orders",
        "scopes": ["read"],
    },
}


def _models() -> tuple[Any, ...]:
    union = typing.get_args(AuthDoc)[0]
    return typing.get_args(union)


def _ir_fields(spec: type[Any]) -> list[str]:
    return [f.name for f in dataclasses.fields(spec) if f.name != "type"]


def test_the_registry_is_the_ir_union_in_order() -> None:
    assert tuple(AUTH_TYPES.values()) == typing.get_args(AuthSpec)
    assert list(AUTH_TYPES) == list(SAMPLES)
    assert CALLER_TOKEN_AUTH < set(AUTH_TYPES)


def test_each_type_has_one_file_model_with_the_specs_fields() -> None:
    for model, (name, spec) in zip(_models(), AUTH_TYPES.items(), strict=True):
        assert typing.get_args(model.model_fields["type"].annotation) == (name,)
        assert [k for k in model.model_fields if k != "type"] == _ir_fields(spec)


def test_each_type_has_one_resolver() -> None:
    assert set(resolver.registry) - {object} == set(AUTH_TYPES.values())


def test_the_docs_table_lists_each_type_and_its_keys() -> None:
    section = DOCS.read_text().split("### Auth", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z0-9_]+)` \| (.*) \|$", section, re.M)[1:]  # past the header
    assert [name for name, _ in rows] == list(AUTH_TYPES)
    for (name, keys), model in zip(rows, _models(), strict=True):
        documented = re.findall(r"`([a-z_]+)`", keys)
        fields = [f.alias or k for k, f in model.model_fields.items() if k != "type"]
        assert [k for k in documented if k in fields] == fields, name


def test_the_missing_type_diagnostic_lists_every_type(catalog_files: CatalogFiles) -> None:
    path = catalog_files.write(
        "toolcat: 1\nservices:\n  api: {base_url: 'https://api.test', auth: {token: x}}\n"
    )
    result = load_catalog([str(path)], progress=False)
    messages = [d.message for d in result.diagnostics if d.code == "TC005"]
    assert messages == [
        "service 'api': missing required key 'type' in auth; add 'type:' ("
        + ", ".join(AUTH_TYPES)
        + ")"
    ], messages


@pytest.mark.parametrize("name", list(AUTH_TYPES))
def test_each_type_compiles_to_its_spec_and_resolves(
    catalog_files: CatalogFiles, name: str
) -> None:
    auth = json.dumps({"type": name, **SAMPLES[name]})
    catalog = catalog_files.catalog(
        f"toolcat: 1\nservices:\n  api: {{base_url: 'https://api.test', auth: {auth}}}\n"
        "tools:\n  - {name: ping, description: Ping., service: api, method: GET, path: /}\n"
    )
    spec = catalog.services["api"].auth
    assert type(spec) is AUTH_TYPES[name]
    resolved = resolve_auth(spec, {"T": "s3cret"}, Redactor(), where="test")
    assert isinstance(resolved, ResolvedAuth)
