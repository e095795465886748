"""pincite: a git-backed static-content indexer whose citations are pinned to commits.

The library API (the CLI is a thin layer over it):

    indexer.build(repo_path, rev)      -> BuildSummary
    indexer.search(query, repo_path)   -> list[SearchHit]
"""

from __future__ import annotations

__version__ = "0.1.0"

from indexer.index.build import BuildSummary, build
from indexer.index.search import SearchHit, search

__all__ = ["BuildSummary", "SearchHit", "__version__", "build", "search"]
