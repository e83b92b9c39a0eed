"""Identity providers that misbehave cannot break or stall `toolcat serve`: a real server
over HTTP, the test issuer on 127.0.0.1 answering slowly, with a key no library reads,
with JSON nested 100,000 deep, or with a 300 MB introspection answer.

Every answer is 200, 401 or 503 with a reason in the log: never a 500, a
RecursionError, or a body read whole.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from .conftest import Issuer, Served, catalog, start_serve

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def _status(served: Served, token: str) -> int:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx.post(served.url, json=INITIALIZE, headers=headers, timeout=30).status_code


def _serve(issuer: Issuer, warehouse: str, folder: Path) -> Served:
    path = folder / "catalog.yaml"
    path.write_text(catalog(issuer.url))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["WAREHOUSE_URL"] = warehouse
    env["INTROSPECTION_SECRET"] = "s3cret-introspection"
    return start_serve(path, env, folder / "stderr.log")


@pytest.fixture
def fresh(issuer: Issuer, warehouse: str, tmp_path: Path) -> Iterator[tuple[Served, Issuer]]:
    """A server that has fetched no key yet; the issuer put back as it was after."""
    served = _serve(issuer, warehouse, tmp_path)
    try:
        yield served, issuer
    finally:
        issuer.jwks_mode = "ok"
        issuer.introspect_mode = "ok"
        issuer.extra_keys.clear()
        served.proc.terminate()
        served.proc.wait(10)


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_tokens_at_start_wait_for_the_first_jwks_fetch(fresh: tuple[Served, Issuer]) -> None:
    served, issuer = fresh
    issuer.jwks_mode = "slow"  # the JWKS takes 3 s (the fetch bound is 5 s)
    before = len(issuer.jwks_fetches)
    tokens = [issuer.token(sub=f"user-{n}") for n in range(20)]
    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(lambda t: _status(served, t), tokens))
    assert statuses == [200] * 20  # none refused while the keys were on their way
    assert len(issuer.jwks_fetches) - before == 1  # one fetch for all


def test_a_rotated_key_is_waited_for_too(fresh: tuple[Served, Issuer]) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    served, issuer = fresh
    assert _status(served, issuer.token()) == 200
    time.sleep(1.1)  # past jwks_min_refresh
    issuer.extra_keys["k2"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issuer.jwks_mode = "slow"
    before = len(issuer.jwks_fetches)
    rotated = [issuer.token(key=issuer.extra_keys["k2"], headers={"kid": "k2"})] * 10
    with ThreadPoolExecutor(10) as pool:
        statuses = list(pool.map(lambda t: _status(served, t), rotated))
    assert statuses == [200] * 10 and len(issuer.jwks_fetches) - before == 1


def test_a_key_no_library_can_read_is_skipped(fresh: tuple[Served, Issuer]) -> None:
    served, issuer = fresh
    issuer.jwks_mode = "bad-key"  # {"kid": "broken", "n": "!!", "e": 1} before the good key
    assert _status(served, issuer.token()) == 200
    assert "JWKS key 0 (kid 'broken') skipped: InvalidKeyError" in served.stderr()


def test_a_deeply_nested_jwks_keeps_the_known_keys(fresh: tuple[Served, Issuer]) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    served, issuer = fresh
    assert _status(served, issuer.token()) == 200
    time.sleep(1.1)  # past jwks_min_refresh
    issuer.jwks_mode = "deep"
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert _status(served, issuer.token(key=other, headers={"kid": "k9"})) == 401
    assert _status(served, issuer.token()) == 200  # the key already known still verifies
    log = served.stderr()
    assert "JWKS fetch failed (the JWKS is not JSON of at most 32 levels)" in log
    assert "Traceback" not in log and "RecursionError" not in log


def test_no_key_known_and_the_issuer_down_is_503(fresh: tuple[Served, Issuer]) -> None:
    served, issuer = fresh
    issuer.jwks_mode = "deep"
    headers = {
        "Authorization": f"Bearer {issuer.token()}",
        "Accept": "application/json, text/event-stream",
    }
    answer = httpx.post(served.url, json=INITIALIZE, headers=headers, timeout=30)
    assert answer.status_code == 503 and answer.headers["retry-after"] == "5"
    assert answer.json()["error"] == "temporarily_unavailable"
    assert "no signing key could be read from the issuer's JWKS" in served.stderr()


def test_a_300_mb_introspection_answer_is_never_read(fresh: tuple[Served, Issuer]) -> None:
    served, issuer = fresh
    issuer.introspect_mode = "huge"
    assert _status(served, issuer.token()) == 200  # the server is up and warm
    rss = _rss_kib(served.proc.pid)
    started = time.monotonic()
    assert _status(served, "opaque-huge-answer") == 503
    assert time.monotonic() - started < 10
    assert _rss_kib(served.proc.pid) - rss < 50 * 1024  # not 300 MB, let alone 3 GB
    assert issuer.streamed < 64 * 1024 * 1024  # it stopped reading at the cap
    assert "the introspection answer is larger than 65536 bytes" in served.stderr()


def test_a_deeply_nested_introspection_answer_is_503(fresh: tuple[Served, Issuer]) -> None:
    served, issuer = fresh
    issuer.introspect_mode = "deep"
    assert _status(served, "opaque-deep-answer") == 503
    log = served.stderr()
    assert "the introspection answer is not JSON of at most 32 levels" in log
    assert "Traceback" not in log and "RecursionError" not in log
