"""Position-aware YAML: plain dicts and lists, plus where every key and value was written.

PyYAML's C composer builds the node tree (it keeps marks); one walk turns it
into plain Python values, reporting duplicate keys (which ``yaml.load`` keeps
silently) and unsupported tags on the way. Positions are looked up lazily by
YAML path, so a clean file pays nothing for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from toolcat._errors import ToolcatError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ._diagnostics import Diagnostic

__all__ = ["ParsedYaml", "Positions", "parse_yaml"]

try:  # the C composer is ~10x faster; PyYAML without libyaml falls back to Python
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

_RESOLVED: dict[str, str] = {}  # plain scalar text -> implicit tag, shared by every load
_RESOLVED_LIMIT = 100_000


class _FastLoader(_Loader):  # type: ignore[misc]
    """The C composer with a memoised tag resolver.

    PyYAML resolves every plain scalar with a chain of regular expressions in
    Python, which is half the time of reading a catalog; catalogs repeat the
    same texts (keys, types, names), so the answer is cached per text.
    """

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if not implicit[0]:
                return _STR  # quoted: always a string
            tag = _RESOLVED.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                # short texts repeat (keys, types, names); long prose would only pin memory
                if len(value) <= 64 and len(_RESOLVED) < _RESOLVED_LIMIT:
                    _RESOLVED[value] = tag
            return tag
        return super().resolve(kind, value, implicit)


# Aliases may share subtrees; counting expanded nodes stops "billion laughs" documents.
_MAX_EXPANDED_NODES = 5_000_000
_CONSTRUCTOR = yaml.SafeLoader("")  # only its scalar constructors are used

Path = tuple[str | int, ...]


class _Abort(ToolcatError):
    """The document cannot be turned into values (already reported)."""


@dataclass(frozen=True, slots=True)
class ParsedYaml:
    """One parsed file: its value (``None`` when unusable), positions and findings."""

    data: Any
    positions: Positions
    diagnostics: tuple[Diagnostic, ...]


class Positions:
    """Answers "where was this written?" for a YAML path, in 1-based line and column.

    A path that is not in the document resolves to its deepest existing
    ancestor, so a diagnostic about a missing key points at the mapping that
    lacks it.
    """

    __slots__ = ("file", "_root")

    def __init__(self, file: str, root: Node | None) -> None:
        self.file = file
        self._root = root

    def node(self, path: Sequence[str | int]) -> Node | None:
        """The deepest node along ``path`` (the root for ``()``)."""
        return self._descend(path)[0]

    def _descend(self, path: Sequence[str | int]) -> tuple[Node | None, bool]:
        """The deepest node along ``path``, and whether the whole path is there."""
        node = self._root
        for seg in path:
            if node is None:
                return None, False
            child = _child(node, seg)
            if child is None:
                return node, False
            node = child[1]
        return node, node is not None

    def value(self, path: Sequence[str | int]) -> tuple[int, int]:
        """Line and column of the value at ``path`` (or of its deepest ancestor)."""
        node = self.node(path)
        if node is None:
            return 1, 1
        return node.start_mark.line + 1, node.start_mark.column + 1

    def key(self, path: Sequence[str | int]) -> tuple[int, int]:
        """Line and column of the key of the last segment of ``path``.

        For a sequence item (an int segment) this is the item itself.
        """
        if not path:
            return self.value(path)
        parent = self.node(path[:-1])
        if parent is None:
            return 1, 1
        child = _child(parent, path[-1])
        if child is None:
            return parent.start_mark.line + 1, parent.start_mark.column + 1
        node = child[0] or child[1]
        return node.start_mark.line + 1, node.start_mark.column + 1

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
        node = self.node(path)
        if node is None:
            return 1, 1
        line, col = node.start_mark.line + 1, node.start_mark.column + 1
        if isinstance(node, ScalarNode) and node.style in ("'", '"'):
            col += 1  # the opening quote
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            return line + 1, offset + 1  # block scalar: approximate, content starts below
        return line, col + offset


def _key_text(node: Node) -> str | None:
    if isinstance(node, ScalarNode):
        return str(node.value)
    return None


def _child(node: Node, seg: str | int) -> tuple[Node | None, Node] | None:
    """(key node, value node) of ``seg`` in a mapping or sequence node."""
    if isinstance(node, SequenceNode):
        if isinstance(seg, int) and 0 <= seg < len(node.value):
            return None, node.value[seg]
        return None
    if isinstance(node, MappingNode):
        merged: list[Node] = []
        found: tuple[Node | None, Node] | None = None
        for k, v in node.value:
            if k.tag == _MERGE:
                merged.extend(v.value if isinstance(v, SequenceNode) else [v])
            elif _key_text(k) == str(seg):
                found = (k, v)  # the last duplicate wins, as in the value
        if found is not None:
            return found
        for source in merged:
            hit = _child(source, seg)
            if hit is not None:
                return hit
    return None


class _Builder:
    """One walk from nodes to values; findings go to ``diagnostics``."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.diagnostics: list[Diagnostic] = []
        self._done: dict[int, tuple[Any, int]] = {}
        self._active: set[int] = set()
        self._count = 0

    def error(self, code: str, message: str, node: Node) -> None:
        mark = node.start_mark
        self.diagnostics.append(
            Diagnostic.make(code, message, self.file, mark.line + 1, mark.column + 1)
        )

    def build(self, node: Node) -> Any:
        # Scalars are the bulk of any catalog: keep their path short.
        if type(node) is ScalarNode:
            self._count += 1
            tag = node.tag
            if tag == _STR:
                return node.value
            return self._scalar(node)
        key = id(node)
        done = self._done.get(key)
        if done is not None:  # an alias: reuse the value, but count its size
            self._count += done[1]
            if self._count > _MAX_EXPANDED_NODES:
                self.error(
                    "TC001", "aliases expand to too many values; remove the alias loop", node
                )
                raise _Abort
            return done[0]
        if key in self._active:
            self.error("TC001", "an alias refers to the node that contains it; remove it", node)
            raise _Abort
        self._active.add(key)
        before = self._count
        if isinstance(node, MappingNode):
            value: Any = self._mapping(node)
        else:
            value = [self.build(item) for item in node.value]
            if node.tag != _SEQ:
                self.error("TC001", f"unsupported YAML tag {node.tag!r}; remove it", node)
        self._active.discard(key)
        self._count += 1
        self._done[key] = (value, self._count - before)
        return value

    def _scalar(self, node: ScalarNode) -> Any:
        tag = node.tag
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return node.value.lower() in ("yes", "true", "on")
        if tag == _INT:
            text = node.value
            return int(text) if text.isdigit() else _CONSTRUCTOR.construct_yaml_int(node)
        if tag == _FLOAT:
            return _CONSTRUCTOR.construct_yaml_float(node)
        if tag == _TIMESTAMP:
            return node.value  # keep dates as text: catalogs are JSON-shaped
        self.error("TC001", f"unsupported YAML tag {tag!r}; write a plain value", node)
        return node.value

    def _mapping(self, node: MappingNode) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first: dict[str, Node] = {}
        merges: list[Node] = []
        for key_node, value_node in node.value:
            if type(key_node) is ScalarNode and key_node.tag == _STR:
                key = key_node.value
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
        return result

    def _merge(self, result: dict[str, Any], source: Node) -> None:
        sources = source.value if isinstance(source, SequenceNode) else [source]
        for item in sources:
            value = self.build(item)
            if not isinstance(value, dict):
                self.error("TC004", "a merge key (<<) takes a mapping or a list of mappings", item)
                continue
            for k, v in value.items():
                result.setdefault(k, v)


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


def parse_yaml(text: str, file: str) -> ParsedYaml:
    """Parse one YAML document into plain values with a position index.

    >>> parsed = parse_yaml("a: 1\\nb: [x]\\n", "c.yaml")
    >>> parsed.data, parsed.positions.value(("b", 0))
    ({'a': 1, 'b': ['x']}, (2, 5))
    """
    try:
        root = yaml.compose(text, Loader=_FastLoader)
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
    positions = Positions(file, root)
    if root is None:
        return ParsedYaml(None, positions, ())
    builder = _Builder(file)
    try:
        data = builder.build(root)
    except _Abort:
        data = None
    except RecursionError:
        builder.error("TC001", "the document nests too deeply to read", root)
        data = None
    return ParsedYaml(data, positions, tuple(builder.diagnostics))
