"""MkDocs' Markdown on an MkDocs page: definition lists, icons and emoji, keys, marks, attribute lists, task
lists; and the same text, outside an MkDocs docs root, as CommonMark and GitHub show it."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site.links import DocumentLinks, SiteTargets
from indexer.site.markdown import markdown_view
from tests.conftest import CorpusRepo


def mkdocs_view(source: str, document: str = "docs/page.md") -> tuple[str, list[tuple[int, str, str]]]:
    """The rendered view of `source` as a page an mkdocs.yml publishes (`docs/` beside it)."""
    targets = SiteTargets({document}, {}, frameworks={"mkdocs.yml": "site_name: Book\n"})
    html, headings = markdown_view(source, DocumentLinks(document, targets, lambda _sha: b""))
    return str(html), headings


def prose(html: str) -> str:
    """The text a reader reads outside code."""
    return re.sub(r"<[^>]+>", " ", re.sub(r"<pre.*?</pre>|<code.*?</code>", " ", html, flags=re.DOTALL))


# squidfunk/mkdocs-material's docs/setup/setting-up-site-search.md and reference/lists.md, cut down.
OPTIONS = """\
# Search :material-magnify:

<!-- md:option mode:search -->

:   This mode is active when the _search is focused_. It provides key
    bindings:

    * ++arrow-down++ , ++arrow-up++ : select next / previous result

<!-- md:option type:note -->

:   !!! note "A :material-pencil: note"

        Lorem ipsum dolor sit amet.

`Lorem ipsum dolor sit amet`

:   Sed sagittis eleifend rutrum.
"""


def test_definitions_are_a_list_on_their_lines_and_a_comment_term_shows_nothing() -> None:
    html, _ = mkdocs_view(OPTIONS)
    assert not re.search(r"^\s*:\s", prose(html), re.MULTILINE), html  # no `:   ` shown as written
    assert '<dd data-line-start="5" data-line-end="8">\n<p data-line-start="5" data-line-end="6">This mode' in html
    assert "<dt" not in html.split("Lorem ipsum dolor sit amet.")[0], html  # the comments' terms are no words
    # A block opening a definition is a labelled block in it, its body on its own lines.
    label = '<p class="directive-label" data-line-start="12"><span class="directive-name">note</span> A '
    assert label in html and '<p data-line-start="14">Lorem ipsum dolor sit amet.</p>\n</div>\n</dd>' in html, html
    assert re.search(r'<dt data-line-start="16"><code>Lorem ipsum dolor sit amet</code></dt>\s*<dd', html), html
    assert '<dl data-line-start="5"' in html, html  # the list starts at its definition, not the blank line above


def test_icons_and_emoji_are_named_marks_in_prose_titles_and_tabs() -> None:
    source = (
        "# :material-rocket: Getting started\n\n"
        "Made with :smile: and :octicons-heart-fill-24:{ .mdx-heart } at 12:00:00.\n\n"
        '=== ":fontawesome-brands-github: GitHub"\n\n    Tab body.\n\n'
        '!!! tip ":simple-python: Python"\n\n    Tip body.\n\n'
        "See [the start](#getting-started).\n"
    )
    html, headings = mkdocs_view(source)
    for name, icon_set in (
        ("material-rocket", "material"),
        ("smile", "emoji"),
        ("octicons-heart-fill-24", "octicons"),
        ("fontawesome-brands-github", "fontawesome"),
        ("simple-python", "simple"),
    ):
        assert f'<span class="icon icon-{icon_set}">{name}</span>' in html, (name, html)
    assert not re.search(r":[a-z][\w-]*:", prose(html)), html  # no shortcode as written; the time stays
    assert "12:00:00" in html and "{" not in prose(html), html
    # The anchor leaves the icon out, as MkDocs' does, so a link to it lands.
    assert headings == [(1, "h-getting-started", "Getting started")] and 'href="#h-getting-started"' in html


def test_keys_marks_insertions_and_sub_and_superscripts() -> None:
    html, _ = mkdocs_view("Press ++ctrl+alt+del++, ==mark this==, ^^insert this^^, H~2~O, x^2^ and ~~gone~~.\n")
    assert '<kbd class="keys"><kbd>ctrl</kbd>+<kbd>alt</kbd>+<kbd>del</kbd></kbd>' in html, html
    assert '<mark class="highlight">mark this</mark>' in html and "<ins>insert this</ins>" in html, html
    assert "x<sup>2</sup>" in html and "<s>gone</s>" in html, html
    assert "H~2~O" in html or "<sub>2</sub>" in html, html  # pymdownx' `~sub~` needs no word next to it either
    assert not re.search(r"\+\+|==|\^\^", prose(html)), html


def test_attribute_lists_are_left_out_and_set_a_button_or_a_tooltip() -> None:
    source = (
        "[Subscribe](#){ .md-button } or [Join](#){ .md-button .md-button--primary }\n\n"
        '__Update__{ title="August 21, 2024" }: text.\n\n'
        "Lorem ipsum (1)\n{ .annotate }\n\n"
        '![Shot](https://example.org/s.png){ width="300" }\n\n'
        '[Click](#){ onclick="alert(1)" style="color: red" }\n'
    )
    html, _ = mkdocs_view(source)
    assert '<a class="button" href="#"' in html and '<a class="button button-primary" href="#"' in html, html
    assert '<strong title="August 21, 2024">Update</strong>: text.' in html, html
    assert "{" not in prose(html) and "onclick" not in html and "style" not in html, html


def test_task_lists_show_their_boxes() -> None:
    html, _ = mkdocs_view("- [x] Blog plugin: pinned posts\n- [ ] Instant previews\n")
    assert '<li data-line-start="1"><span class="task">☑</span> Blog plugin' in html, html
    assert '<li data-line-start="2"><span class="task">☐</span> Instant previews' in html, html
    assert "[x]" not in html and "[ ]" not in html, html


def test_a_rule_right_under_a_blocks_body_ends_it() -> None:
    # squidfunk/mkdocs-material's docs/setup/setting-up-navigation.md: `!!! info …`, its body, then `---`.
    source = '!!! info "Full configuration example"\n\n    Sources specify the pages.\n---\n\nAfter.\n'
    for html, _ in (mkdocs_view(source), markdown_view(source)):
        assert "!!!" not in str(html), html
        assert re.search(r"Sources specify the pages\.</p>\s*</div>\s*<hr data-line-start=\"4\">", str(html)), html


def test_text_in_the_syntax_stays_escaped_and_a_tooltip_stays_an_attribute() -> None:
    source = '==a "q" &amp; b== [a](#){ title=\'say "hi" &amp; &lt;bye&gt;\' } :smile:{ title="x&lt;y" }\n'
    html, _ = mkdocs_view(source)
    assert '<mark class="highlight">a "q" &amp; b</mark>' in html, html
    assert '<a title="say &quot;hi&quot; &amp; &lt;bye&gt;" href="#"' in html, html
    assert '<span title="x&lt;y" class="icon icon-emoji">smile</span>' in html, html


PLAIN = (
    "Made with :smile: and :material-check:.\n\n"
    "Press ++ctrl++ and ==mark==.\n\n"
    "[Subscribe](#){ .md-button }\n\n"
    "- [x] done\n\n"
    "Term\n:   Definition\n"
)


def test_outside_an_mkdocs_root_the_same_text_is_commonmark(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"mkdocs.yml": "site_name: Book\n", "docs/page.md": PLAIN, "notes/page.md": PLAIN})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config(roots=("docs", "notes")))
    mkdocs = (site / "doc/docs/page.md.html").read_text(encoding="utf-8")
    plain = (site / "doc/notes/page.md.html").read_text(encoding="utf-8")
    assert '<span class="icon icon-emoji">smile</span>' in mkdocs and "<dl" in mkdocs, mkdocs
    assert '<span class="task">☑</span>' in mkdocs and '<a class="button"' in mkdocs, mkdocs
    body = plain.split("rendered-body", 1)[1].split("source-view", 1)[0]
    written_so = (":smile:", ":material-check:", "++ctrl++", "==mark==", "{ .md-button }", "[x] done", ":   Definition")
    for written in written_so:
        assert written in body, (written, body)
    assert "<dl" not in body and 'class="icon' not in body and 'class="task' not in body, body
    assert str(markdown_view(PLAIN)[0]) in body  # as the Markdown view renders any page outside MkDocs


def test_a_page_is_redone_when_an_mkdocs_yml_comes_or_goes(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"docs/page.md": "# Page\n\nMade with :smile:.\n", "docs/other.md": "# Other\n"})
    site = tmp_path / "site"
    page = site / "doc/docs/page.md.html"
    for mkdocs_yml in ("", "site_name: Book\n", None):
        if mkdocs_yml != "":  # the first build has none
            corpus_repo.commit({"mkdocs.yml": mkdocs_yml})
        build(corpus_repo.root, out=site, config=Config(roots=("docs",)))  # the same site, built again
        cold = tmp_path / f"cold-{bool(mkdocs_yml)}"
        build(corpus_repo.root, out=cold, config=Config(roots=("docs",)))
        shown = page.read_text(encoding="utf-8")
        assert shown == (cold / "doc/docs/page.md.html").read_text(encoding="utf-8")
        assert ('<span class="icon icon-emoji">smile</span>' in shown) == bool(mkdocs_yml), shown


# -- property: every word stays, on its own lines, and no MkDocs syntax shows as written ------------------

WORD = st.from_regex(r"w[a-z]{4,8}", fullmatch=True)


@st.composite
def mkdocs_block(draw: Any) -> str:
    words = " ".join(draw(st.lists(WORD, min_size=1, max_size=3)))
    other = draw(WORD)
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return f"{words}\n:   {other}\n"
    if kind == 1:
        return f"<!-- md:option {draw(WORD)} -->\n\n:   {words}\n\n    {other}\n"
    if kind == 2:
        return f"{words} :{draw(st.sampled_from(['material', 'octicons', 'smile']))}-{other}:\n"
    if kind == 3:
        return f"++ctrl+{other}++ {words} =={draw(WORD)}== ^^{draw(WORD)}^^\n"
    if kind == 4:
        return f"- [{draw(st.sampled_from(['x', ' ']))}] {words}\n- [ ] {other}\n"
    if kind == 5:
        return f"[{words}](#){{ .md-button }} {other}{{ #an-id }}\n"
    return f'<!-- md:option {draw(WORD)} -->\n\n:   !!! note "{words}"\n\n        {other}\n'


class _LinesOfWords(HTMLParser):
    """Each word of a rendered view's text, with the source lines of the innermost block holding it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, tuple[int, int] | None]] = []
        self.found: list[tuple[str, tuple[int, int] | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr", "img"):
            return
        named = dict(attrs)
        lines = None
        if named.get("data-line-start"):
            first = int(named["data-line-start"] or 0)
            lines = (first, int(named.get("data-line-end") or first))
        self.stack.append((tag, lines or (self.stack[-1][1] if self.stack else None)))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        lines = self.stack[-1][1] if self.stack else None
        self.found.extend((word, lines) for word in re.findall(r"\bw[a-z]{4,8}\b", data))


@settings(max_examples=60, deadline=None)
@given(st.lists(mkdocs_block(), min_size=1, max_size=6).map("\n".join))
def test_no_word_is_lost_moved_or_left_as_markup(source: str) -> None:
    html, _ = mkdocs_view(source)
    shown = prose(html)
    words = set(re.findall(r"\bw[a-z]{4,8}\b", re.sub(r"<!--.*?-->", "", source)))
    assert words <= set(re.findall(r"\bw[a-z]{4,8}\b", shown)), (source, html)
    reader = _LinesOfWords()
    reader.feed(html)
    source_lines = source.split("\n")
    for word, lines in reader.found:  # each word shown on the source lines of its block, for select-to-cite
        assert lines is not None, (word, html)
        assert any(re.search(rf"\b{word}\b", text) for text in source_lines[lines[0] - 1 : lines[1]]), (
            word, lines, source, html)  # fmt: skip
    assert not re.search(r"^\s*:\s|\+\+|==|\^\^|\[[ x]\]|\{[ .#]|:(?:material|octicons|smile)", shown, re.M), html
    assert "&lt;!--" not in html and "!!!" not in shown, html


# -- in chromium: the marks fit the screen, a button is a button, a definition cites its own lines ---------


def test_an_mkdocs_page_in_chromium(corpus_repo: CorpusRepo, tmp_path: Path, browser: Any) -> None:
    from tests.browser import READER_VIEWPORTS, cited_source_of_selection, served

    page = OPTIONS + (
        "\n[Subscribe to our newsletter](#){ .md-button .md-button--primary }\n\n"
        "- [x] :fontawesome-brands-github: Tags plugin: advanced settings with a long name to wrap\n\n"
        "Press ++ctrl+alt+del++ to :smile: restart.\n"
    )
    corpus_repo.commit({"mkdocs.yml": "site_name: Book\n", "docs/setup/search.md": page})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config(roots=("docs",)))
    with served(site) as base:
        for width, height in READER_VIEWPORTS:
            tab = browser.new_page(viewport={"width": width, "height": height})
            tab.goto(base + "doc/docs/setup/search.md.html")
            shown = tab.evaluate(
                """() => [...document.querySelectorAll('#rendered .icon, #rendered a.button, #rendered .task')]
                    .map(e => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);
                                return [e.className, r.right, r.height, s.borderTopStyle, s.display]; })"""
            )
            icon, button = "icon icon-material", "button button-primary"
            marks = [icon, icon, button, "task", "icon icon-fontawesome", "icon icon-emoji"]
            assert [name for name, *_rest in shown] == marks, shown
            assert all(right <= width for _name, right, *_rest in shown), shown
            mark = shown[0]
            assert mark[3] == "solid" and mark[2] < 30, mark  # a small outlined mark, not a block
            assert shown[2][4] == "inline-block", shown
            item = "getComputedStyle(document.querySelector('#rendered .task').parentNode).listStyleType"
            assert tab.evaluate(item) == "none"
            cited = cited_source_of_selection(tab, corpus_repo.root, "This mode is active")
            assert cited == "This mode is active"
            # Across keys and an icon, the citation is the source's characters, signs and all.
            cited = cited_source_of_selection(tab, corpus_repo.root, "ctrl+alt+del to smile restart")
            assert cited == "ctrl+alt+del++ to :smile: restart", cited
            tab.close()
