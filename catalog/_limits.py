"""What the model providers' APIs accept, written once: every check and export reads it here.

- :data:`MAX_DESCRIPTION_CHARS`: the longest function description OpenAI takes; the
  loader warns past it (TC120) and ``toolcat import openapi`` cuts descriptions to it.
- :data:`TOOL_NAME`: the tool-name rule of a catalog (TC010), which is what OpenAI and
  Anthropic take; :data:`TOOL_NAME_PATTERN` is the same rule as JSON Schema and the
  docs write it.
- :data:`PROVIDER_LIMITS`, a :class:`ProviderLimits` per built-in provider: the most
  tools one request may carry and the names it takes. The loader's toolset and pin
  checks (TC105, TC140) and the agent loop's tool count read :data:`OPENAI_MAX_TOOLS`.
- The exports for the APIs' own tool search: :data:`DEFER_ABOVE_TOOLS` (deferral's
  default), :data:`NAMESPACE_LIMITS` (OpenAI Responses' namespaces) and
  :data:`INPUT_EXAMPLE_LIMITS` (Anthropic's ``input_examples``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "DEFER_ABOVE_TOOLS",
    "INPUT_EXAMPLE_LIMITS",
    "MAX_DESCRIPTION_CHARS",
    "NAMESPACE_LIMITS",
    "OPENAI_MAX_TOOLS",
    "PROVIDER_LIMITS",
    "TOOL_NAME",
    "TOOL_NAME_PATTERN",
    "InputExampleLimits",
    "NamespaceLimits",
    "ProviderLimits",
]

#: The most characters of a function description that OpenAI accepts.
MAX_DESCRIPTION_CHARS = 1024

#: The most tools OpenAI accepts in one request.
OPENAI_MAX_TOOLS = 128

#: A catalog's tool names, as JSON Schema writes the rule (ECMA-262 ``$``: the very end).
TOOL_NAME_PATTERN = "^[a-zA-Z0-9_-]{1,64}$"
#: The same rule compiled for Python; ``\Z`` (not ``$``) also refuses a trailing newline,
#: so ``match`` and ``fullmatch`` both test the whole name.
TOOL_NAME = re.compile(r"\A[a-zA-Z0-9_-]{1,64}\Z")
#: The rule in words, for messages.
TOOL_NAME_RULE = "letters, digits, '_' and '-', at most 64 characters"


@dataclass(frozen=True, slots=True)
class ProviderLimits:
    """``max_tools`` per request (``None``: no stated limit) and the name rule, a regex
    a whole name must match (``None``: any name), with its wording."""

    max_tools: int | None = None
    name_pattern: str | None = None
    name_rule: str = ""

    def name_ok(self, name: str) -> bool:
        return self.name_pattern is None or re.fullmatch(self.name_pattern, name) is not None


_OPENAI = ProviderLimits(OPENAI_MAX_TOOLS, TOOL_NAME.pattern, TOOL_NAME_RULE)

#: Each built-in provider's limits, by its registry name.
PROVIDER_LIMITS: Mapping[str, ProviderLimits] = MappingProxyType(
    {
        "openai": _OPENAI,
        "openai-responses": _OPENAI,
        "anthropic": ProviderLimits(None, TOOL_NAME.pattern, TOOL_NAME_RULE),
        "gemini": ProviderLimits(
            None,
            r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}",
            "a letter or '_' first, then letters, digits, '_', '.', ':' and '-', "
            "at most 64 characters",
        ),
        "mcp": ProviderLimits(
            None,
            r"[A-Za-z0-9_.-]{1,128}",
            "letters, digits, '_', '-' and '.', at most 128 characters",
        ),
    }
)


#: An export of more tools than this defers all but the pinned ones by default (the
#: provider's own tool search finds the others): a catalog that fits one OpenAI request
#: is exported as it always was.
DEFER_ABOVE_TOOLS = OPENAI_MAX_TOOLS


@dataclass(frozen=True, slots=True)
class NamespaceLimits:
    """OpenAI Responses' ``namespace`` tools: the name rule, the most namespaces a
    request holds, and the size its docs advise (``advised_size`` functions or fewer is
    the advice "fewer than 10": lint warns past it)."""

    name_pattern: str = TOOL_NAME.pattern
    name_rule: str = TOOL_NAME_RULE
    max_name_chars: int = 64
    max_namespaces: int = OPENAI_MAX_TOOLS
    advised_size: int = 9
    max_description_chars: int = MAX_DESCRIPTION_CHARS


#: The namespaces of an ``openai-responses`` export.
NAMESPACE_LIMITS = NamespaceLimits()


@dataclass(frozen=True, slots=True)
class InputExampleLimits:
    """What an export sends as Anthropic's ``input_examples``: the API states no number,
    so toolcat keeps a few short ones (each example costs tokens on every request)."""

    max_examples: int = 5
    max_chars: int = 2_000  # one example's arguments, as compact JSON


#: The ``input_examples`` of an ``anthropic`` export.
INPUT_EXAMPLE_LIMITS = InputExampleLimits()
