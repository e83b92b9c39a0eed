"""The ``toolcat`` command: thin wiring of the loader, the providers and the executor.

``_app`` parses arguments and turns every failure into one line and an exit code;
each ``_cmd_*`` module is one command; ``_loading`` loads a PATH for a command;
``_formats`` writes validate's outputs; ``_demo`` runs ``toolcat demo`` on the fakes
of ``toolcat.testing``.
"""

from ._app import CliError, main

__all__ = ["CliError", "main"]
