"""Rendered Markdown for document pages: raw HTML through a sanitizer, links onto the site, highlighted code.

The pipeline for one document:

1. pyromark (pulldown-cmark, in Rust) parses the text as CommonMark with GFM tables and
   strikethrough, raw HTML on (so `<details>`, `<sup>` and comments are HTML), and gives
   events with byte ranges; `_Renderer` writes the HTML from them;
2. every block gets its source lines (`data-line-start`/`data-line-end`, which select-to-cite
   reads), every heading an id, every image a decision (a corpus image is an `<img>`, any
   other image is a link: an `<img>` of another host would make the reader's browser fetch it);
3. the whole HTML goes through nh3 (the Ammonia sanitizer) with an allowlist: the tags
   Markdown makes plus details/summary, sup/sub, kbd, br and tables; no event handlers, no
   styles, no comments, no `javascript:`; script and style elements lose their content too;
4. code blocks, highlighted by Pygments at build time, and the scrolling boxes of tables are
   put in after the sanitizer (they are made here from escaped text, never from raw HTML).

The attributes the site sets itself (ids, classes, source lines) carry a marker that is new
for every document, which the sanitizer's filter removes: raw HTML in the corpus cannot guess
it, so it can set none of them. An `id` from raw HTML becomes `h-<id>`, like heading ids, so
nothing in a document takes an id the page's scripts use. Every `href` and `src` of raw
HTML and of Markdown goes through the same link resolver (`indexer.site.links`).
"""

from __future__ import annotations

import re
import secrets
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import nh3
import pyromark
from markupsafe import Markup, escape

from indexer.site import markdown_gfm, markdown_mkdocs, mdx
from indexer.site.links import HTML_IMAGE, HTML_LINK, IMAGE, LINK, DocumentLinks, heading_fragment, is_external
from indexer.text.chunk import byte_line_starts

# CommonMark with raw HTML, and GitHub's tables, strikethrough, footnotes, alerts and heading
# attributes (`{#id}`); no typographer, no linkify. Front matter only where it can be (`view_options`).
_OPTIONS = (
    pyromark.Options.ENABLE_TABLES
    | pyromark.Options.ENABLE_STRIKETHROUGH
    | pyromark.Options.ENABLE_FOOTNOTES
    | pyromark.Options.ENABLE_GFM
    | pyromark.Options.ENABLE_HEADING_ATTRIBUTES
)
_FRONT_MATTER = pyromark.Options.ENABLE_YAML_STYLE_METADATA_BLOCKS


def view_options(text: str, mkdocs: bool = False) -> pyromark.Options:
    """The options the Markdown view parses `text` with: front matter read as such only in a text
    that starts with its `---` line. pulldown-cmark otherwise takes a `---` rule in a list item of a
    quote, and the lines to the next `---`, for a metadata block (a rule shown as empty front matter).
    `mkdocs`: an MkDocs page, with definition lists, `~sub~` and task lists."""
    options = _OPTIONS | markdown_mkdocs.OPTIONS if mkdocs else _OPTIONS
    return options | _FRONT_MATTER if text.startswith("---") else options


TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong"}
    | {"a", "hr", "br", "img", "span", "div", "s", "del", "ins", "b", "i", "dl", "dt", "dd", "abbr"}
    | {"table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"}
    | {"details", "summary", "sup", "sub", "kbd", "mark"}
)
# Every tag may carry these; values the site did not set (no marker) are dropped by the filter,
# except `id` (made `h-<id>`) and `title`.
GLOBAL_ATTRIBUTES = frozenset({"id", "class", "title", "data-line-start", "data-line-end"})
TAG_ATTRIBUTES = {
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height"},
    "ol": {"start", "reversed"},
    "li": {"value"},
    "details": {"open"},
    "th": {"colspan", "rowspan", "align"},
    "td": {"colspan", "rowspan", "align"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto", "tel", "data"})
SITE_ONLY = frozenset({"class", "data-line-start", "data-line-end"})
# A theme's reader-preference classes: vuejs/docs shows either its Options API or its Composition
# API text, by a switch of its theme. The site has no switch, so both stand, each labelled by the
# stylesheet (docs/design.md#d17: no word hidden, and none glued to its neighbour). The label is no text of
# the page, so select-to-cite and search read the source's words only.
PREFERENCE_CLASSES = {"options-api": "pref pref-options", "composition-api": "pref pref-composition"}
RASTER_DATA = re.compile(r"data:image/(?:png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/=\s]*", re.IGNORECASE)
TABLE_OPEN = re.compile(r"<table(?=[\s>])")
IMAGE_WITHOUT_SOURCE = re.compile(r"<img(?![^>]*\ssrc=)[^>]*>")
# Elements whose text runs to their end tag: one left open would take the rest of the page with it.
RAW_TEXT = ("script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript")
RAW_OPEN = re.compile(r"<(" + "|".join(RAW_TEXT) + r")(?=[\s/>])", re.IGNORECASE)
RAW_CLOSE = re.compile(r"</(" + "|".join(RAW_TEXT) + r")\s*>", re.IGNORECASE)
PLAINTEXT = re.compile(r"<plaintext(?=[\s/>])[^>]*>?", re.IGNORECASE)


def _slug(text: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", text.lower()).strip().replace(" ", "-")
    return text or "section"


# -- code: Pygments at build time ----------------------------------------------------------------

# Token kinds (in order: the first that holds a token's type wins) and the class each is drawn with.
_KINDS: list[tuple[Any, str]] = []


def _kinds() -> list[tuple[Any, str]]:
    if not _KINDS:
        from pygments.token import Comment, Generic, Keyword, Literal, Name, Number, Operator, String

        _KINDS.extend(
            [
                (Comment.Preproc, "k"),
                (Comment, "c"),
                (Keyword.Constant, "b"),
                (Keyword, "k"),
                (Operator.Word, "k"),
                (String, "s"),
                (Number, "m"),
                (Literal, "s"),
                (Name.Function, "f"),
                (Name.Class, "f"),
                (Name.Decorator, "f"),
                (Name.Builtin, "b"),
                (Name.Constant, "b"),
                (Name.Tag, "t"),
                (Name.Attribute, "a"),
                (Name.Label, "a"),
                (Generic.Deleted, "gd"),
                (Generic.Inserted, "gi"),
                (Generic.Prompt, "gp"),
                (Generic.Heading, "gh"),
                (Generic.Subheading, "gh"),
            ]
        )
    return _KINDS


@lru_cache(maxsize=1)
def _builtin_aliases() -> frozenset[str]:
    from pygments.lexers import get_all_lexers

    return frozenset(alias for _name, aliases, _files, _types in get_all_lexers(plugins=False) for alias in aliases)


@lru_cache(maxsize=64)
def _lexer(language: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    # Pygments' own lexers only: for a name it does not know, Pygments scans every installed
    # package for plugins (a third of a second), and a site should not depend on what else is installed.
    if language not in _builtin_aliases():
        return None
    try:
        # The code stays exactly as written: no stripped or added newlines, tabs kept.
        return get_lexer_by_name(language, stripnl=False, stripall=False, ensurenl=False)
    except ClassNotFound:
        return None


def highlight(code: str, language: str) -> str:
    """Escaped `code`, with `<span class="tk-…">` around the tokens Pygments finds (no lexer: plain)."""
    lexer = _lexer(language.lower()) if language else None
    if lexer is None:
        return str(escape(code))
    out: list[str] = []
    pending_kind = ""
    pending: list[str] = []
    cache: dict[Any, str] = {}
    kinds = _kinds()
    for ttype, value in lexer.get_tokens(code):
        kind = cache.get(ttype)
        if kind is None:
            kind = cache[ttype] = next((name for parent, name in kinds if ttype in parent), "")
        if kind != pending_kind and pending:
            text = str(escape("".join(pending)))
            out.append(f'<span class="tk-{pending_kind}">{text}</span>' if pending_kind else text)
            pending = []
        pending_kind = kind
        pending.append(value)
    if pending:
        text = str(escape("".join(pending)))
        out.append(f'<span class="tk-{pending_kind}">{text}</span>' if pending_kind else text)
    return "".join(out)


def _code_block(code: str, language: str, lines: str) -> str:
    label = escape(language) if language else ""
    code_class = f' class="language-{label}"' if label else ""
    # Focusable, so a block wider than the screen scrolls from the keyboard (the page's script
    # keeps the tab stop only on blocks that overflow).
    return f'<pre class="code" tabindex="0"{lines}><code{code_class}>{highlight(code, language)}</code></pre>\n'


# -- the renderer: pyromark's events to HTML -------------------------------------------------------

_INLINE = {"Emphasis": "em", "Strong": "strong", "Strikethrough": "s", "Subscript": "sub", "Superscript": "sup"}
# Definition lists (an MkDocs page's `def_list`): pulldown-cmark's tags and the elements they make.
_DEFINITIONS = {"DefinitionList": "dl", "DefinitionListTitle": "dt", "DefinitionListDefinition": "dd"}
_ALIGN = {"Left": "left", "Right": "right", "Center": "center"}
_SPACE = frozenset(b" \t\r\n")


@dataclass(slots=True)
class _Open:
    """An element being rendered: what its end writes, and the source lines it has reached."""

    kind: str  # "inline", "block", "tbody", "heading", "code", "image", "html"; "inert"(-inside): nothing of its own
    end: str = ""  # its end tag (a code block: its language; an image: its URL)
    at: int = -1  # where its start tag goes in the output, once its lines are known
    start: str = ""  # that start tag, with "{}" for its source lines (a code block: its title)
    first: int = 0  # its first source line (1-based) …
    last: int = 0  # … and the last line its content has reached so far


class _Renderer:
    """One document's HTML from pyromark's events, before the sanitizer.

    Events are dicts (`{"Start": …}`, `{"Text": …}`) or bare strings (`"SoftBreak"`); a block's
    events carry its byte range in the UTF-8 text. A block's source lines run from its first
    line to its last non-blank one; a list, quote or table ends where its last child does (its
    own range can take in blank lines and link reference definitions after it).
    """

    def __init__(
        self,
        source: bytes,
        marker: str,
        links: DocumentLinks | None,
        containers: dict[int, markdown_gfm.Container] | None = None,
        mkdocs: bool = False,
        jsx: mdx.Marked | None = None,
    ):
        self.source = source
        self.jsx = jsx  # an MDX document's components, marked before the parse
        self.show = markdown_gfm.show_tags if jsx is None else mdx.show_components
        self.mkdocs = mkdocs  # an MkDocs page: its text runs hold MkDocs' inline syntax (icons, keys…)
        self.term = markdown_mkdocs.term_placeholder(marker)
        # The inline element that ended last: where its start tag is in the output, and the output's length
        # after its end tag (an MkDocs attribute list right after it sets it).
        self.last_inline = (-1, -1)
        self.containers = containers or {}  # VitePress containers and MkDocs blocks, by number
        self.footnotes: dict[str, int] = {}  # footnote name → its number, in order of first mention
        self.footnote_refs: dict[str, int] = {}  # how often each footnote was referred to so far
        self.heading_id = ""  # the open heading's `{#id}`
        self.marker = marker
        self.links = links
        self.line_starts = byte_line_starts(source)
        self.out: list[str] = []
        self.open: list[_Open] = []
        self.blocks: list[str] = []  # code blocks, put in after the sanitizer
        self.link_urls: set[str] = set()  # the Markdown links' destinations (the other links are raw HTML)
        self.headings: list[tuple[int, str, str]] = []
        self.used: dict[str, int] = {}
        self.raw_open: dict[str, int] = {}  # raw-text elements left open in the current block
        self.text: list[str] | None = None  # a code block's code, an image's alt text
        self.title: list[str] | None = None  # the open heading's text
        self.aligns: tuple[str, ...] = ()
        self.cell = 0
        self.in_head = False

    def render(self, events: Iterable[tuple[Any, Any]]) -> str:
        for event, where in _joined_text(events) if self.mkdocs else events:
            if type(event) is str:
                self.bare(event, where)
            elif "Start" in event:
                if self.open and self.open[-1].kind in ("image", "inert-inside"):
                    self.open.append(_Open("inert-inside"))  # emphasis, links… in an image's alt text
                else:
                    self.start(event["Start"], where)
            elif "End" in event:
                self.end()
            else:
                ((kind, value),) = event.items()
                self.leaf(kind, value, where)
        return "".join(self.out)

    # -- source lines

    def span(self, where: dict[str, int]) -> tuple[int, int]:
        """The first and last non-blank lines (1-based) of a byte range."""
        start, end = where["start"], where["end"]
        source, space = self.source, _SPACE
        while end > start + 1 and source[end - 1] in space:
            end -= 1
        first = bisect_right(self.line_starts, start)
        return first, max(first, bisect_right(self.line_starts, end - 1))

    def attributes(self, first: int, last: int, marker: str | None = None) -> str:
        mark = self.marker if marker is None else marker
        return line_attributes(mark, first, last)

    def reached(self, last: int) -> None:
        """A child ended on line `last`: its parent block reaches at least that far."""
        for parent in reversed(self.open):
            if parent.kind in ("block", "tbody"):
                parent.last = max(parent.last, last)
                return

    # -- starts

    def start(self, tag: Any, where: dict[str, int]) -> None:
        if type(tag) is str:
            self.simple_start(tag, where)
            return
        ((kind, value),) = tag.items()
        if kind == "Link":
            url = "mailto:" + value["dest_url"] if value["link_type"] == "Email" else value["dest_url"]
            title = f' title="{escape(value["title"])}"' if value["title"] else ""
            self.link_urls.add(_normal_url(url))
            self.open.append(_Open("inline", "</a>", len(self.out)))
            self.out.append(f'<a href="{escape(_normal_url(url))}"{title}>')
        elif kind == "Image":
            self.text = []
            self.open.append(_Open("image", value["dest_url"]))
        elif kind == "Heading":
            first, last = self.span(where)
            self.title = []
            self.close_raw()
            level = value["level"][1:]
            self.heading_id = value.get("id") or ""
            self.open.append(_Open("heading", level, len(self.out), "", first, last))
            self.out.append("")  # its start tag, once the heading's text gives its id
        elif kind == "CodeBlock":
            info = value["Fenced"].strip() if type(value) is dict else ""
            first, last = self.span(where)
            self.close_raw()
            self.text = []
            language, title = markdown_gfm.code_info(info)
            self.open.append(_Open("code", language, -1, title, first, last))
        elif kind == "MetadataBlock":
            # Front matter (`---` YAML `---` at the top): shown as its source under a label, as GitHub
            # shows it and no word of it hidden, not read as a rule and a heading.
            first, last = self.span(where)
            self.close_raw()
            self.text = []
            self.open.append(_Open("code", "yaml", -1, "front matter", first, last))
        elif kind == "List":
            name = "ul" if value is None else "ol"
            start = f' start="{value}"' if value is not None and value != 1 else ""
            self.container(f"<{name}{{}}{start}>\n", f"</{name}>\n", where)
        elif kind == "BlockQuote":
            if value in markdown_gfm.ALERTS:  # GitHub's `> [!NOTE]`
                self.container(markdown_gfm.alert_start(self.marker, value), "</blockquote>\n", where)
            else:
                self.container("<blockquote{}>\n", "</blockquote>\n", where)
        elif kind == "FootnoteDefinition":
            number = self.footnotes.setdefault(value, len(self.footnotes) + 1)
            self.container(markdown_gfm.footnote_start(self.marker, value, number), "</div>\n", where)
        elif kind == "Table":
            self.aligns = tuple(value)
            self.container("<table{}>\n", "</table>\n", where)
        else:  # math: not enabled
            self.open.append(_Open("inert"))

    def container(self, start: str, end: str, where: dict[str, int], by_children: bool = True) -> None:
        """A block whose start tag waits for its last line: where its last child ends (a list,
        item, quote or table, whose own range can take in blank lines and link reference
        definitions after it), or else the last non-blank line of its own range."""
        first, last = self.span(where)
        self.close_raw()
        self.open.append(_Open("block", end, len(self.out), start, first, 0 if by_children else last))
        self.out.append("")

    def simple_start(self, tag: str, where: dict[str, int]) -> None:
        if tag in _INLINE:
            self.open.append(_Open("inline", f"</{_INLINE[tag]}>", len(self.out)))
            self.out.append(f"<{_INLINE[tag]}>")
        elif tag == "Paragraph":
            self.close_raw()
            first, last = self.span(where)
            self.out.append(f"<p{self.attributes(first, last)}>")
            self.open.append(_Open("block", "</p>\n", -1, "", first, last))
        elif tag == "Item":
            self.container("<li{}>", "</li>\n", where)
        elif tag in _DEFINITIONS:
            name = _DEFINITIONS[tag]
            self.container(f"<{name}{{}}>" + ("" if name == "dt" else "\n"), f"</{name}>\n", where)
        elif tag == "TableHead":
            self.in_head, self.cell = True, 0
            self.container("<thead{0}>\n<tr{0}>\n", "</tr>\n</thead>\n", where, by_children=False)
        elif tag == "TableRow":
            self.in_head, self.cell = False, 0
            if self.open[-1].end == "</table>\n":  # the first row of the body
                self.open[-1].end = "</tbody>\n</table>\n"
                self.container("<tbody{}>\n", "", where)
                self.open[-1].kind = "tbody"
            self.container("<tr{}>\n", "</tr>\n", where, by_children=False)
        elif tag == "TableCell":
            name = "th" if self.in_head else "td"
            align = _ALIGN.get(self.aligns[self.cell], "") if self.cell < len(self.aligns) else ""
            self.cell += 1
            self.close_raw()
            # Inline styles are refused by the site's CSP: a column's alignment is a class.
            self.out.append(f'<{name} class="{self.marker}align-{align}">' if align else f"<{name}>")
            # A cell's lines are its row's (a cell missing from a row has an empty range after it).
            self.open.append(_Open("block", f"</{name}>\n"))
        elif tag == "HtmlBlock":
            self.close_raw()
            first, last = self.span(where)
            # Its lines are its own (no start tag); `at` is where its HTML starts in the output.
            self.open.append(_Open("html", "", len(self.out), "", first, last))
        else:
            self.open.append(_Open("inert"))

    # -- ends

    def end(self) -> None:
        element = self.open.pop()
        if element.kind == "tbody":  # a table's body has no end event of its own: the table's ends it
            self.finish(element)
            table = self.open.pop()
            table.last = max(table.last, element.last)
            element = table
        self.finish(element)

    def finish(self, element: _Open) -> None:
        kind = element.kind
        if kind == "inline":
            self.out.append(element.end)
            self.last_inline = (element.at, len(self.out))
            return
        if kind == "image":
            self.out.append(self.picture(element.end, "".join(self.text or ())))
            self.text = None
            return
        if kind == "code":
            lines = self.attributes(element.first, element.last, "")
            block = _code_block("".join(self.text or ()), element.end, lines)
            if element.end.lower() in markdown_gfm.DIAGRAMS:
                block = markdown_gfm.diagram(element.end, block)
            if element.start:  # a code block's title
                block = markdown_gfm.code_title(element.start, block)
            self.out.append(self.placeholder(block))
            self.text = None
        elif kind == "heading":
            self.close_heading(element)
        elif kind == "html":
            self.show_tags(element)
        elif kind == "block" and element.end == "</dt>\n" and not "".join(self.out[element.at + 1 :]).strip():
            del self.out[element.at :]  # a term that is a comment (an MkDocs page's): the definition stands alone
            parent = self.open[-1]
            if parent.first == element.first:  # the list starts at its definition, not the term's blank line
                parent.first = element.first + 1
            return
        elif kind in ("block", "tbody"):
            if element.at >= 0:
                element.last = element.last or element.first  # an empty item: its marker's line
                self.out[element.at] = element.start.format(self.attributes(element.first, element.last))
            self.close_raw()
            self.out.append(element.end)
        if element.last and kind != "tbody":
            self.reached(element.last)

    def show_tags(self, element: _Open) -> None:
        """An HTML block's components (and elements known by their attributes) as their source:
        the block is whole here, so a tag written over several lines is one tag."""
        html = "".join(self.out[element.at :])
        del self.out[element.at :]
        self.raw_open = {}
        html = self.show(html, self.marker, element.first)
        _left_open(html, self.raw_open)
        self.out.append(html)
        self.close_raw()

    def close_heading(self, element: _Open) -> None:
        title = "".join(self.title or ()).strip()
        if self.mkdocs:  # spaces where an icon stood collapse, as in MkDocs' anchors
            title = " ".join(title.split())
        if self.heading_id:  # `# Title {#id}`: the id as written
            anchor, self.heading_id = "h-" + self.heading_id, ""
        else:
            slug = _slug(title)
            count = self.used.get(slug, 0)
            self.used[slug] = count + 1
            anchor = f"h-{slug}" if count == 0 else f"h-{slug}-{count}"
        level = element.end
        lines = self.attributes(element.first, element.last)
        self.out[element.at] = f'<h{level}{lines} id="{self.marker}{anchor}">'
        self.close_raw()
        self.out.append(f"</h{level}>\n")
        self.title = None
        self.headings.append((int(level), anchor, title))

    # -- content

    def leaf(self, kind: str, value: str, where: dict[str, int]) -> None:
        top = self.open[-1].kind if self.open else ""
        if top in ("code", "image", "inert-inside"):
            if self.text is not None:
                self.text.append(value)
            return
        self.text_reached(where)
        if kind == "Text" and self.mkdocs:
            self.mkdocs_text(value)
        elif kind == "TaskListMarker":
            self.out.append(markdown_mkdocs.task_box(self.marker, bool(value)))
        elif kind == "Text" or kind == "Code":
            text = str(escape(value))
            self.out.append(text if kind == "Text" else f"<code>{text}</code>")
            if self.title is not None:
                self.title.append(value)
        elif kind == "FootnoteReference":
            number = self.footnotes.setdefault(value, len(self.footnotes) + 1)
            repeat = self.footnote_refs.get(value, 0)
            self.footnote_refs[value] = repeat + 1
            self.out.append(markdown_gfm.footnote_reference(self.marker, value, number, repeat))
        elif kind == "Html" and self.jsx is not None and mdx.is_mark(value, self.marker):
            self.component(value, where)
        elif kind == "Html" and value.startswith("<!--" + self.marker):
            self.container_fence(value, where)
        elif kind == "Html" or kind == "InlineHtml":
            self.raw_html(self.show(value, self.marker) if kind == "InlineHtml" else value)
        else:
            self.out.append(str(escape(value)))

    def mkdocs_text(self, value: str) -> None:
        """A text run of an MkDocs page: its icons, keys and marks as elements, its attribute lists left out."""
        if value == self.term:  # a definition's term that is a comment: nothing to show
            return
        at, after = self.last_inline
        attributes = markdown_mkdocs.leading_attributes(value) if after == len(self.out) else ""
        if attributes:  # `[Subscribe](#){ .md-button }`, `__Update__{ title="August 21" }`
            button = markdown_mkdocs.button_classes(attributes) if self.out[-1] == "</a>" else ""
            self.out[at] = markdown_mkdocs.with_attributes(self.out[at], attributes, self.marker, button)
        self.out.append(markdown_mkdocs.inline_html(value, self.marker))
        if self.title is not None:
            self.title.append(markdown_mkdocs.plain_text(value))

    def container_fence(self, comment: str, where: dict[str, int]) -> None:
        """A container's fence line (or an MkDocs block's opening line), marked before the parse: its box
        opens or closes."""
        what, _, number = comment[4 + len(self.marker) :].split("--", 1)[0].partition("-")
        if what == "close":  # an MkDocs block and the one it stands in may close on one line, before raw HTML
            closes = re.match(f"(?:<!--{re.escape(self.marker)}close-\\d+-->)+", comment)
            end = closes.end() if closes else 0
            self.out.append("</div>\n" * comment.count(self.marker, 0, end))
            rest = comment[end:].strip()
            if markdown_gfm.is_rule(rest):  # a rule right under an MkDocs block's body
                line = self.span(where)[0]
                self.out.append(f"<hr{self.attributes(line, line)} />\n")
            elif rest:
                self.raw_html(comment[end:])
            return
        container = self.containers[int(number)]
        first, _last = self.span(where)
        lines = self.attributes(first, first)
        title = markdown_mkdocs.inline_html(container.title, self.marker) if self.mkdocs else None
        self.out.append(markdown_gfm.container_start(self.marker, container.kind, container.title, lines, title))

    def component(self, comment: str, where: dict[str, int]) -> None:
        """An MDX component's marked line: a tab's or a component's block opens or closes, or its mark."""
        assert self.jsx is not None
        jsx = self.jsx.jsx[mdx.mark_number(comment, self.marker)]
        first, _last = self.span(where)
        href = None
        if jsx.kind == "partial" and self.links is not None:
            href = self.links.resolve(_normal_url(jsx.url), LINK)
        self.out.append(mdx.shown(jsx, self.marker, self.attributes(first, first), href))

    def raw_html(self, html: str) -> None:
        # A `<script>`, `<iframe>`… left open would take the rest of the page with it: it is
        # closed at the end of its block. `<plaintext>` can never be closed: it is dropped.
        html = PLAINTEXT.sub("", html)
        _left_open(html, self.raw_open)
        self.out.append(html)

    def close_raw(self) -> None:
        """End tags for the raw-text elements (`<script>`, `<iframe>`…) the block so far left open."""
        if self.raw_open:
            self.out.append(_closing(self.raw_open))
            self.raw_open = {}

    def text_reached(self, where: dict[str, int]) -> None:
        """Text straight in a list item (a tight list's items hold no paragraph) ends its lines."""
        for element in reversed(self.open):
            if element.kind != "inline":
                if element.at >= 0 and element.kind == "block" and where["end"] > where["start"]:
                    element.last = max(element.last, self.span(where)[1])
                return

    def bare(self, event: str, where: dict[str, int]) -> None:
        top = self.open[-1].kind if self.open else ""
        if top in ("image", "inert-inside"):
            if self.text is not None:
                self.text.append(" ")
        elif event == "SoftBreak":
            self.out.append("\n")
        elif event == "HardBreak":
            self.out.append("<br />\n")
        elif event == "Rule":
            self.close_raw()
            first, last = self.span(where)
            self.out.append(f"<hr{self.attributes(first, last)} />\n")
            self.reached(last)

    def placeholder(self, html: str) -> str:
        # Plain text that passes the sanitizer untouched; replaced by the block once it has run.
        self.blocks.append(html)
        return f"{self.marker}block~{len(self.blocks) - 1}~\n"

    def picture(self, url: str, alt_text: str) -> str:
        mark = self.marker
        alt = escape(alt_text or "image")
        links = self.links
        if url and not is_external(url) and not url.startswith("#") and links is not None:
            src = links.resolve(_normal_url(url), IMAGE)
            if src is not None:
                return f'<img src="{escape(mark + src)}" alt="{alt}">'
            return f'<span class="{mark}broken-image">[image: {alt}]</span>'
        if not url:
            return f"[{alt}]"
        # An image from elsewhere would make the reader's browser request its URL: a link instead.
        return f'<a class="{mark}img-link" href="{escape(_normal_url(url))}">[image: {alt}]</a>'


def _joined_text(events: Iterable[tuple[Any, Any]]) -> Iterable[tuple[Any, Any]]:
    """The events with each run of text in one event: pulldown-cmark ends a text event at a character
    reference (`&amp;`) or an unmatched delimiter, and MkDocs' inline syntax may span them."""
    pending: tuple[str, dict[str, int]] | None = None
    for event, where in events:
        if type(event) is dict and "Text" in event:
            if pending is None:
                pending = (event["Text"], where)
            else:
                pending = (pending[0] + event["Text"], {"start": pending[1]["start"], "end": where["end"]})
            continue
        if pending is not None:
            yield {"Text": pending[0]}, pending[1]
            pending = None
        yield event, where
    if pending is not None:
        yield {"Text": pending[0]}, pending[1]


def _normal_url(url: str) -> str:
    """A link's destination with spaces and non-ASCII characters percent-encoded (existing escapes kept)."""
    return quote(url, safe=_URL_SAFE)


_URL_SAFE = ";/?:@&=+$,-_.!~*'()#%[]"


RESOURCE_ID = "resource-id:"


class _Filter:
    """nh3's attribute filter for one document: site attributes carry `marker`; the rest are corpus text."""

    def __init__(
        self,
        marker: str,
        links: DocumentLinks | None,
        ids: frozenset[str] = frozenset(),
        markdown_links: frozenset[str] | None = None,
    ):
        self.marker = marker
        self.links = links
        self.ids = ids  # the page's ids: `#Some-Title` finds `h-some-title`, as on GitHub; `#L12` an `h-L12`
        self.markdown_links = markdown_links

    def __call__(self, tag: str, attr: str, value: str) -> str | None:
        if value.startswith(self.marker):
            value = value[len(self.marker) :]
            if attr in ("href", "src") and value.startswith(RESOURCE_ID):
                # An Antora resource ID (`cli:index.html`), marked before nh3, which would take it for a scheme.
                resource = value[len(RESOURCE_ID) :]
                return self.links.resolve(resource, IMAGE if tag == "img" else LINK) if self.links else None
            return value
        if attr == "class":
            return _preference_class(value)
        if attr in SITE_ONLY:
            return None
        if attr == "id" or attr == "name":
            # Never an id of the page itself (`src`, `L12`): ids from a document start with h-
            # (and so do `<a name>` anchors, which a fragment finds as it finds an id).
            return "h-" + value.strip() if value.strip() else None
        if attr in ("href", "src"):
            return self._url(tag, attr, value)
        return value

    def _url(self, tag: str, attr: str, value: str) -> str | None:
        url = value.strip()
        if url.lower().startswith("data:"):
            # Only a raster image may be a data: URL, and only as an image.
            return url if tag == "img" and attr == "src" and RASTER_DATA.fullmatch(url) else None
        if tag == "img" and is_external(url):
            return None  # no request leaves the site: the alt text stands in for it
        if url.startswith("#"):
            fragment = heading_fragment(url[1:])
            if "h-" + url[1:] in self.ids:  # `<<L12>>` names the document's own `[#L12]`, not line 12
                fragment = "h-" + url[1:]
            elif fragment not in self.ids and fragment.lower() in self.ids:
                fragment = fragment.lower()
            return "#" + fragment
        if is_external(url):
            return url
        if self.links is None:
            return None if tag == "img" else url
        return self.links.resolve(url, self._kind(tag, value))

    def _kind(self, tag: str, value: str) -> str:
        """A link or an image, as Markdown (or a converter) wrote it or as the writer's raw HTML."""
        if self.markdown_links is None or value in self.markdown_links:
            return IMAGE if tag == "img" else LINK
        return HTML_IMAGE if tag == "img" else HTML_LINK


def _preference_class(value: str) -> str | None:
    """The site's class for a corpus class naming a theme's reader preference; None for any other."""
    kept = [PREFERENCE_CLASSES[name] for name in value.split() if name in PREFERENCE_CLASSES]
    return kept[0] if len(kept) == 1 else None


def line_attributes(marker: str, first: int, last: int) -> str:
    """A block's source lines as select-to-cite reads them: `data-line-end` only when it is not the
    first line (most blocks of a small page are one line; the pair was some 0.5 KB of such a page)."""
    end = f' data-line-end="{marker}{last}"' if last != first else ""
    return f' data-line-start="{marker}{first}"{end}'


def sanitize(
    html: str,
    marker: str,
    links: DocumentLinks | None,
    ids: frozenset[str] = frozenset(),
    markdown_links: frozenset[str] | None = None,
) -> str:
    """The allowlisted HTML; an image left without a source (from elsewhere, or broken) shows its alt text.

    `markdown_links`: the destinations of a Markdown document's own links; its other unmarked links
    and images are raw HTML. None: the unmarked links are a converter's (Asciidoctor's)."""
    clean = nh3.clean(
        html,
        tags=set(TAGS),
        attributes={"*": set(GLOBAL_ATTRIBUTES), **{tag: set(names) for tag, names in TAG_ATTRIBUTES.items()}},
        attribute_filter=_Filter(marker, links, ids, markdown_links),
        strip_comments=True,
        link_rel="nofollow noopener noreferrer",
        url_schemes=set(URL_SCHEMES),
    )
    return IMAGE_WITHOUT_SOURCE.sub(_alt_text, clean) if "<img" in clean else clean


def _alt_text(found: re.Match[str]) -> str:
    alt = re.search(r'\salt="([^"]*)"', found.group(0))  # nh3 writes attributes quoted and escaped
    return f'<span class="broken-image">[image: {alt.group(1) if alt and alt.group(1) else "image"}]</span>'


def _left_open(html: str, counts: dict[str, int]) -> None:
    for found in RAW_OPEN.finditer(html):
        counts[found.group(1).lower()] = counts.get(found.group(1).lower(), 0) + 1
    for found in RAW_CLOSE.finditer(html):
        counts[found.group(1).lower()] = counts.get(found.group(1).lower(), 0) - 1


def _closing(counts: dict[str, int]) -> str:
    return "".join(f"</{name}>" * count for name, count in counts.items() if count > 0)


def markdown_view(
    text: str, links: DocumentLinks | None = None, mkdocs: bool | None = None, is_mdx: bool = False
) -> tuple[Markup, list[tuple[int, str, str]]]:
    """Rendered Markdown with source lines on blocks; and the (level, id, title) headings.

    `links` resolves relative links and images onto the site (and records them); without it
    they are left as written and images are links. `mkdocs`: read MkDocs' extensions too (by
    default, when `links` is a page an mkdocs.yml publishes). `is_mdx`: the text is
    MDX (`indexer.site.mdx`).
    """
    if mkdocs is None:
        mkdocs = links is not None and links.mkdocs
    marker = "m" + secrets.token_hex(8) + "~"
    shown_as_code = re.compile("&lt;!--" + re.escape(marker) + r"open-(\d+)--&gt;")
    skip: frozenset[int] = frozenset()
    jsx_skip: frozenset[int] = frozenset()
    for _attempt in range(MARKING_ATTEMPTS):
        jsx = mdx.mark(text, marker, jsx_skip) if is_mdx else None
        parsed, containers = markdown_gfm.mark_containers(jsx.text if jsx else text, marker, skip, definitions=mkdocs)
        clean, headings = _render(parsed, marker, links, containers, mkdocs, jsx)
        # A container the parse took for code (an MkDocs block indented under a paragraph) would show
        # its marked comment as text: it is left as written, and the document rendered again.
        leaked = {containers[int(number)].line for number in shown_as_code.findall(clean)}
        jsx_leaked = jsx.leaked(clean, marker) if jsx else set()
        if not leaked and not jsx_leaked:
            return Markup(wrap_tables(clean)), headings
        skip |= leaked
        jsx_skip |= jsx_leaked
        if links is not None:
            links.forget()
    every_line = frozenset(range(text.count("\n") + 1))
    jsx = mdx.mark(text, marker, every_line) if is_mdx else None  # ESM and comments still left out
    clean, headings = _render(jsx.text if jsx else text, marker, links, {}, mkdocs, jsx)
    return Markup(wrap_tables(clean)), headings


# How often a document is rendered again without the containers the parse took for code (a block in one).
MARKING_ATTEMPTS = 3


def _render(
    parsed: str,
    marker: str,
    links: DocumentLinks | None,
    containers: dict[int, markdown_gfm.Container],
    mkdocs: bool = False,
    jsx: mdx.Marked | None = None,
) -> tuple[str, list[tuple[int, str, str]]]:
    if mkdocs:
        parsed = markdown_mkdocs.mark_comment_terms(parsed, marker)
    renderer = _Renderer(parsed.encode("utf-8"), marker, links, containers, mkdocs, jsx)
    events: Iterable[tuple[Any, Any]] = pyromark.events_with_range(parsed, options=view_options(parsed, mkdocs))
    html = renderer.render(events)
    ids = frozenset(anchor for _level, anchor, _title in renderer.headings)
    clean = sanitize(html, marker, links, ids, frozenset(renderer.link_urls))
    blocks = renderer.blocks
    if blocks:
        clean = re.sub(re.escape(marker) + r"block~(\d+)~", lambda m: blocks[int(m.group(1))], clean)
    return clean, renderer.headings


def wrap_tables(html: str) -> str:
    """Each table in a scrolling box: a table wider than the screen scrolls in it (focusable, so
    from the keyboard too). `html` is the site's own output, where `<table` starts only a table."""
    if "<table" not in html:
        return html
    html = TABLE_OPEN.sub('<div class="table-wrap" tabindex="0" role="region" aria-label="Table"><table', html)
    return html.replace("</table>", "</table></div>")
