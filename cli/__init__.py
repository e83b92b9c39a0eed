"""The ``toolcat`` command: thin wiring of the loader, the exporters and the executor."""

from ._app import CliError, main

__all__ = ["CliError", "main"]
