"""What docutils does not know in a reStructuredText document, shown rather than dropped (docs/design.md#d17).

Sphinx projects (python/peps, most Python documentation) write directives and roles that
docutils alone does not define: `.. rejected::`, `.. c:function::`, `.. literalinclude::`,
`:mod:`, `:ref:`, `` :pep:`title <7>` ``. Left to docutils, an unknown directive becomes an
error message, which the page does not show, and its content is gone; an unknown role shows
as raw markup. Here:

- every directive name the document uses that docutils does not know is registered, before
  the parse, as `ShownDirective`: a labelled box (class `directive`) with the name, its
  argument and options, and its content parsed as reST when it parses cleanly, else as
  literal text;
- every role name it uses that docutils does not know, and Sphinx's common roles, render as
  their text (`title <target>`: the title; `~a.b.c`: `c`, as Sphinx shows it); code-like
  roles (`:mod:`, `:func:`, any `domain:role`) as code; `:pep:`, `:rfc:`, `:doc:`, `:ref:`
  and `:term:` become references that `indexer.site.rst_view` resolves onto the site (or an
  outside URL pattern, or the glossary entry of the document, or plain text) once the page's
  links are known;
- three Sphinx directives are read as Sphinx reads them, because their words would otherwise be
  lost or shown as raw markup: `.. glossary::` (a definition list whose entries may stack
  several terms, each term an anchor `:term:` links to), `.. class:: pkg.Name(arg)` (Sphinx's
  Python class description; docutils' own `class` directive would turn the signature into an
  HTML class name, so docutils' meaning is kept only for an argument of valid class names) and
  `.. code-block::` with Sphinx's options (`:caption:` shown above the code, `:linenos:`,
  `:emphasize-lines:`…), which docutils' own refuses, showing the whole block as its source.

docutils keeps directives and roles in module-wide registries, so registration is global to
the process; a name is only ever registered as one of these two harmless handlers.
"""

from __future__ import annotations

import io
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any, ClassVar

from docutils import nodes, utils
from docutils.parsers.rst import Directive, directives, roles
from docutils.parsers.rst.directives.body import CodeBlock
from docutils.parsers.rst.directives.misc import Class
from docutils.parsers.rst.languages import en
from docutils.statemachine import StringList

# Roles whose target is a name in code: shown as code, as Sphinx shows them.
CODE_ROLES = frozenset(
    {"mod", "class", "func", "meth", "attr", "data", "const", "exc", "obj", "envvar", "option", "program"}
    | {"file", "samp", "command", "makevar", "keyword", "token", "any", "py", "cve", "cwe", "kbd", "regexp"}
)
# Roles that name a document or a place: references, resolved by the view once links are known.
LINK_ROLES = frozenset({"pep", "rfc", "doc", "ref", "numref", "term"})
# Sphinx's other common roles: their text.
TEXT_ROLES = frozenset(
    {"abbr", "dfn", "guilabel", "menuselection", "mimetype", "newsgroup", "manpage", "download"}
    | {"sup", "sub", "issue", "gh", "pypi", "source", "user"}
)
# Directives whose content is not reST prose: always shown as literal text.
# Directives whose argument is a file of the repository, shown as a link to the file's page.
FILE_DIRECTIVES = frozenset({"literalinclude"})
LITERAL_DIRECTIVES = frozenset({"productionlist", "code-block", "sourcecode", "highlight", "graphviz", "mermaid"})
ROLE_NAME = re.compile(r"(?<![\w\\`]):((?:(?!_)\w)+(?:[-.+:](?:(?!_)\w)+)*):`|`:((?:(?!_)\w)+(?:[-.+:](?:(?!_)\w)+)*):")
DIRECTIVE_NAME = re.compile(r"^[ \t]*\.\.[ \t]+((?:(?!_)\w)+(?:[-.+:](?:(?!_)\w)+)*)[ \t]?::", re.MULTILINE)
INVENTORY = re.compile(r"^[\w.+-]+:(?=[~!]?[\w.]+$)")  # `python:` in `python:sqlite3`; never `c:func` alone
TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)
GLOSSARY_TERM = "pincite-glossary-term"  # a glossary term node's attribute: the term as `:term:` names it

_known_directives: dict[str, bool] = {}
_known_roles: dict[str, bool] = {}


def prepare(text: str) -> None:
    """Register a handler for every directive and role name in `text` that docutils does not know."""
    for found in DIRECTIVE_NAME.finditer(text):
        name = found.group(1).lower()
        if name not in _known_directives:
            _known_directives[name] = _docutils_has_directive(name)
            if not _known_directives[name]:
                directives.register_directive(name, ShownDirective)
    for found in ROLE_NAME.finditer(text):
        name = (found.group(1) or found.group(2)).lower()
        if name not in _known_roles:
            _known_roles[name] = _docutils_has_role(name)
            if not _known_roles[name]:
                roles.register_local_role(name, shown_role)


def _quiet_document() -> nodes.document:
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    settings = get_default_settings(Parser)
    settings.report_level = 5
    settings.warning_stream = io.StringIO()
    return utils.new_document("", settings)


def _docutils_has_directive(name: str) -> bool:
    found, _messages = directives.directive(name, en, _quiet_document())
    return found is not None


def _docutils_has_role(name: str) -> bool:
    found, _messages = roles.role(name, en, 0, _quiet_document().reporter)
    return found is not None


# -- roles ----------------------------------------------------------------------------------


def split_role_text(text: str) -> tuple[str, str]:
    """(title, target) of a role's text: `title <target>`, or the target alone (title "")."""
    titled = TITLED.match(text)
    if titled and titled.group(1):
        return titled.group(1).strip(), titled.group(2).strip()
    return "", text.strip()


def shown_target(role: str, target: str) -> str:
    """What Sphinx shows for a target without a title: `~a.b.c` shows `c`; `!x` shows `x`; a code
    name in another project's inventory (`python:sqlite3`, intersphinx's form) shows `sqlite3`."""
    target = target.lstrip("!")
    if (role in CODE_ROLES or ":" in role) and INVENTORY.match(target):
        target = INVENTORY.sub("", target, count=1)
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    if role == "pep":
        return f"PEP {target}"
    if role == "rfc":
        return f"RFC {target}"
    return target


def shown_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """A role docutils does not know, as its text; a linking role as a reference to resolve later."""
    role = name.lower()
    title, target = split_role_text(utils.unescape(text))
    shown = title or shown_target(role, target)
    classes = ["role", "role-" + re.sub(r"[^a-z0-9-]", "-", role)]
    if role in LINK_ROLES:
        node: nodes.Element = nodes.reference(rawtext, shown, classes=classes)
        node["pincite-role"] = role
        node["pincite-target"] = target.lstrip("!~")
        node["pincite-untitled"] = not title
    elif role in CODE_ROLES or ":" in role:
        node = nodes.literal(rawtext, shown, classes=classes)
    else:
        node = nodes.inline(rawtext, shown, classes=classes)
    return [node], []


for _name in CODE_ROLES | LINK_ROLES | TEXT_ROLES:
    # Sphinx's meaning wins over docutils' (its `:pep:` refuses `title <7>`; its `:sup:` is the same text).
    if _name not in ("sup", "sub"):
        roles.register_local_role(_name, shown_role)
        _known_roles[_name] = False


# -- directives -----------------------------------------------------------------------------


class _AnyOption(defaultdict[str, Callable[[str | None], str]]):
    """An option spec that accepts every option: an unknown directive's options are shown as written."""

    def __init__(self) -> None:
        super().__init__(lambda: directives.unchanged, {"class": directives.unchanged})


class ShownDirective(Directive):  # type: ignore[misc]  # docutils has no types
    """A directive docutils does not know: a labelled box with its name, argument, options and content."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        name = self.name.lower()
        box = nodes.container(classes=["directive", "directive-" + re.sub(r"[^a-z0-9-]", "-", name)])
        # Its raw source is the directive's first line: where select-to-cite finds it.
        label = nodes.paragraph(self.block_text.split("\n", 1)[0].strip(), "", classes=["directive-label"])
        label += nodes.inline(name, name, classes=["directive-name"])
        if self.arguments:
            label += nodes.Text(" ")
            label += self._argument(self.arguments[0])
            if "\n" not in self.arguments[0]:
                label["pincite-lines"] = (self.lineno, self.lineno)
        elif not self.options:
            label["pincite-lines"] = (self.lineno, self.lineno)
        box += label
        if self.options:
            fields = nodes.field_list(classes=["directive-options"])
            for key, value in self.options.items():
                # As inline reST: sphinx-doc's `.. confval::` writes `:type: :code-py:`bool``.
                body = nodes.field_body("", nodes.paragraph(value, "", *self._inline(value)))
                fields += nodes.field("", nodes.field_name(key, key), body)
            box += fields
        if self.content:
            box += self._content(name)
        return [box]

    def _argument(self, argument: str) -> nodes.inline:
        """The argument as inline reST (`.. canonical-doc:: :mod:`python:sqlite3`` shows `sqlite3`
        as the roles show it), or as written when its markup does not parse cleanly; a file a
        directive includes, a link to it (the view shows no other file's text; its page does)."""
        shown = nodes.inline(argument, "", classes=["directive-argument"])
        if self.name.lower() in FILE_DIRECTIVES and argument.strip() and not any(c.isspace() for c in argument.strip()):
            # `indexer.site.rst_view` links it to the file's page when the file is a document of the
            # site, else leaves it text: a file outside the corpus is no broken link of the page.
            shown += nodes.reference(argument, argument, refuri=argument.strip(), **{"pincite-if-document": "1"})
            return shown
        shown.extend(self._inline(argument))
        return shown

    def _inline(self, text: str) -> list[nodes.Node]:
        """`text` as inline reST, or as written when its markup does not parse cleanly."""
        parsed, messages = self.state.inline_text(text, self.lineno)
        if messages or any(isinstance(n, nodes.problematic) for part in parsed for n in part.findall()):
            return [nodes.Text(text)]
        return list(parsed)

    def _content(self, name: str) -> list[nodes.Node]:
        literal = nodes.literal_block("\n".join(self.content), "\n".join(self.content), classes=["directive-source"])
        first = self.content_offset + 1  # 1-based line of the content's first line
        literal["pincite-lines"] = (first, first + len(self.content) - 1)
        if name in LITERAL_DIRECTIVES:
            return [literal]
        holder = nodes.container()
        # Section titles may stand in the content, as Sphinx's own directives parse theirs (`Examples` under
        # a `.. confval::`); docutils would refuse them and the whole content would be shown as source.
        self.state.nested_parse(self.content, self.content_offset, holder, match_titles=True)
        if any(message["level"] >= 3 for message in holder.findall(nodes.system_message)):
            return [literal]  # not clean reST: the reader sees the text as written
        return list(holder.children)


class SignatureClass(Class):  # type: ignore[misc]  # docutils has no types
    """`.. class::` as docutils reads it for class names (`.. class:: special`), and as Sphinx reads it
    for a Python class's signature (`.. class:: pkg.Proxy(obj)`), which docutils would turn into an
    HTML class name and the reader would never see."""

    optional_arguments = 0
    final_argument_whitespace = True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        names = self.arguments[0].split()
        if all(nodes.make_id(name) == name for name in names) and not self.options:
            return list(super().run())
        return shown_as_written(self)


def shown_as_written(directive: Directive) -> list[nodes.Node]:
    """A directive read as written instead (a labelled block of its source), as an unknown one is."""
    return list(
        ShownDirective(
            directive.name, directive.arguments, directive.options, directive.content, directive.lineno,
            directive.content_offset, directive.block_text, directive.state, directive.state_machine,
        ).run()
    )  # fmt: skip


class Glossary(Directive):  # type: ignore[misc]  # docutils has no types
    """Sphinx's `.. glossary::`: entries of one or more term lines, each followed by its indented
    definition; each term is an anchor (`h-term-<name>`) that the document's `:term:` roles link to.
    Content that does not read as a glossary is shown as written, like any unknown directive's."""

    has_content = True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        entries = self._entries()
        if entries is None:
            return shown_as_written(self)
        listing = nodes.definition_list(classes=["glossary"])
        document = self.state.document
        for terms, definition in entries:
            item = nodes.definition_list_item()
            for text, offset in terms:
                term = nodes.term(text, "")
                term.line = offset + 1  # the content's offsets count the source's lines from 0
                parsed, messages = self.state.inline_text(text, term.line)
                term.extend(parsed)
                anchor = term_anchor(text)
                if anchor not in document.ids:
                    term["ids"].append(anchor)
                    document.ids[anchor] = term
                term[GLOSSARY_TERM] = term_key(text)
                item += term
                item.extend(messages)
            body = nodes.definition()
            if definition:
                self.state.nested_parse(definition, definition.offset(0), body)
            item += body
            listing += item
        return [listing]

    def _entries(self) -> list[tuple[list[tuple[str, int]], StringList]] | None:
        """(terms with their line offsets, definition lines) of each entry, or None when the content
        is not a glossary (`glossary_entries`)."""
        entries = glossary_entries(list(self.content))
        if entries is None:
            return None
        items = self.content.items
        found: list[tuple[list[tuple[str, int]], StringList]] = []
        for terms, definition in entries:
            lines = StringList()
            for index, line in definition:
                lines.append(line, *items[index])
            found.append(([(self.content[index].strip(), items[index][1]) for index in terms], lines))
        return found


def glossary_entries(content: list[str]) -> list[tuple[list[int], list[tuple[int, str]]]] | None:
    """The entries of a glossary's content (its lines, as docutils gives them: the common indent
    removed): each entry's term lines (their indexes) and its definition lines (index, the line cut
    to the definition's indent); None when the content is not a glossary (a definition before any
    term, a term line right after a definition, a comment among the terms).

    The one reading of a glossary: the directive's, and the corpus's table of terms (`rst_places`)."""
    entries: list[tuple[list[int], list[tuple[int, str]]]] = []
    in_definition, was_empty, indent = True, True, 0
    for index, line in enumerate(content):
        if not line.strip():
            if entries and entries[-1][1]:
                entries[-1][1].append((index, ""))
            was_empty = True
            continue
        if not line[0].isspace():
            if line.startswith(".."):
                return None  # Sphinx would hide a comment here, with the lines under it: shown as written
            if in_definition:
                if not was_empty:
                    return None
                entries.append(([], []))
            entries[-1][0].append(index)
            in_definition = False
        else:
            if not entries:
                return None
            margin = len(line) - len(line.lstrip())
            if not in_definition:
                indent = margin
            entries[-1][1].append((index, line[min(indent, margin) :]))
            in_definition = True
        was_empty = False
    return entries or None


class SphinxCodeBlock(CodeBlock):  # type: ignore[misc]  # docutils has no types
    """`.. code-block::` (and `sourcecode`, `code`) as Sphinx reads it: its language is optional, its
    `:caption:` is shown above the code, and its other options only change how Sphinx draws the code."""

    # Sphinx's options that change only how it draws the code: accepted, and not passed on to docutils.
    DRAWING: ClassVar[dict[str, Callable[[str | None], Any]]] = {
        **dict.fromkeys(("emphasize-lines", "lineno-start", "dedent"), directives.unchanged),
        **dict.fromkeys(("linenos", "force"), directives.flag),
    }
    option_spec: ClassVar[dict[str, Callable[[str | None], Any]]] = {
        **CodeBlock.option_spec,
        "caption": directives.unchanged,
        **DRAWING,
    }

    def run(self) -> list[nodes.Node]:
        caption = self.options.pop("caption", "")
        for name in self.DRAWING:
            self.options.pop(name, None)
        shown = list(super().run())
        first = self.content_offset + 1  # 1-based line of the code's first line
        if shown and isinstance(shown[0], nodes.literal_block) and self.content:
            shown[0]["pincite-lines"] = (first, first + len(self.content) - 1)
        if not caption:
            return shown
        label = nodes.paragraph(caption, "", classes=["directive-label"])
        label += nodes.inline(caption, caption, classes=["directive-name"])
        written = [n for n, line in enumerate(self.block_text.split("\n")) if line.strip().startswith(":caption:")]
        if written:
            label["pincite-lines"] = (self.lineno + written[0], self.lineno + written[0])
        return [label, *shown]


directives.register_directive("glossary", Glossary)
directives.register_directive("class", SignatureClass)
CODE_DIRECTIVES = ("code-block", "sourcecode", "code")
for _name in CODE_DIRECTIVES:
    directives.register_directive(_name, SphinxCodeBlock)
_known_directives.update(dict.fromkeys(("glossary", "class", *CODE_DIRECTIVES), True))


# Every id the reST view gives starts with it: the site's rule (`indexer.site.links.heading_fragment`).
ID_PREFIX = "h-"


def term_anchor(text: str) -> str:
    """The id a glossary term's entry carries on the page (the site's `h-` prefix, Sphinx's `term-`)."""
    return ID_PREFIX + "term-" + str(nodes.make_id(text))


def name_anchor(name: str) -> str:
    """The id docutils gives a name (a label, a section title) under the view's `id_prefix`: with a
    prefix it keeps a leading digit or hyphen (`2to3` → `h-2to3`, where `make_id` alone says `to3`);
    "" for a name that makes no id."""
    base = str(nodes.make_id("x" + name))[1:]
    return ID_PREFIX + base if base else ""


def term_key(text: str) -> str:
    """A term as `:term:` names it: Sphinx compares terms in lower case, spaces collapsed."""
    return " ".join(text.split()).lower()


def glossary_terms(tree: nodes.document) -> dict[str, str]:
    """The document's glossary: each term as `:term:` names it (lower case, as Sphinx compares) → its id."""
    found: dict[str, str] = {}
    for term in tree.findall(nodes.term):
        key = term.get(GLOSSARY_TERM)
        if key and term["ids"]:
            found.setdefault(key, term["ids"][0])
    return found
