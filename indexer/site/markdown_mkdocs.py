"""MkDocs' Markdown: the Python-Markdown and PyMdown extensions MkDocs sites write, beyond CommonMark.

Only a document an mkdocs.yml publishes (`SiteTargets.is_mkdocs`) is read with them: elsewhere
`:smile:`, `==x==` and `++i++` stay text, as CommonMark and GitHub show them. pulldown-cmark parses
definition lists (`def_list`), `~sub~` (`pymdownx.tilde`) and task lists (`pymdownx.tasklist`) itself,
with the options `OPTIONS` adds; this module writes the rest, from a run of Markdown text (never code):

- icons and emoji (`:material-check:`, `:octicons-tag-24:`, `:smile:`): the site ships no icon set and
  fetches nothing from elsewhere, so each is shown as its name in a small labelled mark: the reader
  learns which icon the source names, where a raw `:name:` would read as a typo;
- keys (`++ctrl+alt+del++`, `pymdownx.keys`): each key in a `<kbd>`, named as written;
- `==mark==`, `^^insert^^` and `^sup^` (`pymdownx.mark`, `pymdownx.caret`);
- attribute lists (`{ .md-button }`, `{ #id }`, `{ style="…" }`, `attr_list`): they hold no words and
  are left out; `.md-button` after a link makes that link look like a button, as the source asks;
- a definition whose term is an HTML comment (mkdocs-material's `<!-- md:option … -->`): pulldown-cmark
  wants a paragraph for a term, so the blank line between is given a placeholder term, shown as nothing.

Every class written here carries the document's marker, which the sanitizer removes: raw HTML in the
corpus cannot set them. Text is escaped before any tag is put around it.
"""

from __future__ import annotations

import re

import pyromark
from markupsafe import escape

from indexer.site.markdown_gfm import code_fence

OPTIONS = (
    pyromark.Options.ENABLE_DEFINITION_LIST | pyromark.Options.ENABLE_SUBSCRIPT | pyromark.Options.ENABLE_TASKLISTS
)
# An icon's set (mkdocs-material's `.icons` folders), by the prefix of its name; any other name is an emoji.
ICON_SETS = ("material", "octicons", "fontawesome", "simple")
_VALUE = r"""(?:"[^"\n]*"|'[^'\n]*'|[^\s"'}]+)"""
_ATTRIBUTE = rf"(?:[.#][\w-]+|[\w-]+={_VALUE})"
# An attribute list: `{ .class #id key="value" }`, with Python-Markdown's optional colon (`{: .class }`).
ATTRIBUTE_LIST = rf"\{{:?[ \t]*{_ATTRIBUTE}(?:[ \t]+{_ATTRIBUTE})*[ \t]*\}}"
_INLINE = re.compile(
    rf"(?P<attributes>{ATTRIBUTE_LIST})"
    # pymdownx.emoji's names: letters, digits, `_`, `+`, `-`, with a letter among them (`12:00:00` is a time)
    r"|(?<![\w:/]):(?P<shortcode>(?=[\w+-]*[a-z])[a-z0-9_+-]+):(?![\w:`])"
    r"|\+\+(?P<keys>[\w-]+(?:\+[\w-]+)*)\+\+"
    r"|==(?P<mark>[^\s=](?:[^=\n]*[^\s=])?)=="
    r"|\^\^(?P<insert>[^\s^](?:[^^\n]*[^\s^])?)\^\^"
    r"|(?<!\^)\^(?P<sup>[^\s^]+)\^(?!\^)"
)
_DEFINITION = re.compile(r"^ {0,3}:[ \t]{1,3}\S")
_COMMENT_LINE = re.compile(r"^ {0,3}<!--.*-->[ \t]*$")


def inline_html(text: str, marker: str) -> str:
    """A text run's HTML: escaped, with MkDocs' inline syntax as elements. Attribute lists are left out,
    but for a `title` (a tooltip: words of the source) on the icon right before one."""
    out: list[str] = []
    at = 0
    for found in _INLINE.finditer(text):
        out.append(str(escape(text[at : found.start()])))
        if found.lastgroup == "attributes" and at == found.start() and out[-2:-1] and out[-2].startswith("<span"):
            out[-2] = with_attributes(out[-2], found.group(0))
        else:
            out.append(_element(found, marker))
        at = found.end()
    out.append(str(escape(text[at:])))
    return "".join(out)


_TITLE = re.compile(r"""(?:^|[\s{])title=(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'}]+))""")


def with_attributes(start_tag: str, attribute_list: str, marker: str = "", classes: str = "") -> str:
    """`start_tag` (the site's own, `<a href=…>`) with what an attribute list after its element sets
    that the site keeps: a `title`, and `classes` of the site's."""
    added = f' class="{marker}{classes}"' if classes else ""
    title = _TITLE.search(attribute_list)
    if title:
        added += f' title="{escape(next(part for part in title.groups() if part is not None))}"'
    if not added:
        return start_tag
    name = re.match(r"<\w+", start_tag)
    return start_tag if name is None else name.group(0) + added + start_tag[name.end() :]


def plain_text(text: str) -> str:
    """A text run as words, for a heading's title and anchor: what `inline_html` shows, minus icons
    (MkDocs' anchors leave them out, so `#title` finds `## :material-x: Title`)."""

    def words(found: re.Match[str]) -> str:
        if found.group("attributes") or found.group("shortcode"):
            return ""
        return next(part for part in found.groups() if part is not None)

    return _INLINE.sub(words, text)


def _element(found: re.Match[str], marker: str) -> str:
    kind = found.lastgroup
    value = found.group(kind or 0)
    if kind == "attributes":
        return ""
    if kind == "shortcode":
        icon_set = value.split("-", 1)[0] if "-" in value else ""
        label = icon_set if icon_set in ICON_SETS else "emoji"
        return f'<span class="{marker}icon icon-{label}">{escape(value)}</span>'
    if kind == "keys":
        keys = "+".join(f"<kbd>{escape(key)}</kbd>" for key in value.split("+"))
        return f'<kbd class="{marker}keys">{keys}</kbd>'
    if kind == "mark":  # its own class: the `mark.term` highlights of a search (`?hl=`) keep their look
        return f'<mark class="{marker}highlight">{escape(value)}</mark>'
    tag = {"insert": "ins", "sup": "sup"}[kind or ""]
    return f"<{tag}>{escape(value)}</{tag}>"


def leading_attributes(text: str) -> str:
    """The attribute list a text run starts with (it sets the element right before it); "" for none."""
    found = _INLINE.match(text)
    return found.group(0) if found and found.lastgroup == "attributes" else ""


def button_classes(attribute_list: str) -> str:
    """The site's classes for a link its attribute list makes a button (`{ .md-button }`); "" for none."""
    if not re.search(r"\.md-button\b", attribute_list):
        return ""
    return "button button-primary" if re.search(r"\.md-button--primary\b", attribute_list) else "button"


def task_box(marker: str, done: bool) -> str:
    """A task list item's box, as a character: the source's `[x]` or `[ ]`, drawn."""
    return f'<span class="{marker}task">{"☑" if done else "☐"}</span> '


def term_placeholder(marker: str) -> str:
    """The text standing in for a definition's term that is a comment: letters and digits only,
    which no Markdown reads as markup."""
    return marker.rstrip("~") + "term"


def mark_comment_terms(text: str, marker: str) -> str:
    """`text` with a placeholder term on the blank line of each definition whose term is an HTML
    comment (the comment, a blank line, `:   text`), outside fenced code: lines stay lines."""
    lines = text.split("\n")
    fence = ""
    comment = False  # the line before is an HTML comment, outside code
    comment_then_blank = False  # the one before that is, and the line before is blank
    for n, line in enumerate(lines):
        fence, in_code = code_fence(fence, line)
        if comment_then_blank and not in_code and _DEFINITION.match(line):
            lines[n - 1] = term_placeholder(marker)
        comment_then_blank = comment and not line.strip()
        comment = not in_code and bool(_COMMENT_LINE.match(line))
    return "\n".join(lines)
