"""The pass over a spec's operations: each selected, made a tool or skipped, and reported."""

from __future__ import annotations

import os
from typing import Any, TextIO

from toolcat.catalog.common import METHODS
from toolcat.loader._diagnostics import Diagnostic

from ._errors import OperationSkipped, RefError
from ._importer import Importer
from ._options import OperationReport
from ._select import excluded_because, unmatched
from ._tool import operation_tool

__all__ = ["import_operations"]

_TYPO_CUTOFF = 0.85  # how alike an unknown operationId and a suggestion must be
# a Path Item's operation fields, in the order of the OpenAPI spec (3.2 adds query);
# which of them toolcat can call is toolcat.catalog.common.METHODS' business
_PATH_ITEM_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")


def import_operations(importer: Importer, progress: TextIO | None) -> None:  # noqa: PLR0915  the pass over every operation: selection, names, tools, the import's report
    ops = _operations(importer)
    total = len(ops)
    step = max(total // 50, 1)
    seen_ids: set[str] = set()
    seen_tags: set[str] = set()  # for a selection value that matches nothing (TC215)
    for i, (method, path, op, item, item_file) in enumerate(ops):
        if progress is not None and total >= 100 and i % step == 0:
            progress.write(f"\rimporting {importer.path.name}: {i}/{total} operations")
            progress.flush()
        if not isinstance(op, dict):
            importer.skip(method, path, None, "the operation is not a mapping")
            continue
        op_id = op.get("operationId") if isinstance(op.get("operationId"), str) else None
        if op_id:
            seen_ids.add(op_id)
        tags = (
            [str(t) for t in op.get("tags", ()) if isinstance(t, str)]
            if isinstance(op.get("tags"), list)
            else []
        )
        seen_tags.update(tags)
        why = excluded_because(
            importer.options.include, importer.options.exclude, op_id, tags, path, method
        )
        if why:
            importer.result.report.append(OperationReport(method, path, op_id, skipped=why))
            continue
        notes: list[str] = []
        try:
            tool = operation_tool(importer, method, path, op, op_id, tags, item, item_file, notes)
        except RefError as exc:
            importer.skip(method, path, op_id, str(exc), code="TC203")
            continue
        except OperationSkipped as exc:
            importer.skip(method, path, op_id, exc.reason)
            continue
        except RecursionError:
            importer.skip(
                method,
                path,
                op_id,
                "its schemas nest too deeply (or loop through YAML aliases)",
            )
            continue
        except Exception as exc:  # a spec shape not foreseen: skip this one, keep the rest
            if os.environ.get("TOOLCAT_DEBUG"):
                raise
            importer.skip(method, path, op_id, f"unexpected {type(exc).__name__}: {exc}")
            continue
        importer.result.tools.append(tool)
        importer.result.report.append(
            OperationReport(method, path, op_id, tool=tool["name"], notes=tuple(notes))
        )
    if progress is not None and total >= 100:
        progress.write(f"\rimporting {importer.path.name}: {total}/{total} operations\n")
        progress.flush()
    _unmatched_selection(importer, ops, seen_ids, seen_tags)
    for op_id in importer.options.overrides:
        if op_id not in seen_ids:
            import difflib  # here: only a near miss needs it

            # a typo, not a sibling: 'deletePlanet' is not 'updatePlanet' (0.75)
            close = difflib.get_close_matches(
                str(op_id), sorted(map(str, seen_ids)), 1, _TYPO_CUTOFF
            )
            hint = (
                f"did you mean {close[0]!r}?"
                if close
                else "remove it if the spec dropped the operation"
            )
            importer.result.diagnostics.append(
                Diagnostic.make(
                    "TC206",
                    f"the tools override {op_id!r} names no operationId of this spec, "
                    f"so it is ignored; {hint}",
                    importer.shown,
                    path=("tools", op_id),
                )
            )
    importer.result.service = importer.service
    if importer.service not in importer.options.existing_services:
        importer.result.services[importer.service] = importer.service_doc()


def _operations(importer: Importer) -> list[tuple[str, str, Any, Any, str]]:
    """The spec's operations as (METHOD, path, operation, path item, its file); an
    operation whose method toolcat cannot call is skipped here."""
    ops: list[tuple[str, str, Any, Any, str]] = []
    paths = importer.doc.get("paths")
    if not isinstance(paths, dict):
        return ops
    for path, raw_item in paths.items():
        try:
            item, item_file = importer.resolver.deref(raw_item, importer.root)
        except RefError as exc:
            importer.skip("*", str(path), None, str(exc), code="TC203")
            continue
        if not isinstance(item, dict):
            continue
        for method in _PATH_ITEM_METHODS:
            if method not in item:
                continue
            if method.upper() in METHODS:
                ops.append((method.upper(), str(path), item[method], item, item_file))
            else:
                importer.skip(
                    method.upper(),
                    str(path),
                    None,
                    f"the HTTP method {method.upper()} is not supported",
                )
        if isinstance(item.get("additionalOperations"), dict):
            for m in item["additionalOperations"]:
                importer.skip(
                    str(m).upper(), str(path), None, f"the HTTP method {m} is not supported"
                )
    return ops


def _unmatched_selection(
    importer: Importer,
    ops: list[tuple[str, str, Any, Any, str]],
    seen_ids: set[str],
    seen_tags: set[str],
) -> None:
    """TC215 for an include value that matches no operation (a typo there gives an
    empty or partial catalog without a word), TC216 for such an exclude value."""
    paths = {str(op[1]) for op in ops}
    methods = {str(op[0]) for op in ops}
    for side, code in (("include", "TC215"), ("exclude", "TC216")):
        selection = getattr(importer.options, side)
        if not selection:
            continue
        for field_name, index, value, hint in unmatched(
            selection, seen_tags, seen_ids, paths, methods
        ):
            kind = field_name[:-1]
            importer.result.diagnostics.append(
                Diagnostic.make(
                    code,
                    f"{side} {kind} {value!r} matches no operation of this spec{hint}",
                    importer.shown,
                    path=(side, field_name, index),
                )
            )
