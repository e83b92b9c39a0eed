"""jsonschema-rs's verdicts (the argument check) against jsonschema's (the reference) on the corpus.

    python benchmarks/compare_validators.py [--corpus DIR] [--repeat 5] [--show 20]

Every spec of the corpus (``../shared/corpus`` or ``$TOOLCAT_CORPUS``: the large specs
and every file under ``oai/``) is imported; each tool's input schema gets a validator
as the executor builds it (``sealed_validator(schema, formats=True)``: jsonschema-rs,
linear-time regexes, no retrieval, the checked formats) and a reference,
``jsonschema.Draft202012Validator`` with its 2020-12 format checkers and OpenAPI's
integer formats. Instances per schema: the examples the spec gives (a tool's
``examples``), a generated valid value, and mutations of it (the first required
argument dropped, an unknown key, each of the first properties given a value of the
wrong type, a string property given a long or odd string, an integer past int64).

Reported: schemas each validator could not build, instances whose verdicts differ
(with the tool, the instance and both verdicts), and CPU per check on the instances
both accept (the argument check's cost per call), as a ratio to jsonschema's. The
figures of a run are in benchmarks/README.md; what the differences mean is in
docs/executor.md ("Validation").

Then the schema regexes: ``Executor.prepare`` (parse, validate, render; no network)
on a tool whose pattern backtracks exponentially on Python's ``re``, as a ratio to
the same call with an ordinary pattern, and Python's ``re`` on the same pattern.

    python benchmarks/compare_validators.py --patterns-only   # the regex figures alone
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
from toolcat.catalog.common import thaw
from toolcat.executor import ExecutorSettings
from toolcat.executor._arguments import INTEGER_FORMATS, sealed_validator
from toolcat.loader import load_catalog

SAMPLE_STRINGS = {"date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "email": "a@b.co"}
WRONG = {"string": 7, "integer": "7", "number": "7.5", "boolean": "yes", "array": {}, "object": []}
ODD_STRINGS = ("", "x" * 300, "a" * 30 + "!", "2024-13-45", "not a uri", "\u0663", "a\n")


def specs(corpus: Path) -> list[Path]:
    top = [p for p in sorted(corpus.iterdir()) if p.suffix in (".json", ".yaml", ".yml")]
    nested = [p for p in sorted((corpus / "oai").rglob("*")) if p.suffix in (".json", ".yaml")]
    return top + nested


def reference(schema: Any) -> Any:
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = dict(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
    for fmt, (low, high) in INTEGER_FORMATS.items():
        checker.checks(fmt)(
            lambda v, low=low, high=high: (
                isinstance(v, bool) or not isinstance(v, int | float) or low <= v <= high
            )
        )
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=checker)


def sample(schema: Any, depth: int = 0) -> Any:
    """A simple value for ``schema`` (valid for most; the reference has the last word)."""
    if not isinstance(schema, dict) or depth > 6:
        return None
    for key in ("const", "default"):
        if key in schema:
            return thaw(schema[key])
    if schema.get("enum"):
        return thaw(schema["enum"][0])
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema and schema[key]:
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


def instances(schema: dict[str, Any], examples: list[Any]) -> list[Any]:
    good = sample(schema)
    good = good if isinstance(good, dict) else {}
    out: list[Any] = [*examples, good, {**good, "zz_unknown": [1]}]
    required = schema.get("required") or []
    if required:
        out.append({k: v for k, v in good.items() if k != required[0]})
    for name, sub in list((schema.get("properties") or {}).items())[:6]:
        kind = sub.get("type") if isinstance(sub, dict) else None
        kind = kind[0] if isinstance(kind, list) and kind else kind
        if isinstance(kind, str) and kind in WRONG:
            out.append({**good, name: WRONG[kind]})
        if kind == "string":
            out += [{**good, name: text} for text in ODD_STRINGS]
        if kind == "integer":
            out += [{**good, name: 2**53}, {**good, name: -(2**31) - 1}, {**good, name: 1.5}]
    return out


def cpu(fn: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def differ_cases(
    cases: list[tuple[str, Any, Any, Any]], verdicts: list[tuple[bool, bool]]
) -> list[tuple[Any, Any, Any, bool]]:
    """(instance, ours, reference, our verdict) of each case whose verdicts differ."""
    return [
        (v, ours, ref, a)
        for (_, v, ours, ref), (a, b) in zip(cases, verdicts, strict=True)
        if a != b
    ]


def _blamed(case: tuple[Any, Any, Any, bool]) -> tuple[str, str]:
    """Which validator refuses the instance, and the keywords its errors name (a pattern
    read by another regex dialect, a format, ...)."""
    value, ours, ref, ours_valid = case
    if ours_valid:
        keywords = sorted({str(e.validator) for e in ref.iter_errors(value)})
        return "jsonschema", "+".join(keywords)
    keywords = sorted({type(e.kind).__name__.lower() for e in ours.iter_errors(value)})
    return "jsonschema-rs", "+".join(keywords)


def compare(corpus: Path, repeat: int, show: int) -> None:
    cases: list[tuple[str, Any, Any, Any]] = []  # (tool, instance, ours, reference)
    tools = 0
    ours_unbuilt: list[str] = []
    ref_unbuilt: list[str] = []
    for path in specs(corpus):
        catalog = load_catalog([path], progress=False).catalog
        for tool in catalog or ():
            tools += 1
            schema = thaw(tool.input_schema)
            label = f"{path.relative_to(corpus)}:{tool.name}"
            try:
                ours = sealed_validator(schema, formats=True)
            except (ValueError, LookupError) as exc:  # jsonschema_rs.ValidationError too
                ours_unbuilt.append(f"{label}: {str(exc).splitlines()[0][:120]}")
                continue
            try:
                ref = reference(schema)
                ref.is_valid({})
            except Exception as exc:  # an unresolvable $ref, a schema jsonschema refuses
                ref_unbuilt.append(f"{label}: {type(exc).__name__}")
                continue
            examples = [thaw(e.arguments) for e in tool.examples]
            cases += [(label, v, ours, ref) for v in instances(schema, examples)]
    verdicts = [(ours.is_valid(v), ref.is_valid(v)) for _, v, ours, ref in cases]
    differ = [
        (label, v, a, b) for (label, v, _, _), (a, b) in zip(cases, verdicts, strict=True) if a != b
    ]
    print(f"{tools} tool schemas from {len(specs(corpus))} specs, {len(cases)} instances")
    print(f"jsonschema-rs could not build {len(ours_unbuilt)}; jsonschema {len(ref_unbuilt)}")
    for line in (ours_unbuilt + ref_unbuilt)[:show]:
        print(f"  {line}")
    valid = sum(b for _, b in verdicts)
    print(f"verdicts: {valid} valid, {len(verdicts) - valid} invalid (reference)")
    print(f"verdicts differing from jsonschema: {len(differ)}")
    blamed = Counter(_blamed(case) for case in differ_cases(cases, verdicts))
    for (side, keyword), count in blamed.most_common():
        print(f"  {count:6d}  only {side} refuses, by {keyword}")
    for label, v, a, b in differ[:show]:
        text = repr(v)
        print(f"  {label}: jsonschema-rs {a}, jsonschema {b}: {text[:160]}")
    both = [
        (v, ours, ref) for (_, v, ours, ref), (a, b) in zip(cases, verdicts, strict=True) if a and b
    ]
    if both:
        base = cpu(lambda: [ref.is_valid(v) for v, _, ref in both], repeat) / len(both)
        ours_per = cpu(lambda: [o.is_valid(v) for v, o, _ in both], repeat) / len(both)
        print(
            f"CPU per check on {len(both)} valid instances: jsonschema {base * 1e6:.2f} us, "
            f"jsonschema-rs {ours_per * 1e6:.2f} us (ratio {ours_per / base:.3f})"
        )


def argument_check(repeat: int) -> None:
    """The executor's whole argument check (ArgumentChecker.check) on bench_executor's tool."""
    from toolcat.executor._arguments import ArgumentChecker

    schema = {
        "type": "object",
        "properties": {
            "item_id": {"type": "string", "description": "The item id."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
            "fields": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["item_id"],
        "additionalProperties": False,
    }
    checker = ArgumentChecker(schema)
    args = {"item_id": "i-1", "limit": 10, "fields": ["name", "price"]}
    n = 20_000
    per = cpu(lambda: [checker.check(dict(args)) for _ in range(n)], repeat) / n
    print(f"ArgumentChecker.check, bench_executor's tool, valid call: {per * 1e6:.2f} us")


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
    )
    from toolcat.catalog.common import freeze
    from toolcat.executor import Executor, ToolCall

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--show", type=int, default=20, help="differences listed at most")
    parser.add_argument("--patterns-only", action="store_true", help="only the regex figures")
    args = parser.parse_args(argv)
    if args.patterns_only:
        return patterns()
    repo = Path(__file__).resolve().parent.parent
    corpus = args.corpus or Path(
        os.environ.get("TOOLCAT_CORPUS", repo.parent / "shared" / "corpus")
    )
    if not corpus.is_dir():
        print(f"skipped: no spec corpus at {corpus} (set TOOLCAT_CORPUS or --corpus)")
        return 0
    compare(corpus, args.repeat, args.show)
    argument_check(args.repeat)
    return patterns()


if __name__ == "__main__":
    sys.exit(main())
