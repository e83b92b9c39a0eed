"""Semantic tool search: an OpenAI-compatible embeddings endpoint, fused with the lexical ranking.

The catalog's ``search.embeddings`` section (``toolcat.catalog.search.EmbeddingsSettings``)
names the endpoint. :class:`SemanticSearch` embeds every tool once (vectors cached
on disk, one file per tool keyed by a content hash of the model and the tool's
text), embeds each query (an in-memory LRU), ranks tools by cosine similarity and
fuses that ranking with ``Catalog.search``'s BM25F by reciprocal rank fusion
(``toolcat.catalog.search.fuse_rankings``).

Whatever goes wrong with the endpoint (refused, slow, an HTTP error, JSON that
is not an embeddings answer, vectors of the wrong size or count, NaN) gives the
lexical ranking with a ``note`` saying why; after a failure the endpoint rests
for ``RETRY_AFTER`` seconds, so a dead endpoint costs one timeout, not one a query.
The endpoint's client lives in ``_embeddings.py``, the disk cache in ``_vectors.py``.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError
from toolcat.catalog.common import interpolate
from toolcat.catalog.search import MAX_QUERY_CHARS, EmbeddingsSettings, SearchHit, fuse_rankings

from ._embeddings import EmbeddingsClient, EmbeddingsFailure
from ._vectors import VectorCache, default_cache_dir

if TYPE_CHECKING:
    import httpx
    from toolcat.catalog import Catalog, ToolDefinition

__all__ = [
    "FUSION_DEPTH",
    "MAX_TOOL_TEXT_CHARS",
    "QUERY_CACHE_SIZE",
    "RETRY_AFTER",
    "SearchResults",
    "SemanticSearch",
    "tool_text",
]

#: Characters of a tool's text embedded (name, title, description, parameters).
MAX_TOOL_TEXT_CHARS = 4_000
#: Query vectors kept in memory (least recently used leave first).
QUERY_CACHE_SIZE = 256
#: Seconds the endpoint rests after a failure (searches are lexical meanwhile).
RETRY_AFTER = 30.0
#: How deep each ranking goes into the fusion (or ``top``, when larger).
FUSION_DEPTH = 100

_DECIMALS = 5  # similarities are compared at this precision (float32 has about 7 digits)


class SearchResults(list[SearchHit]):
    """Ranked tools, best first, with how they were ranked.

    ``ranking`` is ``"fused"`` (lexical and semantic) or ``"lexical"``; ``note``
    says why semantic ranking was not used when it was configured (``None``
    otherwise).
    """

    ranking: str
    note: str | None

    def __init__(
        self, hits: Iterable[SearchHit] = (), *, ranking: str = "lexical", note: str | None = None
    ) -> None:
        super().__init__(hits)
        self.ranking = ranking
        self.note = note


def tool_text(tool: ToolDefinition) -> str:
    """The text embedded for a tool: name, title, description and parameter names."""
    params = tool.input_schema.get("properties")
    names = ", ".join(str(k) for k in params) if isinstance(params, Mapping) else ""
    title = tool.annotations.title
    words = tool.name.replace("_", " ").replace("-", " ")
    parts = [f"{words}{f' ({title})' if title else ''}", tool.description]
    if names:
        parts.append(f"Parameters: {names}")
    return "\n".join(p for p in parts if p)[:MAX_TOOL_TEXT_CHARS]


class SemanticSearch:
    """A catalog's tools ranked by BM25F fused with embeddings similarity.

    ``settings`` defaults to the catalog's ``search.embeddings``; without any,
    every search is lexical (``ranking == "lexical"``, no note). ``env`` is what
    ``${VAR}`` in the settings reads (default: the catalog's, else ``os.environ``).
    ``cache_dir`` overrides the settings' ``cache`` (``False``: no disk cache).
    """

    def __init__(
        self,
        catalog: Catalog,
        settings: EmbeddingsSettings | None = None,
        *,
        env: Mapping[str, str] | None = None,
        cache_dir: str | os.PathLike[str] | bool | None = None,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.catalog = catalog
        if settings is None and catalog.search_settings is not None:
            settings = catalog.search_settings.embeddings
        self.settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._vectors: dict[str, list[float]] | None = None
        self._matrix: Any = None  # the vectors as one numpy array, when numpy is installed
        self._queries: OrderedDict[str, list[float]] = OrderedDict()
        self._failed_at: float | None = None
        self._failure = ""
        self.client: EmbeddingsClient | None = None
        self.cache: VectorCache | None = None
        if settings is None:
            return
        env = env if env is not None else catalog.env
        self.client = EmbeddingsClient(settings, env, transport=transport)
        if cache_dir is not False:
            where: Path | None
            if cache_dir is None or cache_dir is True:
                where = default_cache_dir()
                if settings.cache:
                    try:  # a ${VAR} in it reads the same environment as the endpoint's fields
                        text = interpolate(
                            settings.cache,
                            os.environ if env is None else env,
                            where="search.embeddings.cache",
                        )
                        where = Path(os.path.expanduser(text))
                    except ToolcatError:
                        where = None  # vectors in memory only
            else:
                where = Path(cache_dir)
            if where is not None:
                self.cache = VectorCache(where)

    @property
    def enabled(self) -> bool:
        """Whether an embeddings endpoint is configured."""
        return self.client is not None

    def close(self) -> None:
        if self.client is not None:
            self.client.close()

    def __enter__(self) -> SemanticSearch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def search(self, query: str, top: int = 10, *, toolset: str | None = None) -> SearchResults:
        """The ``top`` best tools for ``query``: fused when the endpoint answers, else lexical."""
        only = None if toolset is None else [t.name for t in self.catalog.toolset(toolset)]
        return self.search_only(query, top, only=only)

    def search_only(
        self, query: str, top: int = 10, *, only: Iterable[str] | None = None
    ) -> SearchResults:
        """:meth:`search` over the tools named in ``only`` (``None``: every tool)."""
        allowed = None if only is None else set(only)
        index = self.catalog.search_index
        if self.client is None or top <= 0:
            return SearchResults(index.search(query, top, only=allowed))
        depth = max(top, FUSION_DEPTH)
        lexical = index.search(query, depth, only=allowed)
        text = query[:MAX_QUERY_CHARS].strip()
        if not text:
            return SearchResults(lexical[:top])
        try:
            vectors = self._tool_vectors()
            qvec = self._query_vector(text)
        except EmbeddingsFailure as exc:
            return SearchResults(lexical[:top], note=f"{exc}; lexical ranking only")
        similar = self._rank(qvec, vectors, allowed, depth)
        assert self.settings is not None
        fused = fuse_rankings(
            [([h.name for h in lexical], 1.0), (similar, self.settings.weight)],
            k=self.settings.k,
            top=top,
        )
        return SearchResults(fused, ranking="fused")

    def rank_by_embeddings(
        self, query: str, top: int = 10, *, only: Iterable[str] | None = None
    ) -> list[str]:
        """Tool names by embeddings similarity alone; :class:`EmbeddingsFailure` on failure."""
        if self.client is None:
            raise EmbeddingsFailure("no embeddings endpoint configured")
        vectors = self._tool_vectors()
        text = query[:MAX_QUERY_CHARS].strip()
        if not text or top <= 0:
            return []
        allowed = None if only is None else set(only)
        return self._rank(self._query_vector(text), vectors, allowed, top)

    def prepare(self) -> str | None:
        """Embed the tools now (else on the first search); the note on failure, else ``None``."""
        if self.client is None:
            return None
        try:
            self._tool_vectors()
        except EmbeddingsFailure as exc:
            return f"{exc}; lexical ranking only"
        return None

    def _resting(self) -> None:
        if self._failed_at is not None and self._clock() - self._failed_at < RETRY_AFTER:
            raise EmbeddingsFailure(self._failure)

    def _failed(self, exc: EmbeddingsFailure) -> EmbeddingsFailure:
        self._failed_at, self._failure = self._clock(), str(exc)
        return exc

    def _tool_vectors(self) -> dict[str, list[float]]:
        with self._lock:
            if self._vectors is not None:
                return self._vectors
            self._resting()
            assert self.client is not None and self.settings is not None
            if self.client.problem:
                raise self._failed(EmbeddingsFailure(self.client.problem))
            dims = self.settings.dimensions
            tools = list(self.catalog)
            keys = [VectorCache.key(self.client.model, dims, tool_text(t)) for t in tools]
            vectors: dict[str, list[float]] = {}
            missing: list[int] = []
            for i, (tool, key) in enumerate(zip(tools, keys, strict=True)):
                vec = self.cache.get(key, dims) if self.cache else None
                if vec is None:
                    missing.append(i)
                else:
                    vectors[tool.name] = vec
            if missing:
                try:
                    fetched = self.client.embed([tool_text(tools[i]) for i in missing])
                except EmbeddingsFailure as exc:
                    raise self._failed(exc) from None
                for i, vec in zip(missing, fetched, strict=True):
                    vectors[tools[i].name] = vec
                    if self.cache:
                        self.cache.put(keys[i], vec)
                if self.cache:
                    self.cache.prune()
            sizes = {len(v) for v in vectors.values()}
            if len(sizes) > 1:  # cached under another size of the same model
                raise self._failed(EmbeddingsFailure("embeddings: tool vectors of different sizes"))
            self._vectors = vectors
            self._matrix = _as_matrix(vectors)
            self._failed_at = None
            return vectors

    def _query_vector(self, text: str) -> list[float]:
        with self._lock:
            vec = self._queries.get(text)
            if vec is not None:
                self._queries.move_to_end(text)
                return vec
            self._resting()
        assert self.client is not None and self._vectors is not None
        try:
            (vec,) = self.client.embed([text])
        except EmbeddingsFailure as exc:
            with self._lock:
                raise self._failed(exc) from None
        size = len(next(iter(self._vectors.values()), vec))
        if len(vec) != size:
            with self._lock:
                raise self._failed(
                    EmbeddingsFailure(
                        f"embeddings endpoint: a query vector of {len(vec)} dimensions, "
                        f"tools have {size}"
                    )
                )
        with self._lock:
            self._queries[text] = vec
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vec

    def _rank(
        self,
        query: Sequence[float],
        vectors: Mapping[str, Sequence[float]],
        only: set[str] | None,
        depth: int,
    ) -> list[str]:
        if self._matrix is not None:
            return _numpy_ranking(query, self._matrix, list(vectors), only, depth)
        return _cosine_ranking(query, vectors, only, depth)


def _as_matrix(vectors: Mapping[str, Sequence[float]]) -> Any:
    """The vectors as a float32 numpy array (rows in catalog order), or ``None`` without numpy."""
    try:
        import numpy
    except ImportError:  # the pure-Python ranking, slower (benchmarks/README.md)
        return None
    return numpy.asarray(list(vectors.values()), dtype=numpy.float32) if vectors else None


def _numpy_ranking(
    query: Sequence[float], matrix: Any, names: list[str], only: set[str] | None, depth: int
) -> list[str]:
    """:func:`_cosine_ranking` with numpy: one matrix product (same order, float32 scores)."""
    import numpy

    # rounded as the pure-Python ranking rounds: a BLAS product may differ in the last bit
    # between two equal rows, and equal vectors must tie (then catalog order)
    scores = numpy.round(matrix @ numpy.asarray(query, dtype=numpy.float32), _DECIMALS)
    if only is not None:
        keep = numpy.fromiter((n in only for n in names), dtype=bool, count=len(names))
        scores = numpy.where(keep, scores, -numpy.inf)
    # best first; equal scores in catalog order (a stable sort of the negated scores)
    order = numpy.argsort(-scores, kind="stable")[:depth]
    return [names[i] for i in order.tolist() if scores[i] != -numpy.inf]


def _cosine_ranking(
    query: Sequence[float],
    vectors: Mapping[str, Sequence[float]],
    only: set[str] | None,
    depth: int,
) -> list[str]:
    """Tool names by cosine similarity to ``query`` (unit vectors: the dot product), best first."""
    from heapq import nlargest
    from operator import mul

    scored = (
        (round(sum(map(mul, query, vec)), _DECIMALS), -i, name)
        for i, (name, vec) in enumerate(vectors.items())
        if only is None or name in only
    )
    return [name for _, _, name in nlargest(depth, scored)]
