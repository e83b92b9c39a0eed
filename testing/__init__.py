"""Fakes for the demo and for tests: a sample service, a scripted model, a server in a thread.

Not runtime code: nothing in toolcat.catalog, toolcat.loader or toolcat.executor imports
this package. ``toolcat demo`` and the test suite do.
"""

from ._background import BackgroundServer
from ._demo_service import make_service
from ._embeddings import EmbeddingsService, hashed_embedding
from ._raw import RawHandler, RawServer, zeros_gzip
from ._scripted import RecordedRequest, ScriptedModel, ScriptedTurn

__all__ = [
    "BackgroundServer",
    "EmbeddingsService",
    "RawHandler",
    "RawServer",
    "RecordedRequest",
    "ScriptedModel",
    "ScriptedTurn",
    "hashed_embedding",
    "make_service",
    "zeros_gzip",
]
