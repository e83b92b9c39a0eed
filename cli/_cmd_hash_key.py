"""`toolcat hash-key`: the stored form of an API key for ``server.auth.api_keys``.

The key is read from stdin (a pipe) or a prompt that does not echo, never from
the command line, where other users could read it in the process list.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from ._app import CliError

MIN_KEY_CHARS = 16
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")  # what a bearer token may be (RFC 6750)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "hash-key",
        help="print the hash of an API key, for server.auth.api_keys",
        description="Read an API key from stdin (or a prompt) and print the 'sha256:...' "
        "hash that server.auth.api_keys stores. Callers send the key as "
        "'Authorization: Bearer KEY'.",
    )
    p.add_argument(
        "--generate",
        action="store_true",
        help="make a new random key and print it with its hash (nothing is read)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolcat.executor.mcp_server import hash_api_key

    if args.generate:
        import secrets

        key = "tck_" + secrets.token_urlsafe(32)
        print(f"key:  {key}")
        print(f"hash: {hash_api_key(key)}")
        return 0
    key = _read_key()
    if len(key) < MIN_KEY_CHARS:
        raise CliError(
            f"the key has {len(key)} characters; use at least {MIN_KEY_CHARS} random ones "
            "(toolcat hash-key --generate makes one)"
        )
    if not _B64TOKEN.fullmatch(key):
        raise CliError(
            "the key has characters a bearer token cannot carry; use letters, digits and -._~+/"
        )
    print(hash_api_key(key))
    return 0


def _read_key() -> str:
    if sys.stdin is not None and not sys.stdin.isatty():
        line = sys.stdin.readline(4096)
        return line.rstrip("\r\n")
    import getpass

    try:
        return getpass.getpass("API key (not shown): ")
    except (EOFError, KeyboardInterrupt) as exc:
        raise CliError("no key given") from exc
