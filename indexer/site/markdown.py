"""Rendered Markdown for document pages: raw HTML through a sanitizer, links onto the site, highlighted code.

The pipeline for one document:

1. markdown-it parses the text with raw HTML on (so `<details>`, `<sup>` and comments are HTML,
   and a comment line no longer swallows the link reference definitions after it);
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
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape

from indexer.site.links import IMAGE, LINK, DocumentLinks, heading_fragment, is_external

_MD = MarkdownIt("commonmark", {"html": True, "typographer": False}).enable(["table", "strikethrough"])

TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong"}
    | {"a", "hr", "br", "img", "span", "div", "s", "del", "ins", "b", "i", "dl", "dt", "dd", "abbr"}
    | {"table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"}
    | {"details", "summary", "sup", "sub", "kbd"}
)
# Every tag may carry these; values the site did not set (no marker) are dropped by the filter,
# except `id` (made `h-<id>`) and `title`.
GLOBAL_ATTRIBUTES = frozenset({"id", "class", "title", "data-line-start", "data-line-end"})
TAG_ATTRIBUTES = {
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "ol": {"start", "reversed"},
    "li": {"value"},
    "details": {"open"},
    "th": {"colspan", "rowspan", "align"},
    "td": {"colspan", "rowspan", "align"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto", "tel", "data"})
SITE_ONLY = frozenset({"class", "data-line-start", "data-line-end"})
RASTER_DATA = re.compile(r"data:image/(?:png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/=\s]*", re.IGNORECASE)
TABLE_OPEN = re.compile(r"<table(?=[\s>])")
# Elements whose text runs to their end tag: one left open would take the rest of the page with it.
RAW_TEXT = ("script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript")
RAW_OPEN = re.compile(r"<(" + "|".join(RAW_TEXT) + r")(?=[\s/>])", re.IGNORECASE)
RAW_CLOSE = re.compile(r"</(" + "|".join(RAW_TEXT) + r")\s*>", re.IGNORECASE)
PLAINTEXT = re.compile(r"<plaintext(?=[\s/>])[^>]*>?", re.IGNORECASE)


def _slug(text: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", text.lower()).strip().replace(" ", "-")
    return text or "section"


def _inline_text(token: Token) -> str:
    """The text a reader sees in an inline token (no Markdown syntax, no link targets)."""
    parts = [c.content for c in token.children or () if c.type in ("text", "code_inline")]
    return "".join(parts).strip() if token.children else token.content.strip()


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


@lru_cache(maxsize=64)
def _lexer(language: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

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


def _code_block(token: Token, language: str, marker: str) -> str:
    start, end = (str(token.attrGet(name) or "").removeprefix(marker) for name in ("data-line-start", "data-line-end"))
    lines = f' data-line-start="{start}" data-line-end="{end}"'
    label = escape(language) if language else ""
    code_class = f' class="language-{label}"' if label else ""
    # Focusable, so a block wider than the screen scrolls from the keyboard (the page's script
    # keeps the tab stop only on blocks that overflow).
    return (
        f'<pre class="code" tabindex="0"{lines if token.map else ""}>'
        f"<code{code_class}>{highlight(token.content, language)}</code></pre>\n"
    )


# -- the renderer --------------------------------------------------------------------------------


def _render_fence(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    return _placeholder(env, _code_block(token, language, env["marker"]))


def _render_code_block(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    return _placeholder(env, _code_block(tokens[idx], "", env["marker"]))


def _placeholder(env: dict[str, Any], html: str) -> str:
    # Plain text that passes the sanitizer untouched; replaced by the block once it has run.
    blocks: list[str] = env["blocks"]
    blocks.append(html)
    return f"{env['marker']}block~{len(blocks) - 1}~\n"


def _render_image(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    token = tokens[idx]
    mark = env["marker"]
    url = str(token.attrGet("src") or "")
    alt = escape("".join(child.content for child in token.children or ()) or "image")
    links: DocumentLinks | None = env.get("links")
    if url and not is_external(url) and not url.startswith("#") and links is not None:
        src = links.resolve(url, IMAGE)
        if src is not None:
            return f'<img src="{escape(mark + src)}" alt="{alt}">'
        return f'<span class="{mark}broken-image">[image: {alt}]</span>'
    if not url:
        return f"[{alt}]"
    # An image from elsewhere would make the reader's browser request its URL: a link instead.
    return f'<a class="{mark}img-link" href="{escape(url)}">[image: {alt}]</a>'


_MD.add_render_rule("image", _render_image)
_MD.add_render_rule("fence", _render_fence)
_MD.add_render_rule("code_block", _render_code_block)


class _Filter:
    """nh3's attribute filter for one document: site attributes carry `marker`; the rest are corpus text."""

    def __init__(self, marker: str, links: DocumentLinks | None):
        self.marker = marker
        self.links = links

    def __call__(self, tag: str, attr: str, value: str) -> str | None:
        if value.startswith(self.marker):
            return value[len(self.marker) :]
        if attr in SITE_ONLY:
            return None
        if attr == "id":
            # Never an id of the page itself (`src`, `L12`): ids from a document start with h-.
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
            return "#" + heading_fragment(url[1:])
        if is_external(url):
            return url
        if self.links is None:
            return None if tag == "img" else url
        return self.links.resolve(url, IMAGE if tag == "img" else LINK)


def sanitize(html: str, marker: str, links: DocumentLinks | None) -> str:
    return nh3.clean(
        html,
        tags=set(TAGS),
        attributes={"*": set(GLOBAL_ATTRIBUTES), **{tag: set(names) for tag, names in TAG_ATTRIBUTES.items()}},
        attribute_filter=_Filter(marker, links),
        strip_comments=True,
        link_rel="nofollow noopener noreferrer",
        url_schemes=set(URL_SCHEMES),
    )


def _left_open(html: str, counts: dict[str, int]) -> None:
    for found in RAW_OPEN.finditer(html):
        counts[found.group(1).lower()] = counts.get(found.group(1).lower(), 0) + 1
    for found in RAW_CLOSE.finditer(html):
        counts[found.group(1).lower()] = counts.get(found.group(1).lower(), 0) - 1


def _closing(counts: dict[str, int]) -> str:
    return "".join(f"</{name}>" * count for name, count in counts.items() if count > 0)


def _contain_raw_html(tokens: list[Token]) -> None:
    """Close, at the end of its block, a `<script>`, `<iframe>`… that raw HTML leaves open.

    The sanitizer removes such an element with its content; unclosed, its content would be
    the rest of the document. `<plaintext>` can never be closed: it is dropped.
    """
    for token in tokens:
        if token.type == "html_block":
            counts: dict[str, int] = {}
            token.content = PLAINTEXT.sub("", token.content)
            _left_open(token.content, counts)
            token.content += _closing(counts)
        elif token.type == "inline" and token.children:
            counts = {}
            for child in token.children:
                if child.type == "html_inline":
                    child.content = PLAINTEXT.sub("", child.content)
                    _left_open(child.content, counts)
            if _closing(counts):
                closer = Token("html_inline", "", 0)
                closer.content = _closing(counts)
                token.children.append(closer)


def markdown_view(text: str, links: DocumentLinks | None = None) -> tuple[Markup, list[tuple[int, str, str]]]:
    """Rendered Markdown with source lines on blocks; and the (level, id, title) headings.

    `links` resolves relative links and images onto the site (and records them); without it
    they are left as written and images are links.
    """
    marker = "m" + secrets.token_hex(8) + "~"
    tokens = _MD.parse(text)
    _contain_raw_html(tokens)
    headings: list[tuple[int, str, str]] = []
    used: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.map and token.nesting >= 0 and token.block and token.type != "inline":
            token.attrSet("data-line-start", marker + str(token.map[0] + 1))
            token.attrSet("data-line-end", marker + str(max(token.map[0] + 1, token.map[1])))
        if token.type in ("th_open", "td_open"):
            style = str(token.attrGet("style") or "")
            if style.startswith("text-align:"):
                # Inline styles are refused by the site's CSP: the column's alignment is a class.
                token.attrs.pop("style", None)
                token.attrSet("class", f"{marker}align-{style.split(':', 1)[1]}")
        if token.type == "heading_open" and i + 1 < len(tokens):
            title = _inline_text(tokens[i + 1])
            slug = _slug(title)
            count = used.get(slug, 0)
            used[slug] = count + 1
            anchor = f"h-{slug}" if count == 0 else f"h-{slug}-{count}"
            token.attrSet("id", marker + anchor)
            headings.append((int(token.tag[1:]), anchor, title))
    env: dict[str, Any] = {"marker": marker, "links": links, "blocks": []}
    html = _MD.renderer.render(tokens, _MD.options, env)
    clean = sanitize(html, marker, links)
    blocks: list[str] = env["blocks"]
    if blocks:
        clean = re.sub(re.escape(marker) + r"block~(\d+)~", lambda m: blocks[int(m.group(1))], clean)
    if "<table" in clean:
        # A table wider than the screen scrolls in its own box (focusable, so from the keyboard too).
        clean = TABLE_OPEN.sub('<div class="table-wrap" tabindex="0" role="region" aria-label="Table"><table', clean)
        clean = clean.replace("</table>", "</table></div>")
    return Markup(clean), headings
