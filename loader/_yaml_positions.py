"""Where each key and value of a YAML document was written, looked up by YAML path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["Entry", "Positions"]

# Where a node was written, as an entry of the list the reader makes (other nodes named
# by their index there): a scalar (line, column, style); a sequence (line, column, None,
# (item indexes)); a mapping (line, column, None, {key text: (key line, key column,
# value index)}, (the indexes of its merge keys' sources, in order)). An alias shares its
# anchor's entry. A read that stopped part way (a document refused for its size) leaves
# ``None`` for the containers it did not finish.
Entry = tuple[Any, ...]


class Positions:
    """Answers "where was this written?" for a YAML path, in 1-based line and column.

    A path that is not in the document resolves to its deepest existing
    ancestor, so a diagnostic about a missing key points at the mapping that
    lacks it.

    The reader writes the positions as plain tuples of numbers and strings in one
    list, which the cycle collector stops tracking: a load keeps every file's
    positions until it has compiled the last one.
    """

    __slots__ = ("file", "_nodes")

    def __init__(self, file: str, entries: list[Entry | None] | None = None) -> None:
        self.file = file
        self._nodes: list[Entry | None] = entries or []

    def _descend(self, path: Sequence[str | int]) -> tuple[Entry | None, bool]:
        """The deepest entry along ``path``, and whether the whole path is there."""
        entry = self._nodes[0] if self._nodes else None
        if entry is None:
            return None, False
        for seg in path:
            child = self._child(entry, seg)
            found = None if child is None else self._nodes[child[1]]
            if found is None:
                return entry, False
            entry = found
        return entry, True

    def _child(
        self, entry: Entry | None, seg: str | int
    ) -> tuple[tuple[int, int] | None, int] | None:
        """(where the key is, the value's index) of ``seg`` in a mapping or sequence entry."""
        if entry is None:
            return None
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
        item = None if child is None else self._nodes[child[1]]
        if child is None or (child[0] is None and item is None):
            return parent[0], parent[1]
        key, index = child
        if key is not None:
            return key
        assert item is not None
        return item[0], item[1]

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
