"""The one sandboxed Jinja environment that body templates and ``select`` expressions run in.

Both the loader (which checks templates at load time) and the executor (which
renders them per call) take their environment from here, so a template that
loads is judged by the same rules that run it. jinja2 is imported on first
use: importing the catalog stays cheap.

Every value a template builds is bounded, at check time and at run time:
``*``, ``**``, ``+`` and ``%`` are intercepted (which also stops Jinja from
folding them at compile time, where ``{{ 'x' * 3000000000 }}`` allocated
3 GB while a catalog was only being validated), as are the padding and
formatting filters and ``str`` methods, ``range`` and ``namespace``
assignments; :func:`render_text` stops a rendering whose output passes the
cap, and every ``{% for %}`` draws on one budget of iterations per rendering
(:data:`MAX_TEMPLATE_LOOPS`), so loops nested over the arguments cannot spin.
A template that tries raises ``jinja2.exceptions.SecurityError``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping
from functools import cache, wraps
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError

if TYPE_CHECKING:
    from jinja2 import Template
    from jinja2.sandbox import ImmutableSandboxedEnvironment

__all__ = [
    "MAX_TEMPLATE_LOOPS",
    "MAX_TEMPLATE_RANGE",
    "MAX_TEMPLATE_SIZE",
    "constant_bound_error",
    "render_text",
    "sandbox_environment",
]

# The most characters (or items) any string or list a template builds may hold,
# and the most characters a template's output may hold.
MAX_TEMPLATE_SIZE = 10_000_000
# The most items ``range()`` gives in a template (Jinja's own sandbox default).
MAX_TEMPLATE_RANGE = 100_000
# The most iterations a template's loops may run in one rendering, all loops
# together (at run time), and loops nested over constant ranges (checked when a
# catalog loads: 1,000 x 1,000 passes, 100,000 x 100,000 does not).
MAX_TEMPLATE_LOOPS = 1_000_000
_MAX_INT_BITS = 65_536  # about 20,000 decimal digits

_SIZED = (str, bytes, list, tuple)
_DIGITS = re.compile(r"\d+")
# str methods whose int argument is an output width, and the filters that pad
_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
_FORMAT_METHODS = frozenset({"format", "format_map"})
_CHECKED_FILTERS = frozenset({"center", "indent", "format"})  # width arguments, at load


def _security_error(message: str) -> Exception:
    from jinja2.exceptions import SecurityError

    return SecurityError(message)


def _too_big(what: str) -> Exception:
    return _security_error(f"{what} would exceed the template size limit of {MAX_TEMPLATE_SIZE:,}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_width(value: Any, what: str) -> None:
    if _is_int(value) and value > MAX_TEMPLATE_SIZE:
        raise _too_big(what)


def _check_format(fmt: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """A format string whose widths (written, or passed for ``*``) could pass the cap."""
    if isinstance(fmt, str):
        for digits in _DIGITS.findall(fmt):
            if len(digits) > 8 or int(digits) > MAX_TEMPLATE_SIZE:
                raise _too_big("a format width")
    values = list(args) + list(kwargs.values())
    for value in values:
        if isinstance(value, tuple | list):
            values.extend(value)  # '%*s' % (n, s): the width sits in the tuple
        elif _is_int(value) and value > MAX_TEMPLATE_SIZE:
            raise _too_big("a format width")


def _check_binop(op: str, left: Any, right: Any) -> None:
    if op == "*":
        if isinstance(left, _SIZED) and _is_int(right):
            n, seq = right, left
        elif isinstance(right, _SIZED) and _is_int(left):
            n, seq = left, right
        else:
            if _is_int(left) and _is_int(right):
                if left.bit_length() + right.bit_length() > _MAX_INT_BITS:
                    raise _too_big("a number")
            return
        if n > 0 and len(seq) * n > MAX_TEMPLATE_SIZE:
            raise _too_big("repeating a sequence")
    elif op == "**":
        if _is_int(left) and _is_int(right) and right > 0 and abs(left) > 1:
            if right * abs(left).bit_length() > _MAX_INT_BITS:
                raise _too_big("a power")
    elif op == "+":
        if isinstance(left, _SIZED) and isinstance(right, _SIZED):
            if len(left) + len(right) > MAX_TEMPLATE_SIZE:
                raise _too_big("joining two sequences")
    elif op == "%" and isinstance(left, str):
        _check_format(left, (right,), {})


def _bounded_range(*args: int) -> range:
    numbers = range(*args)
    if len(numbers) > MAX_TEMPLATE_RANGE:
        raise _security_error(
            f"range() gives {len(numbers):,} items, over the limit of {MAX_TEMPLATE_RANGE:,}"
        )
    return numbers


_COUNTED = "toolcat_counted"


def _counted(iterable: Any, budget: list[int]) -> Iterator[Any]:
    for item in iterable:
        budget[0] -= 1
        if budget[0] < 0:
            raise _security_error(
                f"the template's loops ran over the limit of {MAX_TEMPLATE_LOOPS:,} iterations"
            )
        yield item


def _bounded_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` with its width or fill arguments checked before it runs."""

    @wraps(func)  # keeps Jinja's pass_* marker, so the filter is called as before
    def bounded(*args: Any, **kwargs: Any) -> Any:
        values = list(args) + list(kwargs.values())
        if name == "format":
            strings = [v for v in values if isinstance(v, str)]
            _check_format(strings[0] if strings else None, tuple(values), {})
        elif name == "replace":
            strs = [v for v in values if isinstance(v, str)]
            if len(strs) >= 3:
                s, old, new = strs[0], strs[1], strs[2]
                hits = len(s) + 1 if not old else s.count(old)
                if len(s) + hits * len(new) > MAX_TEMPLATE_SIZE:
                    raise _too_big("replace()")
        else:
            for value in values:
                _check_width(value, f"{name}()")
        return func(*args, **kwargs)

    return bounded


@cache
def _environment_class() -> type[ImmutableSandboxedEnvironment]:  # noqa: C901  builds the sandbox class once, lazily; the small methods it defines count here
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from jinja2.utils import Namespace

    class BoundedNamespace(Namespace):
        def __setitem__(self, name: str, value: Any) -> None:
            if isinstance(value, _SIZED) and len(value) > MAX_TEMPLATE_SIZE:
                raise _too_big("a namespace value")
            Namespace.__setitem__(self, name, value)

    class BoundedSandbox(ImmutableSandboxedEnvironment):
        # intercepted operators are never folded at compile time (jinja2 nodes.BinExpr.as_const)
        intercepted_binops = frozenset({"*", "**", "+", "%"})

        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            self.globals["range"] = _bounded_range
            self.globals["namespace"] = BoundedNamespace
            for name in ("center", "indent", "format", "replace", "batch", "slice", "wordwrap"):
                if name in self.filters:
                    self.filters[name] = _bounded_filter(name, self.filters[name])

        def _parse(self, source: str, name: str | None, filename: str | None) -> Any:
            # Every ``{% for %}`` iterates through ``toolcat_counted``: one budget of
            # iterations per rendering, across all loops, nested or not. The name is
            # an environment attribute, so a template cannot shadow it with ``set``.
            from jinja2 import nodes

            tree = super()._parse(source, name, filename)
            for loop in list(tree.find_all(nodes.For)):
                loop.iter = nodes.Call(
                    nodes.EnvironmentAttribute(_COUNTED),
                    [nodes.ContextReference(), loop.iter],
                    [],
                    None,
                    None,
                    lineno=loop.iter.lineno,
                )
            return tree

        def toolcat_counted(self, context: Any, iterable: Any) -> Iterator[Any]:
            budget: list[int] | None = getattr(context, "_toolcat_loops", None)
            if budget is None:
                budget = [MAX_TEMPLATE_LOOPS]
                context._toolcat_loops = budget  # one budget per rendering (its context)
            return _counted(iterable, budget)

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            _check_binop(operator, left, right)
            return _BINOPS[operator](left, right)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            method = getattr(__obj, "__wrapped__", __obj)  # str.format comes wrapped by the sandbox
            if isinstance(getattr(method, "__self__", None), str):
                name = getattr(method, "__name__", "")
                if name in _WIDTH_METHODS:
                    for value in (*args, *kwargs.values()):
                        _check_width(value, f"str.{name}()")
                elif name in _FORMAT_METHODS:
                    _check_format(method.__self__, args, kwargs)
                    for value in (*args, *kwargs.values()):
                        if isinstance(value, Mapping):
                            _check_format(None, tuple(value.values()), {})
                elif name == "replace" and len(args) >= 2:
                    s, old, new = method.__self__, args[0], args[1]
                    if isinstance(old, str) and isinstance(new, str):
                        hits = len(s) + 1 if not old else s.count(old)
                        if len(s) + hits * len(new) > MAX_TEMPLATE_SIZE:
                            raise _too_big("str.replace()")
            return super().call(__context, __obj, *args, **kwargs)

    return BoundedSandbox


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "*": operator.mul,
    "**": operator.pow,
    "+": operator.add,
    "%": operator.mod,
}


@cache
def sandbox_environment(*, strict: bool = True) -> ImmutableSandboxedEnvironment:
    """The shared environment: sandboxed and immutable (no ``__class__``, ``mro``, ``append``).

    ``strict`` (body templates, load-time checks): an undefined name is an
    error. Otherwise (``select`` expressions) it is ``Undefined``, which the
    executor turns into ``None``. No autoescaping: the output is JSON or text,
    never HTML. Sizes are bounded (see the module's docstring).

    >>> sandbox_environment() is sandbox_environment()
    True
    """
    from jinja2 import StrictUndefined, Undefined

    undefined = StrictUndefined if strict else Undefined
    return _environment_class()(undefined=undefined, autoescape=False)


def render_text(template: Template, context: Mapping[str, Any]) -> str:
    """``template.render(context)``, stopped once the output passes :data:`MAX_TEMPLATE_SIZE`."""
    parts: list[str] = []
    size = 0
    for part in template.generate(context):
        size += len(part)
        if size > MAX_TEMPLATE_SIZE:
            raise _too_big("the template's output")
        parts.append(part)
    return "".join(parts)


class _NotConstant(ToolcatError):
    """The expression depends on the call (an argument, a response): judged at run time."""


def constant_bound_error(tree: Any) -> tuple[str, int] | None:  # noqa: C901, PLR0915  one evaluator of Jinja's constant nodes, with its nested helpers; a branch per node type
    """The first constant part of a parsed template that passes a size limit, and its line.

    Run time stops such a template before it allocates; this says so when the
    catalog loads, so ``toolcat validate`` reports ``{{ 'x' * 3000000000 }}``,
    ``{{ range(10**9)|list }}`` or loops nested over constant ranges instead of
    a call failing later. Constant parts are evaluated with the same checks
    that run at run time (nothing past a limit is ever built); parts that
    depend on arguments or responses are left to run time.
    """
    from jinja2 import nodes
    from jinja2.exceptions import SecurityError

    ops = {nodes.Mul: "*", nodes.Pow: "**", nodes.Add: "+", nodes.Mod: "%"}

    def const(node: Any) -> Any:  # noqa: C901  a branch per kind of Jinja node that can be constant
        if isinstance(node, nodes.Const):
            return node.value
        if (
            isinstance(node, nodes.Call)
            and isinstance(node.node, nodes.EnvironmentAttribute)
            and node.node.name == _COUNTED
        ):
            return const(node.args[1])  # a loop's iterable, as the template wrote it
        if isinstance(node, nodes.List | nodes.Tuple):
            return [const(item) for item in node.items]
        if isinstance(node, nodes.Neg):
            value = const(node.node)
            if _is_int(value) or isinstance(value, float):
                return -value
        if type(node) in ops:
            op = ops[type(node)]
            left, right = const(node.left), const(node.right)
            _check_binop(op, left, right)
            try:
                return _BINOPS[op](left, right)
            except (TypeError, ValueError, ArithmeticError) as exc:
                raise _NotConstant from exc
        if isinstance(node, nodes.Filter) and node.name == "list" and node.node is not None:
            value = const(node.node)
            return list(value) if isinstance(value, range | list | tuple | str) else value
        if isinstance(node, nodes.Filter) and node.name in _CHECKED_FILTERS:
            # 'x' | center(3000000000): check the widths as the run-time filter does
            args = [const(a) for a in node.args]
            if node.name == "format":
                value = const(node.node) if node.node is not None else None
                _check_format(value, tuple(args), {})
            else:
                for arg in args:
                    _check_width(arg, f"{node.name}()")
            raise _NotConstant  # within the limits: its value is run time's business
        if (
            isinstance(node, nodes.Call)
            and isinstance(node.node, nodes.Getattr)
            and node.node.attr in _WIDTH_METHODS | _FORMAT_METHODS
        ):
            # 'x'.rjust(3000000000), '{:3000000000}'.format('x')
            text = const(node.node.node)
            args = [const(a) for a in node.args]
            if not isinstance(text, str):
                raise _NotConstant
            if node.node.attr in _WIDTH_METHODS:
                for arg in args:
                    _check_width(arg, f"str.{node.node.attr}()")
            else:
                _check_format(text, tuple(args), {})
            raise _NotConstant
        if (
            isinstance(node, nodes.Call)
            and isinstance(node.node, nodes.Name)
            and node.node.name == "range"
            and not node.kwargs
            and node.dyn_args is None
            and node.dyn_kwargs is None
        ):
            args = [const(a) for a in node.args]
            if not 1 <= len(args) <= 3 or not all(_is_int(a) for a in args):
                raise _NotConstant
            return _bounded_range(*args)
        raise _NotConstant

    def loops(node: Any, runs: int) -> tuple[str, int] | None:
        """Loops over constant ranges, nested: their iterations multiply."""
        for child in node.iter_child_nodes():
            inner = runs
            if isinstance(child, nodes.For):
                try:
                    items = const(child.iter)
                except (_NotConstant, SecurityError, RecursionError):
                    items = None
                if isinstance(items, range | list | tuple | str):
                    inner = runs * max(len(items), 1)
                    if inner > MAX_TEMPLATE_LOOPS:
                        return (
                            f"loops nested over constant ranges run {inner:,} times, "
                            f"over the limit of {MAX_TEMPLATE_LOOPS:,}",
                            int(child.lineno or 1),
                        )
            found = loops(child, inner)
            if found is not None:
                return found
        return None

    for node in tree.find_all((*ops, nodes.Call, nodes.Filter)):
        try:
            const(node)
        except (_NotConstant, RecursionError):
            continue
        except SecurityError as exc:
            return str(exc), int(getattr(node, "lineno", 1) or 1)
    return loops(tree, 1)
