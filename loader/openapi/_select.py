"""Which operations to import: include/exclude by tags, operationIds, paths, methods."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase

from ._options import Selection

__all__ = ["excluded_because", "unmatched"]


def _matches(
    sel: Selection, op_id: str | None, tags: Sequence[str], path: str, method: str
) -> list[str]:
    """Fields of ``sel`` that match, and ``"!"`` + field for each non-empty one that does not."""
    result = []
    checks: tuple[tuple[str, tuple[str, ...], Callable[[], bool]], ...] = (
        ("tags", sel.tags, lambda: any(t in sel.tags for t in tags)),
        ("operations", sel.operations, lambda: op_id is not None and op_id in sel.operations),
        ("paths", sel.paths, lambda: any(fnmatchcase(path, g) for g in sel.paths)),
        ("methods", sel.methods, lambda: method.upper() in {m.upper() for m in sel.methods}),
    )
    for name, values, test in checks:
        if values:
            result.append(name if test() else "!" + name)
    return result


def excluded_because(
    include: Selection,
    exclude: Selection,
    op_id: str | None,
    tags: Sequence[str],
    path: str,
    method: str,
) -> str | None:
    """Why an operation is left out by the selection, or ``None`` when it is selected."""
    if include:
        missed = [m[1:] for m in _matches(include, op_id, tags, path, method) if m.startswith("!")]
        if missed:
            return f"not included (its {', '.join(missed)} do not match)"
    if exclude:
        hit = [m for m in _matches(exclude, op_id, tags, path, method) if not m.startswith("!")]
        if hit:
            return f"excluded by {', '.join(hit)}"
    return None


_FIELDS = {"tags": "tag", "operations": "operation", "paths": "path", "methods": "method"}


def unmatched(
    sel: Selection,
    tags: set[str],
    operations: set[str],
    paths: set[str],
    methods: set[str],
) -> list[tuple[str, int, str, str]]:
    """Values of ``sel`` that match no operation of the spec, each on its own:
    ``(field, index, value, hint)``; ``hint`` is a near match ("" when none), so
    that a typo (``tag:Repos`` for ``repos``) is named with its fix."""
    import difflib

    known = {"tags": tags, "operations": operations, "paths": paths, "methods": methods}
    out = []
    for name in _FIELDS:
        for i, value in enumerate(getattr(sel, name)):
            pool = known[name]
            if name == "methods":
                hit = value.upper() in {m.upper() for m in pool}
            elif name == "paths":
                hit = any(fnmatchcase(p, value) for p in pool)
            else:
                hit = value in pool
            if hit:
                continue
            folded = {p.casefold(): p for p in pool}
            close = (
                [folded[value.casefold()]]
                if value.casefold() in folded
                else difflib.get_close_matches(value, sorted(pool), 1)
            )
            out.append(
                (name, i, value, f"; did you mean {_FIELDS[name]}:{close[0]}?" if close else "")
            )
    return out
