"""A run builds only the typed command's parser: its help and errors read as with all of them."""

from __future__ import annotations

import argparse

import pytest
from toolcat.cli._app import _COMMAND_MODULES, CliError, build_parser


def _sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices[name]
            return found
    raise AssertionError("no subparsers")


@pytest.mark.parametrize("module", _COMMAND_MODULES)
def test_same_help_and_errors(module: str) -> None:
    name = module.replace("_", "-")
    alone, full = _sub(build_parser(module), name), _sub(build_parser(), name)
    assert alone.format_help() == full.format_help()
    assert alone.prog == full.prog
    errors = []
    for parser in (build_parser(module), build_parser()):
        with pytest.raises(CliError) as caught:
            parser.parse_args([name, "--no-such-option"])
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
