"""Where a ``$ref`` may lead: the one retrieval policy of every reader of schemas and specs.

No URL is ever read, whatever its scheme. A ref may name a file only when it is a
``.json``, ``.yaml`` or ``.yml`` file under the ``$ref`` root (by default the spec's
git repository, else the spec's folder), also once its links are resolved. The
importer (``toolcat.loader``), the conformance checks and ``validate_responses``
(openapi-core, through :func:`ref_file`) and every jsonschema validator
(:func:`sealed_registry`: it retrieves nothing at all) follow it.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from toolcat._errors import ToolcatError

__all__ = [
    "REF_SUFFIXES",
    "RefRefused",
    "default_ref_root",
    "is_url",
    "ref_file",
    "refuse_retrieval",
    "sealed_registry",
]

REF_SUFFIXES = (".json", ".yaml", ".yml")


class RefRefused(ToolcatError):
    """A ``$ref`` target the policy does not read; ``outside``: it lies outside the root."""

    def __init__(self, reason: str, *, outside: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.outside = outside


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


def is_url(target: str) -> bool:
    return "://" in target or target.startswith("//")


def ref_file(target: str, base_file: str, root: Path) -> Path:
    """The real file the ref target ``target`` (the part before ``#``) names from the
    file ``base_file``; :class:`RefRefused` with the reason when the policy forbids it."""
    if is_url(target):
        raise RefRefused("refs to URLs are not followed (no network); download the file")
    path = Path(unquote(target))
    full = (Path(base_file).parent / path) if not path.is_absolute() else path
    full = Path(os.path.normpath(full))
    root = root.resolve()
    if not full.is_relative_to(root):
        raise RefRefused("the file is outside the $ref root", outside=True)
    if full.suffix.lower() not in REF_SUFFIXES:
        raise RefRefused("only .json, .yaml and .yml files can be referenced")
    real = full.resolve()  # symlinks: the file actually read must be under the root too
    if not real.is_relative_to(root):
        raise RefRefused("the file is a link to a file outside the $ref root", outside=True)
    if not real.is_file():
        raise RefRefused(f"the file {target} does not exist")
    return real


def refuse_retrieval(uri: str) -> Any:
    """A retrieve function (``referencing``'s, jsonschema-path's handlers) that refuses
    ``uri``: ``referencing.exceptions.NoSuchResource``."""
    from referencing import exceptions

    refused: Any = exceptions.NoSuchResource  # attrs class: mypy cannot see its fields
    raise refused(ref=uri)


@functools.cache
def sealed_registry() -> Any:
    """A ``referencing.Registry`` that retrieves nothing: no URL, no file, ever.

    jsonschema's default registry fetches any ``$ref`` it cannot resolve inside the
    schema (``http://``, ``file://``). The loader refuses such refs; this is the
    guarantee behind it for every validator built over a schema.
    """
    import referencing

    registry: Any = referencing.Registry  # attrs class: mypy cannot see its fields
    return registry(retrieve=refuse_retrieval)
