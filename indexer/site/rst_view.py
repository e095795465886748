"""The rendered view of a reStructuredText document, through docutils with every reading directive off.

A corpus document is untrusted input. docutils is told not to read anything: `raw` is
disabled (no HTML passes through), `include` and every `:file:`/`:url:` option
(`raw`, `csv-table`) are disabled, no configuration file is read, no stylesheet is
linked, math is plain HTML (no MathJax URL) and code is not highlighted. Before writing,
the tree is cleaned: images become their alt text (the site loads nothing from
elsewhere), and a link keeps its target only for http(s), mailto or a relative address.
System messages are not shown: the source view is the place to read the exact text.
"""

from __future__ import annotations

import io
from typing import Any

from docutils import nodes
from docutils.core import publish_doctree, publish_from_doctree
from docutils.writers import html5_polyglot
from markupsafe import Markup

SAFE_SCHEMES = ("http", "https", "mailto")
REL = "nofollow noopener noreferrer"  # as on the Markdown view's links

SETTINGS: dict[str, Any] = {
    "raw_enabled": False,
    "file_insertion_enabled": False,
    "_disable_config": True,
    "report_level": 5,  # nothing reaches the page or stderr
    "halt_level": 5,
    "warning_stream": io.StringIO(),
    "traceback": True,  # a docutils bug surfaces as our exception, not a SystemExit
    "embed_stylesheet": False,
    "stylesheet_path": "",
    "stylesheet": "",
    "math_output": "HTML",
    "syntax_highlight": "none",
    "input_encoding": "unicode",
    "output_encoding": "unicode",
    "doctitle_xform": False,  # the title stays a heading of the page, not the HTML <title>
    "id_prefix": "h-",
    "auto_id_prefix": "%",
    "smart_quotes": False,
}


def rst_view(text: str) -> tuple[Markup, list[tuple[int, str, str]]]:
    """Rendered HTML of a reST document and its (level, id, title) headings."""
    settings = {**SETTINGS, "warning_stream": io.StringIO()}
    tree = publish_doctree(text, settings_overrides=settings)
    _clean(tree)
    headings = _headings(tree)
    writer = html5_polyglot.Writer()
    publish_from_doctree(tree, writer=writer, settings_overrides=settings)
    body = str(writer.parts["body"]).replace(
        '<a class="reference external" ', f'<a class="reference external" rel="{REL}" '
    )
    return Markup(body), headings


def _clean(tree: nodes.document) -> None:
    for image in list(tree.findall(nodes.image)):
        alt = image.get("alt", "")
        replacement = nodes.inline(text=f"[image: {alt}]" if alt else "[image]")
        parent = image.parent
        if isinstance(parent, nodes.reference):  # a linked image: drop the link with it
            image, parent = parent, parent.parent
        if isinstance(parent, (nodes.TextElement, nodes.inline)):
            image.replace_self(replacement)
        else:
            image.replace_self(nodes.paragraph("", "", replacement))
    for ref in list(tree.findall(nodes.reference)):
        uri = ref.get("refuri")
        if uri is not None and not _safe_uri(uri):
            ref.replace_self(nodes.inline("", "", *ref.children))
    for target in tree.findall(nodes.target):
        uri = target.get("refuri")
        if uri is not None and not _safe_uri(uri):
            del target["refuri"]


def _safe_uri(uri: str) -> bool:
    candidate = "".join(uri.split()).lower()  # browsers ignore whitespace and control characters inside schemes
    if ":" not in candidate.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]:
        return True  # relative: no scheme
    return candidate.split(":", 1)[0] in SAFE_SCHEMES


def _headings(tree: nodes.document) -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    for section in tree.findall(nodes.section):
        level, parent = 1, section.parent
        while parent is not None and not isinstance(parent, nodes.document):
            level += isinstance(parent, nodes.section)
            parent = parent.parent
        title = section.next_node(nodes.title)
        ids = section.get("ids") or [""]
        found.append((level, ids[0], title.astext() if title is not None else ""))
    return found
