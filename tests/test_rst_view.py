"""The reST rendered view hides no word of the source, links Sphinx's roles, and carries source lines."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config, ConfigError, load_config, role_urls
from indexer.site.links import detect_docs_roots
from indexer.site.rst_view import DEFAULT_ROLE_URLS, rst_view
from tests.browser import cited_source_of_selection
from tests.conftest import CorpusRepo

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7V\x9f\x1d\x00\x00\x00\x00IEND\xaeB`\x82"
)


class _Text(HTMLParser):
    """The text a reader sees, and each element's source lines."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.lined: list[tuple[int, int, list[str]]] = []
        self._stack: list[list[str] | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("img", "br", "hr", "col", "meta"):
            return
        if "data-line-start" in values:
            collected: list[str] = []
            self.lined.append((int(values["data-line-start"] or 0), int(values["data-line-end"] or 0), collected))
            self._stack.append(collected)
        else:
            self._stack.append(None)

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("img", "br", "hr", "col", "meta") and self._stack:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        self.parts.append(data)
        for collected in self._stack:
            if collected is not None:
                collected.append(data)


def _read(html: str) -> _Text:
    reader = _Text()
    reader.feed(html)
    return reader


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{3,}", text)


PEP = """\
PEP: 204
Title: Range Literals
Author: Thomas Wouters <thomas@python.org>
Status: Rejected
Post-History:


Introduction
============

This PEP describes the ``range literal`` proposal; see :pep:`8`, :pep:`the style guide <7>`,
:mod:`~os.path`, :func:`!open`, :class:`Widget` and :ref:`the rationale <rationale>`.

.. rejected:: The proposal was rejected

   Guido found the *syntax* confusing.

.. canonical-doc:: :mod:`python:sqlite3` and :external+py3.15:ref:`list displays <lists>`

.. c:function:: PyObject* PyRange_New(long start)

   Makes a range object.

.. literalinclude:: ../examples/ranges.py
   :language: python

.. raw:: html

   <script>window.__pwned = 1</script>

.. _rationale:

Rationale
=========

Unknown :zzzrole:`gamma words` stay readable; see `above <rationale>`__.
"""


def test_unknown_directives_and_roles_show_their_words() -> None:
    html, headings = rst_view(PEP)
    text = " ".join(_read(html).parts)
    for words in (
        "The proposal was rejected",
        "Guido found the",
        "syntax",
        "PyObject* PyRange_New(long start)",
        "Makes a range object.",
        "../examples/ranges.py",
        "window.__pwned = 1",  # refused raw HTML: shown as its source text, never as HTML
        "gamma words",
        "list displays",  # a directive's argument reads as its roles show it
    ):
        assert words in text, words
    assert "<script>" not in html
    assert ":mod:" not in text and ":pep:" not in text and ":zzzrole:" not in text and ":ref:" not in text
    assert "sqlite3" in text and "python:sqlite3" not in text
    assert "path" in text and "open" in text and "the style guide" in text and "PEP 8" in text
    assert 'href="https://peps.python.org/pep-0008/"' in html and 'href="https://peps.python.org/pep-0007/"' in html
    assert 'href="#h-rationale"' in html  # a label of this document: an in-page link
    # `above <rationale>`__ names the label, not a file: an in-page link too
    assert html.count('href="#h-rationale"') == 2
    assert ("directive directive-rejected" in html) and ("shown as source" in text)
    assert [title for _level, _id, title in headings] == ["Introduction", "Rationale"]


def test_a_sphinx_code_block_shows_its_caption_above_its_code() -> None:
    # sphinx-doc/sphinx's tutorial: `.. code-block:: rst` with `:caption: docs/source/index.rst` was refused whole.
    source = (
        "Intro.\n\n.. code-block:: rst\n   :caption: docs/source/index.rst\n   :linenos:\n   :emphasize-lines: 1\n\n"
        "   Check out the :doc:`usage` section.\n   second line\n\n.. code-block::\n\n   plain\n"
    )
    html, _ = rst_view(source)
    assert "directive-refused" not in html and "shown as source" not in html, html
    label = '<p class="directive-label" data-line-end="4" data-line-start="4"><span class="directive-name">'
    assert label + "docs/source/index.rst</span></p>" in html, html
    assert 'data-line-end="9" data-line-start="8"><code>Check out the :doc:`usage` section.\nsecond line</code>' in html
    assert '<pre class="code literal-block" data-line-end="13" data-line-start="13"><code>plain</code></pre>' in html


def test_a_comment_is_not_written_into_the_page() -> None:
    html, _ = rst_view("Para.\n\n.. NOTE: kept for reference\n\n   * `Old <https://example.org/>`__\n\nAfter.\n")
    assert "<!--" not in html and "reference" not in html and "Old" not in html, html
    assert "Para." in html and "After." in html


def test_an_unknown_directives_options_read_as_inline_rest() -> None:
    # sphinx-doc/sphinx's doc/usage/configuration.rst: 600 `:type: :code-py:`str`` options of `.. confval::`.
    source = (
        ".. role:: code-py(code)\n   :language: Python\n\n.. confval:: project\n   :type: :code-py:`str`\n"
        "   :default: see :pep:`8` or *this*\n   :broken: `unclosed\n\n   The project's name.\n"
    )
    html, _ = rst_view(source)
    text = " ".join(_read(html).parts)
    assert "<code" in html and "str" in text and ":code-py:" not in text, html
    assert 'href="https://peps.python.org/pep-0008/"' in html and "<em>this</em>" in html, html
    assert "`unclosed" in text  # markup that does not parse cleanly is shown as written


def test_a_section_title_in_an_unknown_directives_content_is_a_heading_not_source() -> None:
    # sphinx-doc/sphinx: `Examples` / `~~~~~~~~` under a `.. confval::`, which Sphinx parses with titles.
    source = (
        "Options\n=======\n\n.. confval:: short_types\n\n   Controls :code:`Literal` types.\n\n"
        "   Examples\n   ~~~~~~~~\n\n   An *example* here.\n\nAfter\n=====\n\nLast words.\n"
    )
    html, headings = rst_view(source)
    assert [title for _level, _id, title in headings] == ["Options", "Examples", "After"], headings
    assert "<em>example</em>" in html and "directive-source" not in html and "~~~~" not in html, html


def test_a_table_with_column_widths_writes_no_inline_style() -> None:
    # PEP 739's `list-table` with `:widths: 25 75` came out as `<col style="width: 25.0%" />`: the
    # site's CSP refuses inline styles, so every such page logged an error per column (15 PEPs).
    source = ".. list-table::\n   :widths: 25 75\n   :header-rows: 1\n\n"
    source += "   * - Key\n     - Meaning\n   * - a\n     - b\n"
    html, _ = rst_view(source)
    assert "<table" in html and "Meaning" in html, html
    assert "style=" not in html, html


def test_the_mail_header_is_a_table_of_fields() -> None:
    html, _ = rst_view(PEP)
    assert '<dl class="rfc2822 field-list' in html
    assert re.search(r"<dt[^>]*>Status<span class=\"colon\">:</span></dt>\s*<dd><p[^>]*>Rejected</p>", html)


def test_every_lined_block_holds_the_text_of_its_source_lines() -> None:
    html, _ = rst_view(PEP)
    lines = PEP.split("\n")
    reader = _read(html)
    assert len(reader.lined) >= 10
    for first, last, collected in reader.lined:
        source = " ".join(lines[first - 1 : last])
        for word in _words(" ".join(collected)):
            if word not in ("shown", "source"):
                assert word in source, (first, last, word, collected)


def test_role_urls_are_configurable(tmp_path: Path) -> None:
    (tmp_path / "pincite.toml").write_text('rst_role_urls = ["rfc=", "pep=https://example.org/peps/{number}"]\n')
    urls = role_urls(load_config(tmp_path), DEFAULT_ROLE_URLS)
    assert urls == {"pep": "https://example.org/peps/{number}"}
    html, _ = rst_view("See :pep:`8` and :rfc:`2822`.\n", None, urls)
    assert 'href="https://example.org/peps/8"' in html and "RFC 2822" in html and "datatracker" not in html
    (tmp_path / "pincite.toml").write_text('rst_role_urls = ["pep https://x"]\n')
    try:
        load_config(tmp_path)
    except ConfigError as exc:
        assert "rst_role_urls entry 'pep https://x'" in str(exc)
    else:
        raise AssertionError("a malformed entry was accepted")


def test_peps_link_inside_the_site_and_images_are_published(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(
        {
            "corpus/peps/pep-0204.rst": PEP
            + "\nA figure:\n\n.. image:: pep-0204/ranges.png\n   :alt: Range diagram\n\nSee :doc:`pep-0008`.\n",
            "corpus/peps/pep-0008.rst": "PEP: 8\nTitle: Style Guide\n\nStyle\n=====\n\nWords.\n",
            "corpus/peps/pep-0204/ranges.png": PNG,
        }
    )
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site)
    page = (site / "doc/corpus/peps/pep-0204.rst.html").read_text(encoding="utf-8")
    # :pep:`8` and :doc:`pep-0008`, onto the published page (and the page's "Previous" link)
    body = re.sub(r'<nav class="?pager"?[ >].*?</nav>', "", page, flags=re.S)
    assert body.count('href="../../../doc/corpus/peps/pep-0008.rst.html"') == 2
    assert 'href="https://peps.python.org/pep-0007/"' in page  # PEP 7 is not published here
    image = re.search(r'<img src="([^"]+)" alt="Range diagram">', page)
    assert image, "the repository's image is shown"
    published = (site / "doc/corpus/peps" / image.group(1)).resolve()
    assert published.is_file() and published.read_bytes() == PNG
    assert not [w for w in summary.warnings if "broken link" in w], summary.warnings


def test_a_sphinx_projects_absolute_paths_start_at_its_source_directory(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    # sphinx-doc/sphinx's doc/: `.. image:: /_static/themes/alabaster.png` and `.. figure:: /_static/translation.*`
    # are the source directory's files (the folder of conf.py), in the first format the HTML builder takes.
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
    corpus_repo.commit(
        {
            "doc/conf.py": "project = 'Manual'\nextensions = []\n",
            "doc/_static/shot.png": PNG,
            "doc/_static/flow.png": PNG,
            "doc/_static/flow.svg": svg,
            "doc/index.rst": "Manual\n======\n\nRead :doc:`/usage/intro`.\n",
            "doc/usage/intro.rst": "Intro\n=====\n\n.. image:: /_static/shot.png\n   :alt: Shot\n\n"
            ".. figure:: /_static/flow.*\n   :alt: Flow\n\nBack to :doc:`/index`.\n",
        }
    )
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site, config=Config(roots=("doc",)))
    assert not [w for w in summary.warnings if "broken link" in w], summary.warnings
    page = (site / "doc/doc/usage/intro.rst.html").read_text(encoding="utf-8")
    shot = re.search(r'<img src="([^"]+)" alt="Shot">', page)
    assert shot and (site / "doc/doc/usage" / shot.group(1)).resolve().read_bytes() == PNG
    flow = re.search(r'<img src="data:image/svg\+xml;base64,([^"]+)" alt="Flow"', page)
    assert flow and base64.b64decode(flow.group(1)) == svg, page
    assert 'href="../../../doc/doc/index.rst.html"' in page
    index = (site / "doc/doc/index.rst.html").read_text(encoding="utf-8")
    assert 'href="../../doc/doc/usage/intro.rst.html"' in index


def test_a_conf_py_that_is_not_sphinxs_names_no_docs_root() -> None:
    texts = {"doc/conf.py": "project = 'x'\n", "tools/conf.py": "TIMEOUT = 3\n"}
    assert detect_docs_roots((), texts) == ("doc",)


def test_a_literalinclude_links_to_the_file_it_names(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    # PEP 739's `.. literalinclude:: pep-0739/example.json` was a label naming the file, no way to it:
    # the site does not inline another file, but the file is a page of the site.
    corpus_repo.commit(
        {
            "corpus/peps/pep-0739.rst": PEP + "\nAn example:\n\n.. literalinclude:: pep-0739/example.json\n"
            "   :language: json\n\n.. literalinclude:: pep-0739/missing.json\n",
            "corpus/peps/pep-0739/example.json": '{"language": "python"}\n',
        }
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    page = (site / "doc/corpus/peps/pep-0739.rst.html").read_text(encoding="utf-8")
    link = re.search(r'<span class="directive-name">literalinclude</span> <span class="directive-argument">'
                     r'<a class="reference external"[^>]*href="([^"]+)">pep-0739/example.json</a>', page)  # fmt: skip
    assert link, page
    assert (site / "doc/corpus/peps" / link.group(1)).resolve() == site / "doc/corpus/peps/pep-0739/example.json.html"
    assert '<span class="directive-argument"><span>pep-0739/missing.json</span></span>' in page, page


GLOSSARY = """\
Terms
=====

The :term:`license expression` names a :term:`License Identifier`; a :term:`Project` is elsewhere.

.. glossary::

    license classifier
        A classifier, in the :term:`Core Metadata` specification.

    license expression
    SPDX expression
        A string of one or more :term:`license identifier`\\(s).

    license identifier
        A short name. See :ref:`terms-rationale`.

.. _terms-rationale:

Why these terms
===============

Words.
"""


def test_a_glossary_is_a_definition_list_whose_terms_the_roles_link_to() -> None:
    html, _ = rst_view(GLOSSARY)
    text = " ".join(_read(html).parts)
    assert ":term:" not in text and ":ref:" not in text and ".. glossary" not in text
    # every term, stacked ones too, is an anchor; `:term:` links to it without regard to case, as Sphinx does
    for term in ("license-classifier", "license-expression", "spdx-expression", "license-identifier"):
        assert f'<dt data-line-end="{_line(GLOSSARY, term)}"' in html or f'id="h-term-{term}"' in html
        assert f'id="h-term-{term}"' in html, term
    assert html.count('href="#h-term-license-identifier"') == 2 and html.count('href="#h-term-license-expression"') == 1
    # a term the document does not define (another project's glossary): its text, no link
    assert re.search(r'<span class="role role-term">Project</span>', html)
    assert "Core Metadata" in text
    # a :ref: without a title shows the section's title, as Sphinx shows it
    assert re.search(r'href="#h-terms-rationale">Why these terms</a>', html)
    # the terms carry their own source lines
    reader = _read(html)
    lines = GLOSSARY.split("\n")
    assert any(
        "".join(c).strip() == "SPDX expression" and lines[a - 1].strip() == "SPDX expression"
        for a, _b, c in reader.lined
    )


def _line(source: str, term: str) -> int:
    return next(n for n, line in enumerate(source.split("\n"), 1) if line.strip().lower() == term.replace("-", " "))


def test_a_class_signature_is_shown_and_class_names_still_apply() -> None:
    html, _ = rst_view(".. class:: concurrent.interpreters.SharedObjectProxy(obj)\n\n   A proxy type.\n")
    assert "concurrent.interpreters.SharedObjectProxy(obj)" in " ".join(_read(html).parts)
    assert "A proxy type." in html
    html, _ = rst_view(".. class:: special\n\n   Para words.\n")
    assert '<p class="special"' in html and "directive-label" not in html


LINKS = """\
Intro
=====

See `motivation <Motivation_>`_, `Extras`_, `the runtime <Runtime behavior>`_, `pip install -e <dir>`_
and the log, as in syslog.[11]_ and tracing,[#etw]_ but not x[99]_.

`Extras <Extras (optional dependencies)_>`_ are listed.

Motivation
==========

Extras
======

Extras (optional dependencies)
==============================

Runtime behavior
================

.. _pip install -e <dir>: https://pip.pypa.io/en/stable/cli/pip_install/

.. [11] The syslog manual.
.. [#etw] Event tracing.
"""


def test_links_docutils_refuses_or_reads_as_files_land_where_the_writer_meant() -> None:
    html, _ = rst_view(LINKS)
    text = " ".join(_read(html).parts)
    assert "`" not in text and "[11]_" not in text and "[#etw]_" not in text
    assert "x[99]_" in text  # no note of that label: the text stays as written
    assert re.search(r'<a class="reference internal" href="#h-motivation-1"[^>]*>motivation</a>', html)
    assert re.search(r'<a class="reference internal" href="#h-extras-1"[^>]*>Extras</a>', html)
    assert re.search(r'<a class="reference internal" href="#h-runtime-behavior">the runtime</a>', html)
    assert re.search(r'href="https://pip.pypa.io/en/stable/cli/pip_install/">pip install -e</a>', html)
    assert re.search(r'syslog\.<a class="brackets" href="#h-11"', html)
    assert re.search(r'tracing,<a class="brackets" href="#h-etw"[^>]*><span class="fn-bracket">\[</span>1<', html)
    assert 'href="#h-footnote-reference-' in html  # the notes link back


# -- the property: no prose word is lost ----------------------------------------------------------

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9).map(lambda w: "w" + w)
PHRASE = st.lists(WORD, min_size=1, max_size=5).map(" ".join)
NAME = st.sampled_from(
    ["rejected", "withdrawn", "canonical-doc", "c:function", "productionlist", "zzfancy", "glossary"]
)
ROLE = st.sampled_from(["mod", "class", "func", "ref", "doc", "pep", "term", "zzrole", "py:meth"])


@st.composite
def inline(draw: st.DrawFn) -> str:
    words = draw(PHRASE)
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return words
    if kind == 1:
        return f":{draw(ROLE)}:`{words}`"
    if kind == 2:
        return f":{draw(ROLE)}:`{words} <{draw(WORD)}>`"
    if kind == 3:
        return f"*{words}*"
    return f"``{words}``"


@st.composite
def paragraph(draw: st.DrawFn, indent: str) -> str:
    parts = draw(st.lists(inline(), min_size=1, max_size=4))
    return indent + " ".join(parts) + "\n"


@st.composite
def glossary(draw: st.DrawFn, indent: str) -> str:
    """Sphinx's glossary: entries of stacked terms, each with a definition that may use `:term:`."""
    entries = []
    for _ in range(draw(st.integers(1, 3))):
        terms = "".join(f"{indent}   {draw(PHRASE)}\n" for _ in range(draw(st.integers(1, 2))))
        entries.append(terms + draw(paragraph(indent + "      ")))
    return f"{indent}.. glossary::\n\n" + "\n".join(entries)


@st.composite
def noted(draw: st.DrawFn, indent: str) -> str:
    """A paragraph whose footnote reference is glued to its word (`syslog.[7]_`), and the note."""
    label = draw(st.sampled_from(["7", "#note", "11"]))  # a label is no prose word
    return f"{indent}{draw(PHRASE)}.[{label}]_\n\n{indent}.. [{label}] {draw(PHRASE)}\n"


@st.composite
def block(draw: st.DrawFn, indent: str = "", depth: int = 0) -> str:
    kind = draw(st.integers(0, 6 if depth < 2 else 1))
    if kind == 0:
        return draw(paragraph(indent))
    if kind == 1:
        return "".join(f"{indent}* {draw(PHRASE)}\n" for _ in range(draw(st.integers(1, 3))))
    if kind == 4:
        return draw(glossary(indent))
    if kind == 5:
        return draw(noted(indent))
    if kind == 6:  # a class described by its signature, as Sphinx reads `.. class::`
        return f"{indent}.. class:: {draw(WORD)}.{draw(WORD)}({draw(WORD)})\n\n{draw(paragraph(indent + '   '))}"
    inner = indent + "   "
    body = "\n".join(draw(st.lists(block(inner, depth + 1), min_size=1, max_size=3)))
    if kind == 2:
        argument = draw(st.one_of(st.just(""), PHRASE))
        head = f"{indent}.. {draw(NAME)}::" + (f" {argument}" if argument else "")
        return f"{head}\n\n{body}"
    return f"{indent}.. note::\n\n{body}"


@st.composite
def document(draw: st.DrawFn) -> str:
    title = draw(PHRASE)
    blocks = draw(st.lists(block(), min_size=1, max_size=6))
    return f"{title}\n{'=' * len(title)}\n\n" + "\n".join(blocks)


def _prose_words(source: str) -> set[str]:
    """The source's words that a reader must see: generated words (roles' targets of `title <x>` aside)."""
    without_targets = re.sub(r"<w[a-z]+>`", "`", source)
    return set(re.findall(r"\bw[a-z]{4,9}\b", without_targets))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document())
def test_no_prose_word_of_the_source_is_lost(source: str) -> None:
    html, _ = rst_view(source)
    reader = _read(html)
    shown = set(re.findall(r"\bw[a-z]{4,9}\b", " ".join(reader.parts)))
    assert _prose_words(source) <= shown, (_prose_words(source) - shown, source)
    # And a block's source lines hold its words: a citation made from the rendered view is right.
    lines = source.split("\n")
    for first, last, collected in reader.lined:
        held = " ".join(lines[first - 1 : last])
        assert set(re.findall(r"\bw[a-z]{4,9}\b", " ".join(collected))) <= set(re.findall(r"\bw[a-z]{4,9}\b", held))


# -- select-to-cite from the rendered view, in chromium ---------------------------------------------


def test_a_selection_in_the_rendered_rst_view_cites_exactly_its_source(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    from indexer.site.serve import serve_in_thread

    corpus_repo.commit({"corpus/peps/pep-0204.rst": PEP})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    tab = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        tab.goto(base + "doc/corpus/peps/pep-0204.rst.html")
        assert "Guido found the syntax confusing." in tab.locator("#rendered").inner_text()
        for needle, source in (
            ("found the syntax confusing", "found the *syntax* confusing"),
            ("Makes a range object", "Makes a range object"),
        ):
            assert cited_source_of_selection(tab, corpus_repo.root, needle) == source
    finally:
        tab.close()
        server.shutdown()
        server.server_close()


def test_a_selection_over_a_glossary_link_cites_exactly_its_source(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    from indexer.site.serve import serve_in_thread

    corpus_repo.commit({"corpus/terms.rst": GLOSSARY})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    tab = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        tab.goto(base + "doc/corpus/terms.rst.html")
        for needle, source in (
            ("one or more license identifier(s)", "one or more :term:`license identifier`\\(s)"),
            ("names a License Identifier", "names a :term:`License Identifier`"),
        ):
            assert cited_source_of_selection(tab, corpus_repo.root, needle) == source
        # the term links to its glossary entry, which the browser scrolls to
        tab.click('a[href="#h-term-license-identifier"] >> nth=0')
        assert tab.evaluate("location.hash") == "#h-term-license-identifier"
    finally:
        tab.close()
        server.shutdown()
        server.server_close()
