"""What a document page says about its document, read from where the page shows it.

A document page (site_templates/document.html) writes its blob, commit, path and source class
once, where a reader sees them: the link to its version, `v/<blob>.html?commit=<sha>&path=<path>`
(the `version` link of the facts line), and the class's tag. The search record reads them here
(`search_bundles.record_metadata`), the page's script in the browser (static/page.js,
`documentFacts`), so neither is written again as attributes of `<main>` (issue 28: a page's
chrome). Values stay as the page holds them: HTML-escaped text; the path decoded from the link's
query, then escaped again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from markupsafe import escape

MAIN_TAG = re.compile(rb"<main id=content [^>]*>")
VERSION_LINK = re.compile(
    rb'<a id=version href="[^"]*?v/([0-9a-f]{40,64})\.html\?commit=([0-9a-f]{40,64})&amp;path=([^"#]*)#L1">'
)
CLASS_TAG = re.compile(rb'<span class=(?:tag|"tag tag-\w+")>(\w+)</span>')
# The page's shown title: a document page's `<h1>` is its title when a path line follows it, else its path.
SHOWN_TITLE = re.compile(rb"<h1 class=doc-title>([^<]*)</h1>\n<p class=doc-path")


@dataclass(frozen=True)
class DocumentFacts:
    """A document page's facts, as escaped HTML text (bytes, as the page holds them)."""

    blob: bytes
    commit: bytes
    path: bytes
    source_class: bytes
    title: bytes


def document_facts(page: bytes) -> DocumentFacts | None:
    """The facts of the document page `page`, or None when it is not one the shipped template wrote."""
    main = MAIN_TAG.search(page)
    if main is None or b"data-kind=document" not in main.group():
        return None
    link = VERSION_LINK.search(page, main.end())
    tag = CLASS_TAG.search(page, main.end())
    if link is None or tag is None:
        return None
    path = str(escape(unquote(link.group(3).decode("ascii")))).encode("utf-8")  # as the template escapes it
    shown = SHOWN_TITLE.match(page, page.find(b"<h1 class=doc-title>", main.end()))
    return DocumentFacts(
        blob=link.group(1),
        commit=link.group(2),
        path=path,
        source_class=tag.group(1),
        title=shown.group(1) if shown else path,
    )
