"""Stress harness: import every OpenAPI/Swagger spec of a folder and check what comes out.

Run: ``python benchmarks/stress_import.py DIR [--jobs 2] [--timeout 60] [--mem-mb 4096]
[--limit N] [--sample N --seed S] [--failures FILE]``.

Each spec is imported in its own forked worker (``--jobs`` at a time) with a
wall-clock limit and an address-space cap, so a hang or a memory blow-up is a
reported failure, not a stuck run. For each spec the worker checks what the
held-out corpus check asks for:

- ``import_openapi`` refuses nothing that parses (no TC201/TC202/TC207 error);
- one report per operation; tools == operations - skipped, and every skip has
  its TC203/TC204 diagnostic; no skip is an unforeseen exception
  (``unexpected ...``) or a recursion overflow;
- every tool name matches ``^[a-zA-Z0-9_-]{1,64}$`` and names are unique;
- ``load_catalog([spec])`` compiles it (no error diagnostics) to as many tools;
- every property a request body's schema requires (its own ``required``, its
  ``allOf`` members', through local ``$ref``s; ``readOnly`` ones aside) is a required
  argument, or the ``body`` argument that carries it is required;
- every input and output schema is valid against the 2020-12 metaschema;
- the OpenAI strict export works and every strict schema passes
  ``check_strict_schema``;
- the Gemini export works (its schemas inline every ``$ref``).

Prints a summary (specs ok, skipped operations by reason, failures by kind,
slowest specs, largest memory) and writes every failure to ``--failures``
(JSON). The spec folder is never modified.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import re
import resource
import sys
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")
SUFFIXES = (".json", ".yaml", ".yml")
#: What each operation's body requires: (METHOD, path, media type) -> property names.
Needs = dict[tuple[str, str, str], set[str]]


def _parse(path: Path) -> Any:
    from toolcat.loader import read_yaml  # the importer's own reader: YAML 1.2 core schema

    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    return read_yaml(text, str(path))


def _operation_count(doc: Any) -> int:
    count = 0
    paths = doc.get("paths")
    if not isinstance(paths, dict):
        return 0
    for item in paths.values():
        if isinstance(item, dict) and isinstance(item.get("$ref"), str):
            item = _local(doc, item["$ref"])  # a path item may be a $ref (OpenAPI 3)
        if isinstance(item, dict):
            count += sum(1 for m in METHODS if m in item)
            extra = item.get("additionalOperations")
            if isinstance(extra, dict):
                count += len(extra)
    return count


def _local(doc: Any, ref: str) -> Any:
    """The target of a local ``#/...`` ref, or None (refs into other files are not followed)."""
    if not ref.startswith("#/"):
        return None
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _required_of(doc: Any, schema: Any, depth: int = 0) -> set[str]:
    """The properties an object schema requires, through local refs and ``allOf``."""
    seen: set[str] = set()
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen:
            return set()
        seen.add(ref)
        schema = _local(doc, ref)
    if not isinstance(schema, dict) or depth > 16:
        return set()
    names = schema.get("required")
    found = {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()
    props = schema.get("properties")
    if not isinstance(props, dict):
        props = {}
    for name in list(found):
        prop = props.get(name)
        while isinstance(prop, dict) and isinstance(prop.get("$ref"), str):
            prop = _local(doc, prop["$ref"])
        if isinstance(prop, dict) and prop.get("readOnly") is True:
            found.discard(name)  # a response-only property: never sent
    members = schema.get("allOf")
    for member in members if isinstance(members, list) else ():
        found |= _required_of(doc, member, depth + 1)
    return found


def _body_requirements(doc: Any) -> Needs:
    """What each operation's body requires, per media type: (METHOD, path, media) -> names."""
    out: Needs = {}
    paths = doc.get("paths") if isinstance(doc.get("paths"), dict) else {}
    for path, item in paths.items():
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            bodies: dict[str, Any] = {}
            rb = op.get("requestBody")
            while isinstance(rb, dict) and isinstance(rb.get("$ref"), str):
                rb = _local(doc, rb["$ref"])
            if isinstance(rb, dict) and isinstance(rb.get("content"), dict):
                for media, obj in rb["content"].items():
                    if isinstance(obj, dict):
                        bodies[str(media).split(";")[0].strip().lower()] = obj.get("schema")
            for param in op.get("parameters") or ():  # Swagger 2's body parameter
                if isinstance(param, dict) and param.get("in") == "body":
                    bodies["application/json"] = param.get("schema")
            for media, schema in bodies.items():
                names = _required_of(doc, schema)
                if names:
                    out[(method.upper(), str(path), media)] = names
    return out


def _check_required(catalog: Any, needs: Needs, fail: Any) -> None:
    """Each body property the spec requires is a required argument (or inside one)."""
    wrong = 0
    for tool in catalog:
        command = tool.command
        body = getattr(command, "body", None)
        if body is None:
            continue
        names = needs.get((command.method, command.path, body.media_type))
        if not names:
            continue
        required = set(tool.input_schema.get("required", ()))
        if body.argument is not None:
            lost = [] if body.argument in required else sorted(names)
        else:
            wire = {b.wire_name: b.argument for b in command.parameters if b.location == "body"}
            lost = sorted(n for n in names if n in wire and wire[n] not in required)
        if lost:
            wrong += 1
            if wrong <= 3:
                fail("required:body", f"{tool.name}: the body requires {lost}, the tool does not")


def _without_seen(node: Any, seen: set[int], keep: list[Any]) -> Any:
    """``node`` with frozen sub-values already validated replaced by ``{}`` (shared subschemas)."""
    from toolcat.catalog import FrozenDict

    if isinstance(node, FrozenDict):
        if id(node) in seen:
            return {}
        seen.add(id(node))
        keep.append(node)
    if isinstance(node, dict):
        return {k: _without_seen(v, seen, keep) for k, v in node.items()}
    if isinstance(node, list):
        return [_without_seen(v, seen, keep) for v in node]
    return node


def _depth(node: Any) -> int:
    """How deeply dicts and lists nest in ``node`` (a validator recurses about as deep)."""
    deepest, todo = 0, [(node, 1)]
    while todo:
        value, d = todo.pop()
        if isinstance(value, dict):
            deepest = max(deepest, d)
            todo.extend((v, d + 1) for v in value.values())
        elif isinstance(value, list):
            todo.extend((v, d + 1) for v in value)
    return deepest


def _skip_kind(reason: str) -> str:
    """A short, stable label for a skip reason (numbers and quoted names taken out)."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"|\{[^}]*\}", "…", reason)
    text = re.sub(r"\d+", "N", text)
    return text[:90]


def check_spec(path: Path) -> dict[str, Any]:
    """Import one spec and check it; returns counts, timings and failures (never raises)."""
    failures: list[dict[str, str]] = []
    out: dict[str, Any] = {"spec": str(path), "failures": failures, "skips": {}}

    def fail(kind: str, detail: str) -> None:
        failures.append({"kind": kind, "detail": detail[:2000]})

    try:
        doc = _parse(path)
    except Exception as exc:  # not our bug: the file itself does not parse
        out["not_a_spec"] = f"unparsable: {type(exc).__name__}"
        return out
    if not (isinstance(doc, dict) and ("openapi" in doc or "swagger" in doc)):
        out["not_a_spec"] = "no openapi/swagger key"
        return out
    out["version"] = str(doc.get("openapi") or doc.get("swagger"))
    ops = _operation_count(doc)
    out["operations"] = ops
    needs = _body_requirements(doc)
    del doc
    try:
        _check(path, ops, needs, out, fail)
    except MemoryError:
        fail("memory", "MemoryError under the address-space cap")
    except RecursionError as exc:
        fail("crash:RecursionError", traceback.format_exc(limit=-8) or str(exc))
    except Exception as exc:
        fail(f"crash:{type(exc).__name__}", traceback.format_exc(limit=-8))
    return out


def _check(path: Path, ops: int, needs: Needs, out: dict[str, Any], fail: Any) -> None:  # noqa: C901, PLR0915  one spec through every stage in turn, each timed and checked, read top to bottom
    from jsonschema import Draft202012Validator
    from toolcat.catalog.schema import check_strict_schema
    from toolcat.executor.providers import export_catalog
    from toolcat.loader import load_catalog
    from toolcat.loader.openapi import import_openapi

    t0 = time.perf_counter()
    result = import_openapi(path, progress=False)
    out["import_s"] = time.perf_counter() - t0
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if errors:
        fail(f"refused:{errors[0].code}", str(errors[0]))
        return
    skipped = [r for r in result.report if r.skipped]
    out["tools"] = len(result.tools)
    out["skipped"] = len(skipped)
    out["skips"] = dict(Counter(_skip_kind(r.skipped or "") for r in skipped))
    for r in skipped:
        reason = r.skipped or ""
        if reason.startswith("unexpected "):
            kind = reason.split(":", 1)[0].replace("unexpected ", "unexpected:")
            fail(kind, f"{r.method} {r.path}: {reason}")
        elif "nest too deeply" in reason:
            fail("recursion-skip", f"{r.method} {r.path}: {reason}")
    if len(result.report) != ops:
        fail("count:report", f"{len(result.report)} reports for {ops} operations")
    if len(result.tools) != ops - len(skipped):
        fail("count:tools", f"{len(result.tools)} tools, {ops} operations, {len(skipped)} skipped")
    reported = {
        d.message.split(" skipped: ")[0] for d in result.diagnostics if d.code in ("TC203", "TC204")
    }
    if len(reported) != len(skipped):
        fail("count:diagnostics", f"{len(reported)} skip diagnostics for {len(skipped)} skips")
    names = [t["name"] for t in result.tools]
    bad = [n for n in names if not isinstance(n, str) or not NAME.match(n)]
    if bad:
        fail("name:invalid", repr(bad[:5]))
    dupes = [n for n, c in Counter(names).items() if c > 1]
    if dupes:
        fail("name:duplicate", repr(dupes[:5]))

    t1 = time.perf_counter()
    loaded = load_catalog([path], progress=False)
    out["load_s"] = time.perf_counter() - t1
    if loaded.catalog is None:
        errs = [d for d in loaded.diagnostics if d.severity == "error"]
        codes = sorted({d.code for d in errs})
        fail(f"load:{'+'.join(codes)}", "\n".join(str(d) for d in errs[:5]))
        return
    catalog = loaded.catalog
    if len(catalog) != len(result.tools):
        fail("count:loaded", f"{len(catalog)} compiled tools for {len(result.tools)} imported")

    _check_required(catalog, needs, fail)
    out["max_depth"] = max((_depth(t.input_schema) for t in catalog), default=0)
    check = Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors
    seen: set[int] = set()
    keep: list[Any] = []
    bad_schemas = 0
    for tool in catalog:
        for which, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
            if schema is None:
                continue
            first = next(iter(check(_without_seen(schema, seen, keep))), None)
            if first is not None:
                bad_schemas += 1
                if bad_schemas <= 3:
                    where = "/".join(str(p) for p in first.absolute_path)
                    fail(f"metaschema:{which}", f"{tool.name} at /{where}: {first.message[:300]}")

    t2 = time.perf_counter()
    exported = export_catalog(catalog, "openai", strict=True)
    out["export_s"] = time.perf_counter() - t2
    strict = 0
    bad_strict = 0
    for item in exported.tools:
        function = item["function"]
        if not function.get("strict"):
            continue
        strict += 1
        problems = check_strict_schema(function["parameters"])
        if problems:
            bad_strict += 1
            if bad_strict <= 3:
                fail("strict", f"{function['name']}: {problems[:3]}")
    out["strict"] = strict
    t3 = time.perf_counter()
    export_catalog(catalog, "gemini")  # Gemini's subset inlines every ref: recursion cut off
    out["gemini_s"] = time.perf_counter() - t3


def _child(path: str, conn: Any, mem_mb: int) -> None:
    sys.setrecursionlimit(20_000)  # the checks themselves walk deep schemas recursively
    if mem_mb:
        limit = mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    out = check_spec(Path(path))
    out["total_s"] = time.perf_counter() - t
    out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    conn.send(out)
    conn.close()


def run_one(path: Path, timeout: float, mem_mb: int) -> dict[str, Any]:
    """``check_spec`` in a forked child with a time limit; a hang or a hard crash is a failure."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(str(path), child, mem_mb), daemon=True)
    t = time.perf_counter()
    proc.start()
    child.close()
    out: dict[str, Any] | None = None
    if parent.poll(timeout):
        try:
            out = parent.recv()
        except EOFError:
            out = None
    proc.join(5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    elapsed = time.perf_counter() - t
    if out is None:
        if elapsed >= timeout:
            kind, detail = "timeout", f"no result after {timeout:.0f} s"
        else:
            kind, detail = "died", f"worker exit code {proc.exitcode} (memory cap or signal)"
        out = {"spec": str(path), "failures": [{"kind": kind, "detail": detail}], "skips": {}}
        out["total_s"] = elapsed
    return out


def _specs(folder: Path, limit: int | None, sample: int | None, seed: int) -> list[Path]:
    files = sorted(p for p in folder.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    if sample is not None and sample < len(files):
        files = sorted(random.Random(seed).sample(files, sample))
    return files[:limit] if limit else files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per spec")
    ap.add_argument("--mem-mb", type=int, default=4096, help="address-space cap per spec")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--sample", type=int, default=None, help="a random sample of N specs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--failures", type=Path, default=Path("stress-failures.json"))
    ap.add_argument("--slow", type=float, default=3.0, help="a spec over this many s is 'slow'")
    args = ap.parse_args(argv)

    # Import once in the parent so every forked worker starts warm.
    import jsonschema  # noqa: F401
    import toolcat.catalog  # noqa: F401
    import toolcat.loader  # noqa: F401
    import toolcat.loader.openapi  # noqa: F401

    specs = _specs(args.folder, args.limit, args.sample, args.seed)
    t = time.perf_counter()
    results: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_one, p, args.timeout, args.mem_mb) for p in specs]
        for i, fut in enumerate(futures, 1):
            results.append(fut.result())
            if sys.stderr.isatty():
                sys.stderr.write(f"\r{i}/{len(specs)} specs")
            elif i % 100 == 0:
                sys.stderr.write(f"{i}/{len(specs)} specs, {time.perf_counter() - t:.0f} s\n")
                sys.stderr.flush()
    wall = time.perf_counter() - t
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    _report(args, results, wall)
    return 0


def _report(args: argparse.Namespace, results: list[dict[str, Any]], wall: float) -> None:
    specs = [r for r in results if "not_a_spec" not in r]
    not_specs = len(results) - len(specs)
    failed = [r for r in specs if r["failures"]]
    versions = Counter((r.get("version") or "?")[:3] for r in specs)
    ops = sum(r.get("operations", 0) for r in specs)
    tools = sum(r.get("tools", 0) for r in specs)
    skipped = sum(r.get("skipped", 0) for r in specs)
    kinds: Counter[str] = Counter()
    for r in failed:
        for k in {f["kind"] for f in r["failures"]}:
            kinds[k] += 1
    skip_kinds: Counter[str] = Counter()
    for r in specs:
        skip_kinds.update(r.get("skips", {}))
    ok = len(specs) - len(failed)
    print(
        f"specs: {len(specs)} ({', '.join(f'{v}: {n}' for v, n in sorted(versions.items()))})"
        f"; not specs: {not_specs}; wall {wall:.1f} s with {args.jobs} jobs"
    )
    pct = 100 * ok / len(specs) if specs else 0.0
    print(f"ok: {ok}/{len(specs)} ({pct:.1f} %); failed: {len(failed)}")
    print(f"operations: {ops}; tools: {tools}; skipped: {skipped}")
    if kinds:
        print("failures by kind (specs):")
        for k, n in kinds.most_common():
            print(f"  {n:5d}  {k}")
    if skip_kinds:
        print("skipped operations by reason (top 15):")
        for k, n in skip_kinds.most_common(15):
            print(f"  {n:5d}  {k}")
    for r in specs:  # toolcat's own time: import + load (import and compile) + strict export
        r["toolcat_s"] = r.get("import_s", 0.0) + r.get("load_s", 0.0) + r.get("export_s", 0.0)
        if any(f["kind"] == "timeout" for f in r["failures"]):
            r["toolcat_s"] = r.get("total_s", 0.0)
    slowest = sorted(specs, key=lambda r: -r["toolcat_s"])[:10]
    print(
        f"slowest specs by toolcat time (import + load + export; over {args.slow:g} s: "
        f"{sum(1 for r in specs if r['toolcat_s'] > args.slow)}):"
    )
    for r in slowest:
        print(
            f"  {r['toolcat_s']:7.2f} s  import {r.get('import_s', 0):6.2f}"
            f"  load {r.get('load_s', 0):6.2f}  {r.get('operations', '?'):>5} ops"
            f"  {r.get('peak_mb', 0):7.0f} MB  {r['spec']}"
        )
    deepest = sorted(specs, key=lambda r: -r.get("max_depth", 0))[:5]
    print("deepest input schemas (nested dicts; jsonschema's metaschema check overflows near 190):")
    for r in deepest:
        print(f"  {r.get('max_depth', 0):5d}  {r['spec']}")
    biggest = sorted(specs, key=lambda r: -r.get("peak_mb", 0.0))[:5]
    print("largest peak memory (RSS growth):")
    for r in biggest:
        print(f"  {r.get('peak_mb', 0):7.0f} MB  {r.get('operations', '?'):>5} ops  {r['spec']}")
    payload = [{"spec": r["spec"], "failures": r["failures"]} for r in failed]
    args.failures.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    print(f"failures written to {args.failures}")


if __name__ == "__main__":
    raise SystemExit(main())
