"""Schema regexes (``pattern``, ``patternProperties``) on a linear-time engine: RE2.

A tool's schema comes from a spec or a catalog; the string it is matched against
comes from a model. Python's ``re`` backtracks: ``^(a+)+$`` against 27 ``a`` and
a ``!`` runs for seconds, and doubles with each ``a``. RE2 (``google-re2``)
matches in time linear in the input, whatever the pattern, so no argument can
stall a validation.

RE2 has no backreferences and no lookaround (``\\1``, ``(?=``, ``(?!``, ``(?<=``),
no ``\\Z`` and a repetition limit of 1000. A pattern it cannot compile is *not
checked*: the loader reports it (TC110, a warning) and validation treats it as
matching. Refusing the tool instead would fail whole OpenAPI imports over one
password regex, while the API behind the tool still validates its own input.
Where RE2 compiles a pattern it follows ECMA-262, as JSON Schema asks, more
closely than ``re``: ``\\d`` and ``\\w`` are ASCII, ``$`` is the end of the text
(not before a final newline).

jsonschema calls ``re.search`` inside its keyword functions (``pattern``,
``patternProperties``, ``additionalProperties``, ``unevaluatedProperties``).
:func:`linear_regex` makes those calls use RE2 for the code it wraps: jsonschema's
modules see a stand-in for ``re`` that asks RE2 while the context is active and
is plain ``re`` otherwise, so other users of jsonschema in the process are unchanged.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import sys
from collections.abc import Iterator
from typing import Any

__all__ = [
    "MAX_PATTERN_CACHE",
    "linear_regex",
    "pattern_problem",
    "pattern_search",
]

MAX_PATTERN_CACHE = 4096  # distinct patterns kept compiled (least recently used dropped)
_MAX_MEM = 8 << 20  # RE2's memory budget per pattern (its default); past it RE2 stays linear


def _options() -> Any:
    import re2

    options = re2.Options()
    options.log_errors = False  # a pattern RE2 refuses is a TC110 warning, not stderr noise
    options.max_mem = _MAX_MEM
    return options


@functools.lru_cache(maxsize=MAX_PATTERN_CACHE)
def _compiled(pattern: str) -> Any:
    """The RE2 program of ``pattern``, or the reason it has none (a ``str``)."""
    import re2

    try:
        return re2.compile(pattern, _options())
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        return str(detail)
    except (UnicodeError, TypeError, ValueError) as exc:  # a lone surrogate, a NUL...
        return str(exc)


def pattern_problem(pattern: str) -> str | None:
    """Why RE2 cannot run ``pattern`` (then it is not checked), or ``None``."""
    compiled = _compiled(pattern)
    return compiled if isinstance(compiled, str) else None


def pattern_search(pattern: str, text: str) -> bool:
    """``re.search(pattern, text)`` in linear time; ``True`` for a pattern RE2 cannot run."""
    compiled = _compiled(pattern)
    if isinstance(compiled, str):
        return True  # not checked (TC110 at load)
    try:
        return compiled.search(text) is not None
    except UnicodeError:  # a lone surrogate in the text: no JSON string holds one
        return False


_ACTIVE = contextvars.ContextVar("toolcat_linear_regex", default=False)


class _LinearRe:
    """Stands in for ``re`` in jsonschema's keyword modules; only ``search`` differs."""

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)

    @staticmethod
    def search(pattern: Any, string: Any, flags: int = 0) -> Any:
        if _ACTIVE.get() and type(pattern) is str and type(string) is str and not flags:
            return True if pattern_search(pattern, string) else None
        return re.search(pattern, string, flags)


_JSONSCHEMA_MODULES = ("jsonschema._keywords", "jsonschema._utils", "jsonschema._legacy_keywords")


@functools.cache
def _install() -> None:
    import importlib

    for name in _JSONSCHEMA_MODULES:
        try:
            module = sys.modules.get(name) or importlib.import_module(name)
        except ImportError:  # a later jsonschema moved it: the regex tests then fail loudly
            continue
        if getattr(module, "re", None) is re:
            module.re = _LinearRe()  # type: ignore[attr-defined]


@contextlib.contextmanager
def linear_regex() -> Iterator[None]:
    """jsonschema's regex matching runs on RE2 inside this block (this thread or task)."""
    _install()
    token = _ACTIVE.set(True)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
