"""Sphinx's labels and glossary terms across documents (indexer/site/places.py, rst_places.py): a `:ref:`
or `:term:` of one reST document links to the section or glossary entry of another, on the id that
page really carries; a name that is not one place stays text; an incremental build after a label
moves, is retitled or goes gives the cold site."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from indexer.api import build
from indexer.config import Config
from indexer.site import places
from indexer.site.serve import serve_in_thread
from tests.conftest import CorpusRepo
from tests.test_site_incremental import _assert_same_site

GLOSSARY = """\
.. _glossary:

Glossary
========

.. glossary::

   builder
      A class that turns documents into output.

   source directory
      Where the sources stand.
"""
GUIDE = """\
Guide
=====

.. _Setting Up:

Setting up ``conf.py``
----------------------

Words of the setup.

.. _twice:

First twice
-----------

Words.
"""
OTHER = """\
Other
=====

.. _twice:

Second twice
------------

Words.
"""
INDENTED_GLOSSARY = """\
Extra
=====

.. only:: html

   .. glossary::

      builder
         Another builder, for HTML alone.
"""
NAMED = """\
Figures
=======

.. figure:: setup.png
   :name: Setting  Up

   The setup.
"""
USING = """\
Using
=====

See :ref:`setting up`, :ref:`the setup section <Setting  Up>`, :term:`Builder`, :term:`source directory`,
:ref:`twice`, :ref:`nowhere`, :ref:`python:tutorial` and :ref:`glossary`.
"""


def _page(site: Path, path: str) -> str:
    return (site / "doc" / f"{path}.html").read_text(encoding="utf-8")


def _links(page: str) -> dict[str, str]:
    """Each link's text → its href, in the rendered view."""
    return {
        re.sub(r"<[^>]+>", "", text): href
        for href, text in re.findall(r'<a class="reference external[^"]*"[^>]*href="([^"]+)"[^>]*>(.*?)</a>', page)
    }


def _spans(page: str) -> list[str]:
    """The texts of the cross-reference roles left as text."""
    return re.findall(r'<span class="role role-(?:ref|term)">(.*?)</span>', page)


def _commit_documents(corpus_repo: CorpusRepo) -> None:
    """The four reST documents: a glossary, a guide with labels, another document, one using them."""
    corpus_repo.commit(
        {
            "corpus/glossary.rst": GLOSSARY,
            "corpus/guide/setup.rst": GUIDE,
            "corpus/other.rst": OTHER,
            "corpus/using.rst": USING,
        }
    )


def test_refs_and_terms_of_another_document_link_to_its_page(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _commit_documents(corpus_repo)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    page = _page(site, "corpus/using.rst")
    links = _links(page)
    # untitled: the section's title as Sphinx shows it (its markup read); titled: the title written
    assert links["Setting up conf.py"] == "../../doc/corpus/guide/setup.rst.html#h-setting-up"
    assert links["the setup section"] == "../../doc/corpus/guide/setup.rst.html#h-setting-up"
    assert links["Glossary"] == "../../doc/corpus/glossary.rst.html#h-glossary"
    assert links["Builder"] == "../../doc/corpus/glossary.rst.html#h-term-builder"
    assert links["source directory"] == "../../doc/corpus/glossary.rst.html#h-term-source-directory"
    # a label defined twice, a label nowhere, another project's (intersphinx): text, no link
    assert _spans(page) == ["twice", "nowhere", "python:tutorial"]
    # the ids are those the target pages carry, before the heading the label stands at
    setup = _page(site, "corpus/guide/setup.rst")
    assert re.search(r'<span id="h-setting-up"></span><h3[^>]*>Setting up <span class="docutils literal">', setup)
    assert 'id="h-term-builder"' in _page(site, "corpus/glossary.rst")
    stats = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert stats["places_scanned"] == 0  # nothing changed: every blob's record is carried


def test_an_incremental_build_after_a_label_moves_is_the_cold_build(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _commit_documents(corpus_repo)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    moved, there = GUIDE.replace(".. _Setting Up:\n\n", ""), ".. _setting up:\n\n" + OTHER
    steps: list[dict[str, str | bytes | None]] = [
        # the label moves to another document: the page using it (untouched) now links there
        {"corpus/guide/setup.rst": moved, "corpus/other.rst": there},
        {"corpus/other.rst": there.replace(".. _twice:\n\n", "")},  # defined once now: a link
        {"corpus/guide/setup.rst": moved.replace("First twice\n-----------", "Retitled\n--------")},  # its title
        {"corpus/glossary.rst": GLOSSARY.replace("   builder\n", "   maker\n")},  # a term goes
    ]
    for number, files in enumerate(steps):
        corpus_repo.commit(files)
        stats = build(corpus_repo.root, out=site, config=Config()).site or {}
        cold = tmp_path / f"cold-{number}"
        build(corpus_repo.root, out=cold, config=Config())
        _assert_same_site(site, cold)
        assert stats.get("places_scanned") == len(files)  # the changed documents alone are scanned
    links = _links(_page(site, "corpus/using.rst"))
    assert links["Retitled"] == "../../doc/corpus/guide/setup.rst.html#h-twice"
    assert links["Other"] == "../../doc/corpus/other.rst.html#h-setting-up"
    assert "Builder" not in links


def test_a_term_or_label_also_defined_inside_a_directive_or_by_a_name_option_stays_text(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    """Sphinx reads the other definition too and keeps one of the two: the page links to neither."""
    corpus_repo.commit(
        {
            "corpus/glossary.rst": GLOSSARY,
            "corpus/guide/setup.rst": GUIDE,
            "corpus/extra.rst": INDENTED_GLOSSARY,
            "corpus/figures.rst": NAMED,
            "corpus/using.rst": USING,
        }
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    page = _page(site, "corpus/using.rst")
    links = _links(page)
    assert "Builder" not in links and "Setting up conf.py" not in links and "the setup section" not in links
    assert links["source directory"] == "../../doc/corpus/glossary.rst.html#h-term-source-directory"
    assert {"Builder", "setting up", "the setup section"} <= set(_spans(page))


def test_a_blob_two_paths_hold_is_scanned_once(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/guide/setup.rst": GUIDE, "corpus/copy/setup.rst": GUIDE, "corpus/using.rst": USING})
    stats = build(corpus_repo.root, out=tmp_path / "site", config=Config()).site or {}
    assert stats["places_scanned"] == 2


@pytest.mark.parametrize("made_by", ["another form", "another fingerprint"])
def test_a_scan_record_of_other_rules_is_not_carried(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made_by: str
) -> None:
    """A record is the previous scan's reading of the blob: a scan of another form, or a site made by
    another pincite or other settings (its fingerprint), may have read other names or titles."""
    corpus_repo.commit({"corpus/glossary.rst": GLOSSARY, "corpus/using.rst": USING})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    config = Config()
    if made_by == "another form":
        monkeypatch.setattr(places, "SCAN_FORM", places.SCAN_FORM + 1)
    else:
        config = Config(site_title="Another title")
    stats = build(corpus_repo.root, out=site, config=config).site or {}
    assert stats["places_scanned"] == 2
    assert _links(_page(site, "corpus/using.rst"))["Builder"] == "../../doc/corpus/glossary.rst.html#h-term-builder"


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_reader_following_a_ref_lands_on_the_heading_it_names(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any, size: tuple[int, int]
) -> None:
    """In chromium, each cross-document link of the page scrolls the target page to its section's
    heading (or glossary entry), shown at the top of the window."""
    part = "Words of the part. " * 40
    filler = "".join(f"Part {n}\n{'-' * (5 + len(str(n)))}\n\n{part}\n\n" for n in range(12))
    corpus_repo.commit(  # a long page before and after each place: the browser scrolls to it
        {
            "corpus/glossary.rst": GLOSSARY.replace(".. glossary::", filler + ".. glossary::") + "\n" + filler,
            "corpus/guide/setup.rst": GUIDE.replace("Guide\n=====\n\n", "Guide\n=====\n\n" + filler) + filler,
            "corpus/other.rst": OTHER,
            "corpus/using.rst": USING,
        }
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    server, base = serve_in_thread(site)
    tab = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    try:
        tab.goto(base + "doc/corpus/using.rst.html")
        links = tab.eval_on_selector_all(
            "#rendered a.role-ref, #rendered a.role-term", "links => links.map(a => [a.textContent, a.href])"
        )
        assert len(links) == 5
        expected = {"the setup section": "Setting up conf.py", "Builder": "builder"}
        for text, href in links:
            tab.goto(href)
            heading = tab.evaluate(LANDED)
            assert heading is not None, text
            assert heading["text"] == expected.get(text, text)
            assert 0 <= heading["top"] < size[1] / 4, text  # scrolled to, at the top of the window
    finally:
        tab.context.close()
        server.shutdown()
        server.server_close()


# The heading the page's anchor names (itself: a glossary term; or the heading its section starts with).
LANDED = """() => {
    const place = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!place) return null;
    let heading = /^(H[1-6]|DT)$/.test(place.tagName) ? place : place.querySelector('h1,h2,h3,h4,h5,h6');
    for (let n = place.nextElementSibling; !heading && n; n = n.nextElementSibling) {
        if (/^H[1-6]$/.test(n.tagName)) heading = n;
    }
    return heading && {text: heading.textContent.trim(), top: heading.getBoundingClientRect().top};
}"""


def test_a_retitled_section_renders_again_the_pages_that_show_its_title(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    """An untitled `:ref:` shows the section's title: its page is rendered again when the title changes; a
    titled one shows its own words and links the same place: its page stays as it is."""
    section = ".. _place:\n\nThe place\n---------\n\nWords.\n"
    corpus_repo.commit(
        {
            "corpus/a.rst": "A\n=\n\n" + section,
            "corpus/b.rst": "B\n=\n\nSee :ref:`there <place>`.\n",
            "corpus/c.rst": "C\n=\n\nSee :ref:`place`.\n",
        }
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    pages = {name: site / "doc" / "corpus" / f"{name}.rst.html" for name in "abc"}
    before = {name: page.stat().st_mtime_ns for name, page in pages.items()}
    corpus_repo.commit({"corpus/a.rst": "A\n=\n\n" + section.replace("The place\n---------", "Renamed\n-------")})
    build(corpus_repo.root, out=site, config=Config())
    after = {name: page.stat().st_mtime_ns for name, page in pages.items()}
    assert [name for name in "abc" if after[name] != before[name]] == ["a", "c"]
    assert _links(pages["c"].read_text(encoding="utf-8")) == {"Renamed": "../../doc/corpus/a.rst.html#h-place"}


BLOCKS = """\
Options
=======

.. _xref-modifiers:

The behavior can be modified in the following ways.

.. _flags:

* ``-v``: more words
* ``-q``: fewer

.. _make-options:

.. rubric:: Makefile options

.. _a-note:

.. note:: A directive: the label is no place here.
"""
NAMING_BLOCKS = """\
Naming
======

See :ref:`the modifiers <xref-modifiers>`, :ref:`the flags <flags>`, :ref:`the options <make-options>`,
:ref:`xref-modifiers` and :ref:`the note <a-note>`.
"""


def test_a_titled_ref_to_a_label_before_a_paragraph_list_or_rubric_links_to_it(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({"corpus/options.rst": BLOCKS, "corpus/naming.rst": NAMING_BLOCKS})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    links = _links(_page(site, "corpus/naming.rst"))
    assert links["the modifiers"] == "../../doc/corpus/options.rst.html#h-xref-modifiers"
    assert links["the flags"] == "../../doc/corpus/options.rst.html#h-flags"
    assert links["the options"] == "../../doc/corpus/options.rst.html#h-make-options"
    # untitled: no section title to show, so text as Sphinx leaves it; before a directive: no place
    assert _spans(_page(site, "corpus/naming.rst")) == ["xref-modifiers", "the note"]
    options = _page(site, "corpus/options.rst")
    assert re.search(r'<p [^>]*id="h-xref-modifiers"[^>]*>The behavior', options)
    assert re.search(r'<ul [^>]*id="h-flags"', options)
    assert re.search(r'<p class="rubric"[^>]*id="h-make-options"[^>]*>Makefile options', options)
