"""Lexical tool search over a catalog: a BM25F index in memory, no I/O (_search).

``Catalog.search`` builds the index on first use; ``toolcat search``, the
``search_tools`` tool and docs/search.md's browser ranking read the same one.
:class:`SearchSettings` and :class:`EmbeddingsSettings` are the catalog's ``search:``
section; :func:`fuse_rankings` merges this ranking with an embeddings one.
"""

from ._search import (
    MAX_QUERY_CHARS,
    MAX_QUERY_TERMS,
    EmbeddingsSettings,
    SearchHit,
    SearchIndex,
    SearchSettings,
    fuse_rankings,
    tokenize,
)

__all__ = [
    "EmbeddingsSettings",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TERMS",
    "SearchHit",
    "SearchIndex",
    "SearchSettings",
    "fuse_rankings",
    "tokenize",
]
