"""Sphinx's labels and glossary terms across documents (indexer/site/places.py, rst_places.py): a `:ref:`
or `:term:` of one reST document links to the section or glossary entry of another, on the id that
page really carries; a name that is not one place stays text; an incremental build after a label
moves, is retitled or goes gives the cold site."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site.places import CorpusPlaces, Scanned
from indexer.site.rst_places import scan, shown_title
from indexer.site.rst_view import rst_view
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


def test_refs_and_terms_of_another_document_link_to_its_page(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(
        {
            "corpus/glossary.rst": GLOSSARY,
            "corpus/guide/setup.rst": GUIDE,
            "corpus/other.rst": OTHER,
            "corpus/using.rst": USING,
        }
    )
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
    corpus_repo.commit(
        {
            "corpus/glossary.rst": GLOSSARY,
            "corpus/guide/setup.rst": GUIDE,
            "corpus/other.rst": OTHER,
            "corpus/using.rst": USING,
        }
    )
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
        assert stats["places_scanned"] == len(files)  # the changed documents alone are scanned
        cold = tmp_path / f"cold-{number}"
        build(corpus_repo.root, out=cold, config=Config())
        _assert_same_site(site, cold)
    links = _links(_page(site, "corpus/using.rst"))
    assert links["Retitled"] == "../../doc/corpus/guide/setup.rst.html#h-twice"
    assert links["Other"] == "../../doc/corpus/other.rst.html#h-setting-up"
    assert "Builder" not in links


def test_a_damaged_record_is_scanned_again() -> None:
    found = scan(GUIDE)
    record = found.to_json("text/1")
    assert Scanned.from_json(record, "text/1") == found
    assert Scanned.from_json(record, "text/2") is None  # another extractor's text of the blob
    assert Scanned.from_json(record[:-3], "text/1") is None
    assert Scanned.from_json(record.replace('"h-twice"', "7"), "text/1") is None
    assert Scanned.from_json(None, "text/1") is None


def test_a_label_whose_id_another_name_takes_is_no_place() -> None:
    """docutils gives the second of two names making one id another id: neither is taken."""
    text = "Intro\n=====\n\n.. _intro:\n\nLater\n-----\n\n.. _a_b:\n\nA\n-\n\n.. _a-b:\n\nB\n-\n"
    assert scan(text).labels == {}
    # a label named as its own section is one place
    assert scan(".. _intro:\n\nIntro\n=====\n").labels == {"intro": ("h-intro", "Intro")}


def test_a_title_whose_markup_the_scan_cannot_read_is_not_shown() -> None:
    assert shown_title("The :mod:`~pkg.mod` and **bold** *em* `link <https://x>`_") == "The mod and bold em link"
    assert shown_title("With |substitution|") == ""


LABEL_NAME = st.from_regex(r"[a-z][a-z0-9]{0,6}([-_ ][a-z0-9]{1,4}){0,2}", fullmatch=True)
TITLE = st.from_regex(r"[A-Z][a-z]{1,8}( [a-z]{1,6}| ``[a-z.]{1,6}``){0,3}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(LABEL_NAME, min_size=0, max_size=2), TITLE), min_size=1, max_size=5))
def test_every_place_scanned_is_the_id_the_page_carries_on_its_heading(
    sections: list[tuple[list[str], str]],
) -> None:
    """The scan's places, against docutils' own page of the same text: each id stands once, on the
    heading of the section the label stands before, whose text is the title the scan shows."""
    text = "Top\n===\n\n" + "".join(
        "".join(f".. _{name}:\n\n" for name in names) + f"{title}\n{'-' * len(title)}\n\nWords.\n\n"
        for names, title in sections
    )
    html = str(rst_view(text)[0])
    for name, (anchor, title) in scan(text).labels.items():
        assert html.count(f'id="{anchor}"') == 1, name
        after = rf'id="{re.escape(anchor)}"[^>]*>\s*(?:</span>)?(?:<span id="[^"]+"></span>)*\s*<h\d[^>]*>(.*?)</h\d>'
        heading = re.search(after, html)
        assert heading is not None, name
        assert re.sub(r"<[^>]+>", "", heading.group(1)) == title


def test_a_name_defined_in_two_documents_is_no_place() -> None:
    table = CorpusPlaces({"a.rst": scan(GUIDE), "b.rst": scan(OTHER), "g.rst": scan(GLOSSARY)})
    assert "twice" not in table.labels and table.labels["setting up"].document == "a.rst"
    assert table.terms["builder"].anchor == "h-term-builder"
