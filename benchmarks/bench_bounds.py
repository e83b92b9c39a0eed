"""Peak memory of hostile responses, as a ratio to an ordinary call in the same run.

A loopback server answers one tool with: an ordinary small JSON body (the baseline),
a stacked ``gzip, gzip`` bomb, and a single-layer gzip bomb, each ``--size`` MB of
zeros once decoded. Each call runs through ``Executor.execute`` under tracemalloc;
the table gives peak Python memory and wall time, and the peak as a ratio to the
ordinary call's. ``--httpx`` adds the same bodies read with httpx's own decoders
and the same 10 MB cap (what the executor did before it decoded by itself).

``--yaml`` measures loading instead: a 1 KB catalog whose aliases share one
long string nine ways, six levels deep (about 480 M characters once expanded),
loaded and exported as JSON tool schemas, next to an ordinary catalog.

    python benchmarks/bench_bounds.py            # [--size 256] [--httpx] [--yaml]
"""

from __future__ import annotations

import argparse
import gzip
import json
import socket
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import httpx
from toolcat.catalog import HttpCommand
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.loader import load, load_catalog
from toolcat.tests.support import RawServer, zeros_gzip

_CAP = 10_000_000


class Server(RawServer):
    """Answers every request with the current ``(body, encoding)``."""

    def __init__(self) -> None:
        self.body, self.encoding = b"{}", "identity"
        super().__init__(self._answer)

    def _answer(self, conn: socket.socket) -> None:
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"Content-Encoding: {self.encoding}\r\nContent-Length: {len(self.body)}\r\n"
            "Connection: close\r\n\r\n"
        ).encode()
        conn.sendall(head + self.body)


def measure(run: Callable[[], str]) -> tuple[int, float, str]:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        outcome = run()
        return tracemalloc.get_traced_memory()[1], time.perf_counter() - start, outcome
    finally:
        tracemalloc.stop()


def httpx_read(url: str) -> str:
    """The old way: httpx decodes each chunk through every layer, the cap counts after."""
    body = bytearray()
    with httpx.Client() as client, client.stream("GET", url + "/x") as response:
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > _CAP:
                return "response_too_large"
    return "ok"


ORDINARY_CATALOG = (
    "toolcat: 1\nservices:\n  up:\n    base_url: http://127.0.0.1:9\n"
    "tools:\n  - name: send\n    description: Send.\n    service: up\n"
    "    method: POST\n    path: /x\n    confirm: true\n    body: {text: hello}\n"
)


def alias_fanout_catalog(levels: int = 6, fan: int = 9, width: int = 900) -> str:
    """About 1 KB of YAML: one ``width``-character string shared ``fan**levels`` times.

    The anchors sit in the tool's JSON ``body``, so the catalog is valid but
    for its size.
    """
    body = [f'      x0: &a0 "{"x" * width}"']
    for i in range(1, levels + 1):
        body.append(f"      x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fan) + "]")
    return ORDINARY_CATALOG.replace(
        "    body: {text: hello}\n", "    body:\n" + "\n".join(body) + "\n"
    )


def load_and_export(path: Path) -> str:
    """Load a catalog and write its tools as the JSON a model would be sent."""
    result = load_catalog([path], progress=False)
    if result.catalog is None:
        return result.diagnostics[0].code
    text = json.dumps(
        [t.input_schema for t in result.catalog]
        + [
            c.body.template
            for c in (t.command for t in result.catalog)
            if isinstance(c, HttpCommand) and c.body is not None
        ],
        default=str,
    )
    return f"ok, {len(text):,} chars"


def yaml_rows() -> list[tuple[str, int, float, str]]:
    rows: list[tuple[str, int, float, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (
            ("ordinary catalog", ORDINARY_CATALOG),
            ("alias fan-out", alias_fanout_catalog()),
        ):
            path = Path(tmp) / "catalog.yaml"
            path.write_text(text)
            load_and_export(path)  # warm: imports and caches

            def run(p: Path = path) -> str:
                return load_and_export(p)

            rows.append((f"{name} ({len(text.encode()):,} B)", *measure(run)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="MB of zeros once decoded")
    parser.add_argument("--httpx", action="store_true", help="also read with httpx's decoders")
    parser.add_argument("--yaml", action="store_true", help="loading an alias fan-out instead")
    args = parser.parse_args()
    if args.yaml:
        loads = yaml_rows()
        print("peak = tracemalloc peak of load_catalog plus a JSON export of the tools")
        print(f"{'case':<40} {'result':<28} {'peak MB':>9} {'x ordinary':>11} {'time s':>8}")
        base = loads[0][1]
        for name, peak, took, outcome in loads:
            print(f"{name:<40} {outcome:<28} {peak / 1e6:>9.2f} {peak / base:>11.0f} {took:>8.3f}")
        return

    size = args.size << 20
    single = zeros_gzip(size)
    cases = {
        "ordinary JSON call": (b'{"items": [1, 2, 3], "name": "ordinary"}', "identity"),
        f"gzip, gzip ({len(gzip.compress(single)):,} B on the wire)": (
            gzip.compress(single),
            "gzip, gzip",
        ),
        f"gzip ({len(single):,} B on the wire)": (single, "gzip"),
    }
    server = Server()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "catalog.yaml"
        path.write_text(
            f"toolcat: 1\nservices:\n  up:\n    base_url: {server.url}\n    timeout: 60\n"
            "tools:\n  - name: fetch\n    description: Fetch.\n    service: up\n"
            "    method: GET\n    path: /x\n"
        )
        catalog = load([path])
        rows: list[tuple[str, int, float, str]] = []
        with Executor(catalog, ExecutorSettings(env={})) as ex:
            ex.execute(ToolCall("fetch", {}))  # warm: the plan, the validator, the client

            def call() -> str:
                result = ex.execute(ToolCall("fetch", {}))
                return "ok" if result.error is None else result.error.type

            for name, (body, encoding) in cases.items():
                server.body, server.encoding = body, encoding
                rows.append((f"toolcat: {name}", *measure(call)))
            if args.httpx:
                for name, (body, encoding) in cases.items():
                    server.body, server.encoding = body, encoding
                    rows.append(
                        (f"httpx decoders: {name}", *measure(lambda: httpx_read(server.url)))
                    )

    base = rows[0][1]
    print(f"decoded size {args.size} MB, cap {_CAP:,} bytes; peak = tracemalloc peak")
    print(f"{'case':<58} {'result':<20} {'peak MB':>9} {'x ordinary':>11} {'time s':>8}")
    for name, peak, took, outcome in rows:
        print(f"{name:<58} {outcome:<20} {peak / 1e6:>9.2f} {peak / base:>11.0f} {took:>8.3f}")


if __name__ == "__main__":
    main()
