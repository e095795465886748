"""What a document page states about its version is true, also where the indexed history starts late."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexer.api import build
from indexer.config import Config
from indexer.site.page_facts import document_facts
from indexer.site.search_bundles import fragment_records
from tests.conftest import CorpusRepo


def test_a_version_older_than_the_indexed_history_is_not_said_to_start_there(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({"corpus/old.md": "# Old\n\nWritten long ago.\n"}, "Write the old document")
    start = corpus_repo.commit({"corpus/other.md": "# Other\n"}, "Start of the indexed history")
    changed = corpus_repo.commit({"corpus/new.md": "# New\n"}, "Add a new document")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config(history_start=start))
    old = (site / "doc/corpus/old.md.html").read_text(encoding="utf-8")
    assert "unchanged since before the indexed history's start" in old
    assert "this version since" not in old and start[:12] in old
    new = (site / "doc/corpus/new.md.html").read_text(encoding="utf-8")
    assert "this version since" in new and changed[:12] in new and "unchanged since before" not in new


SHIPPED = Path(__file__).parent.parent / "site_templates"


def _quoted(template: str) -> str:
    """A shipped template as an earlier release wrote its attributes: every value quoted."""
    for value in ("content", "version", "doc-title", "doc-path", "doc-meta", "crumbs", "tag"):
        template = template.replace(f"id={value} ", f'id="{value}" ').replace(f"id={value}>", f'id="{value}">')
        template = template.replace(f"class={value} ", f'class="{value}" ').replace(
            f"class={value}>", f'class="{value}">'
        )
    return template.replace("data-kind=document", 'data-kind="document"')


def _records(site: Path) -> dict[str, dict[str, Any]]:
    """Each document page's Pagefind record in the built site, by its URL."""
    return {
        record["url"]: record
        for fragments in site.glob("pagefind/**/fragment")
        for _id, record in fragment_records(fragments.parent)
    }


def _facts_warnings(warnings: list[str]) -> list[str]:
    return [w for w in warnings if "search" in w and "document.html" in w]


def test_a_document_page_of_the_old_quoted_form_gives_the_search_its_facts(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    files = {
        "corpus/guide.md": "# The guide\n\nWords to find.\n",
        "templates/base.html": _quoted((SHIPPED / "base.html").read_text(encoding="utf-8")),
        "templates/document.html": _quoted((SHIPPED / "document.html").read_text(encoding="utf-8")),
        "templates/tag.html": _quoted((SHIPPED / "tag.html").read_text(encoding="utf-8")),
    }
    corpus_repo.commit(files)
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site, config=Config(template_dir="templates"))
    page = (site / "doc/corpus/guide.md.html").read_bytes()
    assert b'<main id="content" data-kind="document"' in page and b'<a id="version" href="' in page
    facts = document_facts(page)
    assert facts is not None and (facts.path, facts.title, facts.source_class) == (
        b"corpus/guide.md",
        b"The guide",
        b"text",
    )
    record = _records(site)["/doc/corpus/guide.md.html"]
    assert record["meta"]["path"] == "corpus/guide.md" and record["meta"]["title"] == "The guide", record
    assert record["filters"]["class"] == ["text"]
    assert _facts_warnings(summary.warnings) == []


def test_a_document_page_with_its_facts_on_main_as_an_earlier_release_wrote_them_is_read(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    old = (
        "{% extends 'compact.html' %}"
        '{% block main_attrs %}data-kind="document" data-blob="{{ meta.blob }}" data-commit="{{ intro.sha }}"'
        ' data-path="{{ path }}" data-class="{{ meta.source_class }}"{% endblock %}'
        '{% block content %}<article data-pagefind-body><h1 class="doc-title">{{ meta.title }}</h1>\n'
        '<p class="doc-path" data-pagefind-ignore><code>{{ path }}</code></p>{{ rendered }}</article>{% endblock %}'
    )
    corpus_repo.commit({"corpus/guide.md": "# The guide\n\nWords to find.\n", "templates/document.html": old})
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site, config=Config(template_dir="templates"))
    record = _records(site)["/doc/corpus/guide.md.html"]
    assert record["meta"]["path"] == "corpus/guide.md" and record["meta"]["title"] == "The guide", record
    assert _facts_warnings(summary.warnings) == []


def test_a_document_page_that_shows_no_facts_is_warned_of_once_naming_its_template(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    bare = "{% extends 'compact.html' %}{% block content %}<article data-pagefind-body>{{ rendered }}</article>"
    bare += "{% endblock %}"
    corpus_repo.commit(
        {
            "corpus/a.md": "# A\n\nFirst words.\n",
            "corpus/b.md": "# B\n\nSecond words.\n",
            "templates/document.html": bare,
        }
    )
    summary = build(corpus_repo.root, out=tmp_path / "site", config=Config(template_dir="templates"))
    warned = _facts_warnings(summary.warnings)
    assert len(warned) == 1, summary.warnings
    assert "templates/document.html" in warned[0] and "2 document pages" in warned[0], warned
