"""Semantic ranking against a real embeddings endpoint on 127.0.0.1 (``EmbeddingsService``).

Success (fused ranking), the on-disk cache (a second load sends no tool text), and
every way the endpoint can fail (slow, HTTP 500, wrong size, wrong count, not JSON,
NaN, refused): each gives the lexical ranking with a note, never an exception.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolcat.catalog import Catalog, HttpCommand, Service, ToolDefinition
from toolcat.catalog.common import freeze
from toolcat.catalog.search import EmbeddingsSettings, SearchSettings
from toolcat.cli import main
from toolcat.executor import SearchResults, SemanticSearch
from toolcat.testing import BackgroundServer
from toolcat.tests.support import EmbeddingsService

KEY = "sk-test-0123456789abcdef"


def tool(name: str, description: str) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        description=description,
        input_schema=freeze({"type": "object", "properties": {}}),
        command=HttpCommand(service="svc", method="GET", path=f"/{name}"),
    )


TOOLS = [
    tool("get_weather", "Current weather conditions for a city."),
    tool("send_sms", "Send a text message to a phone number."),
    tool("create_invoice", "Create an invoice for a customer."),
    tool("list_orders", "List the orders of a customer."),
    tool("translate_text", "Translate text into another language."),
]


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[EmbeddingsService, str]]:
    app = EmbeddingsService(delay=3.0)
    with BackgroundServer(app) as server:
        yield app, server.url


@pytest.fixture
def endpoint(service: tuple[EmbeddingsService, str]) -> Iterator[tuple[EmbeddingsService, str]]:
    app, url = service
    app.mode, app.requests, app.texts = "ok", 0, 0
    app.authorization.clear()
    yield app, url
    app.mode = "ok"


def catalog(url: str, **kw: object) -> Catalog:
    settings = EmbeddingsSettings(url=f"{url}/v1", model="fake-64", api_key="${EMB_KEY}", **kw)  # type: ignore[arg-type]
    return Catalog(
        TOOLS,
        [Service("svc", "http://127.0.0.1:9")],
        env={"EMB_KEY": KEY},
        search=SearchSettings(embeddings=settings),
    )


def search(cat: Catalog, cache: Path, query: str, top: int = 5) -> SearchResults:
    with SemanticSearch(cat, cache_dir=cache) as searcher:
        return searcher.search(query, top)


def test_fused_ranking_and_the_key_sent_as_a_bearer_token(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    hits = search(catalog(url), tmp_path, "weather in a city")
    assert hits.ranking == "fused" and hits.note is None
    assert hits[0].name == "get_weather"
    # fused: tools without a lexical match still come, from the semantic ranking
    assert len(hits) == 5
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert app.requests == 2  # the tools (one batch), then the query
    assert app.authorization == [f"Bearer {KEY}"] * 2
    assert app.models == ["fake-64", "fake-64"]


def test_semantic_finds_what_lexical_misses(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    _, url = endpoint
    cat = catalog(url)
    # cut words: no lexical match, but the fake model hashes each word's first 4 letters
    hits = search(cat, tmp_path, "custo invo")
    assert cat.search("custo invo") == []
    assert hits.ranking == "fused" and hits[0].name == "create_invoice"


def test_the_second_load_sends_no_tool_text(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    search(catalog(url), tmp_path, "weather")
    assert app.requests == 2 and app.texts == len(TOOLS) + 1
    files = sorted(tmp_path.rglob("*.vec"))
    assert len(files) == len(TOOLS)
    for f in files:
        assert stat.S_IMODE(f.stat().st_mode) == 0o600
        assert stat.S_IMODE(f.parent.stat().st_mode) == 0o700
    app.requests = app.texts = 0
    hits = search(catalog(url), tmp_path, "send a text")
    assert hits.ranking == "fused"
    assert app.requests == 1 and app.texts == 1  # the query only


def test_a_corrupted_cache_file_is_ignored_and_replaced(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    search(catalog(url), tmp_path, "weather")
    victim, truncated, garbage = sorted(tmp_path.rglob("*.vec"))[:3]
    victim.write_bytes(victim.read_bytes()[:-4] + b"\xff\xff\xff\x7f")  # NaN
    truncated.write_bytes(truncated.read_bytes()[:20])
    garbage.write_bytes(os.urandom(300))
    app.requests = app.texts = 0
    hits = search(catalog(url), tmp_path, "weather")
    assert hits.ranking == "fused" and hits[0].name == "get_weather"
    assert app.texts == 3 + 1  # the three bad files again, and the query
    app.requests = app.texts = 0
    search(catalog(url), tmp_path, "weather")
    assert app.texts == 1  # rewritten


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("error", "HTTP 500"),
        ("wrong_dimensions", "63 dimensions, expected 64"),
        ("wrong_count", "4 vectors for 5 texts"),
        ("malformed", "not JSON"),
        ("nan", "NaN"),
    ],
)
def test_a_bad_endpoint_gives_lexical_results_with_a_note(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path, mode: str, words: str
) -> None:
    app, url = endpoint
    app.mode = mode
    cat = catalog(url, dimensions=64 if mode == "wrong_dimensions" else None)
    hits = search(cat, tmp_path, "weather in a city")
    assert hits.ranking == "lexical"
    assert hits.note is not None and words in hits.note and "lexical" in hits.note
    assert KEY not in hits.note
    assert list(hits) == cat.search("weather in a city", 5)
    assert list(tmp_path.rglob("*.vec")) == []


def test_a_query_vector_of_the_wrong_size_gives_lexical(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    with SemanticSearch(catalog(url), cache_dir=tmp_path) as searcher:
        assert searcher.prepare() is None
        app.mode = "wrong_dimensions"
        hits = searcher.search("weather", 3)
    assert hits.ranking == "lexical" and hits.note and "63 dimensions" in hits.note


def test_a_slow_endpoint_times_out_once_then_rests(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    app.mode = "slow"
    with SemanticSearch(catalog(url, timeout=0.3), cache_dir=tmp_path) as searcher:
        started = time.monotonic()
        first = searcher.search("weather", 3)
        second = searcher.search("send a text", 3)
        elapsed = time.monotonic() - started
    assert first.ranking == second.ranking == "lexical"
    assert first.note and "no answer within 0.3 s" in first.note
    assert second.note == first.note
    assert app.requests == 1  # the second search did not wait again
    assert elapsed < 2.5


def test_a_refused_connection_gives_lexical(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    hits = search(catalog(f"http://127.0.0.1:{port}"), tmp_path, "weather")
    assert hits.ranking == "lexical"
    assert hits.note and "unreachable" in hits.note and KEY not in hits.note


def test_the_key_never_travels_in_clear(endpoint: tuple[EmbeddingsService, str]) -> None:
    app, _ = endpoint
    settings = EmbeddingsSettings(url="http://embeddings.example/v1", model="m", api_key=KEY)
    cat = Catalog(TOOLS, [Service("svc", "http://127.0.0.1:9")])
    with SemanticSearch(cat, settings, cache_dir=False) as searcher:
        hits = searcher.search("weather", 3)
    assert hits.ranking == "lexical" and hits.note and "https" in hits.note
    assert app.requests == 0
    assert KEY not in repr(settings)


def test_a_missing_variable_gives_lexical(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    _, url = endpoint
    settings = EmbeddingsSettings(url=url, model="m", api_key="${NOT_SET_ANYWHERE}")
    cat = Catalog(TOOLS, [Service("svc", "http://127.0.0.1:9")], env={})
    with SemanticSearch(cat, settings, cache_dir=tmp_path) as searcher:
        hits = searcher.search("weather", 3)
    assert hits.ranking == "lexical" and hits.note and "NOT_SET_ANYWHERE" in hits.note


def test_without_settings_search_is_lexical_without_a_note() -> None:
    cat = Catalog(TOOLS, [Service("svc", "http://127.0.0.1:9")])
    with SemanticSearch(cat) as searcher:
        assert not searcher.enabled
        hits = searcher.search("weather", 3)
    assert hits.ranking == "lexical" and hits.note is None
    assert list(hits) == cat.search("weather", 3)


# -- from a catalog file, through the CLI ---------------------------------------------------


def write_catalog(folder: Path, url: str) -> Path:
    path = folder / "catalog.yaml"
    path.write_text(
        "toolcat: 1\n"
        "services:\n  svc: {base_url: 'http://127.0.0.1:9'}\n"
        "tools:\n"
        + "".join(
            f"  - {{name: {t.name}, description: '{t.description}', service: svc, "
            f"method: GET, path: /{t.name}}}\n"
            for t in TOOLS
        )
        + "search:\n"
        f"  embeddings:\n    url: {url}/v1\n    model: fake-64\n"
        "    api_key: ${EMB_KEY}\n    cache: vectors\n    timeout: 2\n"
    )
    return path


def test_cli_uses_the_catalog_endpoint(
    endpoint: tuple[EmbeddingsService, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, url = endpoint
    monkeypatch.setenv("EMB_KEY", KEY)
    path = write_catalog(tmp_path, url)
    assert main(["search", str(path), "custo invo", "--format", "json", "--top", "2"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["ranking"] == "fused" and doc["results"][0]["name"] == "create_invoice"
    assert err == ""
    assert len(list((tmp_path / "vectors").rglob("*.vec"))) == len(TOOLS)
    requests = app.requests
    assert main(["search", str(path), "custo invo", "--lexical"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "no tool matches" in err
    assert app.requests == requests


def test_cli_notes_a_failing_endpoint_once_on_stderr(
    endpoint: tuple[EmbeddingsService, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, url = endpoint
    app.mode = "error"
    monkeypatch.setenv("EMB_KEY", KEY)
    path = write_catalog(tmp_path, url)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query": "weather"}\n{"query": "send a text"}\n')
    assert main(["search", str(path), "--queries", str(queries)]) == 0
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["ranking"] for line in lines] == ["lexical", "lexical"]
    assert all("HTTP 500" in line["note"] for line in lines)
    assert err.count("\n") == 1 and "note: embeddings endpoint answered HTTP 500" in err
    assert KEY not in out + err
    # a second run in the same process notes it again (the endpoint rests per run)
    assert main(["search", str(path), "weather"]) == 0
    out, err = capsys.readouterr()
    assert "get_weather" in out and "note: embeddings endpoint answered HTTP 500" in err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_cache_directory_others_may_write_is_not_used(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    hits = search(catalog(url), shared, "weather")
    assert hits.ranking == "fused"  # still ranked; the vectors are only not kept
    assert list(shared.rglob("*")) == []


def test_toolset_and_weight(endpoint: tuple[EmbeddingsService, str], tmp_path: Path) -> None:
    _, url = endpoint
    settings = EmbeddingsSettings(url=url, model="fake-64", weight=0.0)
    cat = Catalog(
        TOOLS,
        [Service("svc", "http://127.0.0.1:9")],
        {"money": ["create_invoice", "list_orders"]},
        search=SearchSettings(embeddings=settings),
    )
    with SemanticSearch(cat, cache_dir=tmp_path) as searcher:
        # weight 0: the embeddings count for nothing, so the lexical order
        hits = searcher.search("orders of a customer", 5)
        assert hits.ranking == "fused"
        assert [h.name for h in hits] == [h.name for h in cat.search("orders of a customer", 5)]
        names = [h.name for h in searcher.search("weather text invoice", 5, toolset="money")]
        assert set(names) <= {"create_invoice", "list_orders"} and names
        assert searcher.rank_by_embeddings("custo invo", 1) == ["create_invoice"]


def test_the_cache_setting_may_read_a_variable(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    _, url = endpoint
    settings = EmbeddingsSettings(url=url, model="fake-64", cache="${VEC_DIR}/v")
    cat = Catalog(
        TOOLS,
        [Service("svc", "http://127.0.0.1:9")],
        env={"VEC_DIR": str(tmp_path)},
        search=SearchSettings(embeddings=settings),
    )
    with SemanticSearch(cat) as searcher:
        assert searcher.search("weather", 2).ranking == "fused"
    assert len(list((tmp_path / "v").rglob("*.vec"))) == len(TOOLS)
    unset = Catalog(TOOLS, [Service("svc", "http://127.0.0.1:9")], env={})
    with SemanticSearch(unset, settings) as searcher:
        assert searcher.cache is None  # no directory to use: vectors in memory only
        assert searcher.search("weather", 2).ranking == "fused"
