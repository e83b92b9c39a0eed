"""`toolcat hash-key` and the authentication options of `toolcat serve` (no server starts)."""

from __future__ import annotations

import hashlib
import io
import socket
from pathlib import Path

import pytest
from toolcat.cli import main

KEY = "a-long-random-api-key-0123456789"


@pytest.fixture
def good_catalog(catalogs: Path) -> Path:
    return catalogs / "good.yaml"


class _Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


def test_hash_key_reads_the_key_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _Pipe(KEY + "\n"))
    assert main(["hash-key"]) == 0
    out = capsys.readouterr().out
    assert out == f"sha256:{hashlib.sha256(KEY.encode()).hexdigest()}\n"


def test_hash_key_never_takes_the_key_on_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["hash-key", KEY]) == 2
    err = capsys.readouterr().err
    assert KEY not in err.replace("unrecognized arguments: " + KEY, "")


@pytest.mark.parametrize("key", ["short", "has a space in it, long enough"])
def test_hash_key_refuses_weak_or_unsendable_keys(
    key: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _Pipe(key + "\n"))
    assert main(["hash-key"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and key not in err


def test_hash_key_generate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hash-key", "--generate"]) == 0
    key_line, hash_line = capsys.readouterr().out.splitlines()
    key = key_line.split()[-1]
    assert hash_line.split()[-1] == "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def _serve(catalog: Path, *extra: str) -> list[str]:
    return ["serve", str(catalog), "--transport", "http", "--port", "0", *extra]


@pytest.mark.parametrize("host", ["0.0.0.0"])
def test_serve_refuses_a_non_loopback_address_without_auth(
    host: str, good_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_serve(good_catalog, "--host", host)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "without authentication" in err[0] and "--insecure-no-auth" in err[0]


@pytest.mark.parametrize(
    "extra, says",
    [
        (["--auth-issuer", "https://idp.test/"], "--auth-jwks-url"),
        (["--auth-scope", "a b", "--api-key-hash", "ci=sha256:" + "0" * 64], "scope"),
        (["--api-key-hash", "ci=md5:abc"], "NAME=sha256"),
        (["--api-key-hash", "sha256:" + "0" * 64], "NAME=sha256"),
        (["--api-key-hash", "ci=sha256:" + "0" * 64], "--resource"),  # port 0: URI unknown
    ],
)
def test_serve_auth_option_mistakes_are_one_line(
    extra: list[str], says: str, good_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_serve(good_catalog, *extra)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err


def test_a_wildcard_host_with_tokens_needs_the_resource_uri(
    good_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port free a moment ago: the address check passes
        probe.bind(("0.0.0.0", 0))
        port = str(probe.getsockname()[1])
    jwt = ["--auth-issuer", "https://i.test/", "--auth-jwks-url", "https://i.test/jwks"]
    args = ["serve", str(good_catalog), "--transport", "http", "--host", "0.0.0.0"]
    assert main([*args, "--port", port, *jwt]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs server.resource or --resource" in err[0], err


def test_an_http_jwks_url_elsewhere_is_refused_in_one_line(
    good_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["--auth-issuer", "https://idp.test/", "--auth-jwks-url", "http://idp.test/jwks"]
    assert main(_serve(good_catalog, *extra, "--resource", "https://tools.test/mcp")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "https" in err[0], err
