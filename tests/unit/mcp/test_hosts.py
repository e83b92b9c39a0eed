"""HostPolicy as a table: which Host and Origin values `toolcat serve` answers to."""

from __future__ import annotations

import pytest
from toolcat.executor.mcp_server import HostPolicy

PORT = 8000

LOOPBACK = HostPolicy.for_bind("127.0.0.1")
WILDCARD = HostPolicy.for_bind("0.0.0.0")
V6 = HostPolicy.for_bind("::1")
DEPLOYED = HostPolicy.for_bind(
    "0.0.0.0",
    allowed_hosts=["api.example.com", "mcp.internal:9443", "[fd00::5]:8000"],
    allowed_origins=["https://app.example.com"],
)
OPEN = HostPolicy.for_bind("127.0.0.1", allowed_hosts=["*"], allowed_origins=["*"])


@pytest.mark.parametrize(
    ("policy", "host", "allowed"),
    [
        (LOOPBACK, "127.0.0.1:8000", True),
        (LOOPBACK, "localhost:8000", True),
        (LOOPBACK, "LOCALHOST:8000", True),
        (LOOPBACK, "localhost.:8000", True),
        (LOOPBACK, "[::1]:8000", True),
        (LOOPBACK, "127.0.0.1:8001", False),
        (LOOPBACK, "127.0.0.1", False),  # port 80
        (LOOPBACK, "evil.example:8000", False),
        (LOOPBACK, "127.0.0.1:8000@evil.example", False),
        (LOOPBACK, "127.0.0.1:+8000", False),
        (LOOPBACK, "", False),
        (LOOPBACK, None, False),
        (WILDCARD, "localhost:8000", True),
        (WILDCARD, "0.0.0.0:8000", False),
        (WILDCARD, "192.168.1.9:8000", False),
        (V6, "[::1]:8000", True),
        (V6, "[0:0:0:0:0:0:0:1]:8000", True),
        (V6, "[::2]:8000", False),
        (V6, "[::1:8000", False),
        (DEPLOYED, "api.example.com", True),
        (DEPLOYED, "api.example.com:443", True),
        (DEPLOYED, "mcp.internal:9443", True),
        (DEPLOYED, "mcp.internal", False),
        (DEPLOYED, "[fd00::5]:8000", True),
        (DEPLOYED, "[fd00::5]:8001", False),
        (DEPLOYED, "api.example.com.evil.example", False),
        (OPEN, "anything.example:1", True),
    ],
)
def test_host(policy: HostPolicy, host: str | None, allowed: bool) -> None:
    assert policy.host_allowed(host, bound_port=PORT, scheme="http") is allowed


@pytest.mark.parametrize(
    ("policy", "origin", "allowed"),
    [
        (LOOPBACK, None, True),  # not a browser
        (LOOPBACK, "http://localhost:8000", True),
        (LOOPBACK, "http://127.0.0.1:8000", True),
        (LOOPBACK, "http://127.0.0.1:8001", False),
        (LOOPBACK, "http://evil.example", False),
        (LOOPBACK, "null", False),
        (LOOPBACK, "", False),
        (LOOPBACK, "file://", False),
        (DEPLOYED, "https://app.example.com", True),
        (DEPLOYED, "https://app.example.com:443", True),
        (DEPLOYED, "http://app.example.com", False),
        (DEPLOYED, "https://api.example.com", True),  # an allowed host's own origin
        (DEPLOYED, "https://evil.example", False),
        (OPEN, "https://evil.example", True),
    ],
)
def test_origin(policy: HostPolicy, origin: str | None, allowed: bool) -> None:
    assert policy.origin_allowed(origin, bound_port=PORT) is allowed


@pytest.mark.parametrize(
    ("hosts", "origins", "words"),
    [
        (["api example.com"], [], "not a host name or address"),
        (["api.example.com:0"], [], "the port must be 1-65535"),
        (["api.example.com:http"], [], "the port must be 1-65535"),
        (["[::1"], [], "closed with ']'"),
        (["[nope]:80"], [], "not an IPv6 address"),
        ([], ["app.example.com"], "not an origin"),
        ([], ["https://app.example.com/"], "not an origin"),
        ([], ["https://user@app.example.com"], "not an origin"),
    ],
)
def test_bad_option_values_are_one_line(hosts: list[str], origins: list[str], words: str) -> None:
    with pytest.raises(ValueError, match=words) as caught:
        HostPolicy.for_bind("127.0.0.1", allowed_hosts=hosts, allowed_origins=origins)
    assert "\n" not in str(caught.value)


def test_describe_names_the_defaults() -> None:
    assert WILDCARD.describe() == "localhost:PORT, 127.0.0.1:PORT, [::1]:PORT"
    assert DEPLOYED.describe().endswith("api.example.com, mcp.internal:9443, [fd00::5]:8000")
