"""``$ref`` resolution: local JSON pointers and refs into sibling files, memoised, never networked.

A ref is resolved once per (file, pointer) and the target is returned as is
(never copied). Refs to URLs, to files that are not JSON/YAML, or to files
outside the allowed root directory are refused: importing a spec must not read
arbitrary files or reach the network.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ._errors import RefError, SpecError

__all__ = ["RefKey", "Resolver", "default_ref_root"]

RefKey = tuple[str, str]  # (absolute file, JSON pointer without '#')

_DOC_SUFFIXES = (".json", ".yaml", ".yml")


def default_ref_root(spec: Path) -> Path:
    """Where refs may read files by default: the enclosing repository (the nearest
    folder holding ``.git``, from the spec's real folder up) when there is one, else
    the spec's own folder. Multi-file specs (Azure's ``../../common-types``) live in
    one repository; a spec downloaded next to other files reads none of them."""
    folder = spec.resolve().parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


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
        if "://" in target or target.startswith("//"):
            raise RefError(
                ref, file, "refs to URLs are not followed (no network); download the file"
            )
        path = Path(unquote(target))
        full = (Path(file).parent / path) if not path.is_absolute() else path
        full = Path(os.path.normpath(full))
        if not full.is_relative_to(self._root_dir):
            raise RefError(ref, file, f"the file is outside the $ref root; {_ROOT_HINT}")
        if full.suffix.lower() not in _DOC_SUFFIXES:
            raise RefError(ref, file, "only .json, .yaml and .yml files can be referenced")
        # symlinks: the file actually read must be under the root too
        real = full.resolve()
        if not real.is_relative_to(self._root_dir):
            raise RefError(
                ref, file, f"the file is a link to a file outside the $ref root; {_ROOT_HINT}"
            )
        if not real.is_file():
            raise RefError(ref, file, f"the file {target} does not exist")
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
