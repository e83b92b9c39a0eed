"""The sections a catalog merges across files or has once: toolsets, server, search.

Toolsets are gathered from every file (a name defined twice is TC015); ``server:`` and
``search:`` stand once for the whole catalog (a second one says where the first is).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from toolcat.catalog.common import credentials_may_travel

from ._lint import embeddings_key_in_file
from ._load_state import LoadState, second_section, section, split_extensions
from ._models import Callers, SearchDoc
from ._models_server import ServerDoc
from ._shape import Locator, closest, describe, validate_item

__all__ = ["check_search", "check_server", "read_toolsets"]


def read_toolsets(state: LoadState, data: Any, file: str, locate: Locator) -> None:
    """A file's ``toolsets:``, each a list of tool names or the long form."""
    for name, members in section(state, data, "toolsets", dict, file, locate).items():
        base: tuple[str | int, ...] = ("toolsets", name)
        if isinstance(members, dict):  # the long form: {tools: [...], x-owner: ...}
            long = _long_form(state, name, members, file, base, locate)
            if long is None:
                continue
            members, base = long
        _add_toolset(state, name, members, file, base, locate)


def _long_form(
    state: LoadState,
    name: str,
    members: dict[str, Any],
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
) -> tuple[Any, tuple[str | int, ...]] | None:
    """``{tools: [...], callers: [...], x-NAME: ...}``: its list and where it is, or
    ``None`` when the mapping holds no usable list (each problem reported)."""
    members, extensions = split_extensions(members)
    callers = members.pop("callers", None)
    for key in members:
        if key != "tools":
            state.add(
                "TC003",
                f"toolset '{name}': unknown key '{key}'; "
                + (
                    "did you mean 'tools'?"
                    if closest(str(key), ["tools"])
                    else "valid keys: tools, callers, or x-NAME"
                ),
                file,
                locate((*base, key), True),
                (*base, key),
            )
    if "tools" not in members and not members:
        state.add("TC005", f"toolset '{name}' has no 'tools' list", file, locate(base), base)
        return None
    if len(members) != 1 or "tools" not in members:
        return None
    if callers is not None:
        _toolset_callers(state, name, callers, file, (*base, "callers"), locate)
    if extensions:
        state.toolset_extensions[name] = extensions
    return members["tools"], (*base, "tools")


def _add_toolset(
    state: LoadState,
    name: str,
    members: Any,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
) -> None:
    """A list of tool names, recorded unless it is no list of names or a second of its name."""
    if not isinstance(members, list):
        state.add(
            "TC004",
            f"toolset '{name}' must be a list of tool names, not {describe(members)}",
            file,
            locate(base),
            base,
        )
        return
    odd = [i for i, m in enumerate(members) if not isinstance(m, str)]
    for i in odd:  # each item a person has to change, where it is
        state.add(
            "TC004",
            f"toolset '{name}': item {i + 1} must be a tool name, not {describe(members[i])}",
            file,
            locate((*base, i)),
            (*base, i),
        )
    if odd:
        return
    if name in state.toolsets:
        other = state.toolsets[name]
        line, col = other[3](other[2], True)
        state.add(
            "TC015",
            f"toolset '{name}' is already defined at {other[1]}:{line}:{col}; rename or merge them",
            file,
            locate(base, True),
            base,
        )
        return
    state.toolsets[name] = (members, file, base, locate)


def _toolset_callers(
    state: LoadState,
    name: str,
    callers: Any,
    file: str,
    where: tuple[str | int, ...],
    locate: Locator,
) -> None:
    """A long-form toolset's ``callers:``: who may call its tools (a tool's own wins)."""
    doc = validate_item(
        Callers,
        {"callers": callers},
        base=where[:-1],
        label=f"toolset '{name}'",
        file=file,
        locate=locate,
        out=state.ctx.diagnostics,
    )
    if doc is not None:
        state.toolset_callers[name] = tuple(doc.callers)


def check_server(state: LoadState, body: Any, file: str, locate: Locator) -> None:
    base = ("server",)
    first = None if state.server is None else (state.server[1], state.server[2])
    if second_section(state, "TC016", "server", first, file, locate):
        return
    doc = validate_item(
        ServerDoc,
        body,
        base=base,
        label="server",
        file=file,
        locate=locate,
        out=state.ctx.diagnostics,
    )
    if doc is not None:
        from ._server import compile_server  # only a catalog with a server: section

        settings = compile_server(doc, file=file, locate=locate, out=state.ctx.diagnostics)
        state.server = (settings, file, locate(base, True))
        state.server_doc = (doc, file, locate)


def check_search(state: LoadState, body: Any, file: str, locate: Locator, folder: Path) -> None:
    """The ``search:`` section, one for the whole catalog (TC091 for a second one)."""
    base = ("search",)
    first = None if state.search is None else (state.search[1], state.search[2](base, True))
    if second_section(state, "TC091", "search", first, file, locate):
        return
    doc = validate_item(
        SearchDoc,
        body,
        base=base,
        label="search",
        file=file,
        locate=locate,
        out=state.ctx.diagnostics,
    )
    if doc is None:
        return
    state.search = (doc, file, locate)
    if doc.embeddings is not None:
        _check_embeddings(state, doc.embeddings, file, locate, folder)


def _check_embeddings(state: LoadState, emb: Any, file: str, locate: Locator, folder: Path) -> None:
    """``search.embeddings``: TC086 where its key would travel in clear, TC137 for a key
    written in the file."""
    from toolcat.catalog import SourceLocation
    from toolcat.catalog.common import references
    from toolcat.catalog.search import EmbeddingsSettings

    def refs(text: str) -> bool:
        return next(references(text), None) is not None

    base = ("search", "embeddings")
    where = locate(base, True)
    url_where = locate((*base, "url"))
    scheme = emb.url.split(":", 1)[0].lower() if ":" in emb.url else ""
    if not refs(emb.url) and scheme not in ("http", "https"):
        state.add(
            "TC086",
            f"search.embeddings.url {emb.url!r} must be an http(s) URL",
            file,
            url_where,
            (*base, "url"),
        )
        return
    if emb.api_key and not refs(emb.url) and not credentials_may_travel(emb.url):
        state.add(
            "TC086",
            "search.embeddings.api_key would travel in clear to "
            f"{urlsplit(emb.url).hostname or emb.url!r}: use https (http only to a loopback "
            "address)",
            file,
            url_where,
            (*base, "url"),
        )
        return
    for f in embeddings_key_in_file(emb.api_key, bool(emb.api_key and refs(emb.api_key))):
        state.add(f.code, f.message, file, locate((*base, *f.path)), (*base, *f.path))
    cache = emb.cache
    if cache is not None and not refs(cache):
        cache = str(folder / os.path.expanduser(cache))
    settings = EmbeddingsSettings(
        url=emb.url,
        model=emb.model,
        api_key=emb.api_key,
        dimensions=emb.dimensions,
        timeout=emb.timeout,
        cache=cache,
        weight=emb.weight,
        k=emb.k,
        source=SourceLocation(file, *where),
    )
    state.embeddings = (settings, file, where)
