"""Which files are which kind of document, by path: the one place that says so.

Every file that git does not treat as binary is a `text` document (docs/design.md#d15);
only PDF and HTML are read by an extractor instead. The name then decides the *format*
of a text document, which picks its passages and its view on the site: Markdown,
reStructuredText and AsciiDoc are structure-aware, everything else is plain text.
"""

from __future__ import annotations

from typing import Literal

TextFormat = Literal["markdown", "rst", "asciidoc", "plain"]
TEXT_FORMATS: tuple[TextFormat, ...] = ("markdown", "rst", "asciidoc", "plain")

MARKDOWN_EXTENSIONS = (".md", ".markdown")
RST_EXTENSIONS = (".rst", ".rest")
ASCIIDOC_EXTENSIONS = (".adoc", ".asciidoc", ".asc")
PDF_EXTENSIONS = (".pdf",)
HTML_EXTENSIONS = (".html", ".htm")
EXTRACTED_EXTENSIONS = (*PDF_EXTENSIONS, *HTML_EXTENSIONS)

# Files a folder scan of *writing* looks at (`pincite check DIR`): prose formats, not every text file.
PROSE_EXTENSIONS = (*MARKDOWN_EXTENSIONS, *RST_EXTENSIONS, *ASCIIDOC_EXTENSIONS, ".txt", ".text")


def is_text_path(path: str) -> bool:
    """Whether the `text` source class reads this path (its bytes are the text that is cited).

    True for every name but those of extracted types: a binary file is found by its bytes
    (or its git attributes), never by its name.
    """
    return not path.lower().endswith(EXTRACTED_EXTENSIONS)


def is_prose_path(path: str) -> bool:
    """Whether a folder scan for citations reads this file (Markdown, reST, AsciiDoc, .txt/.text)."""
    return path.lower().endswith(PROSE_EXTENSIONS)


def text_format(path: str) -> TextFormat:
    """The format of a text document, by its name."""
    lower = path.lower()
    if lower.endswith(MARKDOWN_EXTENSIONS):
        return "markdown"
    if lower.endswith(RST_EXTENSIONS):
        return "rst"
    if lower.endswith(ASCIIDOC_EXTENSIONS):
        return "asciidoc"
    return "plain"


# Snapshots of web pages: `snapshots/<host>/<slug>-<hash8>.<ext>` with metadata at `<body>.meta.json`.
SNAPSHOT_ROOT = "snapshots"
SNAPSHOT_META_SUFFIX = ".meta.json"


def is_snapshot(path: str) -> bool:
    """Whether a path is under the snapshot root (its text class is `snapshot`)."""
    return path.split("/", 1)[0] == SNAPSHOT_ROOT


def is_snapshot_meta(path: str) -> bool:
    """Whether a path is a snapshot's metadata, read beside its body and never indexed itself."""
    return path.endswith(SNAPSHOT_META_SUFFIX)
