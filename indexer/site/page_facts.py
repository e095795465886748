"""What a document page says about its document, read from where the page shows it.

A document page (site_templates/document.html) writes its blob, commit, path and source class
once, where a reader sees them: the link to its version, `v/<blob>.html?commit=<sha>&path=<path>`
(the `version` link of the facts line), and the class's tag. The search record reads them here
(`search_bundles.record_metadata`), the page's script in the browser (static/page.js,
`documentFacts`), so neither is written again as attributes of `<main>` (issue 28: a page's
chrome). Values stay as the page holds them: HTML-escaped text; the path decoded from the link's
query, then escaped again.

A `template_dir` may hold a document page of its own, written for the shipped templates of an
earlier release: attribute values quoted (`id="content"`), and the facts as `<main>`'s
`data-blob`, `data-commit`, `data-path` and `data-class`. Both are read, quoted or not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from markupsafe import escape

# An attribute's value as HTML writes it: bare, or quoted the same on both sides.
_Q = rb"""(?P<q%d>["']?)"""


def _value(name: bytes, value: bytes, n: int) -> bytes:
    return rb"(?<=\s)" + name + b"=" + _Q % n + value + rb"(?P=q%d)(?=[\s/>])" % n


MAIN_TAG = re.compile(rb"<main\s[^>]*?" + _value(b"id", b"content", 1) + rb"[^>]*>")
DOCUMENT_KIND = re.compile(_value(b"data-kind", b"document", 1))
VERSION_LINK = re.compile(
    rb"<a\s" + _value(b"id", b"version", 1) + rb"\s+href=" + _Q % 2
    + rb"[^\"'\s>]*?v/(?P<blob>[0-9a-f]{40,64})\.html\?commit=(?P<commit>[0-9a-f]{40,64})&(?:amp;)?path="
    + rb"(?P<path>[^\"'\s>#]*)#L1(?P=q2)>"
)  # fmt: skip
CLASS_TAG = re.compile(rb"""<span class=(?:tag|(?P<q>["'])tag(?: tag-\w+)?(?P=q))>(\w+)</span>""")
# The old pages' facts, on `<main>` (always quoted there).
MAIN_FACT = re.compile(rb' data-(blob|commit|path|class)="([^"]*)"')
# The page's shown title: a document page's `<h1>` is its title when a path line follows it, else its path.
TITLE_START = re.compile(rb"<h1 class=" + _Q % 1 + rb"doc-title(?P=q1)>")
SHOWN_TITLE = re.compile(
    rb"<h1 class=" + _Q % 1 + rb"doc-title(?P=q1)>(?P<title>[^<]*)</h1>\n<p class=" + _Q % 2 + rb"doc-path(?P=q2)[\s>]"
)


@dataclass(frozen=True)
class DocumentFacts:
    """A document page's facts, as escaped HTML text (bytes, as the page holds them)."""

    blob: bytes
    commit: bytes
    path: bytes
    source_class: bytes
    title: bytes


def document_facts(page: bytes) -> DocumentFacts | None:
    """The facts of the document page `page`, or None when it is not one, or shows none of them."""
    main = MAIN_TAG.search(page)
    if main is None or DOCUMENT_KIND.search(main.group()) is None:
        return None
    link = VERSION_LINK.search(page, main.end())
    tag = CLASS_TAG.search(page, main.end())
    if link is not None and tag is not None:
        path = str(escape(unquote(link["path"].decode("ascii")))).encode("utf-8")  # as the template escapes it
        blob, commit, source_class = link["blob"], link["commit"], tag.group(2)
    else:
        old = dict(MAIN_FACT.findall(main.group()))
        if not {b"blob", b"commit", b"path", b"class"} <= old.keys():
            return None
        blob, commit, path, source_class = old[b"blob"], old[b"commit"], old[b"path"], old[b"class"]
    title = TITLE_START.search(page, main.end())
    shown = SHOWN_TITLE.match(page, title.start()) if title else None
    return DocumentFacts(
        blob=blob, commit=commit, path=path, source_class=source_class, title=shown["title"] if shown else path
    )
