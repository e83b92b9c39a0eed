"""Descriptions of an imported tool and its arguments: the spec's texts, else plain ones."""

from __future__ import annotations

from typing import Any

from ._args import Arg
from ._options import ImportOptions
from ._text import markdown_text, within

__all__ = ["describe_arguments", "operation_description"]


def operation_description(
    op: dict[str, Any], method: str, path: str, options: ImportOptions
) -> str:
    """The tool's description: the operation's summary and description, else its method
    and path; marked when the operation is deprecated."""
    summary = op.get("summary")
    summary = summary.strip() if isinstance(summary, str) else ""
    details = op.get("description")
    details = details.strip() if isinstance(details, str) else ""
    if options.markdown:
        summary, details = markdown_text(summary), markdown_text(details)
    text = summary
    if details and details != summary:
        text = f"{summary}\n\n{details}" if summary else details
    if not text:
        text = f"{method} {path}"
    if op.get("deprecated") is True:
        text = f"(Deprecated) {text}"
    return within(text, options.description_max)


def describe_arguments(
    args: list[Arg], path: str, options: ImportOptions, notes: list[str]
) -> None:
    """Argument descriptions as Markdown within the budget; a plain one where the spec
    has none (the model still learns where the value goes)."""
    given: list[str] = []
    for arg in args:
        schema = arg.schema if isinstance(arg.schema, dict) else {}
        text = arg.description if arg.description else schema.get("description")
        if isinstance(text, str) and text.strip():
            if options.markdown:
                text = markdown_text(text)
            arg.description = within(text.strip(), options.description_max)
            continue
        if "$ref" in schema:
            continue  # the definition describes it
        title = schema.get("title")
        if isinstance(title, str) and title.strip():
            arg.description = within(title.strip(), options.description_max)
        elif arg.location == "path":
            arg.description = f"The {{{arg.wire}}} segment of the path {path}."
        elif arg.location == "body":
            arg.description = f"The {arg.wire!r} field of the request body."
        else:
            arg.description = f"The {arg.wire!r} {arg.location} parameter."
        given.append(arg.argument)
    if given:
        notes.append(
            "the spec describes no argument "
            + ", ".join(repr(a) for a in given)
            + "; each got a description saying where it goes"
        )
