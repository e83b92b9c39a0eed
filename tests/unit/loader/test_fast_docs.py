"""The load path without pydantic (loader/_docs.py) agrees with the pydantic file models.

A document the fast checks accept must be one the models accept, with the same
values; a document they are unsure of goes to pydantic. Checked three ways: the
fields of each light class against its model (fails when they drift apart), every
document that real catalogs and corpus imports feed the loader, and whole loads
with the fast path on and off (same exports, same diagnostics).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError
from toolcat.catalog import FrozenDict, FrozenList
from toolcat.executor.providers import export_catalog, names
from toolcat.loader import LoadResult, _docs, _models, load_catalog

REPO = Path(__file__).resolve().parents[3]
CATALOGS = REPO / "tests" / "data" / "catalogs"
PARSE = _docs.Doc.parse.__func__  # type: ignore[attr-defined]  # the fast path, unpatched


def _pairs() -> list[tuple[type[_docs.Doc], type[BaseModel]]]:
    out = []
    for name in _docs.__all__:
        cls = getattr(_docs, name)
        if isinstance(cls, type) and issubclass(cls, _docs.Doc) and cls is not _docs.Doc:
            out.append((cls, getattr(_models, name)))
    return out


def test_every_item_model_has_a_light_class() -> None:
    models = {
        name
        for name in dir(_models)
        if isinstance(getattr(_models, name), type)
        and issubclass(getattr(_models, name), BaseModel)
        and getattr(_models, name).__module__ == _models.__name__
    }
    # the whole file is never validated as one: items are, one by one
    assert models - {"CatalogFileDoc"} == {cls.__name__ for cls, _ in _pairs()}


@pytest.mark.parametrize(("light", "model"), _pairs(), ids=lambda c: c.__name__)
def test_light_fields_match_the_model(light: type[_docs.Doc], model: type[BaseModel]) -> None:
    """Names, keys (aliases), required-ness and defaults: stale when the model changes."""
    mine = [
        (f.attr, f.key, f.required, f.factory() if f.factory else f.default) for f in light.FIELDS
    ]
    theirs = []
    for name, info in model.model_fields.items():
        if info.is_required():
            default = _docs._REQUIRED
        elif info.default_factory is not None:
            default = info.default_factory()  # type: ignore[call-arg]
        else:
            default = info.default
        theirs.append((name, info.alias or name, info.is_required(), default))
    assert mine == theirs
    assert light.EXTRA == (model.model_config.get("extra") == "allow")
    assert [f.attr for f in light.FIELDS] == list(model.model_fields)


def _agree(light: type[_docs.Doc], data: Any) -> str:
    """Fast and pydantic agree on ``data``: 'fast', 'pydantic' (fast unsure) or 'invalid'."""
    model = getattr(_models, light.__name__)
    fast = PARSE(light, data)
    try:
        slow = _docs.from_model(TypeAdapter(model).validate_python(data))
    except ValidationError:
        assert fast is None, f"fast path accepted what pydantic rejects: {data!r}"
        return "invalid"
    if fast is None:
        return "pydantic"
    assert fast == slow
    assert fast.model_dump() == slow.model_dump()
    assert fast.model_dump(by_alias=True, exclude_none=True) == slow.model_dump(
        by_alias=True, exclude_none=True
    )
    return "fast"


TOOL = {"name": "t", "service": "s", "method": "GET", "path": "/x"}
SERVICE = {"base_url": "https://api.example"}
KEY = {"type": "api_key", "name": "K", "value": "v"}


class _Text(str):
    pass


TRICKY: list[tuple[type[_docs.Doc], Any]] = [
    (_docs.ToolDoc, TOOL),
    (_docs.ToolDoc, {**TOOL, "method": "get"}),
    (_docs.ToolDoc, {**TOOL, "method": "Patch"}),
    (_docs.ToolDoc, {**TOOL, "method": "FETCH"}),
    (_docs.ToolDoc, {**TOOL, "method": 1}),
    (_docs.ToolDoc, {**TOOL, "name": _Text("t")}),
    (_docs.ToolDoc, {**TOOL, "timeout": 3}),
    (_docs.ToolDoc, {**TOOL, "timeout": 0}),
    (_docs.ToolDoc, {**TOOL, "timeout": True}),
    (_docs.ToolDoc, {**TOOL, "timeout": math.nan}),
    (_docs.ToolDoc, {**TOOL, "timeout": math.inf}),
    (_docs.ToolDoc, {**TOOL, "timeout": 10**400}),
    (_docs.ToolDoc, {**TOOL, "timeout": "3"}),
    (_docs.ToolDoc, {**TOOL, "timeout": {"connect": 1, "total": 2.5}}),
    (_docs.ToolDoc, {**TOOL, "timeout": {"connect": 0}}),
    (_docs.ToolDoc, {**TOOL, "retry": {"attempts": 3, "on_status": [500, 503]}}),
    (_docs.ToolDoc, {**TOOL, "retry": {"attempts": 21}}),
    (_docs.ToolDoc, {**TOOL, "retry": {"attempts": 2.0}}),
    (_docs.ToolDoc, {**TOOL, "retry": {"attempts": True}}),
    (_docs.ToolDoc, {**TOOL, "retry": {"on_status": [99]}}),
    (_docs.ToolDoc, {**TOOL, "retry": {"backoff": -1}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": {"type": "string", "in": "query"}}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": {"in_": "query"}}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": {"required": ["x"], "type": "object"}}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": {"required": "yes"}}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": {"style": "form", "explode": False}}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": {"style": "forms"}}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": None}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {1: {}}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": {1: 2}}}),
    (_docs.ToolDoc, {**TOOL, "body": {"a": "{{ a }}"}, "content_type": "application/json"}),
    (_docs.ToolDoc, {**TOOL, "definitions": {"A": {"type": "string"}, "B": True}}),
    (_docs.ToolDoc, {**TOOL, "definitions": {"A": 1}}),
    (_docs.ToolDoc, {**TOOL, "output_schema": False}),
    (_docs.ToolDoc, {**TOOL, "output_schema": {1: "x"}}),
    (_docs.ToolDoc, {**TOOL, "annotations": {"title": "T", "read_only": True}}),
    (_docs.ToolDoc, {**TOOL, "annotations": {"title": None}}),
    (_docs.ToolDoc, {**TOOL, "tags": ["a", "b"]}),
    (_docs.ToolDoc, {**TOOL, "tags": None}),
    (_docs.ToolDoc, {**TOOL, "tags": ["a", 1]}),
    (_docs.ToolDoc, {**TOOL, "return_direct": None}),
    (_docs.ToolDoc, {**TOOL, "confirm": "yes"}),
    (_docs.ToolDoc, {**TOOL, "response": {"select": "{{ body }}", "max_chars": 10}}),
    (_docs.ToolDoc, {**TOOL, "response": {"max_chars": 0}}),
    (_docs.ToolDoc, {**TOOL, "headers": {"a": 1, "b": True, "c": 1.5, "d": "x"}}),
    (_docs.ToolDoc, {**TOOL, "headers": {"a": None}}),
    (_docs.ToolDoc, {**TOOL, "auth": {"type": "bearer", "token": "${T}"}}),
    (_docs.ToolDoc, {**TOOL, "x": 1}),
    (_docs.ToolDoc, {**TOOL, "output_schema": FrozenDict({"type": "object"})}),
    (_docs.ToolDoc, {**TOOL, "definitions": {"A": FrozenDict({"type": "string"})}}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": {"required": FrozenList(["x"])}}}),
    (_docs.ToolDoc, {**TOOL, "parameters": FrozenDict({"a": {"type": "string"}})}),
    (_docs.ToolDoc, {**TOOL, "parameters": {"a": FrozenDict({"type": "string"})}}),
    (_docs.ToolDoc, FrozenDict(TOOL)),
    (_docs.ToolDoc, {"name": "t"}),
    (_docs.ToolDoc, None),
    (_docs.ToolDoc, ["t"]),
    (_docs.ServiceDoc, SERVICE),
    (_docs.ServiceDoc, {**SERVICE, "auth": {"type": "none"}}),
    (_docs.ServiceDoc, {**SERVICE, "auth": {"type": "basic", "username": "u", "password": "p"}}),
    (_docs.ServiceDoc, {**SERVICE, "auth": {"type": "basic", "username": "u"}}),
    (
        _docs.ServiceDoc,
        {**SERVICE, "auth": {"type": "api_key", "in": "header", "name": "K", "value": "v"}},
    ),
    (
        _docs.ServiceDoc,
        {**SERVICE, "auth": {"type": "api_key", "in_": "header", "name": "K", "value": "v"}},
    ),
    (
        _docs.ServiceDoc,
        {**SERVICE, "auth": {"type": "api_key", "in": "body", "name": "K", "value": "v"}},
    ),
    (
        _docs.ServiceDoc,
        {
            **SERVICE,
            "auth": {
                "type": "oauth2_client_credentials",
                "token_url": "https://t",
                "client_id": "c",
                "client_secret": "s",
                "scopes": "a b",
            },
        },
    ),
    (
        _docs.ServiceDoc,
        {
            **SERVICE,
            "auth": {
                "type": "oauth2_client_credentials",
                "token_url": "https://t",
                "client_id": "c",
                "client_secret": "s",
            },
        },
    ),
    (_docs.ServiceDoc, {**SERVICE, "auth": {"type": "forward_caller_token"}}),
    (_docs.ServiceDoc, {**SERVICE, "auth": {"type": "forward_caller_token", "token": "x"}}),
    (
        _docs.ServiceDoc,
        {
            **SERVICE,
            "auth": {
                "type": "token_exchange",
                "token_url": "https://t",
                "client_id": "c",
                "client_secret": "${S}",
                "audience": "orders",
                "resource": "https://api",
                "scopes": ["a", "b"],
                "timeout": 2,
                "max_lifetime": 60.5,
            },
        },
    ),
    (
        _docs.ServiceDoc,
        {
            **SERVICE,
            "auth": {
                "type": "token_exchange",
                "token_url": "https://t",
                "client_id": "c",
                "client_secret": "s",
                "scopes": "a b",
            },
        },
    ),
    (
        _docs.ServiceDoc,
        {
            **SERVICE,
            "auth": {
                "type": "token_exchange",
                "token_url": "https://t",
                "client_id": "c",
                "client_secret": "s",
                "timeout": 61,
            },
        },
    ),
    (
        _docs.ServiceDoc,
        {
            **SERVICE,
            "auth": {
                "type": "token_exchange",
                "token_url": "https://t",
                "client_id": "c",
                "client_secret": "s",
                "max_lifetime": 0,
                "audience": None,
            },
        },
    ),
    (_docs.ServiceDoc, {**SERVICE, "auth": {"type": "digest"}}),
    (_docs.ServiceDoc, {**SERVICE, "auth": "token"}),
    (_docs.ServiceDoc, {**SERVICE, "max_response_chars": 0}),
    (_docs.ServiceDoc, {**SERVICE, "max_response_bytes": 1000, "description": None}),
    (_docs.OpenApiEntryDoc, {"spec": "a.json"}),
    (
        _docs.OpenApiEntryDoc,
        {
            "spec": "a.json",
            "service": "s",
            "prefix": "p_",
            "include": {"tags": ["a"], "methods": ["get", "POST"], "paths": ["/a*"]},
            "exclude": {"operations": ["x"]},
            "tools": {"op": {"name": "n", "confirm": True, "tags": ["t"]}},
            "ref_root": ".",
        },
    ),
    (_docs.OpenApiEntryDoc, {"spec": "a.json", "include": {"methods": ["FETCH"]}}),
    (_docs.OpenApiEntryDoc, {"spec": "a.json", "prefix": None}),
]


@pytest.mark.parametrize(("light", "data"), TRICKY)
def test_tricky_documents_agree(light: type[_docs.Doc], data: Any) -> None:
    _agree(light, data)


def test_the_fast_path_takes_the_ordinary_documents() -> None:
    """Not a path that says "unsure" to everything: valid ordinary documents go fast."""
    assert _agree(_docs.ToolDoc, {**TOOL, "timeout": 3, "tags": ["a"]}) == "fast"
    assert _agree(_docs.ServiceDoc, {**SERVICE, "auth": {"type": "none"}}) == "fast"
    assert _agree(_docs.ToolDoc, {**TOOL, "method": "delete"}) == "fast"


def _catalog_paths() -> Iterator[Path]:
    yield REPO / "examples" / "catalog.yaml"
    yield REPO / "examples" / "demo"
    yield CATALOGS / "good-dir"
    yield from sorted((CATALOGS / "good").iterdir())
    yield from sorted((CATALOGS / "broken").iterdir())


CORPUS_SPECS = [
    "stripe-spec3.json",
    "kubernetes-swagger2.json",
    "httpbin-swagger2.json",
    "train-travel-openapi3.1.yaml",
]


def _load_both(
    paths: list[Path], monkeypatch: pytest.MonkeyPatch, seen: list[str] | None = None
) -> tuple[LoadResult, LoadResult]:
    """The load with the fast path (each document it takes checked against pydantic), then
    the same load with every document through pydantic. ``seen``: each verdict of _agree."""
    seen = [] if seen is None else seen

    def spy(cls: type[_docs.Doc], data: Any) -> Any:
        seen.append(_agree(cls, data))
        return PARSE(cls, data)

    with monkeypatch.context() as m:
        m.setattr(_docs.Doc, "parse", classmethod(spy))
        fast = load_catalog(paths)
    with monkeypatch.context() as m:
        m.setattr(_docs.Doc, "parse", classmethod(lambda cls, data: None))
        slow = load_catalog(paths)
    return fast, slow


def _same(fast: LoadResult, slow: LoadResult) -> None:
    assert fast.diagnostics == slow.diagnostics
    assert fast.files == slow.files
    assert (fast.catalog is None) == (slow.catalog is None)
    if fast.catalog is not None and slow.catalog is not None:
        assert list(fast.catalog) == list(slow.catalog)  # the whole IR, tool by tool
        assert dict(fast.catalog.services) == dict(slow.catalog.services)
        assert dict(fast.catalog.toolsets) == dict(slow.catalog.toolsets)
        for provider in names():
            a = json.dumps(export_catalog(fast.catalog, provider).tools, sort_keys=True)
            b = json.dumps(export_catalog(slow.catalog, provider).tools, sort_keys=True)
            assert a == b


@pytest.mark.parametrize("path", list(_catalog_paths()), ids=lambda p: p.name)
def test_catalogs_load_the_same_without_pydantic(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, slow = _load_both([path], monkeypatch)
    _same(fast, slow)


@pytest.mark.parametrize("name", CORPUS_SPECS)
def test_corpus_imports_load_the_same_without_pydantic(
    corpus_dir: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    spec = corpus_dir / name
    if not spec.is_file():
        pytest.skip(f"{name} is not in the corpus at {corpus_dir}")
    seen: list[str] = []
    fast, slow = _load_both([spec], monkeypatch, seen)
    _same(fast, slow)
    # every imported document is one the fast path takes: no pydantic for a valid import
    assert seen and set(seen) == {"fast"}, (spec.name, sorted(set(seen)))


def _modules_after(argv: list[str]) -> set[str]:
    code = (
        "import sys\n"
        f"sys.argv = ['toolcat', *{argv!r}]\n"
        "from toolcat.cli._app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    return set(out.stderr.strip().splitlines()[-1].split())


def test_list_loads_no_pydantic_for_a_valid_catalog() -> None:
    modules = _modules_after(["list", str(REPO / "examples" / "demo")])
    assert "toolcat.loader" in modules  # the run did load the catalog
    heavy = {"pydantic", "toolcat.loader._models", "toolcat.executor.agent", "httpx"}
    assert not modules & heavy, sorted(modules & heavy)


def test_list_still_explains_with_pydantic(tmp_path: Path) -> None:
    """A broken document takes the pydantic path, which says what is wrong."""
    path = tmp_path / "c.yaml"
    path.write_text("toolcat: 1\nservices:\n  s: {base_url: 'https://a.example', timout: 3}\n")
    code = (
        "import sys\nfrom toolcat.loader import load_catalog\n"
        f"r = load_catalog([{str(path)!r}])\n"
        "print([d.message for d in r.diagnostics])\n"
        "print('pydantic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "did you mean 'timeout'?" in out.stdout
    assert out.stdout.split()[-1] == "True"


def test_chat_defaults_are_the_agents() -> None:
    """`toolcat chat` writes the agent's defaults out so that other commands need not import it."""
    from toolcat.cli import _cmd_chat
    from toolcat.executor.agent import MAX_CALLS_PER_TURN, MAX_REPLY_BYTES

    assert _cmd_chat.MAX_REPLY_BYTES == MAX_REPLY_BYTES
    assert _cmd_chat.MAX_CALLS_PER_TURN == MAX_CALLS_PER_TURN
