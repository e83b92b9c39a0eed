"""toolcat: a configuration-driven catalog of HTTP tools for LLM function calling.

The front door: everything an application needs is one ``import toolcat`` away::

    import toolcat

    catalog = toolcat.load("catalog.yaml")         # raises toolcat.CatalogError (.diagnostics)
    openai = toolcat.provider("openai")
    tools = openai.tools(catalog)                  # the tools as the provider takes them
    with toolcat.Executor(catalog) as executor:    # reply = the model's message
        results = executor.execute_many(openai.parse_calls(reply))
    messages = [openai.format_result(r) for r in results]

``toolcat.AgentLoop`` runs that feedback loop against a model endpoint, and
``toolcat.McpServer`` serves a catalog over MCP. Every exception the package
raises derives from ``toolcat.ToolcatError``.

Names are imported on first use (PEP 562), so ``import toolcat`` stays cheap and
``import toolcat.executor`` never pays for the loader.

Pipeline (packages, one way only)::

    cli ──> executor (core; agent; mcp_server) ──> loader ──> catalog
            the executor core needs only catalog

Subpackages: ``toolcat.catalog`` (the IR), ``toolcat.loader`` (reading and
compiling), ``toolcat.executor`` (the runtime core, with ``.providers``,
``.agent`` and ``.mcp_server``), ``toolcat.cli`` (the command) and
``toolcat.testing`` (the demo's fakes).
"""

import os as _os
import typing as _t
from collections.abc import Iterable as _Iterable
from collections.abc import Mapping as _Mapping

from toolcat._lazy import lazy_names as _lazy_names

# The one version source: pyproject.toml reads it (tool.setuptools.dynamic).
__version__ = "0.1.0"

if _t.TYPE_CHECKING:
    from toolcat._errors import ToolcatError
    from toolcat.catalog import Catalog
    from toolcat.executor import Executor, ExecutorSettings, ToolCall, ToolResult
    from toolcat.executor.agent import AgentLoop
    from toolcat.executor.mcp_server import McpServer
    from toolcat.executor.providers import Provider, provider
    from toolcat.loader import CatalogError, Diagnostic

__all__ = [
    "AgentLoop",
    "Catalog",
    "CatalogError",
    "Diagnostic",
    "Executor",
    "ExecutorSettings",
    "McpServer",
    "Provider",
    "ToolCall",
    "ToolResult",
    "ToolcatError",
    "__version__",
    "load",
    "provider",
]

# name -> the module that defines it; imported on first access.
_LAZY = {
    "AgentLoop": "toolcat.executor.agent",
    "Catalog": "toolcat.catalog",
    "CatalogError": "toolcat.loader",
    "Diagnostic": "toolcat.loader",
    "Executor": "toolcat.executor",
    "ExecutorSettings": "toolcat.executor",
    "McpServer": "toolcat.executor.mcp_server",
    "Provider": "toolcat.executor.providers",
    "ToolCall": "toolcat.executor",
    "ToolResult": "toolcat.executor",
    "ToolcatError": "toolcat._errors",
    "provider": "toolcat.executor.providers",
}


def load(
    *paths: str | _os.PathLike[str] | _Iterable[str | _os.PathLike[str]],
    env: _Mapping[str, str] | None = None,
) -> "Catalog":
    """Load catalog files, directories or OpenAPI specs into one checked :class:`Catalog`.

    >>> catalog = toolcat.load("examples/demo")              # doctest: +SKIP
    >>> catalog["get_item"].command.method                    # doctest: +SKIP
    'GET'

    Takes a path, several paths (``load("catalog/", "specs/x.yaml")``) or one list of
    them (``load(["catalog/", "specs/x.yaml"])``), as :func:`toolcat.loader.load` does.
    Raises :class:`CatalogError` carrying every diagnostic when the catalog has
    errors (warnings alone do not fail), :class:`toolcat.loader.CatalogInputError`
    when a path is missing or unreadable, and ``TypeError`` for no path or one that is
    neither a ``str`` nor an ``os.PathLike``. ``env`` is the mapping that ``${VAR}``
    references read when the tools run (an :class:`Executor` uses it unless it is
    given its own); ``None`` means ``os.environ`` at call time. Loading itself never
    reads the environment, so CI can validate without secrets.
    """
    from toolcat.loader import load as _load

    catalog = _load(*paths)
    return catalog if env is None else catalog.with_env(env)


__getattr__, __dir__ = _lazy_names(__name__, _LAZY, __all__)
