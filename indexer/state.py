"""pincite's own folder in a repository, `.pincite/` (the index, the extraction cache).

It holds local state only, so it ignores itself in git, as pytest's cache folder does: a
`.gitignore` of `*` inside it keeps it out of `git status` without touching the user's files.
"""

from __future__ import annotations

from pathlib import Path

STATE_FOLDER = ".pincite"
IGNORE_ALL = "# pincite's local state (index, caches): rebuilt on demand, never committed\n*\n"


def make_parent(path: Path) -> None:
    """Create the folder `path` goes into; a `.pincite` folder on the way ignores itself in git."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for folder in (path.parent, *path.parent.parents):
        if folder.name == STATE_FOLDER:
            ensure_ignored(folder)
            break


def ensure_ignored(folder: Path) -> None:
    """Write `folder/.gitignore` (`*`) unless the folder already has one."""
    marker = folder / ".gitignore"
    if not marker.exists():
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text(IGNORE_ALL, encoding="utf-8")
