"""How faithfully the site renders a docs repository: words lost, raw markup left, titles, links.

Builds the site of a repository (a clone, or a generated PEP-, RFC-, VitePress- or Antora-style corpus) in
a scratch folder and reports, per repository:

- documents, and how many have a rendered view;
- words of the source missing from its rendered view: each document's words (letters only,
  three or more) that stand in its source outside link targets, URLs, comments (with the lines under
  them), markup names, footnote labels, a code block's language and layout options,
  and nowhere in the rendered view's text (a sample of them per document, to read by hand);
- raw markup left in the rendered text outside code (`:role:`, `[^x]`, `[#x]_`, `` `x <y_>`_ ``,
  `[!NOTE]`, `{#id}`, `:::`, `.. name::`), and apart, the same inside code shown as written (PEP 12's
  examples of roles, a regular expression's `[^.]+`), where it is the text itself;
- titles that more than 1% (and at least two) of the documents share;
- internal links resolved and broken (the build's warnings);
- Sphinx cross-references (`:ref:`, `:numref:`, `:term:`) shown as their text, their place not found.

    python -m bench render-fidelity --synthetic peps --synthetic rfcs --synthetic vitepress --synthetic antora
    python -m bench render-fidelity --repo /tmp/real/peps --roots peps
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from bench.harness import GIT_IDENTITY_ENV
from bench.scenarios import Result

RAW_MARKUP = {
    "role": re.compile(r":[\w:.+-]+:`"),
    "footnote": re.compile(r"\[\^[^\]]+\]|\[#?[\w.-]*\]_(?!\w)"),  # GFM's `[^x]`, reST's `[#x]_` `[1]_`
    "reference": re.compile(r"`[^`\n]+`__?(?!\w)"),  # a reST link docutils refused
    "alert": re.compile(r"\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]"),
    "heading attribute": re.compile(r"\{#[\w-]+"),
    "container": re.compile(r"^:::", re.MULTILINE),
    "directive": re.compile(r"^\.\. [\w:-]+::", re.MULTILINE),
    "mkdocs block": re.compile(r"^\s*(?:!!!|\?\?\?\+?|===[!+]?) ", re.MULTILINE),  # admonition, details, tab
}
# MDX's (a Docusaurus site's docs): ESM, a component's tag, a comment shown as text; counted in Markdown
# documents only: `<Project>` is a placeholder in reST's prose.
RAW_MDX = {
    "mdx esm": re.compile(r"^\s*(?:import [\w{*].* from ['\"]|export (?:const|default|function) )", re.MULTILINE),
    "jsx": re.compile(r"</?[A-Z][\w.]*(?=[\s/>])"),
    "mdx comment": re.compile(r"\{/\*"),
}
# AsciiDoc's (a macro, an include or an attribute reference shown as written), counted in AsciiDoc
# documents only: `{channel}` is prose in Markdown.
RAW_ASCIIDOC = {
    "asciidoc macro": re.compile(r"\b(?:xref|link|image|include|kbd|btn|menu|footnote):{1,2}[^\s\[]*\["),
    "asciidoc attribute": re.compile(r"\{[a-z][\w-]*\}"),
}
# Python-Markdown's and PyMdown's (MkDocs' extensions), counted in Markdown documents only: `++i` and `a == b`
# are text elsewhere.
RAW_MKDOCS = {
    "definition list": re.compile(r"^[ \t]*:[ \t]{1,3}\S", re.MULTILINE),
    "icon or emoji": re.compile(r"(?<![\w:/]):[a-z][a-z0-9_+-]*[a-z0-9]:(?![\w:`])"),
    "attribute list": re.compile(r"\{:?[ \t]*(?:\.[A-Za-z][\w-]*|#[\w-]+[ \t]|[\w-]+=)[^}\n]*\}"),
    "abbreviation": re.compile(r"^\*\[[^\]\n]+\]:", re.MULTILINE),
    "snippet": re.compile(r"-{1,2}8<-{1,2}"),
    "mark, insert, keys": re.compile(r"==[^\s=][^=\n]*==|\^\^[^\s^][^^\n]*\^\^|\+\+[\w\\\"+-]+\+\+"),
    "task": re.compile(r"^[ \t]*\[[ xX]\][ \t]", re.MULTILINE),
}
NOT_PROSE = (
    # a role's definition, with its options (`.. role:: code-py(code)` / `:language: Python`): first,
    # before the directive names go
    re.compile(r"^\.\. role::.*(?:\n[ \t]+\S.*)*", re.MULTILINE),
    # First, before the patterns below take their names away:
    # layout options of images, figures and code (`:class: invert-in-dark-mode`, `:align: center`),
    re.compile(
        r"^\s+:(?:class|align|width|widths|height|scale|target|figwidth|figclass|loading|name):.*$", re.MULTILINE
    ),
    # a code block's language
    re.compile(r"^[\s*|+-]*\.\. (?:code-block|code|sourcecode|highlight)::.*$", re.MULTILINE),
    re.compile(r"\[#?[\w.-]*\]_"),  # reST footnote and citation references (shown as their numbers)
    # a label `:ref:` names without a title (its section's title shows)
    re.compile(r"(?<![\w:]):(?:[\w+.-]+:)*(?:ref|numref):`[^`<]*`"),
    re.compile(r"^\s*\.\. \[#?[\w.-]*\]", re.MULTILINE),  # and their labels where they are defined
    re.compile(r"^\s*\.\. (?:image|figure)::.*$", re.MULTILINE),  # an image's path (the image is shown)
    re.compile(r"^\s*\.\. \|[^|\n]+\| [\w:-]+::", re.MULTILINE),  # a substitution's name and directive
    re.compile(r"~[\w.]+\."),  # `~pkg.name` shows `name`, as Sphinx shows it
    re.compile(r"<[^>\n]*>"),  # link targets, raw tags
    re.compile(r"\]\([^)]*\)"),  # Markdown link destinations
    re.compile(r"https?://\S+"),
    re.compile(r"^\.\. [^:\n]*$", re.MULTILINE),  # reST comments
    re.compile(r"^\s*:[\w-]+:(?![\w:.+-]*`)", re.MULTILINE),  # field and option names (not a role's `:py:data:`)
    re.compile(r":[\w:.+-]+:`"),  # role names
    re.compile(r"^[\s*|+-]*\.\. [\w:-]+::", re.MULTILINE),  # directive names (in lists and table cells too)
    re.compile(r"^\.\. _[^:]+:.*$", re.MULTILINE),  # targets
    re.compile(r"<!--.*?-->", re.DOTALL),
    re.compile(r"\[\^[^\]]*\]"),  # footnote labels (shown as numbers)
    re.compile(r"\{#[^}]*\}"),  # heading attributes
    re.compile(r"^[\s>]*(?:```|~~~)[ \t]*\S*", re.MULTILINE),  # a fence's language (`shell-session`, in a quote)
    # heading attributes written with spaces (`{ #backtrack }`), MkDocs' attribute lists (`{ style="color: red" }`)
    re.compile(r"\{:?\s*(?:[#.]|[\w-]+=)[^}\n]*\}"),
    re.compile(r"&#?\w+;"),  # character references (`&nbsp;`)
)
# Markdown only: what a Markdown renderer never shows as text.
NOT_MARKDOWN_PROSE = (
    re.compile(r"<!--.*?-->", re.DOTALL),  # comments, first: they may hold what looks like tags
    re.compile(r"<(script|style)\b.*?</\1>", re.DOTALL | re.IGNORECASE),  # a page's scripts and styles
    re.compile(r"<[A-Za-z/!][^>]*>"),  # tags written over several lines
    re.compile(r"^ {0,3}\[[^\]\n]+\]:.*$", re.MULTILINE),  # reference definitions (label, URL, title)
    re.compile(r"\]\[[^\]\n]*\]"),  # a reference link's label (`[text][label]`)
)
# AsciiDoc only: comments, attribute entries, block attribute lines, macro names and targets.
NOT_ASCIIDOC_PROSE = (
    re.compile(r"^(/{4,})\s*$.*?^\1\s*$", re.MULTILINE | re.DOTALL),  # comment blocks
    re.compile(r"^//(?!/).*$", re.MULTILINE),  # line comments
    re.compile(r"^:!?[\w-]+!?:.*$", re.MULTILINE),  # attribute entries (shown where they are referenced)
    re.compile(r"^\[[^\]\n]*\]\s*$", re.MULTILINE),  # block attribute lines (`[source,ruby]`, `[cols="1,2"]`)
    re.compile(r"^include::.*$", re.MULTILINE),  # an include's target and attributes (`[tags=title;body]`)
    re.compile(r"\b\w+:{1,2}[^\s\[]*\["),  # a macro's name and target (`xref:cli:index.adoc[`)
    re.compile(r"\[[.#%][^\]\n]*\]"),  # inline roles and ids (`[.nowrap]#HTML 5#`)
    re.compile(r"\{[\w-]+\}[^\s\[]*\["),  # a link's target made of attributes (`{url-api}/Reader[`)
    re.compile(r"\{[\w-]+\}"),  # attribute references (shown as their values)
    re.compile(r"<<[^>]*>>"),  # cross references (shown as the target's title)
)
# The page's chrome writes attribute values without quotes where HTML allows it (`class=rendered-body`).
RENDERED = re.compile(r'<div class="?rendered-body"?>(.*?)</div>\s*</div>\s*<div id="?source-view"?', re.DOTALL)
WORD = re.compile(r"[A-Za-z]{3,}")
# A Sphinx cross-reference (`:ref:`, `:numref:`, `:term:`) shown as its text: its place was not found.
XREF_AS_TEXT = re.compile(r'<span class="?role role-(?:ref|numref|term)"?>')
PAGER = re.compile(r'<nav class="?pager"?.*?</nav>', re.DOTALL)


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_ESM = re.compile(r"^(?:import|export)[\s{*]")
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)


def without_mdx(source: str) -> str:
    """An MDX document without what no reader of its site sees: its ESM blocks (an `import`/`export` line
    starting a block, to the next blank line) and its `{/* comments */}`, outside fenced code."""
    written = source.split("\n")
    lines = list(written)
    fence = ""
    n = 0
    while n < len(lines):
        found = _FENCE.match(lines[n])
        if fence or found:
            closes = bool(fence and found and found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence))
            fence = "" if closes else (fence or (found.group(1) if found else ""))
        elif _ESM.match(lines[n]) and (n == 0 or written[n - 1].strip() in ("", "---")):
            while n < len(lines) and lines[n].strip():
                lines[n] = ""
                n += 1
            continue
        else:
            lines[n] = "\0" + lines[n]  # prose: where comments are looked for
        n += 1
    prose = "\n".join(lines)
    return re.sub(r"\0[^\n]*(?:\n\0[^\n]*)*", lambda m: _MDX_COMMENT.sub(" ", m.group(0)), prose).replace("\0", "")


_COMMENT = re.compile(r"^([ \t]*)\.\.(?:[ \t]+(?![\w:+.-]+[ \t]?::|_|\[|\|)|[ \t]*$)")


def without_comments(source: str) -> str:
    """The source without its reST comments (`.. a remark`, with the indented lines under it), which
    no renderer shows: docutils and Sphinx leave them out of the page as they leave them out here."""
    lines = source.split("\n")
    n = 0
    while n < len(lines):
        found = _COMMENT.match(lines[n])
        if not found:
            n += 1
            continue
        indent = len(found.group(1).expandtabs())
        lines[n] = ""
        n += 1
        while n < len(lines) and (
            not lines[n].strip() or len(lines[n].expandtabs()) - len(lines[n].expandtabs().lstrip()) > indent
        ):
            if not lines[n].strip() and (n + 1 == len(lines) or not lines[n + 1][:1].isspace()):
                break  # a blank line and then text at the margin: the comment has ended
            lines[n] = ""
            n += 1
    return "\n".join(lines)


def prose_words(source: str, path: str = "", mdx: bool = False) -> set[str]:
    """The words of a document's prose: what its rendered view must show (`mdx`: a Docusaurus site's)."""
    suffix = Path(path).suffix.lower()
    if mdx or suffix == ".mdx":
        source = without_mdx(source)
    if suffix in (".adoc", ".asciidoc", ".asc"):
        patterns = NOT_ASCIIDOC_PROSE + NOT_PROSE
    else:
        source = without_comments(source)
        patterns = (NOT_MARKDOWN_PROSE if suffix in (".md", ".markdown", ".mdx") else ()) + NOT_PROSE
    for pattern in patterns:
        source = pattern.sub(" ", source)
    return set(WORD.findall(source))


# Code the view shows as written (a literal block, inline code), where markup is the text itself (PEP 12's
# examples of roles, a regular expression's `[^.]+`); a directive's content shown as source is not code.
CODE = re.compile(
    r"<pre(?![^>]*directive-source)[^>]*>.*?</pre>"
    r'|<span class="docutils literal">(?:[^<]|<span class="pre">[^<]*</span>)*</span>'
    r"|<code[^>]*>.*?</code>",
    re.DOTALL,
)


def rendered_text(page: str, code: bool = True) -> str | None:
    """The text of a page's rendered view; without its code blocks and spans when `code` is False
    (markup written in code is shown as written on purpose)."""
    found = RENDERED.search(page)
    if not found:
        return None
    shown = re.sub(r'<img[^>]*\salt="([^"]*)"[^>]*>', r" \1 ", found.group(1))  # an image stands for its alt text
    if not code:
        shown = CODE.sub(" ", shown)
    return html.unescape(re.sub(r"<[^>]+>", " ", shown))


def measure(
    repo: Path, roots: tuple[str, ...], history_start: str | None = None, detail: Path | None = None
) -> dict[str, Any]:
    from indexer.api import build
    from indexer.config import Config
    from indexer.site.search_bundles import record_metadata

    # A Docusaurus site's docs are MDX: its config anywhere in the repository (beside the docs, above them).
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", "HEAD"], cwd=repo, capture_output=True, text=True)
    mdx = any(name.rpartition("/")[2].startswith("docusaurus.config.") for name in names.stdout.split("\n"))
    with tempfile.TemporaryDirectory(prefix="fidelity-") as scratch:
        site = Path(scratch) / "site"
        index = Path(scratch) / "index.sqlite"
        summary = build(repo, out=site, index_path=index, config=Config(roots=roots, history_start=history_start))
        titles: Counter[str] = Counter()
        missing: dict[str, list[str]] = {}
        raw: Counter[str] = Counter()
        raw_in_code: Counter[str] = Counter()
        raw_where: dict[str, list[str]] = {}
        rendered_pages = 0
        for page in sorted(site.glob("doc/**/*.html")):
            path = page.relative_to(site / "doc").as_posix()[: -len(".html")]
            text = page.read_text(encoding="utf-8")
            # The title the search shows, from the record Pagefind is given (the page holds no metadata).
            record = b"".join(record_metadata(text.encode("utf-8"))).decode("utf-8")
            title = re.search(r'data-pagefind-meta="title\[content\]" content="([^"]*)"', record)
            titles[html.unescape(title.group(1)) if title else path] += 1
            shown = rendered_text(text)
            if shown is None:
                continue
            if title:  # the page's own title stands above the view (an AsciiDoc document title)
                shown += " " + html.unescape(title.group(1))
            rendered_pages += 1
            source = (repo / path).read_text(encoding="utf-8", errors="replace")
            written = prose_words(source, path, mdx)
            lost = sorted({w.lower() for w in written} - {w.lower() for w in WORD.findall(shown)})
            if lost:
                missing[path] = lost
            prose = rendered_text(text, code=False) or ""
            asciidoc = Path(path).suffix.lower() in (".adoc", ".asciidoc", ".asc")
            markdown = Path(path).suffix.lower() in (".md", ".markdown")
            patterns = RAW_MARKUP | (RAW_ASCIIDOC if asciidoc else RAW_MKDOCS | RAW_MDX if markdown else {})
            for name, pattern in patterns.items():
                raw_in_code[name] += len(pattern.findall(shown)) - len(pattern.findall(prose))
                for found in pattern.finditer(prose):
                    raw[name] += 1
                    raw_where.setdefault(path, []).append(prose[max(0, found.start() - 40) : found.end() + 40])
        count = sum(titles.values())
        shared = {t: n for t, n in titles.items() if n >= 2 and n > count / 100}
        broken = [w for w in summary.warnings if "broken link" in w]
        # Links a document writes: the previous/next links every page ends with are not counted.
        pages = [p.read_text(encoding="utf-8") for p in site.glob("doc/**/*.html")]
        hrefs = sum(len(re.findall(r'href="?(?:\.\./)*doc/[^"\s>]+', PAGER.sub("", page))) for page in pages)
        xrefs_as_text = sum(len(XREF_AS_TEXT.findall(page)) for page in pages)
        if detail is not None:  # every offender, to read by hand
            offenders = {"missing": missing, "raw": raw_where, "broken": broken, "titles": titles.most_common(40)}
            detail.write_text(json.dumps(offenders, indent=1, ensure_ascii=False), encoding="utf-8")
        return {
            "documents": count,
            "rendered": rendered_pages,
            "documents_missing_words": len(missing),
            "missing_sample": {path: words[:12] for path, words in list(missing.items())[:5]},
            "raw_markup_left": dict(raw),
            "raw_markup_in_code": dict(raw_in_code),
            "titles_shared_by_over_1pct": shared,
            "internal_links_resolved": hrefs,
            "internal_links_broken": len(broken),
            "xrefs_as_text": xrefs_as_text,
        }


# -- generated corpora, shaped like the real ones -----------------------------------------------


# A 1x1 PNG, as an image a PEP-style document shows.
_PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7V\x9f\x1d\x00\x00\x00\x00IEND\xaeB`\x82"
)


def _peps(root: Path, n: int) -> None:
    for k in range(1, n + 1):
        other = k % n + 1
        body = (
            f"PEP: {k}\nTitle: Proposal number {k}\nAuthor: Author {k} <a{k}@example.org>\nStatus: Rejected\n"
            f"Type: Standards Track\nCreated: 01-Jan-2001\n\n\nAbstract\n========\n\n"
            f"This PEP proposes :mod:`module{k}` and :func:`~pkg.function{k}`, after :pep:`{other}` and "
            f":pep:`the earlier one <{other}>`; see :ref:`rationale-{k}`.\n\n"
            f".. rejected:: Rejected at the sprint\n\n   The *steering* council declined proposal {k}.\n\n"
            f".. c:function:: PyObject* Make{k}(int x)\n\n   Builds the object.\n\n"
            f".. productionlist::\n   expr{k}: atom | expr{k} '+' atom\n\n"
            f".. _rationale-{k}:\n\nRationale\n=========\n\n"
            f"+--------+--------------------+\n| Name   | Meaning            |\n+========+====================+\n"
            f"| alpha  | the first choice   |\n+--------+--------------------+\n\n"
            f".. image:: pep-{k:04d}/figure.png\n   :alt: Figure of proposal {k}\n\n"
            # Sphinx's glossary and the terms that link to it; a class described by its signature.
            f"Terminology\n===========\n\nThe :term:`Core Metadata` of a :term:`distribution package`.\n\n"
            f".. glossary::\n\n   distribution package\n   package{k}\n      What :term:`Core Metadata` describes.\n\n"
            f"   Core Metadata\n      The fields of a :term:`distribution package`.\n\n"
            f".. class:: pkg.Proxy{k}(wrapped)\n\n   A proxy of its argument.\n\n"
            # Links docutils refuses (a name taken twice) and a footnote reference glued to its word.
            f"See `motivation <Motivation_>`_ and `Motivation`_; logs go to syslog.[{k}]_\n\n"
            f"Motivation\n==========\n\nThe reason.\n\n.. [{k}] The syslog manual.\n"
        )
        (root / f"peps/pep-{k:04d}.rst").write_text(body, encoding="utf-8")
        (root / f"peps/pep-{k:04d}").mkdir(exist_ok=True)
        (root / f"peps/pep-{k:04d}/figure.png").write_bytes(_PNG)


def _rfcs(root: Path, n: int) -> None:
    for k in range(1, n + 1):
        name = ["const-generics", "async-await", "rfc-process", "try-blocks", "never-type"][k % 5] + f"-{k}"
        body = (
            f"- Feature Name: `{name.replace('-', '_')}`\n- Start Date: 2018-01-01\n\n# Summary\n\n"
            f"Summary of {name} with a note[^why] and a [link](#Detailed-Design).\n\n"
            f"# Detailed design {{#detailed-design}}\n\n> [!NOTE]\n> Readers should know this.\n\n"
            f'<a name="legacy"></a>\n\nSee [the legacy anchor](#legacy).\n\n'
            f"```mermaid\ngraph TD; A-->B\n```\n\n[^why]: Because of reasons for {name}.\n"
        )
        (root / f"text/{k:04d}-{name}.md").write_text(body, encoding="utf-8")


def _vitepress(root: Path, n: int) -> None:
    # As vuejs/docs: the config at the repository's root names the pages' folder (`srcDir`).
    (root / ".vitepress").mkdir(parents=True, exist_ok=True)
    (root / ".vitepress/config.mts").write_text("export default { srcDir: 'docs', title: 'Docs' }\n", encoding="utf-8")
    for k in range(n):
        body = (
            f"# Page {k}\n\n::: tip Remember {k}\nA tip about page {k}.\n:::\n\n"
            f"- Editors\n\n  - Editor {k}\n\n    :::tip\n    Nested tip {k}.\n    :::\n\n"
            f"```vue{{2}} [Component{k}.vue]\n<template>{{{{ page }}}}</template>\n```\n\n"
            f"See [the next](./page-{(k + 1) % n}), [the guide](/guide/page-{k % n}) and [home](/).\n"
        )
        (root / f"docs/guide/page-{k}.md").write_text(body, encoding="utf-8")
    (root / "docs/index.md").write_text("# Home\n", encoding="utf-8")


def _antora(root: Path, n: int) -> None:
    # As asciidoctor/asciidoctor's docs/: a component, its attributes, pages naming each other by resource ID.
    (root / "docs/antora.yml").write_text(
        "name: tool\nversion: '2.1'\nasciidoc:\n  attributes:\n    url-home: https://example.org\n", encoding="utf-8"
    )
    for module in ("ROOT", "cli"):
        (root / f"docs/modules/{module}/pages").mkdir(parents=True, exist_ok=True)
        (root / f"docs/modules/{module}/images").mkdir(parents=True, exist_ok=True)
    (root / "docs/modules/cli/images/shot.png").write_bytes(_PNG)
    for k in range(n):
        module, other = ("ROOT", "cli") if k % 2 else ("cli", "ROOT")
        body = (
            f"= Topic {k}\n\nSee xref:{other}:topic-{(k + 1) % n}.adoc[the next topic], "
            f"xref:topic-{k}.adoc#usage[this one] and the {{url-home}}[home page] "
            f"of version {{page-component-version}}.\n\n"
            f"image::cli:shot.png[Screen of topic {k}]\n\n== Usage\n\nUse topic {k}.\n"
        )
        (root / f"docs/modules/{module}/pages/topic-{k}.adoc").write_text(body, encoding="utf-8")
        (root / f"docs/modules/{other}/pages/topic-{k}.adoc").write_text(f"= Topic {k} elsewhere\n", encoding="utf-8")


SYNTHETIC = {"peps": _peps, "rfcs": _rfcs, "vitepress": _vitepress, "antora": _antora}


def synthetic_repo(kind: str, folder: Path, n: int) -> Path:
    repo = folder / kind
    for sub in ("peps", "text", "docs/guide"):
        (repo / sub).mkdir(parents=True, exist_ok=True)
    SYNTHETIC[kind](repo, n)
    env = {**GIT_IDENTITY_ENV, "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "corpus"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, action="append", default=[], help="a clone to measure (repeatable)")
    parser.add_argument("--roots", default=".", help="the clone's roots, comma-separated")
    parser.add_argument("--synthetic", choices=sorted(SYNTHETIC), action="append", default=[])
    parser.add_argument("--documents", type=int, default=60, help="documents per synthetic corpus")
    parser.add_argument("--detail", type=Path, default=None, help="write every offender to this JSON file")
    parser.add_argument("--history-start", default=None, help="index a clone from this commit (HEAD: HEAD only)")


def run(args: argparse.Namespace) -> Result:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="fidelity-repos-") as folder:
        for kind in args.synthetic:
            repo = synthetic_repo(kind, Path(folder), args.documents)
            results[f"synthetic:{kind}"] = measure(repo, (".",))
        for repo in args.repo:
            results[str(repo)] = measure(repo, tuple(args.roots.split(",")), args.history_start, args.detail)
    rows = [
        "| corpus | documents | rendered | words missing | raw markup | raw markup in code | titles shared by > 1% "
        "| links ok / broken | cross-references as text |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, found in results.items():
        shared = ", ".join(f"{t!r} × {n}" for t, n in found["titles_shared_by_over_1pct"].items()) or "none"
        raw = ", ".join(f"{k} {v}" for k, v in found["raw_markup_left"].items() if v) or "none"
        in_code = ", ".join(f"{k} {v}" for k, v in found["raw_markup_in_code"].items() if v) or "none"
        rows.append(
            f"| {name} | {found['documents']} | {found['rendered']} | {found['documents_missing_words']} | {raw} | "
            f"{in_code} | "
            f"{shared} | {found['internal_links_resolved']} / {found['internal_links_broken']} | "
            f"{found['xrefs_as_text']} |"
        )
    return Result("\n".join(rows), results)
