"""The demo's fakes: the sample service, a scripted model, a server in a thread.

Not runtime code: nothing in toolcat.catalog, toolcat.loader or toolcat.executor imports
this package. ``toolcat demo`` runs these, and the tests use them too; what only the
tests and benchmarks start (real peers, large inputs) lives under tests/support/.
"""

from ._background import BackgroundServer
from ._demo_service import make_service
from ._scripted import RecordedRequest, ScriptedModel, ScriptedTurn

__all__ = [
    "BackgroundServer",
    "RecordedRequest",
    "ScriptedModel",
    "ScriptedTurn",
    "make_service",
]
