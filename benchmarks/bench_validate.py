"""Benchmark: load_catalog vs PyYAML's C loader alone on the same files, same run.

Run: ``python benchmarks/bench_validate.py [--tools 5000] [--files 50] [--repeat 5]
[--before PYTHON] [--spec PATH ...] [--corpus DIR]``.

Two cases, each printed as both timings (best of N) and their ratio:

1. a generated hand-written-style catalog: 5,000 tools in 50 files (budget at most 2x).
   First as the budget measures it, whole processes: ``toolcat validate DIR`` against a
   process that only ``yaml.load``s every file with the C loader, rounds interleaved,
   median CPU time (user + system) and wall time; ``--before PYTHON`` adds the same
   ``toolcat validate`` run by another installation's interpreter (an older checkout),
   in the same rounds. Then in one process: ``load_catalog`` against the parse alone;
2. a large generated catalog read back: ``toolcat import openapi SPEC -o big.yaml``
   (GitHub's spec by default: 1,223 tools, 10 MB of YAML with deep schemas), then
   ``load_catalog([big.yaml])``, which checks every schema as it would any YAML.
   Needs the spec corpus (``--corpus`` or ``$TOOLCAT_CORPUS`` or ../shared/corpus)
   or ``--spec``; left out with a message otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml
from toolcat.loader import load_catalog

_WORDS = (
    "order customer invoice shipment item stock price account refund note status "
    "region warehouse label address carrier payment discount coupon batch"
).split()
_TYPES = ("string", "integer", "boolean", "number")


def _param(rng: random.Random, name: str, method: str) -> list[str]:
    kind = rng.choice(_TYPES)
    lines = [f"      {name}:", f"        type: {kind}"]
    lines.append(f"        description: The {name.replace('_', ' ')} to use for this call.")
    if kind == "integer" and rng.random() < 0.5:
        lines += ["        minimum: 1", "        maximum: 500", "        default: 20"]
    elif kind == "string" and rng.random() < 0.3:
        lines.append("        enum: [open, closed, pending]")
    elif kind == "string" and rng.random() < 0.3:
        lines += ["        in: header", f"        name: X-{name.title().replace('_', '-')}"]
    if rng.random() < 0.3:
        lines.append("        required: false")
    return lines


def _tool(rng: random.Random, index: int) -> str:
    noun = rng.choice(_WORDS)
    method = rng.choice(("GET", "GET", "GET", "POST", "PUT", "DELETE"))
    name = f"{method.lower()}_{noun}_{index}"
    lines = [
        f"  - name: {name}",
        f"    description: {method.title()} a {noun} record ({index}) in the back office. "
        f"Use it when the user asks about a {noun}.",
        f"    service: svc{index % 5}",
        f"    method: {method}",
        f"    path: /{noun}s/{{{noun}_id}}",
    ]
    if method != "GET":
        lines.append("    confirm: true")
    lines += [
        "    tags: [generated, " + noun + "]",
        "    parameters:",
        f"      {noun}_id: {{type: string, description: The {noun} id.}}",
    ]
    params = [f"{rng.choice(_WORDS)}_{i}" for i in range(rng.randint(2, 5))]
    for p in params:
        lines += _param(rng, p, method)
    if method in ("POST", "PUT") and rng.random() < 0.5:
        lines.append("    body:")
        for p in params[:2]:
            lines.append(f'      {p}: "{{{{ {p} }}}}"')
        lines.append(f'      summary: "{{{{ {params[0]} }}}} for {noun}"')
    if rng.random() < 0.2:
        lines.append('    response: {select: "{{ body.data }}", max_chars: 4000}')
    return "\n".join(lines)


def generate(folder: Path, tools: int, files: int, seed: int = 7) -> list[Path]:
    """Write a realistic catalog of ``tools`` tools spread over ``files`` files."""
    rng = random.Random(seed)
    per = tools // files
    paths = []
    for f in range(files):
        parts = ["toolcat: 1"]
        if f == 0:
            parts.append("services:")
            for s in range(5):
                parts += [
                    f"  svc{s}:",
                    f"    base_url: ${{SVC{s}_URL:-http://127.0.0.1:80{s}0}}",
                    f'    auth: {{type: bearer, token: "${{SVC{s}_TOKEN}}"}}',
                    "    timeout: 10",
                ]
        parts.append("tools:")
        parts += [_tool(rng, f * per + i) for i in range(per)]
        path = folder / f"tools_{f:03d}.yaml"
        path.write_text("\n".join(parts) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _run(argv: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one process, in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def processes(folder: Path, paths: list[Path], rounds: int, before: str | None) -> None:
    """Case 1 as whole processes, every command once a round (a burst of load from other
    processes falls on all of them alike), medians printed with the ratio to the parse."""
    parse = (
        "import sys, yaml\n"
        "for p in sys.argv[1:]:\n"
        "    yaml.load(open(p).read(), Loader=yaml.CSafeLoader)"
    )
    todo = {"yaml.load(CSafeLoader) of every file": [sys.executable, "-c", parse, *map(str, paths)]}
    if before:
        todo["toolcat validate, --before"] = [before, "-m", "toolcat.cli", "validate", str(folder)]
    todo["toolcat validate"] = [sys.executable, "-m", "toolcat.cli", "validate", str(folder)]
    for argv in todo.values():
        _run(argv)  # once unmeasured: bytecode caches, the file cache
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in todo}
    for _ in range(rounds):
        for name, argv in todo.items():
            samples[name].append(_run(argv))
    print(f"case 1, whole processes: median of {rounds} interleaved rounds")
    base = 0.0
    for name, got in samples.items():
        cpu = statistics.median(c for _, c in got)
        wall = statistics.median(w for w, _ in got)
        base = base or cpu
        print(f"{name:40s} CPU {cpu:6.2f} s ({cpu / base:.2f}x)  wall {wall:6.2f} s")
    print()


def _big_catalogs(folder: Path, specs: list[Path]) -> list[tuple[str, Path]]:
    """``toolcat import openapi SPEC -o NAME.yaml`` for each spec, as a user would."""
    from toolcat.cli._app import main as toolcat_main

    out = []
    for spec in specs:
        target = folder / (spec.stem + ".yaml")
        report = io.StringIO()  # the per-operation report is not what is measured
        with contextlib.redirect_stdout(report), contextlib.redirect_stderr(report):
            code = toolcat_main(["import", "openapi", str(spec), "-o", str(target)])
        if code != 0 or not target.is_file():
            print(f"skipped {spec.name}: toolcat import openapi exited {code}")
            continue
        out.append((spec.name, target))
    return out


def _default_specs(corpus: Path | None) -> list[Path]:
    repo = Path(__file__).resolve().parent.parent
    folder = corpus or Path(os.environ.get("TOOLCAT_CORPUS", repo.parent / "shared" / "corpus"))
    spec = folder / "github-api.github.com.json"
    if not spec.is_file():
        print(
            f"case 2 skipped: no spec corpus at {folder} (set TOOLCAT_CORPUS, --corpus or --spec)"
        )
        return []
    return [spec]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=5000)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--before", metavar="PYTHON", help="another installation's interpreter, for case 1"
    )
    parser.add_argument(
        "--spec",
        type=Path,
        action="append",
        default=None,
        help="spec for case 2 (repeatable); default: GitHub's from the corpus",
    )
    parser.add_argument("--corpus", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "catalog"
        folder.mkdir()
        paths = generate(folder, args.tools, args.files)
        processes(folder, paths, args.repeat, args.before)

        def baseline() -> None:
            for p in paths:
                yaml.load(p.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)

        def toolcat() -> None:
            result = load_catalog([folder], progress=False)
            assert result.catalog is not None, result.diagnostics[:3]
            assert len(result.catalog) == args.tools

        toolcat()  # once for the imports, so both sides are measured warm
        base = _best(baseline, args.repeat)
        ours = _best(toolcat, args.repeat)
        print(f"case 1: {args.tools} tools in {args.files} files")
        print(f"yaml.load(CSafeLoader) alone: {base * 1000:8.1f} ms (best of {args.repeat})")
        print(f"toolcat load_catalog:         {ours * 1000:8.1f} ms (best of {args.repeat})")
        print(f"ratio: {ours / base:.2f}x (budget <= 2x)")

        specs = args.spec if args.spec else _default_specs(args.corpus)
        big_repeat = max(1, min(args.repeat, 3))
        for name, big in _big_catalogs(Path(tmp), specs):
            text_size = big.stat().st_size

            def big_baseline(big: Path = big) -> None:
                yaml.load(big.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)

            def big_toolcat(big: Path = big) -> int:
                result = load_catalog([big], progress=False)
                assert result.catalog is not None, [str(d) for d in result.errors[:3]]
                return len(result.catalog)

            count = big_toolcat()
            b = _best(big_baseline, big_repeat)
            o = _best(big_toolcat, big_repeat)
            print()
            print(
                f"case 2: toolcat import openapi {name} -o {big.name} "
                f"({count} tools, {text_size / 2**20:.1f} MiB of YAML), read back"
            )
            print(f"yaml.load(CSafeLoader) alone: {b * 1000:8.1f} ms (best of {big_repeat})")
            print(f"toolcat load_catalog:         {o * 1000:8.1f} ms (best of {big_repeat})")
            print(f"ratio: {o / b:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
