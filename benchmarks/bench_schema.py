"""The fast schema path against jsonschema (and jsonschema-rs, if installed) on real tool schemas.

    python benchmarks/bench_schema.py [--corpus DIR] [--repeat 5]

Every tool of the corpus specs (GitHub, Stripe, Kubernetes, httpbin, Train Travel)
gets three argument sets: one generated valid, one without its first required
argument, one with an unknown key. Reported, all in the same run: how many schemas
the fast path judges, verdicts that differ from jsonschema's, compile time per tool,
and CPU per check on valid arguments as a ratio to ``jsonschema.is_valid`` (which runs
inside ``linear_regex()``, as the executor runs it: patterns on RE2).

Then the schema regexes (issue 10): ``Executor.prepare`` (parse, validate, render; no
network) on a tool whose pattern backtracks exponentially on Python's ``re``, as a
ratio to the same call with an ordinary pattern, for arguments up to 100,000 characters
and through ``patternProperties``; and Python's ``re`` on the same pattern for contrast.

    python benchmarks/bench_schema.py --patterns-only     # the regex figures alone
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
from toolcat.catalog import compile_check, linear_regex, thaw
from toolcat.executor._arguments import _ASSERTED, FORMAT_CHECKER
from toolcat.loader import load_catalog

SPECS = (
    "github-api.github.com.json",
    "stripe-spec3.json",
    "kubernetes-swagger2.json",
    "httpbin-swagger2.json",
    "train-travel-openapi3.1.yaml",
)
SAMPLE_STRINGS = {"date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "email": "a@b.co"}


def sample(schema: Any, depth: int = 0) -> Any:
    """A simple value for ``schema`` (valid for most; jsonschema has the last word)."""
    if not isinstance(schema, dict) or depth > 6:
        return None
    for key in ("const", "default"):
        if key in schema:
            return thaw(schema[key])
    if schema.get("enum"):
        return thaw(schema["enum"][0])
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return sample(schema[key][0], depth + 1)
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        names = [*(schema.get("required") or []), *list(props)[:3]]
        return {n: sample(props.get(n, {}), depth + 1) for n in names}
    if kind == "array":
        return [sample(schema.get("items", {}), depth + 1)]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "string":
        return SAMPLE_STRINGS.get(
            schema.get("format", ""), "x" * max(1, schema.get("minLength", 1))
        )
    return None


def _cpu(fn: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--patterns-only", action="store_true", help="only the regex figures")
    args = parser.parse_args(argv)
    if args.patterns_only:
        return patterns()
    repo = Path(__file__).resolve().parent.parent
    corpus = args.corpus or Path(
        os.environ.get("TOOLCAT_CORPUS", repo.parent / "shared" / "corpus")
    )
    schemas = []
    for name in SPECS:
        if (corpus / name).is_file():
            catalog = load_catalog([corpus / name], progress=False).catalog
            schemas += [thaw(t.input_schema) for t in catalog or ()]
    if not schemas:
        print(f"skipped: no spec corpus at {corpus} (set TOOLCAT_CORPUS or --corpus)")
        return 0
    cases: list[tuple[int, Any]] = []
    for i, schema in enumerate(schemas):
        good = sample(schema)
        good = good if isinstance(good, dict) else {}
        cases += [(i, good), (i, {"zz_unknown": [1]})]
        if schema.get("required"):
            cases.append((i, {k: v for k, v in good.items() if k != schema["required"][0]}))

    def build(make: Any) -> tuple[list[Any], float]:
        start = time.process_time()
        out = [make(s) for s in schemas]
        return out, (time.process_time() - start) / len(schemas)

    ref, _ = build(lambda s: jsonschema.Draft202012Validator(s, format_checker=FORMAT_CHECKER))
    contenders = {"fast path": build(lambda s: compile_check(s, formats=_ASSERTED))}
    try:
        import jsonschema_rs

        contenders["jsonschema-rs"] = build(
            lambda s: jsonschema_rs.Draft202012Validator(s, validate_formats=True).is_valid
        )
    except ImportError:
        print("jsonschema-rs: not installed (pip install jsonschema-rs to compare)")
    with linear_regex():
        verdicts = [ref[i].is_valid(v) for i, v in cases]
    judged = [i for i, _ in enumerate(schemas) if contenders["fast path"][0][i] is not None]
    valid = [(i, v) for (i, v), ok in zip(cases, verdicts, strict=True) if ok and i in set(judged)]
    with linear_regex():
        base = _cpu(lambda: [ref[i].is_valid(v) for i, v in valid], args.repeat) / len(valid)
    print(f"{len(schemas)} tool schemas, {len(cases)} argument sets ({sum(verdicts)} valid)")
    print(f"the fast path judges {len(judged)}/{len(schemas)} schemas")
    print(f"jsonschema.is_valid on {len(valid)} valid sets: {base * 1e6:.2f} us per check")
    for name, (checks, compile_s) in contenders.items():
        differ = sum(
            checks[i] is not None and checks[i](v) != ok
            for (i, v), ok in zip(cases, verdicts, strict=True)
        )
        per = _cpu(lambda c=checks: [c[i](v) for i, v in valid], args.repeat) / len(valid)
        print(
            f"{name:14s} compile {compile_s * 1e6:6.0f} us/tool, {per * 1e6:5.2f} us per check "
            f"(ratio {per / base:.3f}), verdicts differing from jsonschema: {differ}"
        )
    return patterns()


def patterns() -> int:
    """Catastrophic patterns through the executor, as a ratio to an ordinary call."""
    import re

    from toolcat.catalog import (
        Catalog,
        HttpCommand,
        ParameterBinding,
        ParamLocation,
        Service,
        ToolDefinition,
        freeze,
    )
    from toolcat.executor import Executor, ExecutorSettings, ToolCall

    def tool(name: str, prop: dict[str, Any]) -> ToolDefinition:
        schema = {"type": "object", "properties": {"v": prop}, "additionalProperties": False}
        binding = ParameterBinding("v", ParamLocation.QUERY, "v", False)
        command = HttpCommand("svc", "GET", "/x", (binding,))
        return ToolDefinition(name, name, freeze(schema), command)

    evil_props = {"type": "object", "patternProperties": {"^(a|aa)+$": {}}}
    tools = [
        tool("ordinary", {"type": "string", "pattern": "^[A-Z0-9-]+$"}),
        tool("evil", {"type": "string", "pattern": "^(a+)+$"}),
        tool("evil_props", {**evil_props, "additionalProperties": False}),
    ]
    executor = Executor(
        Catalog(tools, [Service("svc", "http://127.0.0.1:9")]), ExecutorSettings(env={})
    )

    def per_call(name: str, value: Any, n: int = 200) -> float:
        call = ToolCall(name, {"v": value})
        executor.prepare(call)
        start = time.perf_counter()
        for _ in range(n):
            executor.prepare(call)
        return (time.perf_counter() - start) / n

    base = min(per_call("ordinary", "W-BLUE-01") for _ in range(5))
    print(f"\nExecutor.prepare, ordinary pattern: {base * 1e6:.1f} us per call")
    print(f"{'case':<50} {'us/call':>9} {'x ordinary':>11}")
    rows: list[tuple[str, str, Any]] = []
    for n in (27, 40, 1_000, 100_000):
        rows.append((f"^(a+)+$, {n:,} a then '!' (invalid)", "evil", "a" * n + "!"))
    rows.append(("^(a+)+$, 1,000 a (valid)", "evil", "a" * 1_000))
    rows.append(
        ("patternProperties ^(a|aa)+$, 40 a then '!' key", "evil_props", {"a" * 40 + "!": 1})
    )
    for label, name, value in rows:
        took = min(per_call(name, value, 20) for _ in range(3))
        print(f"{label:<50} {took * 1e6:>9.1f} {took / base:>11.1f}")
    print("Python's re.search('^(a+)+$', 'a' * n + '!'), for contrast:")
    for n in (16, 18, 20, 22):
        start = time.perf_counter()
        re.search("^(a+)+$", "a" * n + "!")
        took = time.perf_counter() - start
        guess = took * 2 ** (27 - n)
        print(f"  n={n}: {took * 1e3:9.1f} ms (doubles per 'a': n=27 is about {guess:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
