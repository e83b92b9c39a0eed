"""``$ref`` resolution: local JSON pointers and refs into sibling files, memoised, never networked.

A ref is resolved once per (file, pointer) and the target is returned as is
(never copied). Which files a ref may read is the one retrieval policy of
``toolcat.catalog`` (:func:`~toolcat.catalog.common.ref_file`): refs to URLs, to files
that are not JSON/YAML, or to files outside the allowed root directory are
refused: importing a spec must not read arbitrary files or reach the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

from toolcat.catalog.common import RefRefused, default_ref_root, ref_file

from ._errors import RefError, SpecError

__all__ = ["RefKey", "Resolver", "default_ref_root"]

RefKey = tuple[str, str]  # (absolute file, JSON pointer without '#')


_ROOT_HINT = (
    "refs may only read files under the $ref root (by default the enclosing git "
    "repository, else the spec's folder); to allow another folder pass --ref-root, "
    "or set ref_root: on the openapi: entry"
)


class Resolver:
    """Follows ``$ref`` values from a root document; files are read lazily and kept."""

    def __init__(self, root_file: Path, root_doc: Any, *, root_dir: Path, max_bytes: int) -> None:
        self.root_file = str(root_file.resolve())
        self._root_dir = root_dir.resolve()
        self._max_bytes = max_bytes
        self._docs: dict[str, Any] = {self.root_file: root_doc}
        self._targets: dict[RefKey, Any] = {}

    def document(self, file: str) -> Any:
        doc = self._docs.get(file)
        if doc is None and file not in self._docs:
            from ._read import read_document  # another file: JSON or YAML

            try:
                doc = read_document(Path(file), self._max_bytes)
            except SpecError as exc:
                raise RefError(file, file, exc.reason) from exc
            self._docs[file] = doc
        return doc

    def key(self, ref: str, file: str) -> RefKey:
        """The (file, pointer) a ref names, relative to the file holding it."""
        if not isinstance(ref, str):
            raise RefError(repr(ref), file, "a $ref must be a string")
        target, _, pointer = ref.partition("#")
        if not target:
            return (file, pointer)
        try:
            real = ref_file(target, file, self._root_dir)
        except RefRefused as exc:
            reason = f"{exc.reason}; {_ROOT_HINT}" if exc.outside else exc.reason
            raise RefError(ref, file, reason) from None
        return (str(real), pointer)

    def resolve(self, ref: str, file: str) -> tuple[Any, RefKey]:
        """The value a ref points at, and its key (whose file is where nested refs resolve)."""
        key = self.key(ref, file)
        try:
            return self._targets[key], key
        except KeyError:
            pass
        value = self.document(key[0])
        for token in _tokens(key[1]):
            if isinstance(value, dict):
                if token not in value:
                    raise RefError(ref, file, f"no {token!r} at this location")
                value = value[token]
            elif isinstance(value, list):
                try:
                    value = value[int(token)]
                except (ValueError, IndexError) as exc:
                    raise RefError(ref, file, f"no item {token!r} at this location") from exc
            else:
                raise RefError(ref, file, f"cannot step into {token!r}")
        self._targets[key] = value
        return value, key

    def deref(self, value: Any, file: str, *, limit: int = 32) -> tuple[Any, str]:
        """Follow ``{"$ref": ...}`` objects to a concrete value (and the file it is in)."""
        seen = 0
        while isinstance(value, dict) and "$ref" in value:
            seen += 1
            if seen > limit:
                raise RefError(str(value["$ref"]), file, "a chain of refs that never ends")
            value, (file, _) = self.resolve(value["$ref"], file)
        return value, file


def _tokens(pointer: str) -> list[str]:
    if not pointer or pointer == "/":
        return [] if not pointer else [""]
    if not pointer.startswith("/"):
        raise RefError("#" + pointer, "", "a JSON pointer must start with '/'")
    return [unquote(t).replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]
