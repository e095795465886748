"""pincite's own folder in a repository, `.pincite/` (the index, the extraction cache).

It holds local state only, so it ignores itself in git, as pytest's cache folder does: a
`.gitignore` of `*` inside it keeps it out of `git status` without touching the user's files.
"""

from __future__ import annotations

from pathlib import Path

STATE_FOLDER = ".pincite"
IGNORE_ALL = "# pincite's local state (index, caches): rebuilt on demand, never committed\n*\n"
IGNORE_WORK = "# a pincite build's temporary site folders and lock, beside the site: never committed\n*\n"


def make_parent(path: Path) -> None:
    """Create the folder `path` goes into; a `.pincite` folder on the way ignores itself in git."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for folder in (path.parent, *path.parent.parents):
        if folder.name == STATE_FOLDER:
            ensure_ignored(folder)
            break


def ensure_ignored(folder: Path, text: str = IGNORE_ALL) -> None:
    """Write `folder/.gitignore` (`*`) unless the folder already has one."""
    marker = folder / ".gitignore"
    if not marker.exists():
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text(text, encoding="utf-8")


def site_work_folder(out_dir: Path) -> Path:
    """Where a build of the site `out_dir` keeps its lock and temporary folders: `.<name>.pincite/` beside it.

    Beside the site, so that a finished site is renamed into place on the same file system;
    ignoring itself in git, so that nothing but the site the user chose shows in `git status`.
    """
    work = out_dir.with_name(f".{out_dir.name}.pincite")
    ensure_ignored(work, IGNORE_WORK)
    return work
