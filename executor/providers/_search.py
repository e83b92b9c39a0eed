"""What exports add for the providers' newer tool features: deferral behind their own tool
search, OpenAI Responses namespaces, Anthropic's ``input_examples``, and who may call a tool.

Each choice is made once here, so ``toolcat schema``, ``provider(name).tools(...)`` and the
agent loop's ``native-search`` read the same rule:

- :func:`defer_choice`: an explicit ``defer``, else the catalog's ``search.defer``, else on
  for a catalog of more than :data:`toolcat.catalog.DEFER_ABOVE_TOOLS` tools.
- :func:`namespace_choice`: an explicit ``namespaces``, else the catalog's ``search.namespaces``.
- :func:`input_examples`: a tool's example arguments that its input schema accepts, within
  :data:`toolcat.catalog.INPUT_EXAMPLE_LIMITS`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from toolcat.catalog import Catalog, ToolDefinition
from toolcat.catalog.common import (
    DEFER_ABOVE_TOOLS,
    INPUT_EXAMPLE_LIMITS,
    NAMESPACE_KINDS,
    NamespaceKind,
    thaw,
)

from ._result import ExportNote

__all__ = ["CODE", "MODEL", "defer_choice", "input_examples", "namespace_choice"]

MODEL = "model"  # a tool call of the model's own
CODE = "code"  # a call from the provider's code-execution tool


def defer_choice(
    provider: str,
    supported: bool,
    defer: bool | None,
    catalog: Catalog | Iterable[ToolDefinition],
    count: int,
) -> bool:
    """Whether an export of ``count`` tools defers them.

    ``defer=None`` takes the catalog's ``search.defer``, and when it says nothing, defers
    a :class:`Catalog` of more than ``DEFER_ABOVE_TOOLS`` tools for a provider that can
    (a plain list of tools is deferred only when asked). ``defer=True`` for a provider
    without its own tool search is a ``ValueError``.
    """
    if defer is None and isinstance(catalog, Catalog):
        settings = catalog.search_settings
        stated = None if settings is None else settings.defer
        if stated is not None:
            return stated and supported
        return supported and count > DEFER_ABOVE_TOOLS
    if defer and not supported:
        raise ValueError(
            f"provider {provider!r} has no tool search of its own to defer tools to "
            "(anthropic and openai-responses have)"
        )
    return bool(defer)


def namespace_choice(
    provider: str,
    supported: bool,
    namespaces: str | None,
    catalog: Catalog | Iterable[ToolDefinition],
) -> NamespaceKind | None:
    """How an export groups its tools: ``"toolset"``, ``"service"`` or ``None``.

    ``namespaces=None`` takes the catalog's ``search.namespaces`` (for a provider that has
    namespaces; others ignore it); ``"none"`` groups nothing.
    """
    if namespaces is None:
        settings = catalog.search_settings if isinstance(catalog, Catalog) else None
        stated = None if settings is None else settings.namespaces
        return stated if supported and stated in NAMESPACE_KINDS else None
    if namespaces == "none":
        return None
    if namespaces not in NAMESPACE_KINDS:
        raise ValueError(f"namespaces must be toolset, service or none, not {namespaces!r}")
    if not supported:
        raise ValueError(
            f"provider {provider!r} has no namespaces (openai-responses has); leave namespaces out"
        )
    if namespaces == "toolset" and not isinstance(catalog, Catalog):
        raise ValueError("namespaces='toolset' needs a Catalog, not a list of tools")
    return namespaces


def input_examples(tool: ToolDefinition) -> tuple[list[dict[str, Any]], list[ExportNote]]:
    """The tool's example arguments its input schema accepts, as ``input_examples``.

    An example that sets a ``sensitive: true`` argument, whose arguments the schema
    refuses, or longer than the limit, is left out with a note; the same arguments are
    sent once; past the most examples sent, the rest are left out with one note.
    """
    import jsonschema_rs
    from toolcat.executor._arguments import sealed_validator

    if not tool.examples:
        return [], []
    limits = INPUT_EXAMPLE_LIMITS
    notes: list[ExportNote] = []
    try:
        validator = sealed_validator(tool.input_schema, formats=True)
    except (jsonschema_rs.ValidationError, ValueError):
        return [], [
            ExportNote(tool.name, "", "input examples left out: its schema cannot be compiled")
        ]
    out: list[dict[str, Any]] = []
    for i, example in enumerate(tool.examples):
        label = f"example {example.name!r}" if example.name else f"example {i + 1}"
        arguments = thaw(example.arguments)
        secret = [a for a in tool.sensitive_arguments if a in arguments]
        if secret:  # a sensitive argument's value never goes to the model
            message = f"{label} left out of input_examples: it sets sensitive {secret[0]!r}"
            notes.append(ExportNote(tool.name, "", message))
            continue
        if not validator.is_valid(arguments):
            notes.append(
                ExportNote(
                    tool.name,
                    "",
                    f"{label} left out of input_examples: the input schema refuses its arguments",
                )
            )
            continue
        size = len(json.dumps(arguments, separators=(",", ":"), ensure_ascii=False))
        if size > limits.max_chars:
            notes.append(
                ExportNote(
                    tool.name,
                    "",
                    f"{label} left out of input_examples: "
                    f"{size:,} characters, over {limits.max_chars:,}",
                )
            )
            continue
        if arguments not in out:  # the same arguments twice teach nothing more
            out.append(arguments)
    if len(out) > limits.max_examples:
        notes.append(
            ExportNote(
                tool.name,
                "",
                f"{len(out) - limits.max_examples} more "
                f"examples left out: input_examples carries {limits.max_examples}",
            )
        )
        out = out[: limits.max_examples]
    return out, notes
