"""The catalog's ``search:`` section: ``embeddings`` compiled to settings, and its findings."""

from __future__ import annotations

from pathlib import Path

from toolcat.catalog.search import EmbeddingsSettings
from toolcat.loader import load_catalog

HEAD = (
    "toolcat: 1\n"
    "services:\n  svc: {base_url: 'http://127.0.0.1:9'}\n"
    "tools:\n  - {name: ping, description: Ping., service: svc, method: GET, path: /ping}\n"
)


def load(tmp_path: Path, search: str, extra: str | None = None) -> tuple[object, list[str]]:
    (tmp_path / "c.yaml").write_text(HEAD + search)
    if extra is not None:
        (tmp_path / "more.yaml").write_text("toolcat: 1\n" + extra)
    result = load_catalog([tmp_path])
    return result, [f"{d.code} {d.message}" for d in result.diagnostics]


def test_embeddings_settings(tmp_path: Path) -> None:
    result, found = load(
        tmp_path,
        "search:\n  embeddings:\n    url: https://api.example/v1\n    model: small\n"
        "    api_key: ${EMB_KEY}\n    dimensions: 256\n    timeout: 3\n    cache: .vectors\n"
        "    weight: 0.5\n    k: 20\n",
    )
    assert found == []
    catalog = result.catalog  # type: ignore[attr-defined]
    emb = catalog.search_settings.embeddings
    assert isinstance(emb, EmbeddingsSettings)
    assert (emb.url, emb.model, emb.api_key, emb.dimensions) == (
        "https://api.example/v1",
        "small",
        "${EMB_KEY}",
        256,
    )
    assert (emb.timeout, emb.weight, emb.k) == (3.0, 0.5, 20)
    assert emb.cache == str(tmp_path / ".vectors")  # relative to the file
    assert emb.source is not None and emb.source.line == 7
    # kept through the catalog's copies
    assert catalog.subset(["ping"]).search_settings == catalog.search_settings
    assert catalog.with_env({}).search_settings == catalog.search_settings


def test_no_section_no_settings(tmp_path: Path) -> None:
    result, found = load(tmp_path, "")
    assert found == [] and result.catalog.search_settings is None  # type: ignore[attr-defined]
    result, found = load(tmp_path, "search: {}\n")
    assert found == [] and result.catalog.search_settings is None  # type: ignore[attr-defined]


def test_tc086_key_over_plain_http(tmp_path: Path) -> None:
    _, found = load(
        tmp_path,
        "search:\n  embeddings: {url: 'http://emb.example/v1', model: m, api_key: '${K}'}\n",
    )
    assert len(found) == 1 and found[0].startswith("TC086 ") and "emb.example" in found[0]
    # http to loopback, or without a key, is fine
    for url, key in (("http://127.0.0.1:8080/v1", "${K}"), ("http://emb.example/v1", None)):
        line = f"search:\n  embeddings: {{url: '{url}', model: m"
        line += f", api_key: '{key}'}}\n" if key else "}\n"
        _, found = load(tmp_path, line)
        assert found == [], url


def test_tc086_not_http(tmp_path: Path) -> None:
    _, found = load(tmp_path, "search:\n  embeddings: {url: 'file:///etc/x', model: m}\n")
    assert [f[:5] for f in found] == ["TC086"]


def test_tc091_two_files_with_embeddings(tmp_path: Path) -> None:
    """One search: section per catalog, whatever it holds (embeddings or pins)."""
    section = "search:\n  embeddings: {url: 'https://a.example/v1', model: m}\n"
    _, found = load(tmp_path, section, extra=section)
    assert [f[:5] for f in found] == ["TC091"]
    assert "already defined at" in found[0]


def test_tc137_key_in_the_file(tmp_path: Path) -> None:
    result, found = load(
        tmp_path,
        "search:\n  embeddings: {url: 'https://a.example/v1', model: m, api_key: sk-abcdef}\n",
    )
    assert [f[:5] for f in found] == ["TC137"]
    assert "sk-abcdef" not in found[0]
    assert result.catalog is not None  # type: ignore[attr-defined]


def test_shape_errors(tmp_path: Path) -> None:
    for body, words in (
        ("  embeddings: {url: 'https://a.example', model: m, dimension: 3}\n", "dimension"),
        ("  embeddings: {url: 'https://a.example', model: m, timeout: 0}\n", "timeout"),
        ("  embeddings: {url: 'https://a.example', model: m, k: 0}\n", "k"),
        ("  embeddings: {url: 'https://a.example'}\n", "model"),
        ("  embedings: {}\n", "embedings"),
    ):
        result, found = load(tmp_path, "search:\n" + body)
        assert result.catalog is None, body  # type: ignore[attr-defined]
        assert any(words in f for f in found), (body, found)
