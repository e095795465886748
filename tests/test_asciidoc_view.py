"""AsciiDoc pages rendered by Asciidoctor in its secure mode, sanitized, with source lines; the outline."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from indexer.api import build
from indexer.integrations.doctor import diagnose
from indexer.site import asciidoc_view
from indexer.text import asciidoc
from tests.conftest import CorpusRepo
from tests.test_rst_view import PNG

needs_asciidoctor = pytest.mark.skipif(not asciidoc_view.available(), reason="Asciidoctor is not installed")

MAN_PAGE = """\
git-add(1)
==========
:attr: replaced words

NAME
----
git-add - Add file contents to the index

SYNOPSIS
--------
[verse]
'git add' [--verbose | -n]

DESCRIPTION
-----------
This command updates the *index* using the current content
found in the working tree, {attr}.

include::/etc/passwd[]

++++
<script>window.__pwned = 1</script><b onclick="alert(1)">bold passthrough</b>
++++

image::https://tracker.invalid/pixel.png[Tracker pixel]

NOTE: A note for readers. It is long enough to wrap on a phone: its words stay on the screen, never behind a scroll.

----
listing line
----
"""


def test_two_line_titles_are_sections_of_the_outline() -> None:
    lines = MAN_PAGE.split("\n")
    assert asciidoc.title(lines) == "git-add(1)"
    assert asciidoc.outline(lines) == [(1, 1, "git-add(1)"), (5, 2, "NAME"), (9, 2, "SYNOPSIS"), (14, 2, "DESCRIPTION")]
    # A delimiter under a line of another length is a listing, not a title.
    assert asciidoc.outline(["Some words here", "----", "code", "----", ""]) == []


@needs_asciidoctor
def test_asciidoctor_renders_in_secure_mode_through_the_sanitizer() -> None:
    view = asciidoc_view.asciidoc_view(MAN_PAGE)
    assert view is not None
    html, headings = view
    assert [title for _level, _id, title in headings] == ["NAME", "SYNOPSIS", "DESCRIPTION"]
    assert '<h2 id="h-name">NAME</h2>' in html
    assert "<strong>index</strong>" in html and "replaced words" in html
    assert "root:" not in html  # the include was not read
    assert "<script" not in html and "onclick" not in html and "bold passthrough" in html
    assert "tracker.invalid" not in html and "[image: Tracker pixel]" in html  # nothing loads from elsewhere
    assert "A note for readers." in html and "listing line" in html


@needs_asciidoctor
def test_a_block_title_is_shown_as_a_title() -> None:
    view = asciidoc_view.asciidoc_view(".Security assumptions\n****\nWhat the modes do not promise.\n****\n")
    assert view is not None
    assert re.search(r'<div class="block-title">Security assumptions</div>', view[0]), view[0]
    assert "What the modes do not promise." in view[0]


@needs_asciidoctor
def test_keyboard_button_and_menu_macros_render_as_documentation_sites_show_them() -> None:
    source = "= Keys\n\nPress kbd:[Ctrl+T], then btn:[Save] in menu:File[Export].\n"
    view = asciidoc_view.asciidoc_view(source)
    assert view is not None
    assert "<kbd>Ctrl</kbd>" in view[0] and "Save" in view[0] and "Export" in view[0]
    assert "kbd:[" not in view[0] and "btn:[" not in view[0] and "menu:" not in view[0]
    # A page that turns them off keeps them as text, as Asciidoctor does.
    off = asciidoc_view.asciidoc_view(":experimental!:\n\nPress kbd:[Ctrl+T].\n")
    assert off is not None and "kbd:[Ctrl+T]" in off[0]


@needs_asciidoctor
def test_blocks_carry_the_source_lines_of_their_text() -> None:
    view = asciidoc_view.asciidoc_view(MAN_PAGE)
    assert view is not None
    lines = MAN_PAGE.split("\n")
    # A block of one line names it once (no `data-line-end`).
    spans = re.findall(r'data-line-start="(\d+)"(?: data-line-end="(\d+)")?', view[0])
    assert len(spans) >= 4
    found = [(last or first, first) for first, last in spans]
    for last, first in found:
        block = " ".join(lines[int(first) - 1 : int(last)])
        assert block.strip() and not block.startswith("----"), (first, last, block)
    assert any(lines[int(first) - 1].startswith("This command updates") for _last, first in found)


@needs_asciidoctor
def test_a_selection_in_the_rendered_asciidoc_view_cites_exactly_its_source(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    from indexer.site.serve import serve_in_thread
    from tests.browser import cited_source_of_selection

    corpus_repo.commit({"corpus/man/git-add.adoc": MAN_PAGE})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    tab = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        tab.goto(base + "doc/corpus/man/git-add.adoc.html")
        assert tab.locator("#rendered h2").first.inner_text() == "NAME"
        # An admonition is a block of prose, not a data table: it wraps at the screen's width.
        note = tab.locator("#rendered .admonition")
        assert "never behind a scroll" in note.inner_text()
        box = note.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390, box
        cited = cited_source_of_selection(tab, corpus_repo.root, "updates the index using")
        assert cited == "updates the *index* using"
    finally:
        tab.close()
        server.shutdown()
        server.server_close()


def test_doctor_says_whether_asciidoc_is_rendered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checks = {check.name: check for check in diagnose(tmp_path).checks}
    assert checks["asciidoctor"].status == ("ok" if asciidoc_view.available() else "warn")
    monkeypatch.setattr(asciidoc_view, "available", lambda: False)
    missing = {check.name: check for check in diagnose(tmp_path).checks}["asciidoctor"]
    assert missing.status == "warn" and "apt-get install asciidoctor" in missing.hint


@needs_asciidoctor
def test_a_ruby_that_cannot_load_asciidoctor_is_not_started_for_every_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asciidoc_view, "RUBY", "require 'no_such_library_here'")
    converter = asciidoc_view._Converter()
    assert converter.convert("= Title\n", "plx", 20.0) is None and converter.broken
    first = converter.proc
    assert converter.convert("= Title\n", "plx", 20.0) is None and converter.proc is first  # not started again


@needs_asciidoctor
def test_list_items_carry_the_lines_of_their_text() -> None:
    source = "= Steps\n\n. Open a release issue\n  and name its owner.\n. Freeze the branch.\n+\nA continuation.\n"
    view = asciidoc_view.asciidoc_view(source)
    assert view is not None
    items = re.findall(r'<p data-line-start="(\d+)"(?: data-line-end="(\d+)")?>([^<]*)</p>', view[0])
    assert [(int(a), int(b or a), text.split()[0]) for a, b, text in items][:2] == [(3, 4, "Open"), (5, 5, "Freeze")]


@needs_asciidoctor
def test_antora_resource_ids_land_on_their_pages_and_images(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    # As asciidoctor/asciidoctor's docs/: antora.yml, modules/<m>/{pages,images,partials}, and pages
    # naming each other by resource ID, not by path.
    corpus_repo.commit(
        {
            "corpus/docs/antora.yml": "name: tool\nversion: '2.1'\nasciidoc:\n  attributes:\n"
            "    release-version: '2.1.0'\n    url-ruby: https://www.ruby-lang.org\n    tagline: Fast@\n",
            "corpus/docs/modules/ROOT/pages/index.adoc": "= Tool\n\nSee xref:cli:man1/tool.adoc#options[the options], "
            "xref:install.adoc[installing] and xref:tool:cli:index.adoc[the CLI].\n\nimage::shot.png[A shot]\n\n"
            "Release {release-version} runs on {url-ruby}[Ruby]: {tagline}, in {page-component-version}.\n",
            "corpus/docs/modules/ROOT/pages/own.adoc": "= Own\n:tagline: Mine\n\nSays {tagline}.\n",
            "corpus/docs/modules/ROOT/pages/install.adoc": "= Install\n",
            "corpus/docs/modules/ROOT/images/shot.png": PNG,
            "corpus/docs/modules/cli/pages/index.adoc": "= CLI {page-component-version}\n",
            "corpus/docs/modules/cli/pages/man1/tool.adoc": "= tool(1)\n\nBack to xref:index.adoc[the CLI] "
            "and xref:ROOT:index.adoc[home].\n\n== Options\n\ninclude::partial$common.adoc[]\n",
            "corpus/docs/modules/cli/partials/common.adoc": "Common text.\n",
            "corpus/docs/modules/cli/nav.adoc": "* xref:index.adoc[]\n** xref:man1/tool.adoc[]\n"
            "* link:javascript:alert(1)[a script]\n",
        }
    )
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site)
    home = (site / "doc/corpus/docs/modules/ROOT/pages/index.adoc.html").read_text(encoding="utf-8")
    assert 'href="../../../../../../doc/corpus/docs/modules/cli/pages/man1/tool.adoc.html#h-options"' in home
    assert 'href="../../../../../../doc/corpus/docs/modules/ROOT/pages/install.adoc.html"' in home
    assert 'href="../../../../../../doc/corpus/docs/modules/cli/pages/index.adoc.html"' in home
    assert re.search(r'<img src="(\.\./)+files/[0-9a-f]+\.png" alt="A shot"', home), home
    # The component's attributes, as Antora gives them to every page (a soft-set one a page may change).
    assert 'Release 2.1.0 runs on <a href="https://www.ruby-lang.org"' in home and ": Fast, in 2.1." in home, home
    assert "Says Mine." in (site / "doc/corpus/docs/modules/ROOT/pages/own.adoc.html").read_text(encoding="utf-8")
    tool = (site / "doc/corpus/docs/modules/cli/pages/man1/tool.adoc.html").read_text(encoding="utf-8")
    assert 'href="../../../../../../../doc/corpus/docs/modules/cli/pages/index.adoc.html"' in tool
    assert 'href="../../../../../../../doc/corpus/docs/modules/ROOT/pages/index.adoc.html"' in tool
    assert 'href="../../../../../../../doc/corpus/docs/modules/cli/partials/common.adoc.html"' in tool
    nav = (site / "doc/corpus/docs/modules/cli/nav.adoc.html").read_text(encoding="utf-8")
    assert "javascript" not in nav.split("id=source-view")[0] and "a script" in nav
    assert ">CLI 2.1</a>" in nav and ">tool(1)</a>" in nav and "index.html</a>" not in nav, (
        nav
    )  # titles, as Antora's nav
    assert not [w for w in summary.warnings if "broken link" in w], summary.warnings
