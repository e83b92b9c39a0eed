"""User-given inputs besides catalogs (``--args @FILE``, stdin): read under the loader's one cap.

A device, a FIFO or an oversized file is one line (exit 2), never a hang or a
read until memory runs out; stdin is read up to the same cap.
"""

from __future__ import annotations

import sys

from ._app import CliError


def read_user_file(path: str, what: str) -> str:
    """The UTF-8 text of the regular file ``path`` (at most ``MAX_FILE_BYTES``)."""
    from toolcat.catalog.common import escape_controls
    from toolcat.loader import FileReadError, read_regular_file

    shown = escape_controls(path)
    try:
        data = read_regular_file(path)
    except FileReadError as exc:
        raise CliError(f"cannot read {what} from {shown}: {exc}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(f"cannot read {what} from {shown}: not UTF-8 text") from exc


def read_stdin(what: str) -> str:
    """Standard input as text, at most ``MAX_FILE_BYTES`` bytes (characters when it is text)."""
    from toolcat.loader import MAX_FILE_BYTES

    stream = getattr(sys.stdin, "buffer", None)  # a test may hand over a text-only stream
    data = (
        stream.read(MAX_FILE_BYTES + 1)
        if stream is not None
        else sys.stdin.read(MAX_FILE_BYTES + 1)
    )
    if len(data) > MAX_FILE_BYTES:
        raise CliError(f"{what} on stdin is over the limit of {MAX_FILE_BYTES:,} bytes")
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(f"{what} on stdin is not UTF-8 text") from exc
