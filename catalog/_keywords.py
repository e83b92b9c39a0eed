"""Where JSON Schema 2020-12 keeps subschemas: one schema, a map of them, a list of them.

One home for the walks that visit every subschema of a schema: the loader's authoring
checks and the rewrite of an upstream MCP server's older draft. (``definitions``, draft-07's
name for ``$defs``, is walked as a map too.)
"""

from __future__ import annotations

__all__ = ["SUBSCHEMA_LISTS", "SUBSCHEMA_MAPS", "SUBSCHEMA_ONE"]

SUBSCHEMA_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
SUBSCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
