"""Secrets of one call, and their removal from every text that leaves the executor."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache, partial
from typing import Any
from urllib.parse import quote, unquote

from toolcat.catalog.common import interpolate, pattern_search, references

__all__ = [
    "MASK",
    "MAX_ENCODED_SECRET",
    "MAX_SECRET_DEPTH",
    "Redactor",
    "SecretShape",
    "is_sensitive_header",
    "mask_secrets",
    "resolve",
    "secret_shape",
]

MASK = "***"

# Header names whose whole value is a secret, whatever produced it.
_SENSITIVE_HEADER = re.compile(
    r"authorization|cookie|token|secret|passw|api[-_]?key|apikey|session|signature|credential",
    re.IGNORECASE,
)
# Variable names that hold secrets even in non-secret fields (a key in a base URL).
_SENSITIVE_VAR = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH|CREDENTIAL|SIGNATURE", re.IGNORECASE)
# Shorter values are not masked: they would shred ordinary text.
_MIN_SECRET = 3
# Secrets longer than this are masked only as written (their encoded-form pattern
# would be large); no real credential comes near it.
MAX_ENCODED_SECRET = 4096
# What an upstream's echo may turn a character into: JSON's \uXXXX (any case) and
# \/, \", \\; percent-encoding of its UTF-8 bytes (any case); '+' for a space.
_JSON_SHORT = {"/": r"\\/", '"': r'\\"', "\\": r"\\\\"}


# Windows-1252 as the WHATWG Encoding Standard reads it (what "latin1" means to a web
# stack): its characters for bytes 0x80-0x9F; the five it leaves undefined stay C1 controls.
_CP1252 = {
    b: bytes([b]).decode("cp1252")
    for b in range(0x80, 0xA0)
    if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
}


def _mojibake(value: str) -> tuple[str, ...]:
    """What an upstream that decodes the UTF-8 bytes of ``value`` as Latin-1 (Python's
    WSGI and http.server, Node, Java servlets) or Windows-1252 reads; ``()`` for ASCII.

    >>> _mojibake("clé")
    ('clÃ©',)
    """
    if value.isascii():
        return ()
    latin1 = value.encode("utf-8").decode("latin-1")
    cp1252 = latin1.translate(_CP1252)
    return (latin1,) if cp1252 == latin1 else (latin1, cp1252)


def _char(ch: str) -> str:
    alts = [re.escape(ch)]
    code = ord(ch)
    if code < 0x10000:
        alts.append(r"\\u" + "".join(f"[{c.lower()}{c.upper()}]" for c in f"{code:04x}"))
    else:  # a UTF-16 surrogate pair in JSON
        hi, lo = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        alts.append(rf"(?i:\\u{hi:04x}\\u{lo:04x})")
    alts.append("".join(f"%(?i:{b:02x})" for b in ch.encode("utf-8")))
    if ch in _JSON_SHORT:
        alts.append(_JSON_SHORT[ch])
    if ch == " ":
        alts.append(r"\+")
    return "(?:" + "|".join(alts) + ")"


def _encoded(secret: str) -> re.Pattern[str]:
    """Any mix of the escaped forms of ``secret``, character by character."""
    return re.compile("".join(_char(ch) for ch in secret))


@lru_cache(maxsize=256)  # a caller's token recurs on each of its calls
def _echoes(token: str) -> tuple[str, ...]:
    """The forms an upstream's echo may give ``token``: JSON (``\\/``, ``\\"``,
    ``\\\\``; ``\\u003c`` for ``<>&`` as Go writes them, in either hex case) and
    percent-encoding (either hex case)."""
    json_text = token.replace("\\", "\\\\").replace('"', '\\"')
    forms = {json_text, json_text.replace("/", "\\/")}
    if any(ch in token for ch in "<>&"):
        for table in _HTML_ESCAPES:
            forms |= {text.translate(table) for text in list(forms)}
    forms.add(quote(token, safe=""))
    forms.add(token.translate(_PERCENT_LOWER))
    forms.discard(token)
    return tuple(forms)


_HTML_ESCAPES = tuple(
    str.maketrans({ch: "\\u" + fmt.format(ord(ch)) for ch in "<>&"}) for fmt in ("{:04x}", "{:04X}")
)
# percent-encoding with lower-case hex, as quote(safe="") encodes (ASCII)
_UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
_PERCENT_LOWER = {i: f"%{i:02x}" for i in range(128) if chr(i) not in _UNRESERVED}


def is_sensitive_header(name: str) -> bool:
    return _SENSITIVE_HEADER.search(name) is not None


class Redactor:
    """The secret values of one call; :meth:`__call__` masks them in any text."""

    __slots__ = ("_literal", "_patterns", "_secrets")

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: list[str] = []
        self._patterns: dict[str, re.Pattern[str]] = {}
        self._literal: set[str] = set()  # masked by their listed forms only, no pattern
        self.add(*secrets)

    def add(self, *values: str) -> None:
        """Secrets of the call: masked as written, in the forms an echo escapes them to
        (JSON, percent-encoding) and as an upstream that decodes their bytes as Latin-1
        or Windows-1252 reads them."""
        for value in values:
            if not value or len(value) < _MIN_SECRET:
                continue
            for form in (value, *_mojibake(value)):
                if form not in self._secrets:
                    self._secrets.append(form)
        # Longest first, so a secret that contains another is masked whole.
        self._secrets.sort(key=len, reverse=True)

    def add_token(self, *tokens: str) -> None:
        """Bearer tokens (a caller's, an exchanged one): masked as written and in the forms
        an echo gives them (JSON escapes, percent-encoding in either case), by plain
        replacement. A long token that changes with each caller would otherwise cost a
        regex compile per call, slow for a token that long."""
        for token in tokens:
            if not token or len(token) < _MIN_SECRET:
                continue
            forms = (token, *_echoes(token))
            self._literal.update(forms)
            self.add(*forms)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        if "\\" in text or "%" in text or "+" in text:
            for secret in self._secrets:  # an echo that escaped it: JSON, URL-encoding
                if len(secret) <= MAX_ENCODED_SECRET and secret not in self._literal:
                    pattern = self._patterns.get(secret)
                    if pattern is None:
                        pattern = self._patterns[secret] = _encoded(secret)
                    text = pattern.sub(MASK, text)
        return text

    def value(self, value: Any) -> Any:
        """A JSON value for display (a dry run's body): secrets masked in every string,
        a number that is one of the secrets masked whole."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self(value)
        if isinstance(value, Mapping):
            return {self(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        if isinstance(value, int | float) and not isinstance(value, bool):
            return MASK if json.dumps(value) in self._secrets else value
        return value

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        """Header values for display: sensitive names masked whole, secrets masked anywhere."""
        out: dict[str, str] = {}
        for name, value in headers:
            if is_sensitive_header(name):
                scheme, sep, _ = value.partition(" ")
                keep = sep and scheme.lower() in ("bearer", "basic", "token", "digest")
                out[name] = f"{scheme} {MASK}" if keep else MASK
            else:
                out[name] = self(value)
        return out


def resolve(
    text: str,
    env: Mapping[str, str],
    redactor: Redactor,
    *,
    where: str,
    secret: bool,
    unset: list[str] | None = None,
) -> str:
    """Interpolate ``${VAR}`` in ``text``; record secret values with ``redactor``.

    With ``secret`` every variable's value (and the result) is a secret; otherwise
    only variables whose names look like secrets (``API_KEY``, ``TOKEN``...) are.
    Raises :class:`toolcat.loader.MissingVariableError` naming a variable that is not
    set, unless ``unset`` is given (a dry run): then such a variable stands as its own
    reference (``${NAME}``, a secret where its value would be) and its name is added to
    ``unset``.
    """
    if "$" not in text:
        if secret:
            redactor.add(text)
        return text
    value = interpolate(
        text, env, where=where, missing=None if unset is None else partial(_stand_in, unset)
    )
    for name in references(text):
        if secret or _SENSITIVE_VAR.search(name):
            var_value = env.get(name)
            if var_value:
                redactor.add(var_value)
            elif unset is not None and name in unset:
                redactor.add("${" + name + "}")
    if secret:
        redactor.add(value)
    return value


def _stand_in(unset: list[str], name: str) -> str:
    """A dry run's stand-in for the unset variable ``name``: its reference, its name noted."""
    if name not in unset:
        unset.append(name)
    return "${" + name + "}"


# -- which argument values are secret -----------------------------------------------

# Nesting of arguments walked; a value deeper than this under a secret-bearing schema
# is masked whole (no real argument comes near it; a recursive schema has no end).
MAX_SECRET_DEPTH = 64
# In-place applicators: their subschemas describe the instance itself. ``not`` does not.
_IN_PLACE = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE = ("if", "then", "else")


def _marked(schema: Mapping[str, Any]) -> bool:
    return schema.get("writeOnly") is True or schema.get("format") == "password"


class SecretShape:
    """Where the secrets lie in the instances of one schema object.

    A node of a graph (a recursive schema makes it cyclic) with the secret-bearing
    subschemas of each keyword that reaches a part of the instance: ``properties``,
    ``patternProperties``, ``additionalProperties`` and ``unevaluatedProperties`` for
    an object's values, ``prefixItems``, ``items`` (and the older ``additionalItems``),
    ``contains`` and ``unevaluatedItems`` for an array's; ``also`` holds the schemas
    that apply to the instance itself (``allOf``/``anyOf``/``oneOf``, ``if``/``then``/
    ``else``, ``dependentSchemas``, ``$ref``). ``whole``: the instance is a secret.
    Where JSON Schema applies a keyword only sometimes (a branch that fails, a
    dependency that is absent) it is taken to apply: masking more is safe.
    """

    __slots__ = (
        "also",
        "items",
        "names",
        "others",
        "pattern_names",
        "patterns",
        "prefix",
        "properties",
        "whole",
    )

    def __init__(self) -> None:
        self.whole = False
        self.properties: dict[str, list[SecretShape]] = {}
        self.names: frozenset[str] = frozenset()  # every property, secret or not
        self.pattern_names: tuple[str, ...] = ()  # every pattern, secret or not
        self.patterns: list[tuple[str, SecretShape]] = []  # the secret ones
        self.others: list[SecretShape] = []  # values no property and no pattern names
        self.prefix: list[list[SecretShape]] = []
        self.items: list[SecretShape] = []  # items past the prefix (all: contains)
        self.also: list[SecretShape] = []

    def _children(self) -> Iterator[SecretShape]:
        for shapes in (*self.properties.values(), *self.prefix):
            yield from shapes
        yield from (shape for _, shape in self.patterns)
        yield from self.others
        yield from self.items
        yield from self.also


class _ShapeBuilder:
    """Builds the :class:`SecretShape` graph of one root schema (local ``$ref``s followed)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        # id(schema) -> its shape: a cycle ends here (every schema lies in root, alive)
        self.made: dict[int, SecretShape] = {}

    def shape(self, schema: Any, depth: int = 0) -> SecretShape | None:
        if not isinstance(schema, Mapping):
            return None
        found = self.made.get(id(schema))
        if found is not None:
            return found
        shape = self.made[id(schema)] = SecretShape()
        # a schema nested past the bound is not read: what lies below it is masked
        shape.whole = _marked(schema) or depth > MAX_SECRET_DEPTH
        if not shape.whole:
            self._fill(shape, schema, depth + 1)
        return shape

    def _fill(self, shape: SecretShape, schema: Mapping[str, Any], depth: int) -> None:
        def add(into: list[SecretShape], sub: Any) -> None:
            found = self.shape(sub, depth)
            if found is not None:
                into.append(found)

        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            shape.names = frozenset(properties)
            for name, sub in properties.items():
                add(shape.properties.setdefault(name, []), sub)
        patterns = schema.get("patternProperties")
        if isinstance(patterns, Mapping):
            shape.pattern_names = tuple(str(p) for p in patterns)
            for pattern, sub in patterns.items():
                found = self.shape(sub, depth)
                if found is not None:
                    shape.patterns.append((str(pattern), found))
        for key in ("additionalProperties", "unevaluatedProperties"):
            add(shape.others, schema.get(key))
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(items, list | tuple):  # before 2020-12: items as a list is the prefix
            prefix, items = items, schema.get("additionalItems")
        for sub in prefix if isinstance(prefix, list | tuple) else ():
            slot: list[SecretShape] = []
            add(slot, sub)
            shape.prefix.append(slot)
        for sub in (items, schema.get("unevaluatedItems"), schema.get("contains")):
            add(shape.items, sub)
        for key in _IN_PLACE:
            for sub in schema.get(key) or ():
                add(shape.also, sub)
        for key in _IN_PLACE_ONE:
            add(shape.also, schema.get(key))
        for key in ("dependentSchemas", "dependencies"):
            subs = schema.get(key)
            for sub in subs.values() if isinstance(subs, Mapping) else ():
                add(shape.also, sub)
        ref = schema.get("$ref")
        if isinstance(ref, str):  # beside other keywords (2020-12): applies in place too
            add(shape.also, self._target(ref))

    def _target(self, ref: str) -> Any:
        """The local schema ``ref`` names (``#``, ``#/$defs/x``...), or ``None``."""
        if not ref.startswith("#"):
            return None  # a URL or a file: never fetched, the call's validation refuses it
        value: Any = self.root
        pointer = unquote(ref[1:])
        for token in pointer.split("/")[1:] if pointer else ():
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(value, Mapping) and token in value:
                value = value[token]
            elif isinstance(value, list | tuple) and token.isdigit() and int(token) < len(value):
                value = value[int(token)]
            else:
                return None
        return value


def _prune(shapes: Iterable[SecretShape]) -> None:
    """Keep only the subschemas that lead to a secret (a fixpoint over the graph)."""
    every = list(shapes)
    secret = {id(s) for s in every if s.whole}
    changed = True
    while changed:
        changed = False
        for s in every:
            if id(s) not in secret and any(id(c) in secret for c in s._children()):
                secret.add(id(s))
                changed = True
    for s in every:

        def kept(found: list[SecretShape]) -> list[SecretShape]:
            return [c for c in found if id(c) in secret]

        s.properties = {k: kept(v) for k, v in s.properties.items() if kept(v)}
        s.patterns = [(p, c) for p, c in s.patterns if id(c) in secret]
        s.others, s.items, s.also = kept(s.others), kept(s.items), kept(s.also)
        s.prefix = [kept(slot) for slot in s.prefix]


def secret_shape(schema: Any, names: Iterable[str] = ()) -> SecretShape | None:
    """Where ``schema`` (a tool's input schema) marks its instances secret, or ``None``.

    ``writeOnly: true`` and ``format: password`` mark a value secret wherever the schema
    reaches it; ``names`` are arguments the catalog marks ``sensitive: true``.
    """
    builder = _ShapeBuilder(schema)
    root = builder.shape(schema) or SecretShape()
    whole = SecretShape()
    whole.whole = True
    for name in names:
        root.properties.setdefault(name, []).append(whole)
    _prune([root, whole, *builder.made.values()])
    if not root.whole and not any(True for _ in root._children()):
        return None
    return root


def _in_place(shapes: Iterable[SecretShape]) -> list[SecretShape]:
    """``shapes`` and every shape their ``also`` reaches (each once)."""
    out: list[SecretShape] = []
    seen: set[int] = set()
    stack = list(shapes)
    while stack:
        shape = stack.pop()
        if id(shape) not in seen:
            seen.add(id(shape))
            out.append(shape)
            stack.extend(shape.also)
    return out


def _value_shapes(shapes: list[SecretShape], key: str) -> list[SecretShape]:
    """The shapes of the value at ``key`` of an object whose shapes are ``shapes``."""
    found: list[SecretShape] = []
    for shape in shapes:
        found.extend(shape.properties.get(key, ()))
        found.extend(sub for pattern, sub in shape.patterns if pattern_search(pattern, key))
        if shape.others and key not in shape.names:
            if not any(pattern_search(p, key) for p in shape.pattern_names):
                found.extend(shape.others)
    return found


def _item_shapes(shapes: list[SecretShape], index: int) -> list[SecretShape]:
    found: list[SecretShape] = []
    for shape in shapes:
        found.extend(shape.prefix[index] if index < len(shape.prefix) else shape.items)
    return found


def _scalars(value: Any, out: list[str]) -> None:
    """Every string and number in ``value``, as text, into ``out``."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        out.append(json.dumps(value))
    elif isinstance(value, Mapping):
        for item in value.values():
            _scalars(item, out)
    elif isinstance(value, list | tuple):
        for item in value:
            _scalars(item, out)


def _walk(value: Any, shapes: list[SecretShape], depth: int, found: list[str]) -> Any:
    """``value`` with its secrets masked; the secrets' texts are added to ``found``."""
    shapes = _in_place(shapes)
    if any(s.whole for s in shapes) or depth > MAX_SECRET_DEPTH:
        _scalars(value, found)
        return MASK
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            subs = _value_shapes(shapes, str(key))
            out[key] = _walk(item, subs, depth + 1, found) if subs else item
        return out
    if isinstance(value, list | tuple):
        items = []
        for index, item in enumerate(value):
            subs = _item_shapes(shapes, index)
            items.append(_walk(item, subs, depth + 1, found) if subs else item)
        return items
    return value


def mask_secrets(args: Any, shape: SecretShape | None) -> tuple[Any, list[str]]:
    """``args`` with every value ``shape`` marks secret replaced by ``***``, and the
    masked values as text (strings and numbers) for a :class:`Redactor`.

    >>> shape = secret_shape({"additionalProperties": {"format": "password"}})
    >>> mask_secrets({"db": "hunter22"}, shape)
    ({'db': '***'}, ['hunter22'])
    """
    if shape is None:
        return args, []
    found: list[str] = []
    return _walk(args, [shape], 0, found), found
