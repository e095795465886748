"""A text document's title, by its format: what lists, search results and page titles show.

- Markdown: front matter's `title:` (YAML between `---` lines at the top), else the first
  heading (ATX `# Title` or setext);
- reStructuredText: the document title docutils promotes (the first section title);
- AsciiDoc: the `= Title` line of its header;
- every format: a leading mail-style header block with a `Title:` field (the form older
  text proposals and RFC-like documents use) names the title;
- otherwise no title (""): callers show the path.
"""

from __future__ import annotations

import re

from indexer.text import asciidoc, rst
from indexer.text.kinds import TextFormat

MAX_TITLE = 200
_FRONT_MATTER_TITLE = re.compile(r"^title:\s*(.+?)\s*$")
_HEADER_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:\s")
_ATX = re.compile(r"^ {0,3}#{1,6}\s+(.+?)(?:\s+#+)?\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")


def document_title(text: str, fmt: TextFormat) -> str:
    lines = text[:20_000].splitlines()  # a title stands near the top; a huge file is not scanned whole
    found = _header_title(lines)
    if not found:
        if fmt == "markdown":
            found = _markdown_title(lines)
        elif fmt == "rst":
            found = rst.title(lines)
        elif fmt == "asciidoc":
            found = asciidoc.title(lines)
    return found.strip()[:MAX_TITLE]


def _header_title(lines: list[str]) -> str:
    """`Title:` in a leading block of `Field: value` lines (with indented continuation lines)."""
    for line in lines:
        if not line.strip():
            return ""
        if line[:1] in " \t":
            continue
        if not _HEADER_FIELD.match(line):
            return ""
        name, value = line.split(":", 1)
        if name.lower() == "title":
            return value.strip()
    return ""


def _markdown_title(lines: list[str]) -> str:
    body = lines
    if lines and lines[0].strip() == "---":
        for n in range(1, len(lines)):
            if lines[n].strip() in ("---", "..."):
                for line in lines[1:n]:
                    found = _FRONT_MATTER_TITLE.match(line)
                    if found:
                        return found.group(1).strip("\"'")
                body = lines[n + 1 :]
                break
    in_fence = False
    for n, line in enumerate(body):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        atx = _ATX.match(line)
        if atx:
            return atx.group(1)
        if line.strip() and n + 1 < len(body) and _SETEXT.match(body[n + 1]) and not _SETEXT.match(line):
            return line.strip()
    return ""
