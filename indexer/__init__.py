"""pincite: a git-backed static-content indexer whose citations are pinned to commits.

The library API lives in `indexer.api` (see docs/api.md); its functions are importable from
here too, loaded on first use so that `import indexer` stays cheap:

    indexer.build(repo, rev)           -> BuildSummary
    indexer.search(query, repo)        -> list[SearchHit]
    indexer.cite / resolve / verify / check / check_text / locate / impact
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_API = (
    "build",
    "search",
    "cite",
    "resolve",
    "verify",
    "check",
    "check_text",
    "locate",
    "impact",
    "BuildSummary",
    "SearchHit",
)


def __getattr__(name: str) -> Any:
    if name in _API:
        from indexer import api

        return getattr(api, name)
    raise AttributeError(f"module 'indexer' has no attribute {name!r}")


__all__ = ["__version__", *_API]
