"""``/docs/`` of ``serve --docs``: each caller gets the catalog browser of the tools it may call.

The site is static (``toolcat docs``): its index pages, its tool list and its search
index name every tool it holds. So a caller is served a site built from the tools
the access policy lets it call (as ``tools/list`` answers it), and the page of any
other tool is a 404. Sites are built on first request, off the event loop, one per
distinct set of tools (and catalog, after a reload); the :data:`MAX_DOCS_SITES` used
last are kept.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Callable, MutableMapping
from typing import Any

import anyio

from ._auth import identity_of

__all__ = ["MAX_DOCS_SITES", "CallerDocs"]

#: Distinct sites (sets of tools a caller may call) kept built; the oldest is removed.
MAX_DOCS_SITES = 16


class _Scope:
    """What :func:`identity_of` reads from a request: its ASGI scope."""

    def __init__(self, scope: MutableMapping[str, Any]) -> None:
        self.scope = scope


class CallerDocs:
    """An ASGI app serving ``build``'s site of the served tools the caller may call.

    ``served`` gives the current catalog (``catalog``, ``tools``, ``executor.access``);
    ``build(catalog, folder)`` writes the site of ``catalog`` into ``folder``.
    """

    def __init__(self, served: Callable[[], Any], build: Callable[[Any, str], None]) -> None:
        self._served = served
        self._build = build
        self._sites: OrderedDict[tuple[int, tuple[str, ...]], tuple[Any, str, Any]] = OrderedDict()
        self._lock = anyio.Lock()

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        served = self._served()
        names = tuple(served.tools)
        guard = served.executor.access
        if guard.enabled:
            names = tuple(guard.allowed(identity_of(_Scope(scope)), names))
        site = await self._site(served.catalog, names)
        await site(scope, receive, send)

    async def _site(self, catalog: Any, names: tuple[str, ...]) -> Any:
        from starlette.staticfiles import StaticFiles

        key = (id(catalog), names)
        async with self._lock:  # one build at a time; a caller waits for its set's
            found = self._sites.get(key)
            if found is not None and found[0] is catalog:
                self._sites.move_to_end(key)
                return found[2]
            folder = tempfile.mkdtemp(prefix="toolcat-docs-")
            atexit.register(shutil.rmtree, folder, True)
            await anyio.to_thread.run_sync(self._build, catalog.subset(names), folder)
            app = StaticFiles(directory=folder, html=True)
            self._sites[key] = (catalog, folder, app)  # the catalog held: its id stays its own
            while len(self._sites) > MAX_DOCS_SITES:
                _, (_, old, _) = self._sites.popitem(last=False)
                shutil.rmtree(old, ignore_errors=True)
            return app
