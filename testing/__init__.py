"""Fakes for the demo and for tests: a sample service, a scripted model, a server in a thread.

Not runtime code: nothing in toolcat.catalog, toolcat.loader or toolcat.executor imports
this package. ``toolcat demo`` and the test suite do.
"""

from ._background import BackgroundServer
from ._cluster import Cluster, LoadFigures, cluster_parts_missing, run_load, settle_figures
from ._demo_service import make_service
from ._embeddings import EmbeddingsService, hashed_embedding
from ._raw import RawHandler, RawServer, zeros_gzip
from ._redis import RedisServer, RedisUnavailable
from ._scripted import RecordedRequest, ScriptedModel, ScriptedTurn
from ._synthetic import synthetic_catalog

__all__ = [
    "BackgroundServer",
    "Cluster",
    "EmbeddingsService",
    "LoadFigures",
    "RawHandler",
    "RawServer",
    "RecordedRequest",
    "RedisServer",
    "RedisUnavailable",
    "ScriptedModel",
    "ScriptedTurn",
    "cluster_parts_missing",
    "hashed_embedding",
    "make_service",
    "run_load",
    "settle_figures",
    "synthetic_catalog",
    "zeros_gzip",
]
