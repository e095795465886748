"""Which files are which kind of document, by path: the one place that says so."""

from __future__ import annotations

MARKDOWN_EXTENSIONS = (".md", ".markdown")
TEXT_EXTENSIONS = (*MARKDOWN_EXTENSIONS, ".txt")


def is_text_path(path: str) -> bool:
    """Whether the `text` source class reads this path (its bytes are the text that is cited)."""
    return path.lower().endswith(TEXT_EXTENSIONS)


# Snapshots of web pages: `snapshots/<host>/<slug>-<hash8>.<ext>` with metadata at `<body>.meta.json`.
SNAPSHOT_ROOT = "snapshots"
SNAPSHOT_META_SUFFIX = ".meta.json"


def is_snapshot(path: str) -> bool:
    """Whether a path is under the snapshot root (its text class is `snapshot`)."""
    return path.split("/", 1)[0] == SNAPSHOT_ROOT


def is_snapshot_meta(path: str) -> bool:
    """Whether a path is a snapshot's metadata, read beside its body and never indexed itself."""
    return path.endswith(SNAPSHOT_META_SUFFIX)
