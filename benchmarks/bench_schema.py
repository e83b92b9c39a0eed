"""The fast schema path against jsonschema (and jsonschema-rs, if installed) on real tool schemas.

    python benchmarks/bench_schema.py [--corpus DIR] [--repeat 5]

Every tool of the corpus specs (GitHub, Stripe, Kubernetes, httpbin, Train Travel)
gets three argument sets: one generated valid, one without its first required
argument, one with an unknown key. Reported, all in the same run: how many schemas
the fast path judges, verdicts that differ from jsonschema's, compile time per tool,
and CPU per check on valid arguments as a ratio to ``jsonschema.is_valid``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
from toolcat.catalog import compile_check, thaw
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
    args = parser.parse_args(argv)
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
    verdicts = [ref[i].is_valid(v) for i, v in cases]
    judged = [i for i, _ in enumerate(schemas) if contenders["fast path"][0][i] is not None]
    valid = [(i, v) for (i, v), ok in zip(cases, verdicts, strict=True) if ok and i in set(judged)]
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
