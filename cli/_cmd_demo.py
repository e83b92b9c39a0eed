"""`toolcat demo`: the bundled example end to end (coming soon)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="run the bundled example end to end, offline")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print("toolcat demo: coming soon — the end-to-end demo lands with the agent loop.")
    return 0
