"""What a plain YAML scalar means: the YAML 1.2 core schema, and where YAML 1.1 differs.

Scalars follow the YAML 1.2 core schema, as OpenAPI 3.1 and the JavaScript
tools most specs and catalogs are written with do:

- ``true``/``True``/``TRUE`` and ``false``/... are booleans; ``yes``, ``no``,
  ``on``, ``off``, ``y``, ``n`` are strings (YAML 1.1, PyYAML's ``safe_load``,
  read ``enum: [DE, FR, NO]`` as ``["DE", "FR", False]``);
- ``null``/``Null``/``NULL``/``~`` and an empty value are null;
- ``12``, ``-3``, ``0o17``, ``0x1F`` are ints; ``1.5``, ``.5``, ``1e5``,
  ``.inf``, ``.nan`` are floats; ``1_000``, ``12:30`` (sexagesimal) and
  ``0b101`` are strings, and ``010`` is ten;
- timestamps stay strings (the data model is JSON's), ``=`` is a string, and
  mapping keys are the text as written (``200:`` -> ``"200"``).

A plain scalar that YAML 1.1 would have read as a boolean or number but 1.2
reads as a string is noted (:class:`Yaml11Scalar`), so catalog lint can say
where a text copied from a YAML 1.1 tool changed meaning (TC109).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

__all__ = ["SafeLoader", "Yaml11Scalar", "plain_is_text", "resolve_plain", "typed_value"]

try:  # the C parser is much faster; PyYAML without libyaml falls back to Python
    SafeLoader: type[Any] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    SafeLoader = yaml.SafeLoader

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
MERGE = "tag:yaml.org,2002:merge"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
# Our own tags for a plain scalar that YAML 1.1 reads otherwise, whose place the reader
# notes: a string under YAML 1.2 but a boolean or number under 1.1 (the value is the
# text), and an integer with a leading zero, decimal under 1.2 but octal under 1.1
# (`010`: ten here, eight there; the value is the decimal one).
STR_WAS_11 = "tag:toolcat,2026:str-was-yaml11"
INT_WAS_11 = "tag:toolcat,2026:int-was-yaml11"

# The YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
_CORE_NULL = frozenset(("", "~", "null", "Null", "NULL"))
_CORE_BOOL = {
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}
_CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_CORE_FLOAT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_NUMBER_START = frozenset("-+.0123456789")
# YAML 1.1 (PyYAML's resolver, plus the y/n booleans of the 1.1 spec that Go's
# yaml.v2 and others read): only asked about texts that 1.2 reads as strings.
_YAML11: Any = Resolver()
_YAML11_BOOL = frozenset("y Y n N".split())
_YAML11_CHANGED = frozenset((BOOL, INT, FLOAT))
_YAML11_OCTAL = re.compile(r"[-+]?0[0-7]+")

# Catalogs repeat the same plain texts (keys, types, names): each is resolved once.
_RESOLVED: dict[str, str] = {}  # plain scalar text -> implicit tag, shared by every load
_RESOLVED_LIMIT = 100_000


def _core_tag(text: str) -> str:
    """The implicit tag of a plain scalar under the YAML 1.2 core schema."""
    if text in _CORE_NULL:
        return NULL
    if text in _CORE_BOOL:
        return BOOL
    if text[0] in _NUMBER_START:
        if _CORE_INT.fullmatch(text):
            if _YAML11_OCTAL.fullmatch(text) and int(text, 8) != int(text, 10):
                return INT_WAS_11
            return INT
        if _CORE_FLOAT.fullmatch(text):
            return FLOAT
    if text == "<<":
        return MERGE  # merge keys, as PyYAML (and catalogs) have always read them
    if text in _YAML11_BOOL or _YAML11.resolve(ScalarNode, text, (True, False)) in _YAML11_CHANGED:
        return STR_WAS_11
    return STR


def resolve_plain(text: str) -> str:
    """The tag of an untagged plain scalar (memoised: short texts repeat)."""
    tag = _RESOLVED.get(text)
    if tag is None:
        tag = _core_tag(text)
        # short texts repeat (keys, types, names); long prose would only pin memory
        if len(text) <= 64 and len(_RESOLVED) < _RESOLVED_LIMIT:
            _RESOLVED[text] = tag
    return tag


def plain_is_text(text: str) -> bool:
    """Whether ``text`` written unquoted reads back as that string (YAML 1.2 core schema)."""
    return _core_tag(text) in (STR, STR_WAS_11)


def typed_value(tag: str, text: str) -> Any:
    """The value of a scalar of core-schema ``tag`` (any tag but ``STR``).

    Raises ``KeyError`` or ``ValueError`` when the text cannot be read as its
    tag says (an explicit ``!!int abc``), and ``TypeError`` for a tag outside
    the core schema (``!!binary``, ``!custom``).
    """
    if tag == STR_WAS_11:
        return text
    if tag == NULL:
        return None
    if tag == BOOL:
        return _CORE_BOOL[text]
    if tag in (INT, INT_WAS_11):
        if text.isdigit():
            return int(text)
        body = text.lstrip("+-")
        sign = -1 if text.startswith("-") else 1
        if body[:2] in ("0o", "0x"):
            return sign * int(body[2:], 8 if body[1] == "o" else 16)
        return int(text, 10)
    if tag == FLOAT:
        body = text.lstrip("+-").lower()
        if body == ".inf":
            return -math.inf if text.startswith("-") else math.inf
        if body == ".nan":
            return math.nan
        return float(text)
    if tag == TIMESTAMP:
        return text  # keep dates as text: the data model is JSON's
    raise TypeError(tag)


@dataclass(frozen=True, slots=True)
class Yaml11Scalar:
    """A plain scalar that YAML 1.1 reads otherwise: read as a string here but as a
    boolean or number there, or an integer with a leading zero (octal there)."""

    text: str
    line: int
    column: int

    @property
    def yaml12(self) -> str | int:
        """The value toolcat reads (YAML 1.2 core schema)."""
        return int(self.text, 10) if _core_tag(self.text) == INT_WAS_11 else self.text

    @property
    def yaml11(self) -> bool | int | float:
        """The value a YAML 1.1 tool (PyYAML's ``safe_load``, Go's yaml.v2) reads."""
        if self.text in _YAML11_BOOL:
            return self.text in ("y", "Y")
        value: bool | int | float = yaml.load(self.text, Loader=SafeLoader)  # noqa: S506 - safe
        return value
