"""The scan of a reST document's labels and glossary terms (indexer/site/rst_places.py) and the corpus's
table of them (indexer/site/places.py): a place is only the id the page really carries."""

from __future__ import annotations

import re

from docutils.nodes import fully_normalize_name
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.site.places import CorpusPlaces, Scanned
from indexer.site.rst_places import scan, shown_title
from indexer.site.rst_view import rst_view
from tests.test_site_xref import GLOSSARY, GUIDE, INDENTED_GLOSSARY, NAMED, OTHER


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


def test_a_label_whose_id_docutils_may_number_another_node_into_is_no_place() -> None:
    """A second `Intro` takes `h-intro-1`, a footnote `h-footnote-1`: a label of either name gets another id."""
    text = "Intro\n=====\n\nIntro\n=====\n\n.. _intro-1:\n\nLater\n-----\n\n"
    text += ".. _footnote-1:\n\nNotes\n-----\n\nText [#]_.\n\n.. [#] a note\n"
    assert 'id="h-intro-1"' in str(rst_view(text)[0])
    assert scan(text).labels == {}


def test_a_title_whose_markup_the_scan_cannot_read_is_not_shown() -> None:
    assert shown_title("The :mod:`~pkg.mod` and **bold** *em* `link <https://x>`_") == "The mod and bold em link"
    assert shown_title("With |substitution|") == ""


# A name may start with a digit (`2to3`) and end as docutils numbers a taken name (`intro-1`).
LABEL_NAME = st.from_regex(r"[a-z0-9][a-z0-9]{0,6}([-_ ][a-z0-9]{1,4}){0,2}", fullmatch=True)
# Titles taken twice, and one making the id docutils numbers the second of them into.
TITLE = st.from_regex(r"[A-Z][a-z]{1,8}( [a-z]{1,6}| ``[a-z.]{1,6}``){0,3}", fullmatch=True) | st.sampled_from(
    ["Intro", "Intro 1", "2to3"]
)


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


# Blocks a label may stand before, each with a word of its own: the id docutils moves onto each is on the page.
BLOCK = st.sampled_from(
    [
        "Words of a paragraph.\n",
        "* words of a bulleted list\n* and more\n",
        "1. words of a numbered list\n",
        "term words\n   its definition\n",
        ":field: words of a field\n",
        "| words of a line block\n",
        ".. rubric:: words of a rubric\n",
        ".. note:: words of a note\n",
        ".. a comment of words\n",
    ]
)
OWN_WORD = re.compile(r"paragraph|bulleted|numbered|definition|field|line|rubric|note|comment")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(LABEL_NAME, min_size=1, max_size=2), BLOCK), min_size=1, max_size=5))
def test_every_block_place_scanned_is_an_id_the_page_carries_on_that_block(blocks: list[tuple[list[str], str]]) -> None:
    """A label before a paragraph, a list, a rubric…: the scan's id stands once on the page, on the
    element of the block the label stands before."""
    text = "Top\n===\n\n" + "".join(
        "".join(f".. _{name}:\n\n" for name in names) + f"{block}\n" for names, block in blocks
    )
    html = str(rst_view(text)[0])
    for name, anchor in scan(text).blocks.items():
        assert html.count(f'id="{anchor}"') == 1, name
        block = next(block for names, block in blocks if name in {fully_normalize_name(n) for n in names})
        element = re.search(rf' id="{re.escape(anchor)}"[^>]*>(.*)', html, re.DOTALL)
        assert element is not None, name
        shown = OWN_WORD.search(re.sub(r"<[^>]+>", " ", element.group(1)))
        assert shown is not None and shown.group(0) == OWN_WORD.search(block).group(0), name  # type: ignore[union-attr]


def test_a_name_defined_in_two_documents_is_no_place() -> None:
    table = CorpusPlaces({"a.rst": scan(GUIDE), "b.rst": scan(OTHER), "g.rst": scan(GLOSSARY)})
    assert "twice" not in table.labels and table.labels["setting up"].document == "a.rst"
    assert table.terms["builder"].anchor == "h-term-builder"


def test_a_literal_in_a_title_is_shown_as_written() -> None:
    assert shown_title("Using ``a*b*c`` and ``:ref:``") == "Using a*b*c and :ref:"
    assert shown_title("Using ``conf.py`` *now*") == "Using conf.py now"


def test_a_term_or_label_another_document_defines_inside_a_directive_is_no_place() -> None:
    """Sphinx reads a glossary inside a directive and a `:name:` as a term and a label too: defined
    twice, it warns and keeps the later, so neither place is taken (the scan takes a place only from a
    glossary at the margin, and no place from a `:name:`)."""
    inside, named = scan(INDENTED_GLOSSARY), scan(NAMED)
    assert "builder" in inside.term_names and inside.terms == {}
    assert "setting up" in named.label_names and named.labels == {}
    table = CorpusPlaces({"a.rst": scan(GUIDE), "g.rst": scan(GLOSSARY), "x.rst": inside, "f.rst": named})
    assert "builder" not in table.terms and table.terms["source directory"].document == "g.rst"
    assert "setting up" not in table.labels


def test_a_glossary_or_name_shown_as_an_example_defines_nothing() -> None:
    """A glossary or a `:name:` in a literal block or a code directive's content is shown, not read (as
    in Sphinx's own documentation of `.. glossary::`)."""
    example = "   " + "\n   ".join(INDENTED_GLOSSARY.split("\n")[4:])
    for text in (
        f"Using\n=====\n\nAn example::\n\n{example}\n",
        f".. note::\n\n   .. code-block:: rst\n\n   {example}\n",
    ):
        assert scan(text).term_names == frozenset(), text
    named = "   " + "\n   ".join(NAMED.split("\n")[3:])
    assert scan(f"Using\n=====\n\nAn example::\n\n{named}\n").label_names == frozenset()
    table = CorpusPlaces({"g.rst": scan(GLOSSARY), "x.rst": scan(f"Using\n=====\n\nAn example::\n\n{example}\n")})
    assert table.terms["builder"].document == "g.rst"
