"""Schema regexes (``pattern``, ``patternProperties``) on a linear-time engine.

A tool's schema comes from a spec or a catalog; the string it is matched against
comes from a model. Python's ``re`` backtracks: ``^(a+)+$`` against 27 ``a`` and
a ``!`` runs for seconds, and doubles with each ``a``. Every validator toolcat
builds for values it does not control is jsonschema-rs's with its ``regex``
engine (Rust's regex crate): :func:`linear_validator`. That engine matches in
time linear in the input whatever the pattern, so no argument can stall a
validation.

That engine has no lookaround and no backreferences (``(?=``, ``(?!``, ``(?<=``,
``\\1``) and no ``\\Z``. A pattern it cannot compile is *not checked*: the loader
reports it (TC110, a warning) and validators are built from
:func:`runnable_schema`, where such a ``pattern`` is left out and such a
``patternProperties`` name matches every property name. Refusing the tool instead
would fail whole OpenAPI imports over one password regex, while the API behind the
tool still validates its own input. Where it compiles a pattern it follows
ECMA-262, as JSON Schema asks, more closely than ``re``: ``\\d`` is ASCII and
``$`` is the end of the text (not before a final newline).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ._depth import recursion_headroom
from ._frozen import thaw

if TYPE_CHECKING:
    import jsonschema_rs

__all__ = [
    "MAX_PATTERN_CACHE",
    "linear_validator",
    "pattern_runs",
    "pattern_search",
    "runnable_schema",
    "schema_objects",
    "unrunnable_patterns",
]

MAX_PATTERN_CACHE = 4096  # distinct patterns whose verdict is kept (least recently used dropped)

# Keywords whose values are data, not schemas: a "pattern" key inside them is no keyword.
_VALUE_KEYS = frozenset({"enum", "const", "default", "examples", "example"})


@functools.cache
def _linear_engine() -> Any:
    """jsonschema-rs's ``pattern_options`` for its linear-time ``regex`` engine."""
    import jsonschema_rs

    return jsonschema_rs.RegexOptions()


def _refuse(uri: str) -> Any:
    raise LookupError(f"toolcat never fetches a schema from a URL or a file ({uri[:120]!r})")


def linear_validator(
    schema: Any, *, formats: Mapping[str, Callable[[str], bool]] | None = None
) -> jsonschema_rs.Validator:
    """jsonschema-rs's validator of ``schema`` (its ``$schema`` dialect, default 2020-12):
    ``pattern`` and ``patternProperties`` on the linear-time engine (those it cannot run
    left out, :func:`runnable_schema`), and a retriever that refuses every URL and file.

    ``formats`` given: the formats jsonschema-rs knows are asserted, with these checks
    added or replacing its own; otherwise every format is an annotation. Raises
    ``jsonschema_rs.ValidationError`` for a schema it cannot compile: a ``$ref`` to a
    URL, a file or nowhere (kind ``$ref``), or a schema that is not valid JSON Schema.
    """
    import jsonschema_rs

    with recursion_headroom():  # runnable_schema copies the schema, a few frames per level
        plain = runnable_schema(schema)
    return jsonschema_rs.validator_for(
        plain,
        validate_formats=formats is not None,
        formats=dict(formats) if formats is not None else None,
        retriever=_refuse,
        pattern_options=_linear_engine(),
    )


@functools.lru_cache(maxsize=MAX_PATTERN_CACHE)
def _pattern_validator(pattern: str) -> jsonschema_rs.Validator | None:
    """A string validator of ``pattern`` on the linear-time engine, or ``None`` when that
    engine cannot compile it."""
    import jsonschema_rs

    try:
        return jsonschema_rs.validator_for(
            {"type": "string", "pattern": pattern}, pattern_options=_linear_engine()
        )
    except (jsonschema_rs.ValidationError, ValueError):  # ValueError: a lone surrogate, ...
        return None


def pattern_runs(pattern: str) -> bool:
    """Whether the linear-time engine compiles ``pattern`` (else it is not checked)."""
    return _pattern_validator(pattern) is not None


def pattern_search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, as JSON Schema's ``pattern`` does
    (ECMA-262, unanchored), on the linear-time engine; ``True`` for a pattern that engine
    cannot run (not checked: TC110 at load), so a caller that masks errs on masking."""
    validator = _pattern_validator(pattern)
    return True if validator is None else bool(validator.is_valid(text))


def schema_objects(schema: Any) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """``(path, object)`` for every object in ``schema`` outside the value keywords
    (``enum``, ``const``, ``default``, ``examples``), each before the objects below it.

    Iterative (a stack, no recursion): a schema nested to the nesting limit is walked too.
    Objects that hold subschemas by name (``properties``) are yielded too: their values
    are schemas, never strings, so a string-valued keyword is always a keyword.
    """
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, dict):
            yield path, node
            for key, value in reversed(list(node.items())):
                if key not in _VALUE_KEYS and isinstance(value, dict | list):
                    stack.append(((*path, key), value))


def unrunnable_patterns(schema: Any) -> Iterator[tuple[tuple[str | int, ...], str, bool]]:
    """``(path, pattern, is_name)`` for each ``pattern`` (``is_name`` False: ``path`` ends
    in ``"pattern"``) and each ``patternProperties`` name (True: ``path`` ends in the
    name) that the linear-time engine cannot run, an object's own before those below it."""
    for path, node in schema_objects(schema):
        pattern = node.get("pattern")
        if type(pattern) is str and not pattern_runs(pattern):
            yield (*path, "pattern"), pattern, False
        names = node.get("patternProperties")
        if isinstance(names, dict):
            for name in names:
                if type(name) is str and not pattern_runs(name):
                    yield (*path, "patternProperties", name), name, True


def runnable_schema(schema: Any) -> Any:
    """A plain copy of ``schema`` (``dict``/``list``: jsonschema-rs takes no subclasses)
    without the patterns the linear-time engine cannot run: such a ``pattern`` is left
    out, and the subschema of such a ``patternProperties`` name moves under ``""``, which
    matches every name (as if the pattern matched; several are joined by ``allOf``).

    Recursive (:func:`~toolcat.catalog.common.thaw`): call it inside ``recursion_headroom()``.
    """
    plain = thaw(schema)
    # deepest first: a move of a name must not break the paths found below it
    for path, pattern, is_name in reversed(list(unrunnable_patterns(plain))):
        node: Any = plain
        for part in path[: -2 if is_name else -1]:
            node = node[part]
        if not is_name:
            del node["pattern"]
            continue
        moved = node["patternProperties"].pop(pattern)
        if "" in node["patternProperties"]:
            moved = {"allOf": [node["patternProperties"][""], moved]}
        node["patternProperties"][""] = moved
    return plain
