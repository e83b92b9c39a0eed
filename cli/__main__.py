"""``python -m toolcat.cli``: the same as the ``toolcat`` console script."""

from ._app import console_main

console_main()
