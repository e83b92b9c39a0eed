"""Schema rewrites for what a provider takes: OpenAI strict mode, Gemini, the size budget.

Pure functions of a JSON Schema (module names)::

    input schema ─> fit_schema / budget_tool (_budget): within a size budget
                 ─> to_strict_schema (_strict): OpenAI's Structured Outputs subset
                 ─> to_gemini_schema (_gemini): Gemini's OpenAPI subset
    both rewrites walk ``$defs`` and merge ``allOf`` the same way (_schema_walk)

The provider modules (``toolcat.executor.providers``) call them; the executor calls
:func:`strip_strict_nulls` on a strict tool's arguments.
"""

from ._budget import DEFAULT_SCHEMA_BUDGET, BudgetResult, budget_tool, fit_schema, schema_size
from ._gemini import GeminiResult, to_gemini_schema
from ._nulls import strip_strict_nulls
from ._strict import (
    NotStrictable,
    StrictResult,
    check_strict_schema,
    to_strict_schema,
)

__all__ = [
    "BudgetResult",
    "DEFAULT_SCHEMA_BUDGET",
    "GeminiResult",
    "NotStrictable",
    "StrictResult",
    "budget_tool",
    "check_strict_schema",
    "fit_schema",
    "schema_size",
    "strip_strict_nulls",
    "to_gemini_schema",
    "to_strict_schema",
]
