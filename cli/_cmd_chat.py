"""`toolcat chat`: not built yet."""

from __future__ import annotations

import argparse
from typing import Any

from ._app import CliError


def register(sub: Any) -> None:
    p = sub.add_parser("chat", help="(not built yet)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise CliError("'toolcat chat' is not built yet")
