"""The site's id rule on every rendered view (reST, Markdown, AsciiDoc): each id a document's view
creates starts with `h-`, so no heading, label, footnote or duplicate takes an id the page's own
scripts and chrome use (`src`, `banner`, `L12`, `search`); each in-page link lands on one of them."""

from __future__ import annotations

import re

import pytest

from indexer.site import asciidoc_view
from indexer.site.links import SELECTOR
from indexer.site.markdown import markdown_view
from indexer.site.rst_view import rst_view

HOSTILE_RST = """\
src
===

.. _banner:

banner
------

Text [#]_ and [1]_ and [CIT]_ and `L12`_ and :ref:`banner` and :term:`search` and `inline target`_.

.. _L12:

L12
---

src
---

search
------

.. _search:

.. glossary::

   search
      A term.

   src
      Another.

.. [#] an automatic note
.. [1] a numbered note
.. [CIT] a citation

Intro
-----

Intro
-----

Intro 1
-------

.. _para-label:

A paragraph labelled, with an _`inline target`. See `para-label`_ and `Intro 1`_.
"""

HOSTILE_MARKDOWN = """\
# src

## banner

## banner

## L12

## search {#search}

Text[^src] and [^L12] and [up](#src) and [line](#L3) and [again](#banner-1).
<a id="banner">x</a> <span id="L12">y</span> <a name="search">z</a> <div id="src">w</div>

[^src]: a note
[^L12]: another note
"""

HOSTILE_ASCIIDOC = """\
= Title

[[src]]
== src

== banner

== banner

[#L12]
== L12

[[search]]A paragraph anchored. footnote:src[a note] and footnote:src[] and footnote:[plain]

<<src>> and <<banner>> and <<L12>> and xref:search[] and <<L3>>

[[L3]]An anchor named as a line is.

[glossary]
src:: a term
"""


def assert_ids_follow_the_rule(html: str) -> None:
    ids = re.findall(r'\sid="([^"]*)"', html)
    assert ids, "the document's places carry ids"
    assert [found for found in ids if not found.startswith("h-")] == []
    for fragment in re.findall(r'\shref="#([^"]*)"', html):
        assert fragment in ids or SELECTOR.fullmatch(fragment), fragment


def test_every_id_of_a_rest_page_starts_with_the_prefix_duplicates_too() -> None:
    html = str(rst_view(HOSTILE_RST)[0])
    assert_ids_follow_the_rule(html)
    assert html.count('<section id="h-intro') == 3  # "Intro", the second "Intro", "Intro 1": three places


def test_a_rest_heading_list_gives_the_ids_the_page_carries() -> None:
    html, headings = rst_view(HOSTILE_RST)
    assert [anchor for _level, anchor, _title in headings if f'id="{anchor}"' not in html] == []
    assert len({anchor for _level, anchor, _title in headings}) == len(headings)


def test_every_id_of_a_markdown_page_starts_with_the_prefix() -> None:
    for mkdocs in (False, True):
        assert_ids_follow_the_rule(str(markdown_view(HOSTILE_MARKDOWN, mkdocs=mkdocs)[0]))


@pytest.mark.skipif(not asciidoc_view.available(), reason="Asciidoctor is not installed")
def test_every_id_of_an_asciidoc_page_starts_with_the_prefix() -> None:
    converted = asciidoc_view.asciidoc_view(HOSTILE_ASCIIDOC)
    assert converted is not None
    html = str(converted[0])
    assert_ids_follow_the_rule(html)
    # `<<L12>>` names the section `[#L12]`, and `<<L3>>` the anchor `[[L3]]`: not lines of the source.
    assert 'href="#h-L12"' in html and 'href="#h-L3"' in html
