"""The rendered view of a reStructuredText document, through docutils with every reading directive off.

A corpus document is untrusted input. docutils is told not to read anything: `raw` is
disabled (no HTML passes through), `include` and every `:file:`/`:url:` option
(`raw`, `csv-table`) are disabled, no configuration file is read, no stylesheet is
linked, math is plain HTML (no MathJax URL) and code is not highlighted.

The view never hides a word of the source (docs/design.md#d17): directives and roles
docutils does not know are shown by `indexer.site.rst_sphinx`; a construct docutils refuses
(a disabled `raw` or `include`, a malformed directive) is shown as its source text in a
labelled box, with docutils' reason. A leading mail-style header (`PEP: 8`, `Title: …`) is
read as the field list it is (docutils' RFC 2822 option) and shown as a table of fields.

Before writing, the tree is cleaned: every link and image goes through the page's link
resolver (`indexer.site.links`), so a relative link or a repository image lands on the
site; an image from elsewhere becomes a link (the site loads nothing from elsewhere); a
link keeps its target only for http(s), mailto or a relative address. A link docutils reads
as a file name or refuses though it plainly names a place of the document (`x <Runtime
behavior>`_, `x <Motivation_>`_), and a footnote reference glued to its word (`syslog.[11]_`),
land where the writer meant (`_own_target`, `_show_refused`, `_glued_notes`). Every text block
gets its source lines (`data-line-start`/`data-line-end`), checked against the source, so
select-to-cite works from this view as from the Markdown one.
"""

from __future__ import annotations

import functools
import io
import posixpath
import re
from typing import Any

from docutils import nodes
from docutils.core import publish_doctree, publish_from_doctree
from docutils.parsers.rst import Parser
from docutils.readers import standalone
from docutils.writers import html5_polyglot
from markupsafe import Markup, escape

from indexer.site import rst_sphinx
from indexer.site.links import IMAGE, LABEL, LABEL_TITLE, LINK, TERM, DocumentLinks, heading_fragment, is_external
from indexer.site.markdown import wrap_tables

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
    "docinfo_xform": False,  # a leading field list stays as written (names not translated, lines kept)
    "id_prefix": rst_sphinx.ID_PREFIX,
    "auto_id_prefix": "%",
    "smart_quotes": False,
}
# A leading block of `Name: value` lines (with indented continuations): the PEP header.
MAIL_HEADER = re.compile(r"\A(?:[A-Za-z][A-Za-z0-9-]*:(?:[ \t][^\n]*)?\n(?:[ \t]+[^\n]*\n)*)+(?:\n|\Z)")
# Blocks whose text stands on their source lines (a title, a paragraph, a literal block…).
LINED = (
    nodes.paragraph,
    nodes.title,
    nodes.subtitle,
    nodes.literal_block,
    nodes.doctest_block,
    nodes.term,
    nodes.rubric,
    nodes.line,
    nodes.attribution,
    nodes.caption,
    nodes.field_name,
)
NEAR = 4  # how far from docutils' line number a block's text is looked for
# Outside URL patterns of roles, used when the target is not published on the site.
DEFAULT_ROLE_URLS = {
    "pep": "https://peps.python.org/pep-{number:04d}/",
    "rfc": "https://datatracker.ietf.org/doc/html/rfc{number}",
}
# Files a `:pep:`/`:rfc:` number may be published as, looked for by name in the corpus.
ROLE_FILES = {
    "pep": ("pep-{:04d}.rst", "pep-{:04d}.txt", "pep-{:04d}.md", "pep-{:04d}/index.rst"),
    "rfc": ("rfc{}.txt", "rfc{}.rst", "rfc{}.md", "rfc-{:04d}.md", "{:04d}.md"),
}
# A link to a name: `text <Name_>`_ (by another name), `Name`_.
NAMED_LINK = re.compile(r"`([^`<]+?)(?:\s*<([^<>]+)_>)?`__?", re.DOTALL)
URL_FIELD = re.compile(r"\{(target|number)(?::0(\d)d)?\}")


def rst_view(
    text: str, links: DocumentLinks | None = None, role_urls: dict[str, str] | None = None
) -> tuple[Markup, list[tuple[int, str, str]]]:
    """Rendered HTML of a reST document and its (level, id, title) headings.

    `links` resolves relative links, images and `:doc:`/`:pep:` targets onto the site (and
    records them); `role_urls` are the outside URL patterns of roles (`pep` → `https://…{number}`).
    """
    settings = {**SETTINGS, "warning_stream": io.StringIO()}
    rst_sphinx.prepare(text)
    parser = Parser(rfc2822=bool(MAIL_HEADER.match(text)))
    tree = publish_doctree(text, reader=_Reader(), parser=parser, settings_overrides=settings)
    _show_refused(tree)
    _glued_notes(tree)
    _clean(tree, links)  # before the roles' references get their (already resolved) targets
    _resolve_roles(tree, links, DEFAULT_ROLE_URLS if role_urls is None else role_urls)
    _lines(tree, text.split("\n"))
    headings = _headings(tree)
    writer = html5_polyglot.Writer()
    writer.translator_class = _Translator
    publish_from_doctree(tree, writer=writer, settings_overrides=settings)
    body = str(writer.parts["body"]).replace(
        '<a class="reference external" ', f'<a class="reference external" rel="{REL}" '
    )
    return Markup(wrap_tables(body)), headings


class _Reader(standalone.Reader):  # type: ignore[misc]  # docutils has no types
    """docutils' standalone reader, whose tree gives a duplicate name's id the `id_prefix` too.

    docutils makes the id of a section or target whose name is taken twice (`Intro`, `Intro`) from
    the name alone, without the prefix (`intro-1`): such an id could be one the page's own chrome
    uses (`src-1`, `banner-1`), and the site's rule is that every id of a document starts with `h-`.
    (Set on the tree, not by a subclass of it: docutils' visitors dispatch on the node's class name.)
    """

    def new_document(self) -> nodes.document:
        document = super().new_document()
        document.create_id = functools.partial(_prefixed_id, document)
        return document


def _prefixed_id(document: nodes.document, node: nodes.Element, suggested_prefix: str = "") -> str:
    made = str(nodes.document.create_id(document, node, suggested_prefix))
    prefix = str(document.settings.id_prefix)
    if made.startswith(prefix):
        return made
    candidate, count = prefix + made, 0
    while candidate in document.ids:
        count += 1
        candidate = f"{prefix}{made}-{count}"
    return candidate


class _Translator(html5_polyglot.HTMLTranslator):  # type: ignore[misc]  # docutils has no types
    """docutils' HTML5 translator, writing a block's source lines on its first tag."""

    def starttag(self, node: Any, tagname: str, suffix: str = "\n", empty: bool = False, **attributes: Any) -> str:
        lines = node.get("pincite-lines") if isinstance(node, nodes.Element) else None
        if lines:
            del node["pincite-lines"]  # the node's first tag only
            attributes["data-line-start"], attributes["data-line-end"] = lines
        if tagname == "col":
            # `:widths:` as `<col style="width: 25%">`: the site's CSP refuses inline styles (an error
            # in the console per column), so the columns take the widths their text gives them.
            attributes.pop("style", None)
        return str(super().starttag(node, tagname, suffix, empty, **attributes))


# -- what docutils refused: shown as source -----------------------------------------------------


def _show_refused(tree: nodes.document) -> None:
    """docutils' messages are not shown, but the source they carry is: as a labelled block."""
    for message in list(tree.findall(nodes.system_message)):
        sources = [child for child in message.children if isinstance(child, nodes.literal_block)]
        if message["level"] < 2 or not sources or message.parent is None:
            message.parent.remove(message) if message.parent is not None else None
            continue
        reason = message.children[0].astext() if isinstance(message.children[0], nodes.paragraph) else ""
        box = nodes.container(classes=["directive", "directive-refused"])
        label = nodes.paragraph("", "", classes=["directive-label"])
        label += nodes.inline("", "shown as source", classes=["directive-name"])
        if reason:
            label += nodes.Text(" ")
            label += nodes.inline("", reason, classes=["directive-argument"])
        box += label
        source = sources[0].astext()
        block = nodes.literal_block(source, source, classes=["directive-source"])
        if message.get("line"):
            block["pincite-near"] = message["line"]
        box += block
        message.replace_self(box)
    for problem in list(tree.findall(nodes.problematic)):
        named = NAMED_LINK.fullmatch(problem.rawsource) if isinstance(problem.rawsource, str) else None
        place = _place_named(tree, nodes.fully_normalize_name(named.group(2) or named.group(1))) if named else None
        if named and place:
            # `motivation <Motivation_>`_ names the section "Motivation", which docutils refuses because
            # the link's own name is the section's too (and then `Motivation`_ elsewhere, the name
            # being taken twice). The reader gets the link the writer meant.
            problem.replace_self(nodes.reference(problem.rawsource, named.group(1), refid=place))
        else:
            problem.replace_self(nodes.inline(problem.rawsource, problem.astext()))


GLUED_NOTE = re.compile(r"(?<=\S)\[(#?[\w.-]+)\]_(?!\w)")  # `syslog.[11]_`: docutils needs a space before `[`


def _glued_notes(tree: nodes.document) -> None:
    """A footnote or citation reference written against the word before it (`functionality,[7]_`),
    which docutils reads as text and the reader would see as raw markup, links to the note the
    document defines under that label, as the writer meant; any other `[x]_` stays text."""
    for text in list(tree.findall(nodes.Text)):
        parent = text.parent
        if parent is None or isinstance(parent, (nodes.FixedTextElement, nodes.literal, nodes.reference)):
            continue
        parts, last = [], 0
        for found in GLUED_NOTE.finditer(text):
            note = tree.ids.get(tree.nameids.get(nodes.fully_normalize_name(found.group(1).lstrip("#"))) or "")
            if not isinstance(note, (nodes.footnote, nodes.citation)):
                continue
            kind = nodes.footnote_reference if isinstance(note, nodes.footnote) else nodes.citation_reference
            label = note[0].astext() if note.children and isinstance(note[0], nodes.label) else found.group(1)
            ref = kind(found.group(0), label, refid=note["ids"][0])
            tree.set_id(ref)
            note["backrefs"].append(ref["ids"][0])
            parts += [nodes.Text(text[last : found.start()]), ref]
            last = found.end()
        if parts:
            parent.replace(text, [*parts, nodes.Text(text[last:])])


# -- roles that link: onto the site, to an outside pattern, or plain text -----------------------


def _resolve_roles(tree: nodes.document, links: DocumentLinks | None, role_urls: dict[str, str]) -> None:
    glossary = rst_sphinx.glossary_terms(tree)
    for term in tree.findall(nodes.term):
        term.attributes.pop(rst_sphinx.GLOSSARY_TERM, None)
    for ref in list(tree.findall(nodes.reference)):
        role = ref.get("pincite-role")
        if not role:
            continue
        target, untitled = ref["pincite-target"], ref.get("pincite-untitled", False)
        del ref["pincite-role"], ref["pincite-target"], ref["pincite-untitled"]
        elsewhere: tuple[str, str] | None = None  # a place of another document: its href and title
        if role == "term":  # the document's own glossary entry first, as Sphinx links it
            found = glossary.get(rst_sphinx.term_key(target))
            href = "#" + found if found else None
            if href is None and links is not None:
                elsewhere = links.resolve_place(TERM, rst_sphinx.term_key(target))
        else:
            href = _role_href(tree, role, target, links, role_urls)
            if href is None and role in ("ref", "numref") and links is not None:
                shown = LABEL_TITLE if untitled else LABEL  # an untitled one shows a section's title
                elsewhere = links.resolve_place(shown, nodes.fully_normalize_name(target))
        if elsewhere is not None:
            href, title = elsewhere
            if role == "ref" and untitled and title:  # the section's title, as Sphinx shows it
                ref[:] = [nodes.Text(title)]
        if href is None:
            ref.replace_self(nodes.inline(ref.rawsource, "", *ref.children, classes=ref["classes"]))
        elif href.startswith("#"):
            ref["refid"] = href[1:]
            if role == "ref" and untitled:
                _show_section_title(tree, ref)
        else:
            ref["refuri"] = href


def _show_section_title(tree: nodes.document, ref: nodes.reference) -> None:
    """`:ref:`label`` without a title shows the title of the section the label stands before, as
    Sphinx shows it (the label itself is a name for the writer, not the reader)."""
    section = tree.ids.get(ref["refid"])
    if isinstance(section, nodes.section) and section.children and isinstance(section[0], nodes.title):
        del ref[:]
        ref += nodes.Text(section[0].astext())


def _role_href(
    tree: nodes.document, role: str, target: str, links: DocumentLinks | None, role_urls: dict[str, str]
) -> str | None:
    anchor = ""
    if "#" in target:
        target, anchor = target.split("#", 1)
    if role in ("ref", "numref"):
        refid = tree.nameids.get(nodes.fully_normalize_name(target))
        return "#" + refid if refid else None  # a label of another document: `DocumentLinks.resolve_place`
    if role == "doc":
        if links is None or not target:
            return None
        candidates = [target + suffix for suffix in (".rst", ".md", ".txt", "")]
        return links.resolve_first(candidates, ("#" + anchor) if anchor else "")
    number = target.strip()
    if not number.isdigit():
        return None
    if links is not None:
        names = [pattern.format(int(number)) for pattern in ROLE_FILES.get(role, ())]
        found = links.resolve_named(names, ("#" + anchor) if anchor else "")
        if found:
            return found
    pattern = role_urls.get(role)
    return role_url(pattern, number) + (("#" + anchor) if anchor else "") if pattern else None


def role_url(pattern: str, target: str) -> str:
    """An outside URL from its pattern: `{target}` as written, `{number}` (or `{number:04d}`) as a number."""

    def field(found: re.Match[str]) -> str:
        if found.group(1) == "target":
            return target
        width = int(found.group(2) or 0)
        return str(int(target)).zfill(width) if target.isdigit() else target

    return URL_FIELD.sub(field, pattern)


# -- links and images --------------------------------------------------------------------------


def _clean(tree: nodes.document, links: DocumentLinks | None) -> None:
    for raw in list(tree.findall(nodes.raw)):  # none should exist with raw disabled; none is ever written
        raw.parent.remove(raw)
    for comment in list(tree.findall(nodes.comment)):  # not shown, as Sphinx shows none: no bytes of the page
        comment.parent.remove(comment)
    for image in list(tree.findall(nodes.image)):
        _replace_image(image, links)
    for ref in list(tree.findall(nodes.reference)):
        uri = ref.get("refuri")
        if uri is None:
            continue
        if ref.get("pincite-if-document"):  # a file a directive includes: its page, if it has one
            del ref["pincite-if-document"]
            href = links.resolve_first([uri]) if links is not None and not is_external(uri) else None
            if href is None:
                ref.replace_self(nodes.inline("", "", *ref.children))
            else:
                ref["refuri"] = href
            continue
        own = _own_target(tree, ref, uri)
        if own is not None:
            del ref["refuri"]
            ref.attributes.update(own)
            continue
        href = _href(uri, links)
        if href is None:
            ref.replace_self(nodes.inline("", "", *ref.children))
        else:
            ref["refuri"] = href
    for target in tree.findall(nodes.target):
        uri = target.get("refuri")
        if uri is not None and not _safe_uri(uri):
            del target["refuri"]


def _own_target(tree: nodes.document, ref: nodes.reference, uri: str) -> dict[str, str] | None:
    """Where a link meant to land in this document when docutils read its target as a file name:
    `` `above <print_idea>`__ `` names the label `.. _print_idea:`, `` `see <Runtime behavior>`_ ``
    the section "Runtime behavior" (docutils drops the spaces of a target, `Runtimebehavior`), and
    `` `pip install -e <dir>`_ `` the target `.. _pip install -e <dir>: https://…` written for it.
    Docutils and Sphinx link each to a page that is not there; the reader gets what the writer
    meant. None for anything that reads as a path or an address."""
    found = re.fullmatch(r"`(.*<.*)`__?", ref.rawsource, re.DOTALL) if isinstance(ref.rawsource, str) else None
    whole = tree.nameids.get(nodes.fully_normalize_name(found.group(1))) if found else None
    if whole is not None and whole in tree.ids:
        outside = tree.ids[whole].get("refuri")
        if outside is None:
            return {"refid": whole}
        return {"refuri": outside} if _safe_uri(outside) else None
    if not uri or any(c in uri for c in "/:#.?"):
        return None
    refid = tree.nameids.get(nodes.fully_normalize_name(uri))
    if refid is None:  # by its name without spaces, on a place of this document (not another link's target)
        squeezed = uri.lower()
        refid = _place_named(tree, squeezed, squeeze=True)
    return {"refid": refid} if refid else None


def _place_named(tree: nodes.document, name: str, squeeze: bool = False) -> str | None:
    """The id of the place of this document (a section, a label; not a link's own target) that
    bears `name`, a duplicate name too (docutils then names none), compared without spaces if asked."""
    found = {
        node["ids"][0]  # a node under several ids is one place
        for node in tree.ids.values()
        if not (isinstance(node, nodes.target) and (node.get("refuri") or node.get("refname") or node.get("refid")))
        and any(("".join(n.split()) if squeeze else n) == name for n in node["names"] + node["dupnames"])
    }
    return found.pop() if len(found) == 1 else None  # two places of one name: docutils' refusal stands


def _href(uri: str, links: DocumentLinks | None) -> str | None:
    if not _safe_uri(uri):
        return None
    if uri.startswith("#"):
        return "#" + heading_fragment(uri[1:])
    if is_external(uri) or links is None:
        return uri
    return links.resolve(uri, LINK)


def _replace_image(image: nodes.image, links: DocumentLinks | None) -> None:
    """A repository image as an `<img>` of the site; any other image as a link or its alt text."""
    uri = image.get("uri", "")
    alt = image.get("alt", "") or posixpath.basename(uri)
    label = f"[image: {alt}]" if alt else "[image]"
    html = ""
    if uri and not is_external(uri) and links is not None and _safe_uri(uri):
        src = links.resolve(uri, IMAGE)
        if src is not None:
            html = f'<img src="{escape(src)}" alt="{escape(alt)}">'
    elif uri and _safe_uri(uri) and is_external(uri):
        html = f'<a class="img-link" href="{escape(uri)}" rel="{REL}">{escape(label)}</a>'
    shown = nodes.raw("", html, format="html") if html else nodes.inline("", label, classes=["broken-image"])
    parent = image.parent
    if isinstance(parent, nodes.reference):  # a linked image: the image stands for the link
        image, parent = parent, parent.parent
    if isinstance(parent, (nodes.TextElement, nodes.inline)):
        image.replace_self(shown)
    else:
        image.replace_self(nodes.paragraph("", "", shown))


def _safe_uri(uri: str) -> bool:
    candidate = "".join(uri.split()).lower()  # browsers ignore whitespace and control characters inside schemes
    if ":" not in candidate.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]:
        return True  # relative: no scheme
    return candidate.split(":", 1)[0] in SAFE_SCHEMES


# -- source lines ------------------------------------------------------------------------------


def _lines(tree: nodes.document, source: list[str]) -> None:
    """Give each text block the source lines its text stands on, where they can be found exactly.

    docutils' line numbers are close but not exact (a title's is its underline, a code
    block's one past its first line): the block's own source text is looked for near the
    line docutils gives, line by line. A block whose text is not found gets no lines, and the
    page cannot cite from it rather than cite the wrong lines.
    """
    lines = [line.expandtabs(8).rstrip() for line in source]  # as docutils reads them
    for node in tree.findall(nodes.Element):
        preset = node.get("pincite-lines")
        near = node.get("pincite-near") or (preset[0] if preset else node.line)
        if near is None and isinstance(node, nodes.field_name):  # a field's name stands on its body's line
            near = next((n.line for n in node.parent.findall(nodes.Element) if n.line), None)
        node.attributes.pop("pincite-lines", None)
        node.attributes.pop("pincite-near", None)
        if not isinstance(node, LINED) or not isinstance(near, int):
            continue
        raw = node.rawsource if isinstance(node.rawsource, str) else ""
        wanted = [part.strip() for part in raw.rstrip().split("\n")]
        if not wanted or not wanted[0]:
            continue
        found = _find(lines, wanted, near)
        if found:
            node["pincite-lines"] = found


def _find(lines: list[str], wanted: list[str], near: int) -> tuple[int, int] | None:
    for first in sorted(range(max(1, near - NEAR), near + NEAR + 1), key=lambda n: abs(n - near)):
        last = first + len(wanted) - 1
        if last > len(lines):
            continue
        if all(part in lines[first - 1 + i] for i, part in enumerate(wanted)):
            return first, last
    return None


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
