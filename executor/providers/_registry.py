"""The registry: provider name -> provider object, in registration order.

A provider may be registered by the name of its module (:func:`register_module`),
which is imported on first :func:`get`; the built-in ones are registered so.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError

from ._protocol import Provider

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition

    from ._result import ExportResult

__all__ = [
    "UnknownProviderError",
    "export_catalog",
    "get",
    "names",
    "provider",
    "register",
    "register_module",
    "unregister",
]


class UnknownProviderError(ToolcatError, ValueError):
    """A provider name the registry does not hold; ``known`` lists the registered ones."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown provider {name!r}; choose one of: {', '.join(known)}")


# A Provider, or the dotted name of a module whose PROVIDER is one (not imported yet).
_PROVIDERS: dict[str, Provider | str] = {}


def register(provider: Provider, *, replace: bool = False) -> Provider:
    """Add ``provider`` under its ``name``; returns it (usable as a decorator on an instance).

    Raises ``ValueError`` when the name is taken (unless ``replace``) or the
    object lacks a member of :class:`Provider`.
    """
    if not isinstance(provider, Provider):
        raise ValueError(f"{provider!r} is not a Provider (name, supports_strict, tools, ...)")
    if provider.name in _PROVIDERS and not replace:
        raise ValueError(f"provider {provider.name!r} is already registered")
    _PROVIDERS[provider.name] = provider
    return provider


def register_module(name: str, module: str) -> None:
    """Register ``module``.PROVIDER under ``name``; the module is imported on first use."""
    if name in _PROVIDERS:
        raise ValueError(f"provider {name!r} is already registered")
    _PROVIDERS[name] = module


def unregister(name: str) -> None:
    """Remove a provider (for tests and plug-ins that swap one out); unknown names are ignored."""
    _PROVIDERS.pop(name, None)


def get(name: str) -> Provider:
    """The provider registered under ``name``.

    >>> get("anthropic").format_result  # doctest: +ELLIPSIS
    <bound method Anthropic.format_result of ...>

    Raises :class:`UnknownProviderError` (a ``ValueError``) for an unknown name.
    """
    try:
        entry = _PROVIDERS[name]
    except KeyError:
        raise UnknownProviderError(name, tuple(_PROVIDERS)) from None
    if isinstance(entry, str):
        provider = importlib.import_module(entry).PROVIDER
        if not isinstance(provider, Provider) or provider.name != name:
            raise TypeError(f"{entry}.PROVIDER is not a Provider named {name!r}")
        _PROVIDERS[name] = entry = provider
    return entry


def provider(name: str) -> Provider:
    """The provider registered under ``name``: ``toolcat.provider(name)``, the same as :func:`get`.

    >>> provider("openai").name
    'openai'
    """
    return get(name)


def names() -> tuple[str, ...]:
    """Every registered provider's name, in registration order (the CLI's choices)."""
    return tuple(_PROVIDERS)


def export_catalog(
    catalog_or_tools: Catalog | Iterable[ToolDefinition],
    provider: str,
    *,
    strict: bool = False,
    toolset: str | None = None,
    budget: int | None = None,
    **options: Any,
) -> ExportResult:
    """``get(provider).tools(...)``: the tools (of one toolset) as ``provider`` takes them.

    ``budget`` is the per-tool schema budget in characters (0: none); ``None``
    leaves the provider's default (the built-in ones:
    :data:`~toolcat.catalog.schema.DEFAULT_SCHEMA_BUDGET`). ``options`` go to the
    provider's ``tools()`` as they are: the built-in ones take ``defer``, ``pinned``,
    ``namespaces`` and ``input_examples`` (docs/providers.md).

    >>> export_catalog([], "anthropic").tools
    []

    Raises ``ValueError`` for an unknown provider or ``strict`` with a provider
    that has no strict mode, and :class:`~toolcat.catalog.UnknownToolsetError`
    for an unknown toolset.
    """
    chosen = get(provider)
    if budget is None and not options:  # a provider from outside may not take the keywords
        return chosen.tools(catalog_or_tools, strict=strict, toolset=toolset)
    if budget is not None:
        options["budget"] = budget
    export: Any = chosen.tools  # the built-in providers take these keywords (see Provider)
    result: ExportResult = export(catalog_or_tools, strict=strict, toolset=toolset, **options)
    return result
