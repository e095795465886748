"""Sphinx's labels and glossary terms across a project's reST documents: where a `:ref:` or `:term:`
of one document lands in another (docs/design.md#d17).

Sphinx's labels (`.. _name:` before a section, compared in lower case) and its glossary terms are
global to the project: `:ref:`builders`` in `usage/quickstart.rst` names a section of
`usage/builders/index.rst`, `:term:`builder`` an entry of `glossary.rst`. The page of the document
that uses one is rendered before (or without) the page that defines it, so the places are read
from each document's text by a scan, not by docutils: cheap enough for every document of a cold
build, and carried per blob by the site's manifest (`Scanned.to_json`) so a one-file build scans
the changed documents alone.

Fail closed: a place is only taken where the scan is sure the target page carries it, and a name
that is not one place stays text (never a link to the wrong place):

- a label at the margin, followed (past blank lines and the other labels of its stack) by a
  section title at the margin; its id is docutils' (`rst_sphinx.name_anchor`) when no other name of
  the document makes the same id (a second label or target, a section title, a glossary term, a
  `:name:`), where docutils would give one of them another id, and no id docutils numbers
  (`h-intro-1` for a second `Intro`, `h-footnote-1`) can be the same;
- a label at the margin after a blank line, before a block at the margin that docutils moves its id
  onto (a paragraph, a list, a table, a rubric: `_takes_ids`), by the same rules; it has no section
  title, so only a titled `:ref:` links to it (`Scanned.blocks`). A label before a directive or a
  comment is no place;
- a term of a glossary at the margin whose content reads as one (`rst_sphinx.glossary_entries`),
  with the id the glossary gives it (`rst_sphinx.term_anchor`), by the same rule;
- a label or term defined twice, in one document or in two, is no place (Sphinx warns and picks one):
  every name Sphinx reads counts, a place or not, so the terms of a glossary inside a directive
  (`.. only:: html`) and the labels a `:name:` option gives are names but never places (a glossary
  in a literal block or a code directive is an example, not read).

The section title a label stands before is what an untitled `:ref:` shows, as Sphinx shows it: its
text with the inline markup read (`Using ``conf.py``` shows `Using conf.py`); a title whose markup
the scan cannot read (a substitution) is not shown, and the reference keeps the label's text.
"""

from __future__ import annotations

import re
from collections import Counter

from docutils.nodes import fully_normalize_name, make_id, node_class_names

from indexer.site import rst_sphinx
from indexer.site.places import Scanned

LABEL = re.compile(r"\.\. _(?!_)(`[^`]+`|[^`\s:\\][^:\\]*?):[ \t]*")  # an internal target, at the margin
TARGET = re.compile(r"^[ \t]*\.\. _(?!_)(`[^`]+`|[^`:\\][^:\\]*?):(?=[ \t]|$)", re.MULTILINE)  # any target
INLINE_TARGET = re.compile(r"(?<![\w`])_`([^`]+)`")
NOTE = re.compile(r"^[ \t]*\.\. \[([^\]#*\s][^\]\s]*)\]", re.MULTILINE)  # a footnote or citation's label
NAME_OPTION = re.compile(r"^[ \t]+:name:[ \t]+(\S.*?)[ \t]*$", re.MULTILINE)
GLOSSARY = re.compile(r"[ \t]*\.\.[ \t]+glossary::[ \t]*")  # at any indent: a directive's content may hold one
RUBRIC = re.compile(r"\.\.[ \t]+rubric::[ \t]+\S.*")
ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1*[ \t]*")
# Inline markup a title may hold, read as docutils shows it; anything else of markup leaves the title unsure.
ROLE = re.compile(r":([\w.+:-]+):`((?:[^`\\]|\\.)+)`|`((?:[^`\\]|\\.)+)`:([\w.+:-]+):")
LITERAL = re.compile(r"``(.+?)``")
STRONG = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")
EMPHASIS = re.compile(r"\*(\S(?:.*?\S)?)\*")
REFERENCE = re.compile(r"`([^`<]+?)(?:\s*<[^<>]+>)?`__?")
UNSURE = re.compile(r"[`|*]|\\|_\b")
NUMBERED = re.compile(r"(.+)-\d+")
# The stems of the ids docutils numbers for nodes without a name of their own (`h-footnote-1`).
GENERATED_STEMS = frozenset(rst_sphinx.ID_PREFIX + str(make_id(kind)) for kind in node_class_names)
EXAMPLE_DIRECTIVES = rst_sphinx.LITERAL_DIRECTIVES | set(rst_sphinx.CODE_DIRECTIVES) | {"parsed-literal"}


def scan(text: str) -> Scanned:
    """The labels and glossary terms `text` (a reST document) defines, with the ids its page gives them."""
    lines = text.split("\n")
    titles = _titles(lines)
    labels, block_labels = _labels(lines, titles)
    every_term = _terms(lines)
    terms = [(key, anchor) for key, anchor, at_margin in every_term if at_margin]
    ids = Counter(rst_sphinx.name_anchor(name) for name in _target_names(text))
    ids.update(rst_sphinx.name_anchor(shown_title(title) or title) for title in titles.values())
    ids.update(anchor for _key, anchor, _at_margin in every_term)
    label_names = Counter(name for name, _line in labels)
    places: dict[str, tuple[str, str]] = {}
    for name, line in labels:
        title = titles[line]
        own = rst_sphinx.name_anchor(name)
        # Its id and its own section's (when the two names make the same id) are one place.
        alone = ids[own] == 1 + (rst_sphinx.name_anchor(shown_title(title) or title) == own)
        if label_names[name] == 1 and alone and not _may_be_numbered(own, ids):
            places[name] = (own, shown_title(title))
    term_names = Counter(key for key, _anchor, _at_margin in every_term)
    found = {
        key: anchor
        for key, anchor in terms
        if term_names[key] == 1 and ids[anchor] == 1 and not _may_be_numbered(anchor, ids)
    }
    blocks = {
        name: own
        for name, own in ((name, rst_sphinx.name_anchor(name)) for name in block_labels)
        if label_names[name] + block_labels.count(name) == 1 and ids[own] == 1 and not _may_be_numbered(own, ids)
    }
    every_label = {fully_normalize_name(_unquoted(m.group(1))) for m in TARGET.finditer(text)}
    every_label.update(_named(text, lines))
    return Scanned(places, found, frozenset(every_label), frozenset(term_names), blocks)


def _may_be_numbered(anchor: str, ids: Counter[str]) -> bool:
    """Whether docutils may number another node into `anchor` first: a name taken twice gets its id
    with `-1`, `-2`… (`h-intro` → `h-intro-1`), a node without a name `h-<its kind>-1` (`h-footnote-1`)."""
    numbered = NUMBERED.fullmatch(anchor)
    return numbered is not None and (numbered.group(1) in ids or numbered.group(1) in GENERATED_STEMS)


def _unquoted(name: str) -> str:
    return name[1:-1] if name.startswith("`") and name.endswith("`") else name


def _named(text: str, lines: list[str]) -> set[str]:
    """The labels `:name:` options give (not those of a literal block's or code directive's example)."""
    options = NAME_OPTION.finditer(text)
    found = (m for m in options if not _in_example(lines, text.count("\n", 0, m.start())))
    return {fully_normalize_name(m.group(1)) for m in found}


def _target_names(text: str) -> list[str]:
    """Every name the document gives an id by: explicit and inline targets, `:name:` options, notes' labels."""
    names = [_unquoted(m.group(1)) for m in TARGET.finditer(text)]
    names += [m.group(1) for m in INLINE_TARGET.finditer(text)]
    names += [m.group(1) for m in NAME_OPTION.finditer(text)]
    names += [m.group(1) for m in NOTE.finditer(text)]
    return names


def _titles(lines: list[str]) -> dict[int, str]:
    """The section titles of the document (at any indent: a directive's content may hold one), by the
    index of their underline: a line under (and maybe over) an adornment of one punctuation character.
    More lines may read as titles here than docutils makes sections of: they only ever take a place away."""
    titles: dict[int, str] = {}
    for index in range(1, len(lines)):
        line, under = lines[index - 1].strip(), lines[index].strip()
        if not line or ADORNMENT.fullmatch(line) or not ADORNMENT.fullmatch(under):
            continue
        if len(under) >= len(line) or len(under) >= 4:  # docutils' rule for a short underline
            titles[index] = line
    return titles


def _labels(lines: list[str], titles: dict[int, str]) -> tuple[list[tuple[str, int]], list[str]]:
    """The labels at the margin that stand before a section title at the margin, with its underline's
    index; and those that stand, after a blank line, before another block at the margin that docutils
    gives their ids (`_takes_ids`)."""
    found: list[tuple[str, int]] = []
    blocks: list[str] = []
    stack: list[str] = []
    apart = True  # the stack follows a blank line (or starts the text): its labels are markup, not a paragraph's words
    for index, line in enumerate(lines):
        label = LABEL.fullmatch(line)
        if label:
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if following[:1].isspace() and following.strip():  # `.. _x:` with its URL on the next line
                stack = []
                continue
            if not stack:
                apart = index == 0 or not lines[index - 1].strip()
            stack.append(fully_normalize_name(_unquoted(label.group(1))))
            continue
        if not stack or not line.strip():
            continue
        overline = (
            bool(ADORNMENT.fullmatch(line)) and index + 2 < len(lines) and lines[index + 2].strip() == line.strip()
        )
        under = index + 2 if overline else index + 1
        named = [name for name in stack if rst_sphinx.name_anchor(name)]
        if under in titles and not lines[under][:1].isspace() and (overline or not line[:1].isspace()):
            found.extend((name, under) for name in named)
        elif apart and under not in titles and _takes_ids(line):
            blocks.extend(named)
        stack = []
    return found, blocks


def _takes_ids(line: str) -> bool:
    """Whether the block starting at `line` is one docutils moves a label's ids onto: a paragraph, a list,
    a table, a rubric… at the margin; not a directive or a comment (it may make no element, or one the
    view reshapes), a footnote, a substitution or a transition."""
    if line[:1].isspace() or ADORNMENT.fullmatch(line.strip()):
        return False
    return not line.startswith("..") or RUBRIC.fullmatch(line) is not None


def _terms(lines: list[str]) -> list[tuple[str, str, bool]]:
    """The terms (as `:term:` names them) of each glossary, with the id each gets and whether its
    glossary stands at the margin (the scan is sure only of those that the page carries)."""
    found: list[tuple[str, str, bool]] = []
    for index, line in enumerate(lines):
        if not GLOSSARY.fullmatch(line) or _in_example(lines, index):
            continue
        content = _directive_content(lines, index)
        for terms, _definition in rst_sphinx.glossary_entries(content) or ():
            for term in terms:
                text = content[term].strip()
                found.append((rst_sphinx.term_key(text), rst_sphinx.term_anchor(text), not line[:1].isspace()))
    return found


def _in_example(lines: list[str], index: int) -> bool:
    """Whether the line stands in a literal block (after a paragraph's `::`) or a code directive's
    content, at any depth: an example of markup, which Sphinx shows and does not read."""
    indent = _indent(lines[index])
    for line in reversed(lines[:index]):
        if not line.strip() or _indent(line) >= indent:
            continue
        directive = rst_sphinx.DIRECTIVE_NAME.match(line)
        if directive is None and line.rstrip().endswith("::"):
            return True
        if directive is not None and directive.group(1).lower() in EXAMPLE_DIRECTIVES:
            return True
        indent = _indent(line)
        if indent == 0:
            return False
    return False


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _directive_content(lines: list[str], index: int) -> list[str]:
    """A directive's content as docutils gives it: the block indented further than it, its options (the
    `:name: value` lines first) left out, the common indent removed."""
    indent = _indent(lines[index])
    block: list[str] = []
    for line in lines[index + 1 :]:
        if line.strip() and _indent(line) <= indent:
            break
        block.append(line.rstrip())
    while block and not block[-1]:
        block.pop()
    margin = min((len(line) - len(line.lstrip()) for line in block if line), default=0)
    block = [line[margin:] for line in block]
    start = 0
    while start < len(block) and block[start].startswith(":"):  # the directive's options
        start += 1
    while start < len(block) and not block[start]:
        start += 1
    return block[start:]


def shown_title(title: str) -> str:
    """A section title's text as the page shows it, its inline markup read; "" when the scan cannot read it."""
    parts = LITERAL.split(title)  # prose, then a literal's text, in turn: a literal is shown as written
    prose = [_read_inline(part) for part in parts[::2]]
    if any(shown is None for shown in prose):
        return ""
    return "".join(part if n % 2 else (prose[n // 2] or "") for n, part in enumerate(parts))


def _read_inline(text: str) -> str | None:
    """Prose of a title with its roles, emphasis and references read; None when other markup is left."""

    def role(found: re.Match[str]) -> str:
        name = (found.group(1) or found.group(4)).lower()
        titled, target = rst_sphinx.split_role_text(found.group(2) or found.group(3))
        return titled or rst_sphinx.shown_target(name, target)

    left = text
    for markup in (ROLE, STRONG, EMPHASIS, REFERENCE):
        left = markup.sub("", left)
    if UNSURE.search(left):  # markup the scan does not read (a substitution, an escape)
        return None
    shown = ROLE.sub(role, text)
    for markup in (STRONG, EMPHASIS, REFERENCE):
        shown = markup.sub(r"\1", shown)
    return shown
