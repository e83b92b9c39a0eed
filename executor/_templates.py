"""Sandboxed Jinja2 for body templates and ``select`` expressions, compiled once per tool."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from jinja2 import Undefined, meta
from jinja2.exceptions import TemplateError
from toolcat._errors import ToolcatError
from toolcat.catalog.common import render_text, sandbox_environment

__all__ = ["BodyTemplate", "Selector", "TemplateFailure"]

_ENV = sandbox_environment()  # body templates: an undefined name is an error
_LOOSE_ENV = sandbox_environment(strict=False)  # select: an undefined name gives None
_WHOLE = re.compile(r"\A\s*\{\{(?P<expr>.*?)\}\}\s*\Z", re.DOTALL)


class TemplateFailure(ToolcatError):
    """A template that failed to render; ``msg`` is safe to show to the model."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)
        self.msg = msg


def _single_expression(text: str) -> str | None:
    m = _WHOLE.match(text)
    if m is None:
        return None
    expr = m.group("expr")
    if "{{" in expr or "}}" in expr or "{%" in text:
        return None
    return expr


class _Node:
    __slots__ = ("kind", "value", "names")

    def __init__(self, kind: str, value: Any, names: frozenset[str] = frozenset()) -> None:
        self.kind = kind  # const | expr | text | dict | list
        self.value = value
        self.names = names


_OMIT = object()


class BodyTemplate:
    """A JSON value whose strings are templates over the arguments.

    A string that is exactly one ``{{ expr }}`` keeps the native JSON type of
    the expression; other strings render to text. An object key (or array item)
    whose template refers to an argument the call did not pass is left out.

    >>> t = BodyTemplate({"n": "{{ count }}", "note": "{{ note }}"}, {"count", "note"})
    >>> t.render({"count": 3})
    {'n': 3}
    """

    __slots__ = ("_root", "_arguments")

    def __init__(self, template: Any, arguments: frozenset[str] | set[str]) -> None:
        self._arguments = frozenset(arguments)
        self._root = self._compile(template)

    def _compile(self, value: Any) -> _Node:
        if isinstance(value, str):
            if "{{" not in value and "{%" not in value:
                return _Node("const", value)
            expr = _single_expression(value)
            if expr is not None:
                names = meta.find_undeclared_variables(_ENV.parse("{{" + expr + "}}"))
                compiled = _ENV.compile_expression(expr, undefined_to_none=False)
                return _Node("expr", compiled, frozenset(names) & self._arguments)
            names = meta.find_undeclared_variables(_ENV.parse(value))
            return _Node("text", _ENV.from_string(value), frozenset(names) & self._arguments)
        if isinstance(value, Mapping):
            items = [(str(k), self._compile(v)) for k, v in value.items()]
            keys = frozenset[str]().union(*(n.names for _, n in items))
            return _Node("dict", items, keys)
        if isinstance(value, list | tuple):
            nodes = [self._compile(v) for v in value]
            return _Node("list", nodes, frozenset[str]().union(*(n.names for n in nodes)))
        return _Node("const", value)

    def render(self, args: Mapping[str, Any]) -> Any:
        """The body for ``args``; raises :class:`TemplateFailure`."""
        out = self._render(self._root, args)
        return None if out is _OMIT else out

    def _render(self, node: _Node, args: Mapping[str, Any]) -> Any:
        kind = node.kind
        if kind == "const":
            return node.value
        if kind in ("expr", "text"):
            for name in node.names:
                if name not in args:
                    return _OMIT
            try:
                if kind == "text":
                    return render_text(node.value, args)
                result = node.value(**args)
            except TemplateError as exc:
                raise TemplateFailure(f"body template failed: {exc}") from exc
            except (TypeError, ValueError, ArithmeticError, LookupError) as exc:
                raise TemplateFailure(f"body template failed: {type(exc).__name__}: {exc}") from exc
            if isinstance(result, Undefined):
                what = result._undefined_hint or result._undefined_name
                raise TemplateFailure(f"body template refers to an undefined value: {what}")
            return result
        if kind == "dict":
            obj: dict[str, Any] = {}
            for key, child in node.value:
                value = self._render(child, args)
                if value is not _OMIT:
                    obj[key] = value
            return obj
        items = []
        for child in node.value:
            value = self._render(child, args)
            if value is not _OMIT:
                items.append(value)
        return items


class Selector:
    """A ``select`` expression over ``body``, ``status`` and ``headers``.

    ``"{{ body.order }}"`` (or the bare ``body.order``) keeps the native value; any
    other template renders to text. Undefined names give ``None``.
    """

    __slots__ = ("_expr", "_template")

    def __init__(self, source: str) -> None:
        expr = _single_expression(source)
        if expr is None and "{{" not in source and "{%" not in source:
            expr = source
        self._expr = _LOOSE_ENV.compile_expression(expr) if expr is not None else None
        self._template = None if expr is not None else _LOOSE_ENV.from_string(source)

    def __call__(self, body: Any, status: int, headers: Mapping[str, str]) -> Any:
        context = {"body": body, "status": status, "headers": headers}
        try:
            if self._expr is not None:
                value = self._expr(**context)
            else:
                value = render_text(self._template, context)  # type: ignore[arg-type]
        except TemplateError as exc:
            raise TemplateFailure(f"response select failed: {exc}") from exc
        except (TypeError, ValueError, ArithmeticError, LookupError) as exc:
            raise TemplateFailure(f"response select failed: {type(exc).__name__}: {exc}") from exc
        return None if isinstance(value, Undefined) else value
