"""The reader behind ``_yaml.py``: one pass over the parser's events of a YAML document.

It builds the plain values and every node's position entry
(``_yaml_positions.py``), and reports duplicate keys, unsupported tags and
aliases that expand past the caps below on the way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolcat._errors import ToolcatError
from toolcat.catalog.common import MAX_NESTING_DEPTH
from yaml.composer import ComposerError
from yaml.error import Mark
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    StreamEndEvent,
)

from ._diagnostics import Diagnostic
from ._yaml_positions import Entry
from ._yaml_scalars import (
    BOOL,
    FLOAT,
    INT,
    INT_WAS_11,
    MAP,
    MERGE,
    SEQ,
    STR,
    STR_WAS_11,
    SafeLoader,
    Yaml11Scalar,
    resolve_plain,
    typed_value,
)

__all__ = [
    "EXPANSION_FACTOR",
    "EXPANSION_FLOOR",
    "EXPANSION_FLOOR_CHARS",
    "MAX_YAML_CHARS",
    "MAX_YAML_VALUES",
    "Reader",
]

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


class _Abort(ToolcatError):
    """The document cannot be turned into values (already reported)."""


@dataclass(slots=True)
class _Anchor:
    """What an anchor names, for its aliases."""

    value: Any
    entry: int  # its position entry
    mark: Mark  # where the anchored node starts: where findings about its aliases point
    values: int = 0  # the values and characters it stands for, counted at every alias
    chars: int = 0
    key: tuple[str, str] | None = None  # a scalar's (tag, text): an alias may be a key
    done: bool = False  # False while its own node is being read


def _resolved_tag(event: Any) -> str:
    """The tag of a scalar event: an untagged plain scalar's by the core schema."""
    tag: str | None = event.tag
    if tag is None or tag == "!":
        return resolve_plain(event.value) if event.implicit[0] else STR
    return tag


class Reader:
    """One pass over a document's events: values, positions and findings."""

    def __init__(self, text: str | bytes, file: str, cycles: bool) -> None:
        self._loader = SafeLoader(text)
        self._next = self._loader.get_event
        self.file = file
        self._cycles = cycles  # an alias inside its own node: the value refers to itself
        self.entries: list[Entry | None] = []
        self.diagnostics: list[Diagnostic] = []
        self.yaml11: list[Yaml11Scalar] = []
        self.too_large = False
        self.over = ""  # the limit passed, in words
        self._anchors: dict[str, _Anchor] = {}
        self._depth = 0  # the containers being read
        self._count = 0
        self._chars = 0  # characters of scalars and keys, counted again at every alias
        self._shared = self._shared_chars = 0  # what aliases added to the two counts
        # the alias use that added the most values (characters): where a refusal points
        self._widest: tuple[int, Mark | None] = (0, None)
        self._widest_chars: tuple[int, Mark | None] = (0, None)

    def error(self, code: str, message: str, mark: Mark) -> None:
        self.diagnostics.append(
            Diagnostic.make(code, message, self.file, mark.line + 1, mark.column + 1)
        )

    def read(self) -> tuple[bool, Any]:
        """(whether there is a document, its value: ``None`` when refused, the findings
        say why); raises yaml.YAMLError for bad YAML."""
        try:
            found, data = self.document()
            if found:
                self.check_expansion()
            return found, data
        except _Abort:
            return True, None
        except RecursionError:
            self.diagnostics.append(
                Diagnostic.make("TC001", "the document nests too deeply to read", self.file)
            )
            return True, None

    def document(self) -> tuple[bool, Any]:
        """(whether there is a document, its value); raises yaml.YAMLError for bad YAML."""
        try:
            self._next()  # the stream's start
            start = self._next()
            if type(start) is StreamEndEvent:
                return False, None
            value = self.value(self._next())[0]
            self._next()  # the document's end
            after = self._next()
            if type(after) is not StreamEndEvent:
                raise ComposerError(
                    "expected a single document in the stream",
                    start.start_mark,
                    "but found another document",
                    after.start_mark,
                )
            return True, value
        finally:
            self._loader.dispose()

    def value(self, event: Any) -> tuple[Any, int]:
        """The value that starts with ``event``, and its position entry."""
        kind = type(event)
        if kind is ScalarEvent:
            return self._scalar(event)
        if kind is AliasEvent:
            return self._alias(event)
        mark = event.start_mark
        if self._depth >= MAX_NESTING_DEPTH:
            self.error(
                "TC001", f"nested deeper than {MAX_NESTING_DEPTH} levels (the nesting limit)", mark
            )
            raise _Abort
        at = len(self.entries)
        self.entries.append(None)  # filled below: an alias may sit inside its own node
        mapping = kind is MappingStartEvent
        value: Any = {} if mapping else []
        anchor = self._anchor(event, _Anchor(value, at, mark))
        before, chars_before = self._count, self._chars
        self._depth += 1
        self.entries[at] = self._mapping(event, value) if mapping else self._sequence(mark, value)
        self._depth -= 1
        if event.tag not in (None, "!", MAP if mapping else SEQ):
            # !!set, !!omap, !!python/object:..., !custom: not plain YAML 1.2 core data
            self.error("TC001", f"unsupported YAML tag {_shown_tag(event.tag)}; remove it", mark)
        self._count += 1
        if anchor is not None:
            anchor.values, anchor.chars = self._count - before, self._chars - chars_before
            anchor.done = True
        return value, at

    def _anchor(self, event: Any, anchor: _Anchor) -> _Anchor | None:
        """Name ``anchor`` by the event's anchor, if it has one (a name is given once)."""
        name = event.anchor
        if name is None:
            return None
        first = self._anchors.get(name)
        if first is not None:
            raise ComposerError(
                "found duplicate anchor; first occurrence",
                first.mark,
                "second occurrence",
                event.start_mark,
            )
        self._anchors[name] = anchor
        return anchor

    def _scalar(self, event: Any) -> tuple[Any, int]:
        text: str = event.value
        mark = event.start_mark
        tag = _resolved_tag(event)
        self._count += 1
        self._chars += len(text)
        at = len(self.entries)
        self.entries.append((mark.line + 1, mark.column + 1, event.style))
        value = text if tag == STR else self._typed(tag, text, mark)
        if event.anchor is not None:
            self._anchor(event, _Anchor(value, at, mark, 1, len(text), (tag, text), True))
        return value, at

    def _typed(self, tag: str, text: str, mark: Mark) -> Any:
        if tag in (STR_WAS_11, INT_WAS_11):
            self.yaml11.append(Yaml11Scalar(text, mark.line + 1, mark.column + 1))
        try:
            return typed_value(tag, text)
        except (KeyError, ValueError):
            kind = {BOOL: "boolean", INT: "integer", FLOAT: "number"}.get(tag, "value")
            self.error(
                "TC001", f"{text!r} cannot be read as a YAML 1.2 {kind}; quote it or fix it", mark
            )
        except TypeError:
            self.error(
                "TC001", f"unsupported YAML tag {_shown_tag(tag)}; write a plain value", mark
            )
        return text

    def _alias(self, event: Any) -> tuple[Any, int]:
        anchor = self._anchors.get(event.anchor)
        if anchor is None:
            raise ComposerError(None, None, "found undefined alias", event.start_mark)
        if anchor.key is not None:  # a scalar: counted as if written again
            self._count += 1
            self._chars += anchor.chars
            return anchor.value, anchor.entry
        if not anchor.done:
            if self._cycles:
                self._count += 1
                return anchor.value, anchor.entry
            self.error(
                "TC001", "an alias refers to the node that contains it; remove it", anchor.mark
            )
            raise _Abort
        self._count += anchor.values
        self._chars += anchor.chars
        self._shared += anchor.values
        self._shared_chars += anchor.chars
        if anchor.values > self._widest[0]:
            self._widest = (anchor.values, anchor.mark)
        if anchor.chars > self._widest_chars[0]:
            self._widest_chars = (anchor.chars, anchor.mark)
        if self._count > MAX_YAML_VALUES:
            self.too_large = True
            self.over = f"{MAX_YAML_VALUES:,} values"
            self.error(
                "TC001",
                f"aliases expand to too many values (over {MAX_YAML_VALUES:,}); "
                "remove the alias loop",
                anchor.mark,
            )
            raise _Abort
        if self._chars > MAX_YAML_CHARS:
            self.too_large = True
            self.over = f"{MAX_YAML_CHARS:,} characters (the expanded size limit)"
            self.error(
                "TC001",
                f"aliases expand to too much text (over {MAX_YAML_CHARS:,} characters, "
                "the expanded size limit); write the values out or share less",
                anchor.mark,
            )
            raise _Abort
        return anchor.value, anchor.entry

    def _sequence(self, mark: Mark, result: list[Any]) -> Entry:
        items: list[int] = []
        while True:
            event = self._next()
            if type(event) is SequenceEndEvent:
                return (mark.line + 1, mark.column + 1, None, tuple(items))
            item, at = self.value(event)
            result.append(item)
            items.append(at)

    def _mapping(self, start: Any, result: dict[str, Any]) -> Entry:
        keys: dict[str, tuple[int, int, int]] = {}
        first: dict[str, Mark] = {}
        merges: list[tuple[Any, int]] = []
        while True:
            event = self._next()
            if type(event) is MappingEndEvent:
                break
            key, mark = self._key(start, event)
            if key is None:
                self._read_past(self._next())  # the value of a key that cannot be one
                continue
            if key is MERGE:
                merges.append(self.value(self._next()))
                continue
            if key in first:
                prev = first[key]
                self.error(
                    "TC002",
                    f"duplicate key {key!r} (first at line {prev.line + 1}, column "
                    f"{prev.column + 1}); YAML keeps only the last one: remove or rename one",
                    mark,
                )
            else:
                first[key] = mark
            result[key], at = self.value(self._next())
            keys[key] = (mark.line + 1, mark.column + 1, at)
        mark = start.start_mark
        return (mark.line + 1, mark.column + 1, None, keys, self._merge(result, merges))

    def _key(self, start: Any, event: Any) -> tuple[str | None, Mark]:
        """A mapping key's text (``MERGE`` for ``<<``; ``None`` when it cannot be a key)."""
        kind = type(event)
        anchor = None
        if kind is AliasEvent:
            anchor = self._anchors.get(event.anchor)
            if anchor is None:
                raise ComposerError(None, None, "found undefined alias", event.start_mark)
        if kind is ScalarEvent:
            tag, text, mark = _resolved_tag(event), event.value, event.start_mark
            if event.anchor is not None:  # rare: a key's text named for an alias elsewhere
                at = len(self.entries)
                self.entries.append((mark.line + 1, mark.column + 1, event.style))
                value = text if tag == STR else self._typed(tag, text, mark)
                self._anchor(event, _Anchor(value, at, mark, 1, len(text), (tag, text), True))
        elif anchor is not None and anchor.key is not None:
            (tag, text), mark = anchor.key, anchor.mark
        else:  # a collection (or an alias of one) as a key: read it, then refuse it
            mark = event.start_mark if anchor is None else anchor.mark
            if anchor is None:
                self._read_past(event)
            if kind is MappingStartEvent and start.flow_style and event.flow_style:
                self.error(
                    "TC004",
                    "an unquoted '{{ ... }}' reads as a YAML mapping; quote "
                    'the template: "{{ name }}"',
                    start.start_mark,
                )
            else:
                self.error("TC004", "a mapping key must be a plain scalar, not a collection", mark)
            return None, mark
        if tag == STR:
            self._chars += len(text)
            return text, mark
        if tag == MERGE:
            return MERGE, mark
        return text, mark  # 200: or true: -> the text as written

    def _read_past(self, event: Any) -> None:
        """Read the node that starts with ``event`` for nothing: a value no one uses, whose
        own findings are not reported (its anchors still name what they name)."""
        kept = len(self.diagnostics)
        self.value(event)
        del self.diagnostics[kept:]

    def _merge(self, result: dict[str, Any], merges: list[tuple[Any, int]]) -> tuple[int, ...]:
        """Apply the mappings of ``<<`` keys (a key written in the mapping wins); their
        position entries, in order."""
        sources: list[int] = []
        for value, at in merges:
            entry = self.entries[at]
            items = (
                zip(value, entry[3], strict=True)
                if entry is not None and len(entry) == 4
                else [(value, at)]
            )
            for item, item_at in items:
                sources.append(item_at)
                if not isinstance(item, dict):
                    where = self.entries[item_at] or (1, 1)
                    self.diagnostics.append(
                        Diagnostic.make(
                            "TC004",
                            "a merge key (<<) takes a mapping or a list of mappings",
                            self.file,
                            where[0],
                            where[1],
                        )
                    )
                    continue
                for k, v in item.items():
                    result.setdefault(k, v)
        return tuple(sources)

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


def _shown_tag(tag: str) -> str:
    """A tag as it was written: ``!!set`` rather than ``tag:yaml.org,2002:set``."""
    if tag.startswith("tag:yaml.org,2002:"):
        return repr("!!" + tag.removeprefix("tag:yaml.org,2002:"))
    return repr(tag)
