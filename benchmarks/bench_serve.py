"""Benchmark: `toolcat serve` time to answer `initialize`, against `toolcat validate`, same run.

Run: ``python benchmarks/bench_serve.py [--runs 3] [--corpus DIR] [--catalog FILE] [--no-reload]``.

The catalog is the one ``toolcat import openapi`` writes from GitHub's spec
(1,223 tools, 2.2 MB of YAML), made once in a temporary folder (or
``--catalog FILE``). Each run starts a fresh process, so no cache helps:

- baseline: ``toolcat validate CATALOG``, from the start of the process to its exit;
- ``toolcat serve CATALOG`` (stdio): from the start of the process to the
  ``initialize`` answer on stdout, sent as one JSON-RPC line as soon as the
  process starts (the server reads it once the catalog is loaded);
- ``--watch`` reload (unless ``--no-reload``): one line appended to the
  catalog, until ``notifications/tools/list_changed`` arrives (a reload loads
  the catalog once, plus at most one poll interval of 0.05 s).

Each figure is the median of ``--runs`` runs, as wall time; validate's and
serve's CPU time are given too (from ``/proc`` on Linux). The ratio is serve
over validate (budget: at most 3x); a reload should cost about one validate.
Needs the spec corpus (``--corpus`` or ``$TOOLCAT_CORPUS`` or ../shared/corpus)
unless ``--catalog`` names a catalog.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPEC = "github-api.github.com.json"
TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
TIMEOUT = 600.0

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench_serve", "version": "1"},
    },
}


def _line(message: dict[str, object]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def _cpu_of(pid: int) -> float | None:
    """User + system CPU seconds of a running process and of the children it has waited
    for (Linux), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class _Reader:
    """JSON-RPC lines from a child's stdout, with a deadline."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        self.proc = proc
        self.fd = proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.buffer = b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)

    def wait_for(self, key: str, value: object, timeout: float = TIMEOUT) -> dict[str, object]:
        """The first message whose ``key`` is ``value`` (an answer's id, a method)."""
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(raw)
                if message.get(key) == value:
                    return dict(message)
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise TimeoutError(f"no message with {key} {value!r} within {timeout:.0f} s")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise RuntimeError(f"the server exited ({self.proc.wait()}) before {value!r}")
            self.buffer += chunk


def run_validate(catalog: Path) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*TOOLCAT, "validate", str(catalog)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0,):
        raise RuntimeError(f"toolcat validate exited {proc.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime


def run_serve(catalog: Path, reload: bool) -> tuple[float, float | None, float | None]:
    """Seconds to the initialize answer, its CPU time, and seconds for one --watch reload."""
    args = [*TOOLCAT, "serve", str(catalog)]
    if reload:
        args += ["--watch", "--poll-interval", "0.05"]
    start = time.perf_counter()
    proc = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(_line(_INITIALIZE))
        proc.stdin.flush()
        reader = _Reader(proc)
        answer = reader.wait_for("id", 1)
        elapsed = time.perf_counter() - start
        cpu = _cpu_of(proc.pid)
        if "result" not in answer:
            raise RuntimeError(f"initialize failed: {answer}")
        reloaded = None
        if reload:
            proc.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            # a request after the handshake: the server now knows whom to notify
            proc.stdin.write(_line({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
            proc.stdin.flush()
            reader.wait_for("id", 2, 60.0)
            edit = time.perf_counter()
            with catalog.open("a") as f:
                f.write(f"# touched by bench_serve at {edit}\n")
            reader.wait_for("method", "notifications/tools/list_changed")
            reloaded = time.perf_counter() - edit
        return elapsed, cpu, reloaded
    finally:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _make_catalog(corpus: Path | None, folder: Path) -> Path | None:
    repo = Path(__file__).resolve().parent.parent
    where = corpus or Path(os.environ.get("TOOLCAT_CORPUS", repo.parent / "shared" / "corpus"))
    spec = where / SPEC
    if not spec.is_file():
        print(
            f"bench_serve skipped: no {SPEC} in the spec corpus at {where} "
            "(set TOOLCAT_CORPUS, --corpus DIR or --catalog FILE)"
        )
        return None
    catalog = folder / "github.yaml"
    subprocess.run(
        [*TOOLCAT, "import", "openapi", "-q", str(spec), "-o", str(catalog)],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    return catalog


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--catalog", type=Path, default=None, help="a catalog instead")
    parser.add_argument("--no-reload", action="store_true", help="skip the --watch reload")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.catalog is not None:
            catalog = folder / args.catalog.name  # a copy: the reload run appends to it
            catalog.write_bytes(args.catalog.read_bytes())
        else:
            made = _make_catalog(args.corpus, folder)
            if made is None:
                return 0
            catalog = made
        size = catalog.stat().st_size / 1e6
        print(f"catalog: {catalog.name}, {size:.1f} MB; median of {args.runs} runs (wall time)")
        validate, validate_cpu, serve, serve_cpu, reloads = [], [], [], [], []
        for _ in range(args.runs):
            wall, cpu = run_validate(catalog)
            validate.append(wall)
            validate_cpu.append(cpu)
            wall, scpu, reloaded = run_serve(catalog, not args.no_reload)
            serve.append(wall)
            if scpu is not None:
                serve_cpu.append(scpu)
            if reloaded is not None:
                reloads.append(reloaded)
        v, s = statistics.median(validate), statistics.median(serve)
        vcpu = statistics.median(validate_cpu)
        print(f"toolcat validate:             {v:6.2f} s (CPU {vcpu:.2f} s)")
        cpu_text = f" (CPU {statistics.median(serve_cpu):.2f} s)" if serve_cpu else ""
        print(f"toolcat serve -> initialize:  {s:6.2f} s{cpu_text}")
        print(f"ratio serve/validate:         {s / v:6.2f}x (budget: at most 3x)")
        if reloads:
            r = statistics.median(reloads)
            print(f"--watch reload -> list_changed: {r:6.2f} s ({r / v:.2f}x validate)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
