"""A file's shared ``definitions:``: JSON Schemas that its tools refer to as ``#/$defs/Name``.

A file keeps each schema once at the top level; each tool of that file that
refers to one (from a parameter, its own ``definitions`` or its
``output_schema``) gets, when compiled, exactly the definitions it reaches, as
``$defs`` of its input or output schema. The section is per file: tools of
another file do not see it, so two imports side by side never clash.

Each shared definition is checked once, where it is written, the first time a
tool reaches it (as a parameter schema when a parameter reaches it, else as an
output schema); an unreached one is only shape-checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ._schemas import ref_loops
from ._scope import CompileContext, Scope
from ._shape import Locator

__all__ = ["DEF_NAME", "SharedDefinitions", "local_refs"]

DEF_NAME = re.compile(r"[A-Za-z0-9._-]{1,200}\Z")
_PREFIX = "#/$defs/"


def local_refs(node: Any) -> set[str]:
    """The names of ``#/$defs/NAME`` (or ``#/$defs/NAME/...``) refs anywhere in ``node``."""
    found: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, dict):
            ref = n.get("$ref")
            if isinstance(ref, str) and ref.startswith(_PREFIX):
                found.add(ref[len(_PREFIX) :].split("/", 1)[0])
            todo.extend(v for v in n.values() if isinstance(v, dict | list))
        elif isinstance(n, list):
            todo.extend(v for v in n if isinstance(v, dict | list))
    return found


class SharedDefinitions:
    """The ``definitions:`` of one catalog file, with where each is written."""

    def __init__(self, defs: Mapping[str, Any], file: str, locate: Locator) -> None:
        self.defs = dict(defs)
        self.file = file
        self.locate = locate
        self._edges: dict[str, frozenset[str]] = {}
        self._checked: set[str] = set()  # checked as parameter schemas
        self._checked_out: set[str] = set()  # checked as output schemas
        self.used: set[str] = set()

    def edges(self, name: str) -> frozenset[str]:
        found = self._edges.get(name)
        if found is None:
            found = self._edges[name] = frozenset(local_refs(self.defs[name]))
        return found

    def reach(self, roots: Iterable[Any], hidden: Iterable[str] = ()) -> list[str]:
        """The shared definitions reached from ``roots``, following refs between them.

        ``hidden``: names the caller defines itself (its own definitions win).
        """
        skip = set(hidden)
        todo = [n for r in roots for n in local_refs(r)]
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen or name in skip or name not in self.defs:
                continue
            seen.add(name)
            todo.extend(self.edges(name))
        self.used.update(seen)
        return sorted(seen)

    def scope(self, ctx: CompileContext) -> Scope:
        return Scope(ctx, self.file, (), self.locate, "definition")

    def check_loops(self, ctx: CompileContext) -> None:
        scope = self.scope(ctx)
        for name, chain in ref_loops(self.defs):
            scope.add(
                "TC022",
                f"'{name}': its $refs loop with no schema in between ({chain}), "
                "so no value could ever be checked against it; give one of them a schema",
                ("definitions", name),
                key=True,
            )

    def check_input(self, names: Iterable[str], ctx: CompileContext, trusted: bool) -> int:
        """Check the definitions a parameter reaches (once each); the errors found."""
        errors = 0
        for name in names:
            if name in self._checked:
                continue
            self._checked.add(name)
            self._checked_out.add(name)
            closure = {n: self.defs[n] for n in self.reach([self.defs[name]])}
            scope = self.scope(ctx)
            for issue in ctx.schemas.check(self.defs[name], trusted=trusted, defs=closure):
                scope.add(
                    issue.code,
                    f"'{name}': {issue.message}",
                    ("definitions", name, *issue.path),
                    key=issue.key,
                )
            errors += scope.errors
        return errors

    def check_output(self, names: Iterable[str], ctx: CompileContext, trusted: bool) -> int:
        """The checks an ``output_schema`` gets (refs that leave it, a broken schema)."""
        errors = 0
        if trusted:
            return 0
        for name in names:
            if name in self._checked_out:
                continue
            self._checked_out.add(name)
            scope = self.scope(ctx)
            for issue in ctx.schemas.check(self.defs[name]):
                if issue.code in ("TC022", "TC045"):
                    scope.add(
                        issue.code,
                        f"'{name}': {issue.message}",
                        ("definitions", name, *issue.path),
                    )
            errors += scope.errors
        return errors
