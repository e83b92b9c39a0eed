"""The one sandboxed Jinja environment that body templates and ``select`` expressions run in.

Both the loader (which checks templates at load time) and the executor (which
renders them per call) take their environment from here, so a template that
loads is judged by the same rules that run it. jinja2 is imported on first
use: importing the catalog stays cheap.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

__all__ = ["sandbox_environment"]


@cache
def sandbox_environment(*, strict: bool = True) -> ImmutableSandboxedEnvironment:
    """The shared environment: sandboxed and immutable (no ``__class__``, ``mro``, ``append``).

    ``strict`` (body templates, load-time checks): an undefined name is an
    error. Otherwise (``select`` expressions) it is ``Undefined``, which the
    executor turns into ``None``. No autoescaping: the output is JSON or text,
    never HTML.

    >>> sandbox_environment() is sandbox_environment()
    True
    """
    from jinja2 import StrictUndefined, Undefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    undefined = StrictUndefined if strict else Undefined
    return ImmutableSandboxedEnvironment(undefined=undefined, autoescape=False)
