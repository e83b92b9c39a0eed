"""The one fast schema path: "is this value valid?" for the common subset of JSON Schema 2020-12.

Most tool schemas use a handful of keywords (type, properties, required, enum,
bounds, items, uniqueItems, anyOf...). For those, :func:`compile_check` builds a
closure that answers exactly as jsonschema's ``Draft202012Validator`` would,
several times faster, without importing jsonschema. Any keyword it does not know
makes it return ``None``, and the caller uses jsonschema, which also explains
failures (the executor for every argument error, the loader for TC023/TC024).

    >>> check = compile_check({"type": "object", "required": ["id"]})
    >>> check({"id": 1}), check({})
    (True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from toolcat._errors import ToolcatError

from ._regex import pattern_problem, pattern_search

__all__ = ["INTEGER_FORMATS", "compile_check", "integer_format_check"]

Check = Callable[[Any], bool]
_Sized = type[str] | type[list[Any]] | type[dict[str, Any]]

# Keywords that never affect validity: annotations, and OpenAPI extras that validators ignore.
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "example",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "$schema",
        "$id",
        "$defs",  # compiled only where a $ref points into it
        "definitions",
        "contentMediaType",
        "contentEncoding",
        "x-nullable",
        "nullable",
        "discriminator",
        "xml",
        "externalDocs",
    }
)
_KNOWN = _ANNOTATIONS | {
    "type",
    "enum",
    "const",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
}
_NUMBER_KEYS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_STRING_KEYS = frozenset({"minLength", "maxLength", "pattern"})
_ARRAY_KEYS = frozenset({"items", "minItems", "maxItems", "uniqueItems"})
_OBJECT_KEYS = frozenset(
    {"properties", "required", "additionalProperties", "minProperties", "maxProperties"}
)
_COMBINATION_KEYS = frozenset({"allOf", "anyOf", "oneOf"})
_LOCAL_REFS = ("#/$defs/", "#/definitions/")  # to a name: "#/$defs/Pet" (no escapes)

# OpenAPI's integer formats, as validating servers (Prism, ajv) enforce them: int64 is held to
# the integers a JSON number keeps exactly everywhere (I-JSON, RFC 7493 §2.2), ±(2**53 - 1).
INTEGER_FORMATS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**53) + 1, 2**53 - 1)}


def integer_format_check(fmt: str) -> Callable[[object], bool]:
    """The check of an integer format of :data:`INTEGER_FORMATS`; values other than numbers pass."""
    low, high = INTEGER_FORMATS[fmt]

    def check(value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return True
        return low <= value <= high

    return check


def _plain_name(name: str) -> bool:
    return bool(name) and name.replace("_", "a").replace("-", "a").replace(".", "a").isalnum()


class _Unsupported(ToolcatError):  # internal: compile_check answers None
    pass


class _Compiler:
    """One schema's compilation: the root (for ``$ref``) and the formats the caller asserts."""

    def __init__(self, root: Mapping[str, Any], formats: Collection[str]) -> None:
        self.root = root
        self.formats = formats
        self.refs: dict[str, Check] = {}
        self.nested_id = False
        self.owner: str | None = None  # the $ref being compiled, until a descent into the value
        self.edges: dict[str, set[str]] = {}  # $ref -> the $refs it applies to the same value

    def ref(self, pointer: Any) -> Check:
        if not isinstance(pointer, str):
            raise _Unsupported("$ref")
        if self.owner is not None:
            self.edges.setdefault(self.owner, set()).add(pointer)
        done = self.refs.get(pointer)
        if done is not None:
            return done
        prefix = next((p for p in _LOCAL_REFS if pointer.startswith(p)), None)
        name = pointer[len(prefix) :] if prefix else ""
        defs = self.root.get(prefix[2:-1]) if prefix else None
        if not _plain_name(name) or not isinstance(defs, Mapping) or name not in defs:
            raise _Unsupported(pointer)  # other references: jsonschema resolves them
        target: list[Check] = []
        self.refs[pointer] = lambda v: target[0](v)  # a recursive $ref sees itself
        owner, self.owner = self.owner, pointer
        try:
            target.append(self.compile(defs[name], nested=True))
        finally:
            self.owner = owner
        return self.refs[pointer]

    def descend(self, schema: Any) -> Check:
        """A subschema applied to a part of the value: a $ref cycle through it ends."""
        owner, self.owner = self.owner, None
        try:
            return self.compile(schema, nested=True)
        finally:
            self.owner = owner

    def loops(self) -> bool:
        """True if a $ref reaches itself without descending into the value (never ends)."""
        state: dict[str, int] = {}  # 1: on the path, 2: done

        def visit(node: str) -> bool:
            state[node] = 1
            for nxt in self.edges.get(node, ()):
                if state.get(nxt) == 1 or (nxt not in state and visit(nxt)):
                    return True
            state[node] = 2
            return False

        return any(node not in state and visit(node) for node in list(self.edges))

    def compile(self, schema: Any, nested: bool) -> Check:
        if schema is True or (isinstance(schema, Mapping) and not schema):
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, Mapping):
            raise _Unsupported(schema)
        keys = schema.keys()
        for key in keys - _KNOWN:
            if not isinstance(key, str) or not key.startswith("x-"):
                raise _Unsupported(key)
        if nested and "$id" in keys:
            self.nested_id = True  # a new base URI for $ref below it: leave to jsonschema
        active = keys - _ANNOTATIONS  # compile only what the schema uses (many tools: once each)
        checks: list[Check] = []
        if "type" in active:
            self._type(schema["type"], checks)
        if "enum" in active or "const" in active:
            _values(schema, checks)
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in self.formats:
            if fmt not in INTEGER_FORMATS:
                raise _Unsupported(fmt)  # the caller's format checker owns it
            checks.append(integer_format_check(fmt))
        if active & _NUMBER_KEYS:
            _numbers(schema, checks)
        if active & _STRING_KEYS:
            _strings(schema, checks)
        if active & _ARRAY_KEYS:
            self._arrays(schema, checks)
        if active & _OBJECT_KEYS:
            self._objects(schema, checks)
        if active & _COMBINATION_KEYS:
            self._combinations(schema, checks)
        if "$ref" in active:
            checks.append(self.ref(schema["$ref"]))
        return _all_of(checks)

    @staticmethod
    def _type(kind: Any, checks: list[Check]) -> None:
        if isinstance(kind, str):
            checks.append(_is_type(kind))
        elif isinstance(kind, list):
            alts = [_is_type(k) for k in kind]
            checks.append(lambda v: any(a(v) for a in alts))
        elif kind is not None:
            raise _Unsupported(kind)

    def _arrays(self, schema: Mapping[str, Any], checks: list[Check]) -> None:
        if "items" in schema:
            item = self.descend(schema["items"])

            def each(v: Any) -> bool:
                if isinstance(v, list):
                    for i in v:
                        if not item(i):
                            return False
                return True

            checks.append(each)
        _lengths(schema, checks, list, "minItems", "maxItems")
        unique = schema.get("uniqueItems", False)
        if unique is True:
            checks.append(lambda v: not isinstance(v, list) or _unique(v))
        elif unique is not False:
            raise _Unsupported("uniqueItems")

    def _objects(self, schema: Mapping[str, Any], checks: list[Check]) -> None:
        props = {k: self.descend(s) for k, s in (schema.get("properties") or {}).items()}
        required = tuple(schema.get("required") or ())
        if not all(isinstance(name, str) for name in required):
            raise _Unsupported("required")
        extra = schema.get("additionalProperties", True)
        extra_check = None if extra is True else self.descend(extra)
        _lengths(schema, checks, dict, "minProperties", "maxProperties")
        if not props and not required and extra_check is None:
            return

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for name in required:
                if name not in v:
                    return False
            for key, value in v.items():
                sub = props.get(key)
                if sub is not None:
                    if not sub(value):
                        return False
                elif extra_check is not None and not extra_check(value):
                    return False
            return True

        checks.append(check)

    def _combinations(self, schema: Mapping[str, Any], checks: list[Check]) -> None:
        for key in ("allOf", "anyOf", "oneOf"):
            if key not in schema:
                continue
            subs = schema[key]
            if not isinstance(subs, list) or not subs:
                raise _Unsupported(key)
            alts = [self.compile(s, nested=True) for s in subs]
            if key == "allOf":
                checks.append(_all_of(alts))
            elif key == "anyOf":
                checks.append(_any_of(alts))
            else:
                checks.append(_one_of(alts))


def _all_of(checks: list[Check]) -> Check:
    """One check for several (unrolled for the common small counts: this runs per call)."""
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda v: a(v) and b(v)
    if len(checks) == 3:
        a, b, c = checks
        return lambda v: a(v) and b(v) and c(v)

    def every(v: Any) -> bool:
        for check in checks:
            if not check(v):
                return False
        return True

    return every


def _any_of(alts: list[Check]) -> Check:
    return lambda v: any(a(v) for a in alts)


def _one_of(alts: list[Check]) -> Check:
    return lambda v: sum(1 for a in alts if a(v)) == 1


def _is_type(kind: str) -> Check:
    if kind == "string":
        return lambda v: isinstance(v, str)
    if kind == "integer":
        return lambda v: (
            (isinstance(v, int) and not isinstance(v, bool))
            or (isinstance(v, float) and v.is_integer())
        )
    if kind == "number":
        return _num
    if kind == "boolean":
        return lambda v: isinstance(v, bool)
    if kind == "null":
        return lambda v: v is None
    if kind == "array":
        return lambda v: isinstance(v, list)
    if kind == "object":
        return lambda v: isinstance(v, dict)
    raise _Unsupported(kind)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality, as jsonschema's: 1 and 1.0 are equal, 1 and true are not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | dict) or isinstance(b, list | dict):
        return False
    return bool(a == b)


def _unique(items: list[Any]) -> bool:
    if all(isinstance(i, str | int | float) and not isinstance(i, bool) for i in items):
        return len(set(items)) == len(items)  # hashing agrees with JSON equality here
    return not any(_equal(a, b) for n, a in enumerate(items) for b in items[n + 1 :])


def _values(schema: Mapping[str, Any], checks: list[Check]) -> None:
    if "enum" in schema:
        options = schema["enum"]
        if not isinstance(options, list):
            raise _Unsupported("enum")
        if all(isinstance(o, str) for o in options):
            allowed = frozenset(options)
            checks.append(lambda v: isinstance(v, str) and v in allowed)
        else:
            checks.append(lambda v: any(_equal(v, o) for o in options))
    if "const" in schema:
        const = schema["const"]
        checks.append(lambda v: _equal(v, const))


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _numbers(schema: Mapping[str, Any], checks: list[Check]) -> None:
    bounds = {}
    for key in _NUMBER_KEYS:
        if key in schema:
            bound = schema[key]
            if not _num(bound):
                raise _Unsupported(key)
            bounds[key] = bound
    if not bounds:
        return
    low, high = bounds.get("minimum"), bounds.get("maximum")
    above, below = bounds.get("exclusiveMinimum"), bounds.get("exclusiveMaximum")

    def in_range(v: Any) -> bool:
        if not isinstance(v, int | float) or isinstance(v, bool):
            return True
        return (
            (low is None or v >= low)
            and (high is None or v <= high)
            and (above is None or v > above)
            and (below is None or v < below)
        )

    checks.append(in_range)


def _lengths(
    schema: Mapping[str, Any],
    checks: list[Check],
    kind: _Sized,
    low_key: str,
    high_key: str,
) -> None:
    """``len()`` bounds (``minLength``/``maxItems``...) on the values of type ``kind``."""
    for key, at_least in ((low_key, True), (high_key, False)):
        if key not in schema:
            continue
        bound = schema[key]
        if not _num(bound) or bound != int(bound):
            raise _Unsupported(key)
        checks.append(_length_check(kind, int(bound), at_least))


def _length_check(kind: _Sized, n: int, at_least: bool) -> Check:
    if at_least:
        return lambda v: not isinstance(v, kind) or len(v) >= n
    return lambda v: not isinstance(v, kind) or len(v) <= n


def _strings(schema: Mapping[str, Any], checks: list[Check]) -> None:
    _lengths(schema, checks, str, "minLength", "maxLength")
    if "pattern" in schema:
        pattern = schema["pattern"]
        if not isinstance(pattern, str) or pattern_problem(pattern) is not None:
            raise _Unsupported("pattern")  # not run by RE2: jsonschema (TC110: not checked)
        # RE2, linear in the string (jsonschema answers the same under linear_regex())
        checks.append(lambda v: not isinstance(v, str) or pattern_search(pattern, v))


def compile_check(schema: Mapping[str, Any], *, formats: Collection[str] = ()) -> Check | None:
    """A function telling whether a value is valid, or ``None`` for schemas it cannot judge.

    ``formats`` names the formats the caller's validator asserts (jsonschema's
    ``format_checker``); other formats are annotations. The integer formats of
    :data:`INTEGER_FORMATS` are checked here; any other asserted format makes it
    return ``None``. Verdicts equal ``Draft202012Validator(schema,
    format_checker=...).is_valid`` (a differential test holds it to that).
    """
    try:
        compiler = _Compiler(schema, formats)
        check = compiler.compile(schema, nested=False)
    except (_Unsupported, TypeError, ValueError, AttributeError, RecursionError):
        return None
    if not compiler.refs:
        return check
    if compiler.nested_id or compiler.loops():
        return None

    def guarded(value: Any) -> bool:
        try:
            return check(value)
        except RecursionError:  # a recursive schema and a very deep value: not sure
            return False

    return guarded
