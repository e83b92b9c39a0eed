"""Argument parsing, command dispatch, and the one-line error contract.

Every command module exposes ``register(subparsers)``, which adds its parser
and sets ``func`` to a callable taking the parsed namespace and returning an
exit code. Command modules import heavy dependencies inside ``func`` so that
``toolcat --help`` and ``toolcat list`` start fast.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from toolcat._errors import ToolcatError

__all__ = ["CliError", "main"]

# Order is the order of ``toolcat --help``.
_COMMAND_MODULES = (
    "validate",
    "import",
    "diff",
    "list",
    "search",
    "docs",
    "schema",
    "codegen",
    "catalog_schema",
    "call",
    "test",
    "env",
    "serve",
    "hash_key",
    "access",
    "chat",
    "demo",
)


class CliError(ToolcatError):
    """A failure the user can fix: printed as one line, exits with ``code`` (2 by default)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def help_width() -> int:
    """Columns for help text, as ``shutil.get_terminal_size`` (argparse's source) finds them.

    argparse imports shutil for this, and with it bz2, lzma and fnmatch: a twentieth of
    ``toolcat list``'s run, for a parser whose help is rarely printed.
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, told the width (see :func:`help_width`)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or help_width())


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2, and a mistyped flag
    (``--fial-on``) is answered with the flag it most looks like."""

    # unknown flag -> the closest flag of the (sub)command that met it; the top-level
    # parser reports them, after the subcommand's parser has handed them back
    _near: dict[str, str] = {}
    # whether the (sub)command that met the words takes ``--args JSON`` (``call``)
    _takes_args = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        if self._subparsers is None:  # a command's own parser: its flags are all here
            self._note_near_flags(list(sys.argv[1:] if args is None else args))
            _Parser._takes_args = "--args" in self._option_string_actions
        return super().parse_known_args(args, namespace)

    def _note_near_flags(self, words: list[str]) -> None:
        """Remember, for each ``--word`` that is no flag of this parser (nor the start of
        one, as argparse takes it), the flag it most looks like: an error reports it
        (the error may be another, met first: a required flag that was mistyped)."""
        _Parser._near.clear()  # one command line at a time
        flags = [o for o in self._option_string_actions if o.startswith("--")]
        words = words[: words.index("--")] if "--" in words else words
        unknown = [
            flag
            for flag in (w.split("=", 1)[0] for w in words if w.startswith("--"))
            if not any(f.startswith(flag) for f in flags)
        ]
        if not unknown:
            return
        import difflib  # here: only a mistyped flag needs it

        for flag in unknown:
            close = difflib.get_close_matches(flag, flags, 1, 0.7)
            if close:
                _Parser._near.setdefault(flag, close[0])

    def error(self, message: str) -> NoReturn:
        near = dict(_Parser._near)
        _Parser._near.clear()
        if len(near) == 1 and message.startswith("unrecognized arguments"):
            message += f"; did you mean {next(iter(near.values()))}?"
        elif near:  # several, or another error met first (a required flag mistyped)
            shown = ", ".join(f"{flag} (for {typed})" for typed, flag in near.items())
            message += f"; did you mean {shown}?"
        elif message.startswith("unrecognized arguments: {") and _Parser._takes_args:
            message += "; a tool's arguments go in --args JSON"  # `call PATH TOOL '{...}'`
        elif message.endswith(": expected one argument") and message.startswith("argument -"):
            flag = message.split()[1].rstrip(":").split("/")[-1]  # `--update -q FILE`
            message += f" (its value goes right after {flag})"
        raise CliError(f"{message} (see '{self.prog} --help')")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of ``command`` (a name the user typed first).

    A run of one command never looks at the other subparsers, so building only its own
    skips importing and registering the rest (a tenth of ``toolcat list``'s start-up);
    help and error texts are the same, since each subparser's are its own.
    """
    from toolcat import __version__

    parser = _Parser(
        prog="toolcat",
        description="A configuration-driven catalog of HTTP tools for LLM function calling.",
    )
    parser.add_argument("--version", action="version", version=f"toolcat {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _COMMAND_MODULES if command is None else (command,):
        module = importlib.import_module(f"{__package__}._cmd_{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    _open_closed_streams()
    try:
        typed = args_list[0] if args_list else ""
        known = {n.replace("_", "-"): n for n in _COMMAND_MODULES}  # as the user types them
        parser = build_parser(known.get(typed))
        args = parser.parse_args(args_list)
        if not getattr(args, "func", None):
            names = ", ".join(n.replace("_", "-") for n in _COMMAND_MODULES)
            raise CliError(f"a command is required: {names} (see 'toolcat --help')")
        if typed != "serve":  # serve sets up its own log (--log-level)
            _one_line_logs()
        from toolcat.catalog.common import recursion_headroom

        with recursion_headroom():  # schemas and values up to the nesting limit, all commands
            code: int = args.func(args)
        sys.stdout.flush()  # a full disk shows here, as one line, rather than at exit
        return code
    except CliError as exc:
        _say(str(exc))
        return exc.code
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except BrokenPipeError:
        # stdout closed early (``toolcat list | head``): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS:
            return _internal(exc)
        _say(f"cannot write the output: {exc.strerror or exc}")
        _silence_stdout()
        return 2
    except Exception as exc:
        return _internal(exc)


# writing stdout failed for a reason outside the program (disk full, device gone)
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EBADF})


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test's capture)
        pass


class _OneLineLog(logging.Formatter):
    """A warning on stderr as one line: the message and, for an exception, the first line
    of its text; never a library's traceback (``TOOLCAT_DEBUG=1`` shows them)."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            lines = str(error).strip().splitlines()
            text = f"{text}: {lines[0] if lines else type(error).__name__}"
        return text


def _one_line_logs() -> None:
    """Warnings of every logger (the MCP SDK's, httpx's) to stderr, one line each, unless
    the process already has a log set up (an application, a test's capture)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    if not os.environ.get("TOOLCAT_DEBUG"):
        handler.setFormatter(_OneLineLog())
    root.addHandler(handler)


def _internal(exc: BaseException) -> int:
    """The last line of defence: one line, never a traceback (unless TOOLCAT_DEBUG is set)."""
    if os.environ.get("TOOLCAT_DEBUG"):
        raise exc
    _say(f"internal error: {type(exc).__name__}: {exc} (set TOOLCAT_DEBUG=1 for details)")
    return 3


def _open_closed_streams() -> None:
    """A standard stream the shell closed (``>&-``) reads as empty / writes to nowhere.

    Python sets such a stream to ``None``; without this every print would fail
    with an AttributeError instead of the command doing its job (its exit code
    still tells the result).
    """
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115


def _say(message: str) -> None:
    from toolcat.catalog.common import escape_controls

    line = escape_controls(" ".join(message.split()))
    print(f"toolcat: {line}", file=sys.stderr)


def console_main() -> NoReturn:
    sys.exit(main())
