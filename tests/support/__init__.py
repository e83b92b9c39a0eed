"""What the tests and benchmarks start besides the demo's fakes: real peers, large inputs.

Not in the wheel (``toolcat.testing`` keeps only what ``toolcat demo`` runs). The
repository root is the ``toolcat`` package, so in a checkout (the editable install
the tests and benchmarks run from) this folder imports as ``toolcat.tests.support``:

- :class:`Cluster` and :func:`run_load` (_cluster): ``toolcat serve`` replicas behind
  HAProxy with Redis, and a load-and-fault run against them;
- :class:`RedisServer` (_redis): a ``redis-server`` on a free loopback port;
- :class:`RawServer` (_raw): an HTTP peer that misbehaves on purpose;
- :class:`EmbeddingsService` (_embeddings): an OpenAI-compatible embeddings endpoint;
- :func:`synthetic_catalog` (_synthetic): a large generated catalog;
- :class:`CatalogFiles` (_catalogs): catalog text written and loaded, failing the test on
  any error (the ``catalog_files`` fixture of tests/conftest.py); :func:`http_command`,
  the command of a tool known to be an HTTP tool.
"""

from ._catalogs import CatalogFiles, http_command
from ._cluster import Cluster, LoadFigures, cluster_parts_missing, run_load, settle_figures
from ._embeddings import EmbeddingsService, hashed_embedding
from ._raw import RawHandler, RawServer, zeros_gzip
from ._redis import RedisServer, RedisUnavailable
from ._synthetic import synthetic_catalog

__all__ = [
    "CatalogFiles",
    "Cluster",
    "EmbeddingsService",
    "LoadFigures",
    "RawHandler",
    "RawServer",
    "RedisServer",
    "RedisUnavailable",
    "cluster_parts_missing",
    "hashed_embedding",
    "http_command",
    "run_load",
    "settle_figures",
    "synthetic_catalog",
    "zeros_gzip",
]
