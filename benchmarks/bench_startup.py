"""Start-up of toolcat's commands and imports, as ratios to baselines measured in the same run.

Usage: python benchmarks/bench_startup.py [--runs N] [--before PYTHON] [--write]

Measures, as median wall and CPU time of whole processes:

- ``python -c pass``, the baseline of the import and ``toolcat list`` rows;
- cold ``import toolcat.executor`` and ``from toolcat.executor import Executor``;
- ``toolcat list`` on the demo catalog (budget: at most 0.5 s) and on a generated
  10-tool catalog;
- ``toolcat schema`` of Stripe's and GitHub's specs, each against a process that only
  ``json.load``s it (budget: within 6x and 5x), when the corpus is there
  (``$TOOLCAT_CORPUS`` or ../shared/corpus).

``--before PYTHON`` runs the same commands with another installation's interpreter
(for example a virtualenv holding an older checkout, made with
``git worktree add /tmp/old <ref> && python3 -m venv /tmp/old/.venv &&
/tmp/old/.venv/bin/pip install -e /tmp/old``), in the same run, so before and after
are measured against the same baseline. ``--write`` writes benchmarks/results/startup.md.

The runs are interleaved: each round runs every command once (baselines, before and
after), so a burst of load from other processes on a shared machine falls on all of
them alike instead of on whichever block of runs it met (measured one block after the
other, the Stripe ``schema`` row of the same two installations read 3.8x/5.7x in one
run and 6.4x/4.7x in the next).

Start-up is measured as an installed package runs: with bytecode caches. The
commands run without ``PYTHONDONTWRITEBYTECODE`` (some development shells set it;
then every toolcat module is compiled from source on every run, about 100 ms of
each ``toolcat list``), and each command runs once before it is measured, which
writes the caches.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def make_catalog(folder: Path, tools: int = 10) -> Path:
    lines = ["toolcat: 1", "services:", "  s: {base_url: 'https://api.example'}", "tools:"]
    for i in range(tools):
        lines += [
            f"  - name: tool_{i}",
            f"    description: Tool number {i}.",
            "    service: s",
            "    method: GET",
            f"    path: /things/{i}/{{id}}",
            "    parameters:",
            "      id: {type: string, description: The id}",
            "      q: {type: string, required: false, description: A query}",
        ]
    path = folder / "catalog.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``argv``, in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def interleaved(
    todo: dict[tuple[str, str], tuple[list[str], int]], env: dict[str, str]
) -> dict[tuple[str, str], tuple[float, float]]:
    """Median wall and CPU time per command, ``todo`` mapping a key to (argv, runs):
    round after round, each command that still needs runs runs once."""
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {key: [] for key in todo}
    for round_ in range(max((runs for _, runs in todo.values()), default=0)):
        for key, (argv, runs) in todo.items():
            if round_ < runs:
                samples[key].append(run_once(argv, env))
    return {
        key: (statistics.median(w for w, _ in got), statistics.median(c for _, c in got))
        for key, got in samples.items()
    }


def measure(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of ``runs`` runs, in seconds.

    CPU time is reported too because wall time on a busy machine mostly measures
    the other processes.
    """
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
        )
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def slowest_imports(argv: list[str], env: dict[str, str], top: int = 8) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) of the top-level imports that cost the most."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], env=env, capture_output=True, text=True
    )
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        if cumulative.strip().isdigit() and name.startswith(" ") and not name.startswith("  "):
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def heavy_inside(argv: list[str], env: dict[str, str], top: int = 6) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) of the costliest imports below toolcat.loader."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], env=env, capture_output=True, text=True
    )
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _, cumulative, name = line[len("import time:") :].split("|")
            module = name.strip()
            if cumulative.strip().isdigit() and module.startswith("toolcat.loader."):
                if module.count(".") == 2 or module.split(".")[2] != "openapi":
                    rows.append((int(cumulative), module))
            elif cumulative.strip().isdigit() and module in (
                "pydantic",
                "jsonschema",
                "yaml",
                "jinja2",
            ):
                rows.append((int(cumulative), module))
    return sorted(rows, reverse=True)[:top]


REPO = Path(__file__).resolve().parents[1]
LIST_BUDGET = 0.5  # toolcat list on the demo catalog, seconds of wall time
# toolcat schema of a spec, in units of a process that only json.loads it
SCHEMA_BUDGETS = {
    "Stripe": ("stripe-spec3.json", 6.0),
    "GitHub": ("github-api.github.com.json", 5.0),
}


def corpus() -> Path | None:
    for candidate in (os.environ.get("TOOLCAT_CORPUS"), REPO.parent / "shared" / "corpus"):
        if candidate and (Path(candidate) / "stripe-spec3.json").is_file():
            return Path(candidate)
    return None


def demo_of(python: str) -> Path:
    """The demo catalog of the installation ``python`` runs: each lists its own (an older
    tree does not read the keys a newer demo uses)."""
    where = subprocess.run(
        [python, "-c", "import pathlib, toolcat; print(pathlib.Path(toolcat.__file__).parent)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(where) / "examples" / "demo"


def cases(python: str, catalog: Path, specs: dict[str, Path]) -> dict[str, list[str]]:
    """The commands measured for one installation (``python`` is its interpreter)."""
    cli = [python, "-m", "toolcat.cli"]
    out = {
        "import toolcat.executor": [python, "-c", "import toolcat.executor"],
        "from toolcat.executor import Executor": [
            python,
            "-c",
            "from toolcat.executor import Executor",
        ],
        "toolcat list (demo catalog)": [*cli, "list", str(demo_of(python))],
        "toolcat list (10 tools)": [*cli, "list", str(catalog)],
    }
    for name, spec in specs.items():
        out[f"toolcat schema ({name}'s spec)"] = [*cli, "schema", str(spec), "--provider", "openai"]
    return out


def main() -> int:  # noqa: PLR0915  the benchmark's one run: options, each command timed, report, in print order
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="PYTHON", help="another installation to compare")
    parser.add_argument("--write", action="store_true", help="write benchmarks/results/startup.md")
    args = parser.parse_args()
    env = {**os.environ, "CI": "true"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure with bytecode caches, as installed
    found = corpus()
    specs = {n: found / f for n, (f, _) in SCHEMA_BUDGETS.items()} if found else {}
    installs = {"after": sys.executable}
    if args.before:
        installs = {"before": args.before, "after": sys.executable}
    results: dict[str, dict[str, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        catalog = make_catalog(Path(tmp))
        base_cases = {"python -c pass": [sys.executable, "-c", "pass"]}
        for name, spec in specs.items():
            read = f"import json; json.load(open({str(spec)!r}, 'rb'))"
            base_cases[f"json.load of {name}'s spec"] = [sys.executable, "-c", read]
        measure(base_cases["python -c pass"], 2, env)  # warm the file cache
        todo: dict[tuple[str, str], tuple[list[str], int]] = {
            ("baseline", n): (a, args.runs) for n, a in base_cases.items()
        }
        for label, python in installs.items():
            for n, a in cases(python, catalog, specs).items():
                measure(a, 1, env)  # warm the file cache and write the bytecode caches
                todo[(label, n)] = (a, max(3, args.runs // 3) if "schema" in n else args.runs)
        for (label, n), value in interleaved(todo, env).items():
            results.setdefault(label, {})[n] = value
        imports = slowest_imports(["-m", "toolcat.cli", "list", str(catalog)], env)
        loader_parts = heavy_inside(["-m", "toolcat.cli", "list", str(catalog)], env)
    passed = results["baseline"]["python -c pass"]

    def loaded_for(name: str) -> tuple[float, float] | None:
        """The json.load baseline of the spec a ``schema`` row reads."""
        spec = name.removeprefix("toolcat schema (").removesuffix(")")
        return results["baseline"].get(f"json.load of {spec}")

    def ratio(name: str, value: tuple[float, float]) -> str:
        base = loaded_for(name) or passed
        return f"{value[1] / base[1]:.1f}x ({value[0] / base[0]:.1f}x)"

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"Median of {args.runs} runs (3 or more for `schema`), interleaved; Python "
        f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, load "
        f"average {load:.1f} at the end. Ratios are CPU time (wall time in brackets) to "
        "`python -c pass`, and for `toolcat schema` to a process that only `json.load`s "
        "the spec, both measured in this run. Bytecode caches on (as installed).",
        "",
        "| baseline | median wall | median CPU |",
        "|---|---|---|",
        *[
            f"| {n} | {w * 1000:.0f} ms | {c * 1000:.0f} ms |"
            for n, (w, c) in results["baseline"].items()
        ],
        "",
        "| command | " + " | ".join(installs) + " |",
        "|---|" + "---|" * len(installs),
    ]
    for name in results["after"]:
        cells = []
        for label in installs:
            value = results[label][name]
            cells.append(f"{value[1] * 1000:.0f} ms CPU, {ratio(name, value)}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    demo = results["after"]["toolcat list (demo catalog)"]
    lines += [
        "",
        f"Budget: `toolcat list` on the demo catalog at most {LIST_BUDGET} s: "
        f"{demo[0]:.2f} s wall ({demo[1]:.2f} s CPU), "
        f"{'met' if demo[0] <= LIST_BUDGET else 'not met'}.",
    ]
    for name, (_, budget) in SCHEMA_BUDGETS.items():
        row = f"toolcat schema ({name}'s spec)"
        base = loaded_for(row)
        if base is not None and row in results["after"]:
            got = results["after"][row][1] / base[1]
            lines.append(
                f"`toolcat schema` of {name}'s spec within {budget:.0f}x a `json.load` "
                f"process: {got:.1f}x CPU, {'met' if got <= budget else 'not met'}."
            )
    lines += [
        "",
        "Slowest top-level imports of one `toolcat list` run (`python -X importtime`, cumulative):",
        "",
        *[f"- `{name}`: {micro / 1000:.0f} ms" for micro, name in imports],
        "",
        "Inside `toolcat.loader` (cumulative):",
        "",
        *[f"- `{name}`: {micro / 1000:.0f} ms" for micro, name in loader_parts],
    ]
    report = "\n".join(lines)
    print(report)
    if args.write:
        out = Path(__file__).resolve().parent / "results" / "startup.md"
        out.parent.mkdir(exist_ok=True)
        out.write_text(f"# Start-up\n\n{report}\n", encoding="utf-8")
        print(f"\nwritten to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
