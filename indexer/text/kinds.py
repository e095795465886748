"""Which files are which kind of text, by name: the one place that says so."""

from __future__ import annotations

MARKDOWN_EXTENSIONS = (".md", ".markdown")
TEXT_EXTENSIONS = (*MARKDOWN_EXTENSIONS, ".txt")


def is_text_path(path: str) -> bool:
    """Whether the `text` source class reads this path (its bytes are the text that is cited)."""
    return path.lower().endswith(TEXT_EXTENSIONS)
