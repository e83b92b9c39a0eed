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
    p.add_argument(
        "--sample-service",
        action="store_true",
        help="only run the sample service on 127.0.0.1:--port until interrupted, to "
        "try 'toolcat call', 'serve' and 'chat' against examples/demo",
    )
    p.add_argument(
        "--port",
        type=int,
        default=8765,
        help="port of --sample-service (default 8765, the catalog's default)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ._demo import DemoError, run_demo, run_sample_service

    if args.sample_service:
        try:
            return run_sample_service(args.port, lambda line: print(line, flush=True))
        except OSError as exc:
            reason = exc.strerror or exc
            raise CliError(f"cannot listen on 127.0.0.1:{args.port}: {reason}") from exc
    try:
        return run_demo(lambda line: print(line, flush=True))
    except DemoError as exc:
        raise CliError(str(exc), 1) from exc
