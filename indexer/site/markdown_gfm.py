"""Markdown as GitHub and the documentation frameworks write it, beyond CommonMark.

pulldown-cmark (through pyromark) parses GitHub's footnotes, alerts (`> [!NOTE]`) and
heading attributes (`# Title {#id}`) itself; this module writes their HTML for the
renderer in `indexer.site.markdown`. Two constructs have no parser option, so they are
found here:

- VitePress/markdown-it containers (`::: tip Title` … `:::`), a line-level construct: each
  fence line of a balanced pair, outside fenced code, is replaced before the parse by an
  HTML comment carrying the document's marker (one line for one line, so every block keeps
  its source lines); the renderer turns the comments into a labelled block;
- MkDocs' indented blocks — admonitions (`!!! note "Title"`), collapsible ones (`??? tip`,
  `???+`) and content tabs (`=== "Python"`), their body indented four columns: the opening
  line becomes the same marked comment, the body is dedented in place (its lines stay its
  lines), and the blank line after it (or a line added at the end) closes the block — a
  collapsible block is shown open, a tab as a labelled block: the view hides no word;
- diagrams (` ```mermaid `): shown as their source in a labelled block, as nothing on the
  site draws them;
- components (`<VueSchoolLink href=… title=…/>`, `<Badge text=…/>`, `<my-widget>`) and the HTML
  elements whose whole meaning is in their attributes (`<input placeholder=…>`, `<iframe src=…>`):
  the sanitizer would remove the tag, and one without content would leave no trace, so each tag
  is shown as its source (labelled on a line of its own, as code in a paragraph).

Every class and id written here carries the document's marker, which the sanitizer
removes: raw HTML in the corpus cannot set them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markupsafe import escape

ALERTS = {"Note": "Note", "Tip": "Tip", "Important": "Important", "Warning": "Warning", "Caution": "Caution"}
DIAGRAMS = frozenset({"mermaid", "plantuml", "graphviz", "dot", "d2"})
# A container may stand in a list item, indented as the item's text is (`    :::tip` under `  - x`):
# its fences pair when their indents differ by less than four columns (markdown-it-container's rule:
# a closing fence may be indented up to three spaces), and each comment that replaces one keeps its indent.
_OPEN = re.compile(r"^([ \t]*)(:{3,})[ \t]*([A-Za-z][\w-]*)[ \t]*(.*?)[ \t]*$")
_CLOSE = re.compile(r"^([ \t]*)(:{3,})[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
# MkDocs' blocks (Python-Markdown's admonition, pymdownx' details and tabbed): the sign, then the rest.
# In an MkDocs page a block may open a definition (`:   !!! note`): its body is indented four columns more.
_BLOCK_OPEN = re.compile(r"^([ \t]*(?::[ \t]{1,3})?)(!!!|\?\?\?\+?|===[!+]?)[ \t]+(\S.*?)[ \t]*$")
# A thematic break right under a block's body ends the body, as Python-Markdown reads it (no blank line between).
_RULE = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_ADMONITION = re.compile(r'([A-Za-z][\w-]*)(?:[ \t]+[A-Za-z][\w-]*)*(?:[ \t]+"([^"\n]*)")?')
_TAB_TITLE = re.compile(r'"([^"\n]*)"')
BODY_INDENT = 4


@dataclass(frozen=True)
class Container:
    """A container or MkDocs block found before the parse: what its label shows, and its opening line (0-based)."""

    kind: str
    title: str
    line: int


def mark_containers(
    text: str, marker: str, skip: frozenset[int] = frozenset(), definitions: bool = False
) -> tuple[str, dict[int, Container]]:
    """`text` with the fence lines of balanced containers replaced by marked comments, and each
    container by its number. Other lines are left exactly as they are; so are the containers that
    open on a line of `skip` (ones the parse took for code, where a comment would show as text).
    `definitions`: the text has definition lists (an MkDocs page), whose definitions may be blocks."""
    lines = text.split("\n")
    opened: list[tuple[int, int, str, str, str]] = []  # (line, colons, kind, title, indent)
    pairs: list[tuple[int, int, str, str, str, str]] = []  # (open line, close line, kind, title, indents)
    fence = ""
    for n, line in enumerate(lines):
        fence, in_code = code_fence(fence, line)
        if in_code:
            continue
        close = _CLOSE.match(line)
        if close and opened and len(close.group(2)) >= opened[-1][1] and _near(close.group(1), opened[-1][4]):
            first, _colons, kind, title, indent = opened.pop()
            pairs.append((first, n, kind, title, indent, close.group(1)))
            continue
        start = _OPEN.match(line)
        if start and n not in skip:
            opened.append((n, len(start.group(2)), start.group(3), start.group(4), start.group(1)))
    found: dict[int, Container] = {}
    for number, (first, last, kind, title, indent, close_indent) in enumerate(sorted(pairs)):
        found[number] = Container(kind, title, first)
        lines[first] = f"{indent}<!--{marker}open-{number}-->"
        lines[last] = f"{close_indent}<!--{marker}close-{number}-->"
    _mark_indented_blocks(lines, marker, found, skip, definitions)
    return ("\n".join(lines), found) if found else (text, {})


def _mark_indented_blocks(
    lines: list[str], marker: str, found: dict[int, Container], skip: frozenset[int], definitions: bool
) -> None:
    """MkDocs' indented blocks in `lines`, marked in place as containers are (numbered after them).

    A block's body is every following line that is blank or indented four columns more than its
    opening line; it is dedented by those four columns, so a block in a body is found in turn."""
    fence = ""
    n = 0
    while n < len(lines):  # not `enumerate`: a block marked here appends its closing line at the end
        fence, in_code = code_fence(fence, lines[n])
        start = None if in_code else _BLOCK_OPEN.match(lines[n])
        shown = _block_kind(start.group(2), start.group(3)) if start else None
        if start and shown and n not in skip and (definitions or ":" not in start.group(1)):
            _mark_block(lines, n, start.group(1), shown, marker, found)
        n += 1


def code_fence(fence: str, line: str) -> tuple[str, bool]:
    """The fence open after `line` ("" for none), given the one open before it; and whether `line`
    belongs to fenced code (a fence line itself does)."""
    found = _FENCE.match(line)
    if not fence:
        return (found.group(1), True) if found else ("", False)
    # A closing fence holds nothing after its signs (CommonMark): "```js" inside a ``` fence is code.
    closes = (
        found is not None
        and found.group(1)[0] == fence[0]
        and len(found.group(1)) >= len(fence)
        and not line[found.end() :].strip()
    )
    return ("" if closes else fence), True


def _block_kind(sign: str, rest: str) -> tuple[str, str] | None:
    """(kind, title) of a block's opening line (`!!! warning "Mind"`, `=== "Python"`), None if it is none."""
    if sign.startswith("==="):
        tab = _TAB_TITLE.fullmatch(rest)
        return ("tab", tab.group(1)) if tab else None
    admonition = _ADMONITION.fullmatch(rest)
    return (admonition.group(1), admonition.group(2) or "") if admonition else None


def _mark_block(
    lines: list[str], first: int, indent: str, shown: tuple[str, str], marker: str, found: dict[int, Container]
) -> None:
    width = len(indent.expandtabs(BODY_INDENT))
    end = first + 1
    while end < len(lines) and (not lines[end].strip() or _columns(lines[end]) >= width + BODY_INDENT):
        end += 1
    last = end
    while last > first + 1 and not lines[last - 1].strip():
        last -= 1
    closing = f"<!--{marker}close-"
    if last == len(lines):
        lines.append(indent)
    elif lines[last].strip() and not lines[last].lstrip().startswith(("<", closing)) and not is_rule(lines[last]):
        return  # text right under the body, with no blank line: left as written
    number = len(found)
    found[number] = Container(*shown, first)
    lines[first] = f"{indent}<!--{marker}open-{number}-->"
    for n in range(first + 1, last):
        if lines[n].strip():
            expanded = lines[n].expandtabs(BODY_INDENT)
            lines[n] = expanded[:width] + expanded[width + BODY_INDENT :]
    # The closing comment on the blank line after the body (a tab may have none), or before an enclosing
    # block's closing comment, the raw HTML that ends the body (mkdocs-material's `</div>`) or a rule.
    # A definition's block closes in the definition, not with a colon that would open another.
    close_indent = " " * width if ":" in indent else indent
    lines[last] = close_indent + closing + f"{number}-->" + lines[last].lstrip()


def is_rule(line: str) -> bool:
    """Whether `line` is a thematic break (`---`, `***`, `___`)."""
    return bool(_RULE.match(line))


def _columns(line: str) -> int:
    expanded = line.expandtabs(BODY_INDENT)
    return len(expanded) - len(expanded.lstrip())


def _near(indent: str, other: str) -> bool:
    return abs(len(indent.expandtabs(4)) - len(other.expandtabs(4))) < 4


def container_start(marker: str, kind: str, title: str, lines: str, title_html: str | None = None) -> str:
    """A container's opening with its label; `title_html`: its title already made HTML (escaped)."""
    name = re.sub(r"[^a-z0-9-]", "-", kind.lower())
    label = f'<span class="{marker}directive-name">{escape(kind)}</span>'
    if title:
        label += f" {escape(title) if title_html is None else title_html}"
    return f'<div class="{marker}directive container-{name}">\n<p class="{marker}directive-label"{lines}>{label}</p>\n'


def alert_start(marker: str, kind: str) -> str:
    """A GitHub alert's opening: a quote with its kind as a title (lines filled in by the renderer)."""
    name = kind.lower()
    return f'<blockquote class="{marker}alert alert-{name}"{{}}>\n<p class="{marker}alert-title">{ALERTS[kind]}</p>\n'


def footnote_ident(name: str) -> str:
    return re.sub(r"[^\w-]", "-", name.strip().lower()) or "note"


def footnote_reference(marker: str, name: str, number: int, repeat: int) -> str:
    ident = footnote_ident(name)
    back = f"h-fnref-{ident}" + (f"-{repeat}" if repeat else "")
    return f'<sup class="{marker}footnote-ref"><a href="{marker}#h-fn-{ident}" id="{marker}{back}">{number}</a></sup>'


def footnote_start(marker: str, name: str, number: int) -> str:
    """A footnote's definition, where it is written, labelled with its number and a link back (lines to fill)."""
    ident = footnote_ident(name)
    return (
        f'<div class="{marker}footnote" id="{marker}h-fn-{ident}"{{}}>\n'
        f'<a class="{marker}footnote-label" href="{marker}#h-fnref-{ident}">{number}.</a>\n'
    )


# A fence's info as VitePress writes it: the language, options (`:line-numbers`), the lines to
# highlight (`{2,7-9}`) and a title (`[vite.config.js]`), which a code group shows as its tab's name;
# as MkDocs and Docusaurus write it, `title="mkdocs.yml"`, and MkDocs' language may be a class
# among attributes (`{ .yaml .copy }`).
_INFO_LANGUAGE = re.compile(r"[^\s{\[:]*")
_INFO_CLASS_LANGUAGE = re.compile(r"\{\s*\.([\w+#-]+)")
_INFO_TITLE = re.compile(r"""\[([^\]\n]+)\]|\btitle=(?:"([^"\n]*)"|'([^'\n]*)')""")


def code_info(info: str) -> tuple[str, str]:
    """A fenced block's (language, title) from its info string (`vue{5} [BlogPost.vue]`,
    `yaml title="mkdocs.yml"`)."""
    info = info.strip()
    language = _INFO_LANGUAGE.match(info)
    named = language.group(0) if language else ""
    if not named:
        written_as_class = _INFO_CLASS_LANGUAGE.match(info)
        named = written_as_class.group(1) if written_as_class else ""
    title = _INFO_TITLE.search(info)
    return named, (next(part for part in title.groups() if part is not None).strip() if title else "")


def code_title(title: str, code_block: str) -> str:
    """A code block under its title (a file name): words of the source the view must show."""
    return f'<p class="directive-label"><span class="directive-name">{escape(title)}</span></p>\n{code_block}'


def diagram(language: str, code_block: str) -> str:
    """A diagram's source, labelled: the site draws no diagrams (no scripts from elsewhere)."""
    return (
        f'<div class="directive diagram"><p class="directive-label"><span class="directive-name">'
        f"{escape(language)}</span> diagram, shown as its source</p>\n{code_block}</div>\n"
    )


# HTML's own elements, current and obsolete: in any case (`<BR>`, `<B>`) they are HTML, never a component.
_HTML_ELEMENTS = frozenset(
    re.findall(
        r"\S+",
        "a abbr acronym address area article aside audio b base basefont bdi bdo big blink blockquote body br button"
        " canvas caption center cite code col colgroup data datalist dd del details dfn dialog dir div dl dt em embed"
        " fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i"
        " iframe img input ins kbd label legend li link main map mark marquee menu meta meter nav nobr noembed"
        " noframes noscript object ol optgroup option output p param picture plaintext pre progress q rp rt ruby s"
        " samp script search section select slot small source span strike strong style sub summary sup svg math"
        " table tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr xmp",
    )
)
# Elements the sanitizer removes whose words are in their attributes (a placeholder, a source).
_SHOWN_ELEMENTS = frozenset({"iframe", "video", "audio", "embed", "object", "input", "select", "textarea", "canvas"})
_TAG = re.compile(
    r"<(/?)([A-Za-z][\w.:-]*)"
    r"((?:\s+[^\s\"'<>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*)\s*(/?)>"
)


def is_shown_tag(name: str) -> bool:
    """A tag shown as its source: a component (a name HTML does not have, with a capital or a
    hyphen, as Vue, MDX and custom elements write them) or an element `_SHOWN_ELEMENTS` names."""
    lower = name.lower()
    if lower in _SHOWN_ELEMENTS:
        return True
    return lower not in _HTML_ELEMENTS and (lower != name or "-" in name)


def show_tags(html: str, marker: str, first_line: int | None = None) -> str:
    """Raw HTML with each shown tag as its escaped source. With `first_line` (an HTML block's
    first source line) each becomes a labelled line of its own carrying its line; without (HTML
    in a paragraph), code."""
    if "<" not in html:
        return html

    def shown(found: re.Match[str]) -> str:
        if not is_shown_tag(found.group(2)):
            return found.group(0)
        source = escape(found.group(0))
        if first_line is None:
            return f'<code class="{marker}component">{source}</code>'
        line = first_line + html.count("\n", 0, found.start())
        kind = "element" if found.group(2).lower() in _HTML_ELEMENTS else "component"
        return (
            f'<p class="{marker}directive-label" data-line-start="{marker}{line}">'
            f'<span class="{marker}directive-name">{kind}</span> <code>{source}</code></p>\n'
        )

    return _TAG.sub(shown, html)
