"""Jinja2 checks of ``body`` templates and ``response.select``: syntax and undeclared names.

Templates run in a sandboxed environment where undefined names are errors, so
a name that is not an argument (or ``body``/``status``/``headers`` in
``select``) is reported at load time rather than failing a call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolcat.catalog.common import constant_bound_error, sandbox_environment

__all__ = ["TemplateChecker", "TemplateIssue", "template_strings"]

# Text whose only markup is "{{ name }}" or "{{ name.attr.attr }}" ("/orders/{{ id }}",
# "{{ status }} for payment"): its names are known without running Jinja's parser. A
# name that is a constant or a global of the environment goes through the parser.
_PLACEHOLDER = r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*)*\s*\}\}"
_SIMPLE = re.compile(rf"(?:[^{{]|\{{(?![{{%#])|{_PLACEHOLDER})*")
_NAMES = re.compile(_PLACEHOLDER)
_NOT_NAMES = frozenset(
    "true false none True False None range dict lipsum cycler joiner namespace".split()
)
_MARKERS = ("{{", "{%", "{#")


@dataclass(frozen=True, slots=True)
class TemplateIssue:
    code: str  # TC030 syntax, TC031 undeclared name, TC032 past a size limit
    message: str
    line: int = 1  # 1-based line inside the template text


def template_strings(
    value: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every string of a JSON value that holds Jinja markup, with its path."""
    if isinstance(value, str):
        if any(m in value for m in _MARKERS):
            yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from template_strings(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from template_strings(v, (*path, i))


class TemplateChecker:
    """Parses each distinct template once (sandboxed, StrictUndefined)."""

    def __init__(self) -> None:
        self._env: Any = None
        self._cache: dict[str, tuple[TemplateIssue | None, frozenset[str]]] = {}

    def _environment(self) -> Any:
        if self._env is None:
            self._env = sandbox_environment()  # the executor renders with the same one
        return self._env

    def names(self, source: str) -> tuple[TemplateIssue | None, frozenset[str]]:
        """(syntax issue or None, the names the template reads from its context)."""
        cached = self._cache.get(source)
        if cached is not None:
            return cached
        names = frozenset(_NAMES.findall(source)) if _SIMPLE.fullmatch(source) else None
        if names is not None and not names & _NOT_NAMES:  # no need to run the parser
            result: tuple[TemplateIssue | None, frozenset[str]] = (None, names)
        else:
            from jinja2 import TemplateSyntaxError, meta

            env = self._environment()
            try:
                tree = env.parse(source)
                # the code generator runs too: it rejects unknown filters and tests
                found = meta.find_undeclared_variables(tree) - set(env.globals)
            except TemplateSyntaxError as exc:  # TemplateAssertionError included
                issue = TemplateIssue("TC030", f"template error: {exc.message}", exc.lineno or 1)
                result = (issue, frozenset())
            else:
                bound = constant_bound_error(tree)  # 'x' * 3000000000: refused before a call
                if bound is not None:
                    message, line = bound
                    result = (TemplateIssue("TC032", f"template {message}", line), frozenset())
                else:
                    result = (None, frozenset(found))
        self._cache[source] = result
        return result

    def check(
        self, source: str, declared: frozenset[str] | set[str], what: str
    ) -> list[TemplateIssue]:
        """Syntax errors and names outside ``declared`` in one template string."""
        issue, names = self.names(source)
        if issue is not None:
            return [issue]
        out = []
        for name in sorted(names - declared):
            choices = ", ".join(sorted(declared)) or "none"
            out.append(
                TemplateIssue(
                    "TC031",
                    f"{what} refers to '{name}', which is not declared; use one of: {choices}",
                )
            )
        return out
