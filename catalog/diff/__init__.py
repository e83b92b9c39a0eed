"""What changed between two catalogs, tool by tool, each change with a stable rule id.

:func:`diff_catalogs` (_diff) compares two compiled catalogs; input schemas are
compared with their ``$ref``s followed (_diff_schema). ``toolcat diff`` prints the
result (docs/cli.md).
"""

from ._diff import CHANGE_RULES, ChangeKind, ChangeRule, ToolChange, diff_catalogs

__all__ = ["CHANGE_RULES", "ChangeKind", "ChangeRule", "ToolChange", "diff_catalogs"]
