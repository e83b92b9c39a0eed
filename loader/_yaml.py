"""The one YAML reader: YAML 1.2 core-schema values, with where every key and value was written.

Catalogs, OpenAPI specs (``loader/openapi/_read.py``) and every other YAML
toolcat reads (:func:`read_yaml`) go through here, so a text means the same
value everywhere. Scalars follow the YAML 1.2 core schema, as OpenAPI 3.1 and
the JavaScript tools most specs and catalogs are written with do:

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
reads as a string is listed (:attr:`ParsedYaml.yaml11`), so catalog lint can
say where a text copied from a YAML 1.1 tool changed meaning (TC109).

PyYAML's C composer builds the node tree (it keeps marks); one walk turns it
into plain Python values, reporting duplicate keys (which ``yaml.load`` keeps
silently) and unsupported tags on the way; another copies every node's position
into plain tuples (:class:`Positions`, looked up by YAML path), and the tree is freed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from toolcat._errors import ToolcatError
from toolcat.catalog.common import MAX_NESTING_DEPTH
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from ._diagnostics import CatalogError, Diagnostic, Severity

__all__ = [
    "EXPANSION_FACTOR",
    "EXPANSION_FLOOR",
    "EXPANSION_FLOOR_CHARS",
    "MAX_YAML_CHARS",
    "MAX_YAML_VALUES",
    "ParsedYaml",
    "Positions",
    "Yaml11Scalar",
    "build_yaml",
    "compose_yaml",
    "parse_yaml",
    "plain_is_text",
    "read_yaml",
    "yaml11_warnings",
]

try:  # the C composer is much faster; PyYAML without libyaml falls back to Python
    _Loader: type[Any] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
# Our own tags for a plain scalar that YAML 1.1 reads otherwise, whose place the walk
# notes: a string under YAML 1.2 but a boolean or number under 1.1 (the value is the
# text), and an integer with a leading zero, decimal under 1.2 but octal under 1.1
# (`010`: ten here, eight there; the value is the decimal one).
_STR_WAS_11 = "tag:toolcat,2026:str-was-yaml11"
_INT_WAS_11 = "tag:toolcat,2026:int-was-yaml11"

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
_YAML11_CHANGED = frozenset((_BOOL, _INT, _FLOAT))
_YAML11_OCTAL = re.compile(r"[-+]?0[0-7]+")

_RESOLVED: dict[str, str] = {}  # plain scalar text -> implicit tag, shared by every load
_RESOLVED_LIMIT = 100_000


def _core_tag(text: str) -> str:
    """The implicit tag of a plain scalar under the YAML 1.2 core schema."""
    if text in _CORE_NULL:
        return _NULL
    if text in _CORE_BOOL:
        return _BOOL
    if text[0] in _NUMBER_START:
        if _CORE_INT.fullmatch(text):
            if _YAML11_OCTAL.fullmatch(text) and int(text, 8) != int(text, 10):
                return _INT_WAS_11
            return _INT
        if _CORE_FLOAT.fullmatch(text):
            return _FLOAT
    if text == "<<":
        return _MERGE  # merge keys, as PyYAML (and catalogs) have always read them
    if text in _YAML11_BOOL or _YAML11.resolve(ScalarNode, text, (True, False)) in _YAML11_CHANGED:
        return _STR_WAS_11
    return _STR


def plain_is_text(text: str) -> bool:
    """Whether ``text`` written unquoted reads back as that string (YAML 1.2 core schema)."""
    return _core_tag(text) in (_STR, _STR_WAS_11)


class _FastLoader(_Loader):  # type: ignore[misc]
    """The C composer with a memoised YAML 1.2 core-schema tag resolver.

    PyYAML resolves every plain scalar with a chain of regular expressions in
    Python, a large part of reading a catalog; catalogs repeat the
    same texts (keys, types, names), so the answer is cached per text.
    """

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if not implicit[0]:
                return _STR  # quoted: always a string
            tag = _RESOLVED.get(value)
            if tag is None:
                tag = _core_tag(value)
                # short texts repeat (keys, types, names); long prose would only pin memory
                if len(value) <= 64 and len(_RESOLVED) < _RESOLVED_LIMIT:
                    _RESOLVED[value] = tag
            return tag
        return super().resolve(kind, value, implicit)


# One cap on the values a YAML document may expand to, for catalogs and specs
# alike. Aliases share subtrees, so a few hundred bytes can stand for billions
# of values ("billion laughs"); every later stage (compile, import, JSON
# export) walks the expanded tree, so the walk counts expanded values and
# stops here. 5 M is about 20x the largest real API description we know
# (GitHub's REST spec: 13 MB, about 260 k values) and keeps a refused document
# to well under a GB downstream. (Before one reader, catalogs stopped at 5 M
# and specs at 20 M; 20 M let an alias bomb cost four times the memory.)
MAX_YAML_VALUES = 5_000_000
# The count alone lets a few long strings shared by aliases stand for hundreds
# of MB (1 KB of YAML became 150-190 MB of output: few values, each large), so
# the characters of every scalar and key reached, through aliases too, are
# counted as well, under the same cap as a file's bytes (loader/_files.py): a
# document may expand to no more text than a file may hold.
MAX_YAML_CHARS = 64 * 1024 * 1024
# The caps above bound a document by what any document may hold, so a 1 KB alias bomb
# kept just under them still cost every later stage seconds and hundreds of MB. What
# aliases add is also bounded by the document's own size: its values, counted every
# time an alias reaches them, may be at most EXPANSION_FACTOR times those written out
# (the same for characters), or EXPANSION_FLOOR values (EXPANSION_FLOOR_CHARS
# characters) in a small document. Real specs and catalogs stay near 1x: GitHub's REST
# spec, Stripe's and Kubernetes' expand to exactly what they write, the most shared
# catalog we know to 1.16x; a 1 KB document may now stand for at most 100 k values.
EXPANSION_FACTOR = 10
EXPANSION_FLOOR = 100_000
EXPANSION_FLOOR_CHARS = 4 * 1024 * 1024

Path = tuple[str | int, ...]


class _Abort(ToolcatError):
    """The document cannot be turned into values (already reported)."""


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
        return int(self.text, 10) if _core_tag(self.text) == _INT_WAS_11 else self.text

    @property
    def yaml11(self) -> bool | int | float:
        """The value a YAML 1.1 tool (PyYAML's ``safe_load``, Go's yaml.v2) reads."""
        if self.text in _YAML11_BOOL:
            return self.text in ("y", "Y")
        value: bool | int | float = yaml.load(self.text, Loader=_Loader)  # noqa: S506 - safe
        return value


@dataclass(frozen=True, slots=True)
class ParsedYaml:
    """One parsed file: its value (``None`` when unusable), positions and findings.

    ``too_large`` says the document was refused because its aliases expand past
    a limit, and ``over`` names it ("5,000,000 values"); ``yaml11`` lists the
    plain values whose meaning changed from YAML 1.1 (see :func:`yaml11_warnings`).
    """

    data: Any
    positions: Positions
    diagnostics: tuple[Diagnostic, ...]
    too_large: bool = False
    yaml11: tuple[Yaml11Scalar, ...] = ()
    over: str = ""


class Positions:
    """Answers "where was this written?" for a YAML path, in 1-based line and column.

    A path that is not in the document resolves to its deepest existing
    ancestor, so a diagnostic about a missing key points at the mapping that
    lacks it.

    The positions are copied out of the node tree once (:func:`_index`), so the
    tree is freed with the parse: a load keeps every file's positions until it has
    compiled the last one, and a million nodes and marks held that long would be
    walked again by every run of the cycle collector. The copy is plain tuples of
    numbers and strings in one list, which the collector stops tracking.
    """

    __slots__ = ("file", "_nodes")

    def __init__(self, file: str, root: Node | None) -> None:
        self.file = file
        self._nodes = [] if root is None else _index(root)

    def _descend(self, path: Sequence[str | int]) -> tuple[_Entry | None, bool]:
        """The deepest entry along ``path``, and whether the whole path is there."""
        if not self._nodes:
            return None, False
        entry = self._nodes[0]
        for seg in path:
            child = self._child(entry, seg)
            if child is None:
                return entry, False
            entry = self._nodes[child[1]]
        return entry, True

    def _child(self, entry: _Entry, seg: str | int) -> tuple[tuple[int, int] | None, int] | None:
        """(where the key is, the value's index) of ``seg`` in a mapping or sequence entry."""
        if len(entry) == 4:  # a sequence
            items = entry[3]
            if isinstance(seg, int) and 0 <= seg < len(items):
                return None, items[seg]
            return None
        if len(entry) == 5:  # a mapping
            hit = entry[3].get(str(seg))
            if hit is not None:
                return (hit[0], hit[1]), hit[2]
            for source in entry[4]:
                found = self._child(self._nodes[source], seg)
                if found is not None:
                    return found
        return None

    def value(self, path: Sequence[str | int]) -> tuple[int, int]:
        """Line and column of the value at ``path`` (or of its deepest ancestor)."""
        entry = self._descend(path)[0]
        return (1, 1) if entry is None else (entry[0], entry[1])

    def key(self, path: Sequence[str | int]) -> tuple[int, int]:
        """Line and column of the key of the last segment of ``path``.

        For a sequence item (an int segment) this is the item itself.
        """
        if not path:
            return self.value(path)
        parent = self._descend(path[:-1])[0]
        if parent is None:
            return 1, 1
        child = self._child(parent, path[-1])
        if child is None:
            return parent[0], parent[1]
        key, index = child
        return key if key is not None else (self._nodes[index][0], self._nodes[index][1])

    def __call__(self, path: Sequence[str | int], key: bool = False) -> tuple[int, int]:
        """Where the key (``key=True``) or the value at ``path`` was written."""
        return self.key(path) if key else self.value(path)

    def string(self, path: Sequence[str | int], offset: int) -> tuple[int, int]:
        """Where character ``offset`` of the string at ``path`` was written."""
        return self.string_column(path, offset)

    def exact(self, path: Sequence[str | int]) -> bool:
        """Whether ``path`` is present in the document as written."""
        return self._descend(path)[1]

    def string_column(self, path: Sequence[str | int], offset: int) -> tuple[int, int]:
        """Line and column of character ``offset`` of the one-line string at ``path``."""
        entry = self._descend(path)[0]
        if entry is None:
            return 1, 1
        line, col, style = entry[0], entry[1], entry[2]
        if style in ("'", '"'):
            col += 1  # the opening quote
        if style in ("|", ">"):
            return line + 1, offset + 1  # block scalar: approximate, content starts below
        return line, col + offset


# Where a node was written, as an entry of the list _index makes (other nodes named by
# their index there): a scalar (line, column, style); a sequence (line, column, None,
# (item indexes)); a mapping (line, column, None, {key text: (key line, key column,
# value index)}, (the indexes of its merge keys' sources, in order)).
_Entry = tuple[Any, ...]


def _index(root: Node) -> list[_Entry]:
    """The positions of a node tree, the root first (an alias shares its anchor's entry)."""
    nodes: list[Any] = []
    made: dict[int, int] = {}  # a container node's id -> its index
    todo: list[tuple[Node, int]] = []

    def index(node: Node) -> int:
        if isinstance(node, ScalarNode):
            mark = node.start_mark
            nodes.append((mark.line + 1, mark.column + 1, node.style))
            return len(nodes) - 1
        found = made.get(id(node))
        if found is None:  # filled below: an alias may sit inside the node it names
            found = made[id(node)] = len(nodes)
            nodes.append(None)
            todo.append((node, found))
        return found

    index(root)
    while todo:
        node, at = todo.pop()
        mark = node.start_mark
        if isinstance(node, SequenceNode):
            items = tuple([index(item) for item in node.value])
            nodes[at] = (mark.line + 1, mark.column + 1, None, items)
            continue
        keys: dict[str, tuple[int, int, int]] = {}
        merged: list[int] = []
        for k, v in node.value:
            if k.tag == _MERGE:
                merged.extend(index(s) for s in (v.value if isinstance(v, SequenceNode) else [v]))
            elif isinstance(k, ScalarNode):  # the last duplicate wins, as in the value
                key_mark = k.start_mark
                keys[str(k.value)] = (key_mark.line + 1, key_mark.column + 1, index(v))
        nodes[at] = (mark.line + 1, mark.column + 1, None, keys, tuple(merged))
    return nodes


class _Builder:
    """One walk from nodes to values; findings go to ``diagnostics``."""

    def __init__(self, file: str, cycles: bool = False) -> None:
        self.file = file
        self.diagnostics: list[Diagnostic] = []
        self.yaml11: list[Yaml11Scalar] = []
        self.too_large = False
        self.over = ""  # the limit passed, in words
        self._cycles = cycles  # an alias inside its own node: the value refers to itself
        self._done: dict[int, tuple[Any, int, int]] = {}  # node id -> value, values, chars
        self._active: dict[int, Any] = {}  # node id -> its value, while being built
        self._count = 0
        self._chars = 0  # characters of scalars and keys, counted again at every alias
        self._shared = self._shared_chars = 0  # what aliases added to the two counts
        # the alias use that added the most values (characters): where a refusal points
        self._widest: tuple[int, Node | None] = (0, None)
        self._widest_chars: tuple[int, Node | None] = (0, None)

    def error(self, code: str, message: str, node: Node) -> None:
        mark = node.start_mark
        self.diagnostics.append(
            Diagnostic.make(code, message, self.file, mark.line + 1, mark.column + 1)
        )

    def build(self, node: Node) -> Any:
        # Scalars are the bulk of any catalog: keep their path short.
        if type(node) is ScalarNode:
            self._count += 1
            self._chars += len(node.value)
            tag = node.tag
            if tag == _STR:
                return node.value
            return self._scalar(node)
        key = id(node)
        done = self._done.get(key)
        if done is not None:  # an alias: reuse the value, but count its size
            self._count += done[1]
            self._chars += done[2]
            self._shared += done[1]
            self._shared_chars += done[2]
            if done[1] > self._widest[0]:
                self._widest = (done[1], node)
            if done[2] > self._widest_chars[0]:
                self._widest_chars = (done[2], node)
            if self._count > MAX_YAML_VALUES:
                self.too_large = True
                self.over = f"{MAX_YAML_VALUES:,} values"
                self.error(
                    "TC001",
                    f"aliases expand to too many values (over {MAX_YAML_VALUES:,}); "
                    "remove the alias loop",
                    node,
                )
                raise _Abort
            if self._chars > MAX_YAML_CHARS:
                self.too_large = True
                self.over = f"{MAX_YAML_CHARS:,} characters (the expanded size limit)"
                self.error(
                    "TC001",
                    f"aliases expand to too much text (over {MAX_YAML_CHARS:,} characters, "
                    "the expanded size limit); write the values out or share less",
                    node,
                )
                raise _Abort
            return done[0]
        if key in self._active:
            if self._cycles:
                self._count += 1
                return self._active[key]
            self.error("TC001", "an alias refers to the node that contains it; remove it", node)
            raise _Abort
        if len(self._active) >= MAX_NESTING_DEPTH:  # the containers being built: the depth
            self.error(
                "TC001",
                f"nested deeper than {MAX_NESTING_DEPTH} levels (the nesting limit)",
                node,
            )
            raise _Abort
        before, chars_before = self._count, self._chars
        value: Any
        if isinstance(node, MappingNode):
            value = self._active[key] = {}
            self._mapping(node, value)
        elif self._cycles:
            value = self._active[key] = []
            value.extend([self.build(item) for item in node.value])
        else:
            self._active[key] = None
            value = [self.build(item) for item in node.value]
        if node.tag != (_MAP if isinstance(node, MappingNode) else _SEQ):
            # !!set, !!omap, !!python/object:..., !custom: not plain YAML 1.2 core data
            self.error("TC001", f"unsupported YAML tag {_shown_tag(node.tag)}; remove it", node)
        del self._active[key]
        self._count += 1
        self._done[key] = (value, self._count - before, self._chars - chars_before)
        return value

    def check_expansion(self) -> None:
        """Refuse (TC001) a document whose aliases add more than its own size allows.

        Checked once the walk is done, against the document's whole written size,
        so the verdict does not depend on where the anchors are. The walk itself
        costs what is written: an alias reuses the value already built.
        """
        for unit, total, shared, floor, widest in (
            ("values", self._count, self._shared, EXPANSION_FLOOR, self._widest),
            (
                "characters",
                self._chars,
                self._shared_chars,
                EXPANSION_FLOOR_CHARS,
                self._widest_chars,
            ),
        ):
            written = total - shared
            limit = max(floor, EXPANSION_FACTOR * written)
            if total <= limit or widest[1] is None:
                continue
            self.too_large = True
            rule = (
                f"the expansion limit: {EXPANSION_FACTOR} times what is written, at least {floor:,}"
            )
            self.over = f"{limit:,} {unit} ({written:,} written; {rule})"
            self.error(
                "TC001",
                f"aliases expand to {total:,} {unit} from {written:,} written, over {limit:,} "
                f"({rule}); write the values out or share less",
                widest[1],
            )
            raise _Abort

    def _scalar(self, node: ScalarNode) -> Any:
        tag, text = node.tag, node.value
        if tag in (_STR_WAS_11, _INT_WAS_11):
            mark = node.start_mark
            self.yaml11.append(Yaml11Scalar(text, mark.line + 1, mark.column + 1))
            return text if tag == _STR_WAS_11 else int(text, 10)
        if tag == _NULL:
            return None
        try:
            if tag == _BOOL:
                return _CORE_BOOL[text]
            if tag == _INT:
                if text.isdigit():
                    return int(text)
                body = text.lstrip("+-")
                sign = -1 if text.startswith("-") else 1
                if body[:2] in ("0o", "0x"):
                    return sign * int(body[2:], 8 if body[1] == "o" else 16)
                return int(text, 10)
            if tag == _FLOAT:
                body = text.lstrip("+-").lower()
                if body in (".inf", ".nan"):
                    return (
                        (-math.inf if text.startswith("-") else math.inf)
                        if body == ".inf"
                        else math.nan
                    )
                return float(text)
        except (KeyError, ValueError):
            kind = {_BOOL: "boolean", _INT: "integer", _FLOAT: "number"}[tag]
            self.error(
                "TC001", f"{text!r} cannot be read as a YAML 1.2 {kind}; quote it or fix it", node
            )
            return text
        if tag == _TIMESTAMP:
            return text  # keep dates as text: the data model is JSON's
        self.error("TC001", f"unsupported YAML tag {_shown_tag(tag)}; write a plain value", node)
        return text

    def _mapping(self, node: MappingNode, result: dict[str, Any]) -> None:
        first: dict[str, Node] = {}
        merges: list[Node] = []
        for key_node, value_node in node.value:
            if type(key_node) is ScalarNode and key_node.tag == _STR:
                key = key_node.value
                self._chars += len(key)
            elif key_node.tag == _MERGE:
                merges.append(value_node)
                continue
            elif isinstance(key_node, ScalarNode):
                key = str(key_node.value)  # 200: or true: -> the text as written
            elif isinstance(key_node, MappingNode) and node.flow_style and key_node.flow_style:
                self.error(
                    "TC004",
                    "an unquoted '{{ ... }}' reads as a YAML mapping; quote "
                    'the template: "{{ name }}"',
                    node,
                )
                continue
            else:
                self.error(
                    "TC004", "a mapping key must be a plain scalar, not a collection", key_node
                )
                continue
            if key in first:
                prev = first[key].start_mark
                self.error(
                    "TC002",
                    f"duplicate key {key!r} (first at line {prev.line + 1}, column "
                    f"{prev.column + 1}); YAML keeps only the last one: remove or rename one",
                    key_node,
                )
            else:
                first[key] = key_node
            result[key] = self.build(value_node)
        for source in merges:
            self._merge(result, source)

    def _merge(self, result: dict[str, Any], source: Node) -> None:
        sources = source.value if isinstance(source, SequenceNode) else [source]
        for item in sources:
            value = self.build(item)
            if not isinstance(value, dict):
                self.error("TC004", "a merge key (<<) takes a mapping or a list of mappings", item)
                continue
            for k, v in value.items():
                result.setdefault(k, v)


def _shown_tag(tag: str) -> str:
    """A tag as it was written: ``!!set`` rather than ``tag:yaml.org,2002:set``."""
    if tag.startswith("tag:yaml.org,2002:"):
        return repr("!!" + tag.removeprefix("tag:yaml.org,2002:"))
    return repr(tag)


def _unclosed(exc: yaml.MarkedYAMLError, text: str) -> bool:
    """Whether the error is an unclosed quote, or a bracket meant to close on its own line.

    Then the line to fix is where it was opened, not where the parser noticed
    (often the next key, or past the end of the file). A flow collection whose
    line ends with its opening bracket spans lines on purpose: a missing comma
    inside it is found where the parser stopped.
    """
    start, mark, context = exc.context_mark, exc.problem_mark, str(exc.context or "")
    if start is None or mark is None or start.line >= mark.line:
        return False
    if "quoted scalar" in context or "simple key" in context:
        return True  # a key without its ':' is found on the line after it
    if "flow" not in context:
        return False
    line_end = text.find("\n", start.index)
    opener_line = text[start.index : line_end if line_end != -1 else len(text)]
    return not opener_line.split(" #", 1)[0].rstrip().endswith(("[", "{"))


def _syntax_message(exc: yaml.MarkedYAMLError, text: str) -> str:
    source = text
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    if "expected a single document" in problem or "expected a single document" in str(context):
        return "a catalog file holds one YAML document; remove the second '---' or split the file"
    mark = exc.problem_mark
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
        return "tab characters cannot indent YAML; indent with spaces"
    text = f"YAML syntax error: {problem}"
    start = exc.context_mark
    if _unclosed(exc, source) and start is not None and mark is not None:
        if "simple key" in str(context):
            return (
                f"YAML syntax error: this key has no ':' after it ({problem}, noticed at "
                f"line {mark.line + 1}, column {mark.column + 1})"
            )
        what = "quote" if "quoted" in str(context) else "bracket"
        return (
            f"YAML syntax error: this {what} is never closed ({problem}, noticed at line "
            f"{mark.line + 1}, column {mark.column + 1})"
        )
    if context and start is not None and mark is not None and start.line != mark.line:
        text += f" ({context} that starts at line {start.line + 1}, column {start.column + 1})"
    elif context:
        text += f" ({context})"
    return text


def compose_yaml(text: str | bytes) -> Node | None:
    """The node tree of one YAML document (``None`` when empty), with 1.2 core-schema tags.

    Raises :class:`yaml.YAMLError` when the text is not YAML (callers word it
    for their own users).
    """
    root: Node | None = yaml.compose(text, Loader=_FastLoader)
    return root


def build_yaml(root: Node, file: str, *, cycles: bool = False) -> ParsedYaml:
    """Plain values from a composed tree, counting expanded aliases against the cap.

    ``cycles=True`` lets an alias refer to the node that contains it (the value
    then contains itself), as the OpenAPI importer handles per operation;
    otherwise that is a TC001 error.
    """
    positions = Positions(file, root)
    builder = _Builder(file, cycles)
    try:
        data = builder.build(root)
        builder.check_expansion()
    except _Abort:
        data = None
    except RecursionError:
        builder.error("TC001", "the document nests too deeply to read", root)
        data = None
    return ParsedYaml(
        data,
        positions,
        tuple(builder.diagnostics),
        builder.too_large,
        tuple(builder.yaml11),
        builder.over,
    )


def parse_yaml(text: str, file: str) -> ParsedYaml:
    """Parse one YAML document into plain values with a position index.

    >>> parsed = parse_yaml("a: 1\\nb: [x]\\n", "c.yaml")
    >>> parsed.data, parsed.positions.value(("b", 0))
    ({'a': 1, 'b': ['x']}, (2, 5))
    """
    try:
        root = compose_yaml(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if _unclosed(exc, text):
            mark = exc.context_mark  # where the bracket or quote was opened
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        diag = Diagnostic.make("TC001", _syntax_message(exc, text), file, line, col)
        return ParsedYaml(None, Positions(file, None), (diag,))
    except yaml.YAMLError as exc:  # reader errors (bad characters) carry a position too
        line, col = 1, 1
        position = getattr(exc, "position", None)
        if isinstance(position, int):
            before = text[:position]
            line = before.count("\n") + 1
            col = position - (before.rfind("\n") + 1) + 1
        message = f"YAML syntax error: {exc}".splitlines()[0]
        diag = Diagnostic.make("TC001", message, file, line, col)
        return ParsedYaml(None, Positions(file, None), (diag,))
    if root is None:
        return ParsedYaml(None, Positions(file, None), ())
    return build_yaml(root, file)


def yaml11_warnings(parsed: ParsedYaml) -> list[Diagnostic]:
    """TC109 for each plain value that a YAML 1.1 tool reads as a boolean or number,
    or as another number (``010``: octal there).

    Users copy YAML from 1.1 tools (PyYAML's ``safe_load``, Ansible, older
    Kubernetes tooling), where ``country: NO`` is ``false`` and ``on: 1:30`` is
    ninety; toolcat reads both as text, so the file means something else to
    the tool it came from. Catalogs get this lint; imported specs do not (they
    are not the user's to edit, and OpenAPI 3.1 itself says YAML 1.2).
    """
    out = []
    for s in parsed.yaml11:
        old, new = s.yaml11, s.yaml12
        kind = "boolean" if isinstance(old, bool) else "number"
        shown = json.dumps(old) if isinstance(old, bool) else repr(old)
        if isinstance(new, int):  # a leading zero: octal in 1.1
            message = (
                f"{s.text} is the number {new} in YAML 1.2, but the number {shown} in YAML "
                f"1.1 tools, which read a leading 0 as octal; quote it ({json.dumps(s.text)}) "
                f"to keep the text, or write {new} (or {shown}) without the leading 0"
            )
        else:
            message = (
                f"{s.text} is the text {json.dumps(s.text)} in YAML 1.2, but the {kind} "
                f"{shown} in YAML 1.1 tools; quote it ({json.dumps(s.text)}) to keep the "
                f"text, or write {shown} for the {kind}"
            )
        out.append(Diagnostic.make("TC109", message, parsed.positions.file, s.line, s.column))
    return out


def read_yaml(text: str | bytes, file: str = "<string>") -> Any:
    """Read one YAML document as toolcat reads every YAML file (YAML 1.2 core schema).

    The replacement for ``yaml.safe_load`` anywhere in toolcat, so that a text
    means the same value in a catalog, a spec and everything else: ``yes``,
    ``no``, ``on``, ``off`` stay strings, ``true``/``false`` are booleans,
    timestamps stay strings, mapping keys are strings. Returns ``None`` for an
    empty document. A duplicate key keeps the last value (as ``safe_load``).
    Raises :class:`CatalogError` (TC001/TC004, with positions in ``file``)
    when the text is not YAML, uses unsupported tags, or its aliases expand past
    a limit (:data:`MAX_YAML_VALUES`, :data:`MAX_YAML_CHARS`, :data:`EXPANSION_FACTOR`).

    >>> read_yaml("enum: [DE, FR, NO]\\nstrict: true\\n")
    {'enum': ['DE', 'FR', 'NO'], 'strict': True}
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            diag = Diagnostic.make("TC001", f"the text is not UTF-8: {exc.reason}", file)
            raise CatalogError([diag]) from exc
    parsed = parse_yaml(text, file)
    errors = [d for d in parsed.diagnostics if d.severity is Severity.ERROR and d.code != "TC002"]
    if errors:
        raise CatalogError(errors)
    return parsed.data
