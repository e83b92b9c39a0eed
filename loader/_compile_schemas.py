"""A tool's schemas and examples compiled to the IR, for HTTP and MCP tools alike.

The definitions its input schema may refer to (its own, and the shared ones of its file
that it reaches), the checks of its definitions and output schema, the input schema a
model sees, and its examples checked against that schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcat.catalog import SourceLocation, ToolExample

from ._definitions import SharedDefinitions, local_refs
from ._lint import duplicate_example_names, example_result_without_response
from ._models_mcp import McpExampleDoc, McpToolDoc
from ._models_tools import ExampleDoc, ToolDoc
from ._params import CompiledParameters
from ._schemas import ref_loops
from ._scope import Scope

__all__ = ["checked_definitions", "compile_examples", "input_definitions", "model_input_schema"]


def input_definitions(
    doc: ToolDoc | McpToolDoc, scope: Scope, shared: SharedDefinitions | None, trusted: bool
) -> dict[str, Any]:
    """The definitions the tool's input schema may refer to: its own, and the shared ones
    of its file that its parameters and definitions reach."""
    own = dict(doc.definitions or {})
    if shared is None:
        return own
    _check_clashes(doc, scope, shared)
    roots = [*(p.model_extra or {} for p in (doc.parameters or {}).values()), *own.values()]
    reached = shared.reach(roots, hidden=own)
    shared.check_input(reached, scope.ctx, trusted)
    return {**{n: shared.defs[n] for n in reached}, **own}


def checked_definitions(
    doc: ToolDoc | McpToolDoc,
    scope: Scope,
    defs: dict[str, Any],
    shared: SharedDefinitions | None,
    trusted: bool,
) -> Any:
    """The checks of the tool's own definitions and output schema; the output schema,
    with the shared definitions it reaches."""
    ctx = scope.ctx
    own = doc.definitions or {}
    for name, definition in own.items():
        for issue in ctx.schemas.check(definition, trusted=trusted, defs=defs):
            scope.add(
                issue.code,
                f"definition '{name}': {issue.message}",
                ("definitions", name, *issue.path),
                key=issue.key,
            )
    for name, chain in ref_loops(defs):
        if name not in own:
            continue  # reported once where the shared definition is written
        scope.add(
            "TC022",
            f"definition '{name}': its $refs loop with no schema in between ({chain}), "
            "so no value could ever be checked against it; give one of them a schema",
            ("definitions", name),
            key=True,
        )
    if doc.output_schema is not None and not trusted:
        for issue in ctx.schemas.check(doc.output_schema):
            if issue.code in ("TC022", "TC045"):
                scope.add(
                    issue.code, f"output_schema: {issue.message}", ("output_schema", *issue.path)
                )
    return _output_schema(doc, scope, shared, trusted)


_REQUEST_KEYS = ("method", "path", "query", "headers", "body")
_RESPONSE_KEYS = ("status", "headers", "body")


def _set_keys(doc: Any, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """The keys of an example's request/response that are set (null: not compared)."""
    if doc is None:
        return None
    return {k: getattr(doc, k) for k in keys if getattr(doc, k) is not None}


def _example_request(example: ExampleDoc | McpExampleDoc) -> dict[str, Any] | None:
    if isinstance(example, McpExampleDoc):  # the upstream's arguments, as written
        return example.request
    return _set_keys(example.request, _REQUEST_KEYS)


def _example_response(example: ExampleDoc | McpExampleDoc) -> dict[str, Any] | None:
    if isinstance(example, McpExampleDoc):  # a CallToolResult, in MCP's names
        if example.response is None:
            return None
        return example.response.model_dump(by_alias=True, exclude_none=True)
    return _set_keys(example.response, _RESPONSE_KEYS)


def model_input_schema(
    params: CompiledParameters, bound: Mapping[str, Any], defs: Mapping[str, Any]
) -> dict[str, Any]:
    """The input schema a model sees: the compiled parameters but those ``bound`` to the
    caller's context, and the definitions they reach."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {k: v for k, v in params.properties.items() if k not in bound},
        "required": [r for r in params.required if r not in bound],
        "additionalProperties": False,
    }
    if params.reachable:
        schema["$defs"] = {name: defs[name] for name in params.reachable}
    return schema


def compile_examples(
    doc: ToolDoc | McpToolDoc, scope: Scope, input_schema: dict[str, Any]
) -> tuple[ToolExample, ...]:
    """The tool's examples, each checked: arguments against the input schema (TC065),
    a result without a response (TC120), a name used twice (TC121)."""
    if not doc.examples:
        return ()
    from ._schemas import ValueCheck

    check = ValueCheck(input_schema)
    out: list[ToolExample] = []
    examples: list[ExampleDoc | McpExampleDoc] = list(doc.examples)
    scope.report(duplicate_example_names(examples))
    for i, example in enumerate(examples):
        at = ("examples", i)
        label = f"example {example.name!r}" if example.name else f"example {i + 1}"
        errors = sorted(check.errors(example.arguments), key=lambda e: e[0])
        for path, message in errors[:5]:
            where = "/".join(str(p) for p in path)
            scope.add(
                "TC065",
                f"{label}: arguments{f' at {where}' if where else ''}: {message}; "
                "fix the example or the tool's parameters",
                (*at, "arguments", *path),
            )
        scope.report(example_result_without_response(example, label, at))
        line, col = scope.locate((*scope.base, *at), False)
        freeze = scope.ctx.values.freeze
        out.append(
            ToolExample(
                arguments=freeze(example.arguments),
                name=example.name,
                request=freeze(_example_request(example)),
                response=freeze(_example_response(example)),
                result=freeze(example.result),
                source=SourceLocation(scope.file, line, col),
            )
        )
    return tuple(out)


def _check_clashes(doc: ToolDoc | McpToolDoc, scope: Scope, shared: SharedDefinitions) -> None:
    """TC050 for a tool's own definition (or output ``$defs``) named like a shared one."""
    output = doc.output_schema if isinstance(doc.output_schema, dict) else {}
    found = output.get("$defs")
    out_defs: dict[str, Any] = found if isinstance(found, dict) else {}
    own: dict[str, Any] = dict(doc.definitions or {})
    for where, names in ((("definitions",), own), (("output_schema", "$defs"), out_defs)):
        for name in names:
            if name in shared.defs:
                line, col = shared.locate(("definitions", name), True)
                scope.add(
                    "TC050",
                    f"definition '{name}' is also a shared definition of this file "
                    f"({shared.file}:{line}:{col}); '#/$defs/{name}' would mean either. "
                    "Rename one, or drop the tool's copy",
                    (*where, name),
                    key=True,
                )


def _output_schema(
    doc: ToolDoc | McpToolDoc, scope: Scope, shared: SharedDefinitions | None, trusted: bool
) -> Any:
    """The tool's output schema, with the shared definitions it reaches as ``$defs``."""
    output = doc.output_schema
    if not isinstance(output, dict):
        return output
    found = output.get("$defs")
    own: dict[str, Any] = found if isinstance(found, dict) else {}
    if shared is None:
        return output
    unknown = sorted(n for n in local_refs(output) if n not in own and n not in shared.defs)
    if unknown:
        scope.add(
            "TC051",
            f"output_schema refers to '#/$defs/{unknown[0]}', which is neither in its own "
            "$defs nor in this file's definitions; add the definition or fix the name",
            ("output_schema",),
        )
        return output
    reached = shared.reach([output], hidden=own)
    if not reached:
        return output
    scope.errors += shared.check_output(reached, scope.ctx, trusted)
    return {**output, "$defs": {**{n: shared.defs[n] for n in reached}, **own}}
