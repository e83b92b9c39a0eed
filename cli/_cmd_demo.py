"""`toolcat demo`: the bundled example end to end, offline, with no keys."""

from __future__ import annotations

import argparse
from typing import Any

from ._app import CliError


def register(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="run the bundled example end to end, offline",
        description="Start the sample service and a scripted model endpoint on 127.0.0.1, load "
        "and validate examples/demo/, and run one conversation through the real loop and "
        "executor, printing every step. Needs no network and no keys.",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolcat.executor._demo import DemoError, run_demo

    try:
        return run_demo(lambda line: print(line, flush=True))
    except DemoError as exc:
        raise CliError(str(exc), 1) from exc
