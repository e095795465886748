"""MDX as a Docusaurus reader sees it, shown without running any of it.

Docusaurus reads its docs as MDX: Markdown with ESM (`import Tabs from '@theme/Tabs';`,
`export const x = …`), JSX components (`<Tabs>`/`<TabItem value="npm" label="npm">`,
`<PlatformSupport platforms={[…]} />`) and comments (`{/* prettier-ignore */}`). The site runs
no script of the corpus, so before the parse, line for line (every block keeps its source lines):

- ESM blocks (an `import`/`export` line starting a block, to the next blank line) and MDX
  comments are left out, as reST comments are: no reader of the site sees them;
- a component's tag written on lines of its own becomes a comment carrying the document's
  marker, which the renderer turns into what a reader can read: a `<TabItem>` opens a block
  labelled with its tab's name (as MkDocs' content tabs are shown), `<Tabs>` itself shows
  nothing, another component with content opens a block labelled with its name; one without
  content is a small mark with its name and the attributes written as strings, as text (a table
  of `<TableRow name=… code=… />` says all it says in them), or, when it is a Markdown partial
  the document imports (`import RemoveGlobalCLI from './_remove-global-cli.md'`), a link to that
  partial's page: its text is another document, whose lines are not this one's to cite;
- a component's tag anywhere else (in a paragraph, in raw HTML) is shown by its name only, as a
  label the stylesheet draws (no text of the page: its words stay the source's).

Attributes are never HTML attributes (`{…}` expressions are JavaScript) and the source of a
tag is never shown as markup; fenced code, where these lines are examples, stays as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markupsafe import escape

from indexer.site import markdown_gfm

_ESM = re.compile(r"^(?:import|export)(?=[\s{*])")
_IMPORT = re.compile(r"""\bimport\s+([A-Z][\w$]*)\s+from\s+(['"])((?:\\.|(?!\2).)+)\2""")
_COMPONENT = re.compile(r"^([ \t]*)<(/?)([A-Z][\w$]*(?:\.[\w$]+)*)(?=[\s/>]|$)")
_ATTRIBUTE = re.compile(r"""\b(label|value)\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)')""")
_ESCAPE = re.compile(r"\\(.)")
_TAB_ENTRY = re.compile(r"\{[^{}]*\}")
_ENTRY_FIELD = re.compile(r"""\b(label|value)\s*:\s*(['"`])((?:(?!\2).)*)\2""")
_STRING_ATTRIBUTE = re.compile(r"""([A-Za-z_][\w:-]*)\s*=\s*("([^"]*)"|'([^']*)')""")
COMMENT_OPEN, COMMENT_CLOSE = "{/*", "*/}"
# The components that only wrap the blocks a reader reads: shown as nothing of their own.
WRAPPERS = frozenset({"Tabs"})
TAB = "TabItem"
PARTIAL_SUFFIXES = (".md", ".mdx")
TAG_MAX_LINES = 40  # a tag's attributes over more lines than this: left as written


@dataclass(frozen=True)
class Jsx:
    """What a component's tag on lines of its own shows: a block's start or end, a mark, a partial's link."""

    kind: str  # "open", "close", "mark" or "partial"
    name: str
    title: str = ""  # an open block's label (a tab's name)
    url: str = ""  # a partial's path, as the import names it
    texts: tuple[tuple[str, str], ...] = ()  # a mark's attributes written as strings: words of the source


@dataclass
class Marked:
    """A document's MDX with its ESM and comments left out and its components' lines marked."""

    text: str
    jsx: dict[int, Jsx] = field(default_factory=dict)
    lines: dict[int, int] = field(default_factory=dict)  # a mark's number → its line (0-based)
    tab_labels: dict[str, str] = field(default_factory=dict)  # the open `<Tabs values={[…]}>`' value → label

    def leaked(self, html: str, marker: str) -> set[int]:
        """The lines of the marks the parse took for code (shown as their comment's text)."""
        shown = re.findall("&lt;!--" + re.escape(marker) + r"jsx-(\d+)--&gt;", html)
        return {self.lines[int(number)] for number in shown}


def comment(marker: str, number: int) -> str:
    return f"<!--{marker}jsx-{number}-->"


def is_mark(html: str, marker: str) -> bool:
    """Whether an HTML event is a mark (indented as its tag was: in raw HTML, `  <TableRow … />`)."""
    return html.lstrip(" \t").startswith(f"<!--{marker}jsx-")


def mark_number(html: str, marker: str) -> int:
    return int(html.lstrip(" \t")[len(f"<!--{marker}jsx-") :].split("--", 1)[0])


def mark(text: str, marker: str, skip: frozenset[int] = frozenset()) -> Marked:
    """`text` with its ESM and MDX comments blanked and each component's own lines marked (but those
    starting on a line of `skip`, which the parse took for code: left for `show_components`)."""
    lines = text.split("\n")
    marked = Marked("")
    partials: dict[str, str] = {}
    opened: list[tuple[int, str]] = []  # (number, name) of the blocks open
    fence = ""
    n = top = _after_front_matter(lines)
    while n < len(lines):
        fence, in_code = markdown_gfm.code_fence(fence, lines[n])
        if in_code:
            n += 1
            continue
        if _ESM.match(lines[n]) and (n == top or not lines[n - 1].strip()):
            n = _blank_esm(lines, n, partials)
            continue
        n = _blank_comments(lines, n)
        found = _COMPONENT.match(lines[n])
        end = _tag_end(lines, n) if found and n not in skip else None
        if found and end is not None:
            _mark_tag(lines, n, end, found, partials, opened, marker, marked)
            n = end[0] + 1
            continue
        n += 1
    for number, name in opened:  # a block never closed: its start is a mark
        marked.jsx[number] = Jsx("mark", name)
    marked.text = "\n".join(lines)
    return marked


def _after_front_matter(lines: list[str]) -> int:
    if not lines or lines[0].rstrip() != "---":
        return 0
    for n in range(1, len(lines)):
        if lines[n].rstrip() in ("---", "..."):
            return n + 1
    return 0


def _blank_esm(lines: list[str], first: int, partials: dict[str, str]) -> int:
    """Blank an ESM block (to the next blank line), keeping the Markdown partials it imports."""
    n = first
    while n < len(lines) and lines[n].strip():
        n += 1
    for found in _IMPORT.finditer("\n".join(lines[first:n])):
        path = _ESCAPE.sub(r"\1", found.group(3))
        if path.endswith(PARTIAL_SUFFIXES) and not re.match(r"[A-Za-z][\w+.-]*:|/", path):
            partials[found.group(1)] = path
    for line in range(first, n):
        lines[line] = ""
    return n


def _blank_comments(lines: list[str], n: int) -> int:
    """Leave out the MDX comments starting on line `n` (one may run over lines); `n` again."""
    line = lines[n]
    at = _outside_code(line, line.find(COMMENT_OPEN))
    while at >= 0:
        end_line, end = n, lines[n].find(COMMENT_CLOSE, at + len(COMMENT_OPEN))
        while end < 0 and end_line + 1 < len(lines):
            end_line += 1
            end = lines[end_line].find(COMMENT_CLOSE)
        if end < 0:
            return n  # never closed: MDX refuses the file; left as written
        if end_line == n:
            lines[n] = lines[n][:at] + lines[n][end + len(COMMENT_CLOSE) :]
        else:
            lines[n] = lines[n][:at]
            for middle in range(n + 1, end_line):
                lines[middle] = ""
            lines[end_line] = lines[end_line][end + len(COMMENT_CLOSE) :]
            return n
        at = _outside_code(lines[n], lines[n].find(COMMENT_OPEN, at))
    return n


def _outside_code(line: str, at: int) -> int:
    """`at`, or -1 when it stands in a code span of the line (an odd number of backticks before it)."""
    return at if at < 0 or line.count("`", 0, at) % 2 == 0 else -1


def _tag_end(lines: list[str], first: int) -> tuple[int, bool, str] | None:
    """Where the tag starting line `first` ends: (its last line, self-closing, its attributes' text);
    None unless the tag stands on lines of its own (nothing after its `>`)."""
    depth, quote = 0, ""
    start = lines[first].index("<") + 1
    written: list[str] = []
    for n in range(first, min(len(lines), first + TAG_MAX_LINES)):
        line = lines[n]
        for at in range(start if n == first else 0, len(line)):
            char = line[at]
            if quote:
                quote = "" if char == quote else quote
            elif char in "\"'`":
                quote = char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
            elif char == ">" and depth <= 0:
                if line[at + 1 :].strip():
                    return None
                written.append(line[:at])
                text = "\n".join(written)
                return n, text.rstrip().endswith("/"), text
        written.append(line if n != first else line[start:])
    return None


def _mark_tag(
    lines: list[str],
    first: int,
    end: tuple[int, bool, str],
    found: re.Match[str],
    partials: dict[str, str],
    opened: list[tuple[int, str]],
    marker: str,
    marked: Marked,
) -> None:
    last, self_closing, attributes = end
    indent, closing, name = found.group(1), found.group(2), found.group(3)
    jsx: Jsx | None
    if name in WRAPPERS:
        jsx = None
        if not closing:
            marked.tab_labels = _tab_labels(attributes)
    elif closing:
        if not opened or opened[-1][1] != name:
            jsx = None  # a close with no open (or a wrapper's): nothing to show
        else:
            opened.pop()
            jsx = Jsx("close", name)
    elif self_closing:
        jsx = (
            Jsx("partial", name, url=partials[name])
            if name in partials
            else Jsx("mark", name, texts=_texts(attributes))
        )
    else:
        jsx = Jsx("open", name, _tab_name(attributes, marked.tab_labels) if name == TAB else "")
    for line in range(first, last + 1):
        lines[line] = indent if line == first else ""
    if jsx is not None:
        number = len(marked.jsx)
        marked.jsx[number] = jsx
        marked.lines[number] = first
        lines[first] = indent + comment(marker, number)
        if jsx.kind == "open":
            opened.append((number, name))


def _texts(attributes: str) -> tuple[tuple[str, str], ...]:
    """The attributes of a tag written as string literals (`name="Arrow functions"`), in order; not those
    in `{…}` (JavaScript). A table made of `<TableRow name=… code=… url=… />` says all it says in them."""
    found, depth, at = [], 0, 0
    while at < len(attributes):
        char = attributes[at]
        if char in "{}":
            depth += 1 if char == "{" else -1
        elif depth <= 0:
            written = _STRING_ATTRIBUTE.match(attributes, at)
            if written and (at == 0 or attributes[at - 1].isspace()):
                found.append((written.group(1), written.group(3) if written.group(3) is not None else written.group(4)))
                at = written.end()
                continue
            if char in "\"'":  # a value of an attribute not matched above: skipped whole
                end = attributes.find(char, at + 1)
                at = end + 1 if end > 0 else len(attributes)
                continue
        at += 1
    return tuple(found)


def _tab_name(attributes: str, labels: dict[str, str]) -> str:
    """A `<TabItem>`'s name: its `label`, else the label its `<Tabs values={[…]}>` gives its `value`, else that."""
    found = {m.group(1): m.group(2) if m.group(2) is not None else m.group(3) for m in _ATTRIBUTE.finditer(attributes)}
    value = found.get("value") or ""
    return found.get("label") or labels.get(value) or value


def _tab_labels(attributes: str) -> dict[str, str]:
    """The labels a `<Tabs>` gives its values when its `values` is written as a literal list of
    `{label: '…', value: '…'}` (a list named by a variable, `constants.packageManagers`, is not read)."""
    labels = {}
    for entry in _TAB_ENTRY.finditer(attributes):
        fields = {m.group(1): m.group(3) for m in _ENTRY_FIELD.finditer(entry.group(0))}
        if "label" in fields and "value" in fields:
            labels[fields["value"]] = fields["label"]
    return labels


def shown(jsx: Jsx, marker: str, lines: str, href: str | None) -> str:
    """A marked component as the page shows it (`href`: a partial's page, None when it has none)."""
    if jsx.kind == "close":
        return "</div>\n"
    if jsx.kind == "open":
        kind, title = ("tab", jsx.title) if jsx.name == TAB else ("component", jsx.name)
        return markdown_gfm.container_start(marker, kind, title, lines)
    label = f'<span class="{marker}directive-name">{"included" if jsx.kind == "partial" else "component"}</span>'
    if jsx.kind == "partial":
        text = escape(jsx.url)
        what = f'<a href="{escape(marker + href)}">{text}</a>' if href is not None else f"{text} (not found)"
        return f'<p class="{marker}directive-label"{lines}>{label} {what}</p>\n'
    texts = "".join(f" {escape(name)} <code>{escape(value)}</code>" for name, value in jsx.texts)
    return f'<p class="{marker}directive-label"{lines}>{label} {escape(jsx.name)}{texts}</p>\n'


def show_components(html: str, marker: str, first_line: int | None = None) -> str:
    """Raw HTML of an MDX document with each component's tag shown by its name only (an end tag
    as nothing), and HTML's shown elements as `markdown_gfm.show_tags` shows them."""
    if "<" not in html:
        return html

    def name_only(found: re.Match[str]) -> str:
        name = found.group(2)
        if not name[:1].isupper():
            return found.group(0)
        if found.group(1):
            return ""
        texts = _texts(found.group(3))
        if first_line is not None and found.group(4):  # in an HTML block, on a line of its own: a block's mark
            line = first_line + html.count("\n", 0, found.start())
            return shown(Jsx("mark", name, texts=texts), marker, f' data-line-start="{marker}{line}"', None)
        # The name as a label the stylesheet draws (from `title`), not as text: the words around it stay apart.
        words = "".join(f" <code>{escape(value)}</code>" for _name, value in texts)
        return f'<span class="{marker}component" title="{marker}{escape(name)}"></span>{words}'

    return markdown_gfm.show_tags(markdown_gfm._TAG.sub(name_only, html), marker, first_line)
