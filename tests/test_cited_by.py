"""'Cited by' in the site: each document page lists who cites it, its source view marks the cited
lines, and citations.json lists every citation; pages are rendered again exactly when that changes."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from indexer.api import build
from indexer.citations import drift
from indexer.site.cited_by import CITATIONS_JSON, CitingPlace, gutter_marks
from indexer.text.citation import Citation
from tests.conftest import CorpusRepo

POLICY = "# Policy\n\nline a\nline b\nline c\nline d\n"


def corpus(repo: CorpusRepo) -> str:
    pinned = repo.commit({".gitignore": "_site/\n.pincite/\n", "corpus/policy.md": POLICY})
    repo.commit(
        {
            "corpus/notes.md": f'# Notes\n\n"line b" corpus/policy.md@{pinned}#L4\n',
            "docs/memo.md": f'# Memo\n\n"line c" corpus/policy.md@{pinned}#L5-L6\n',
        },
        message="cite the policy",
    )
    return pinned


def page(site: Path, path: str) -> str:
    return (site / "doc" / f"{path}.html").read_text(encoding="utf-8")


def source_text(page_html: str) -> str:
    """The text content of the source view, as a browser reads it."""
    found = re.search(r'<ol id="?src"?[^>]*>(.*?)</ol>', page_html, re.S)
    assert found is not None
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_a_document_page_lists_who_cites_it_and_marks_the_lines(corpus_repo: CorpusRepo) -> None:
    pinned = corpus(corpus_repo)
    build(corpus_repo.root)
    site = corpus_repo.root / "_site"
    policy = page(site, "corpus/policy.md")
    cited_by = policy[policy.index('id="cited-by"') :]
    assert '<a class="citing" href="../../doc/corpus/notes.md.html#L3">corpus/notes.md:3</a>' in cited_by
    assert '<span class="citing">docs/memo.md:3</span>' in cited_by  # outside the site, no GitHub origin
    assert '<a href="#L5">lines 5–6</a>' in cited_by and "verdict-verified" in cited_by
    assert "quote matched" in cited_by
    assert "path=corpus/policy.md#L4" in cited_by and pinned in cited_by
    # The gutter: links on a range's first line, a bar on the lines after; the text stays the text.
    line4 = re.search(r"<li id=L4>(.*)", policy)
    assert line4 and 'class="cite-mark cite-verified" href="../../doc/corpus/notes.md.html#L3"' in line4.group(1)
    line5 = re.search(r"<li id=L5>(.*)", policy)
    assert line5 and 'href="#cited-by-2"' in line5.group(1)  # no page to go to: the entry in the list
    assert re.search(r'<li id=L6><i class="cite-bar cite-verified"></i>line d', policy)
    assert source_text(policy) == POLICY
    assert 'id="cited-by"' not in page(site, "corpus/notes.md")  # nobody cites the notes

    data = json.loads((site / CITATIONS_JSON).read_text(encoding="utf-8"))
    rows = [(c["file"], c["line"], c["verdict"], c["quote_verdict"], c["path"], c["lines"]) for c in data["citations"]]
    assert rows == [
        ("corpus/notes.md", 3, "verified", "matched", "corpus/policy.md", [4, 4]),
        ("docs/memo.md", 3, "verified", "matched", "corpus/policy.md", [5, 6]),
    ]
    assert data["head"] == corpus_repo.head() and data["problem"] is None


def test_the_page_follows_its_citations_from_build_to_build(corpus_repo: CorpusRepo) -> None:
    pinned = corpus(corpus_repo)
    first = build(corpus_repo.root)
    site = corpus_repo.root / "_site"
    again = build(corpus_repo.root)
    assert again.site is not None and again.site["pages_rendered"] == 0  # nothing changed: every page reused
    assert first.site is not None and first.site["pages_rendered"] > 0

    # Only a document outside the site changes: the cited page is rendered again, with the new lines.
    corpus_repo.commit({"docs/memo.md": f'# Memo\n\n"line d" corpus/policy.md@{pinned}#L6\n'})
    build(corpus_repo.root)
    policy = page(site, "corpus/policy.md")
    assert '<a href="#L6">line 6</a>' in policy and "lines 5–6" not in policy

    # The policy is edited under a citation: it drifts, and the page and the mark say so.
    corpus_repo.commit({"corpus/policy.md": POLICY.replace("line b", "line B")})
    build(corpus_repo.root)
    policy = page(site, "corpus/policy.md")
    assert re.search(r'<li id=L4><i class="cite-marks"><a class="cite-mark cite-drifted"', policy)
    assert 'verdict-drifted">drifted</span>' in policy
    data = json.loads((site / CITATIONS_JSON).read_text(encoding="utf-8"))
    assert [c["verdict"] for c in data["citations"]] == ["drifted", "verified"]


def test_a_renamed_document_is_cited_where_its_lines_stand_now(corpus_repo: CorpusRepo) -> None:
    corpus(corpus_repo)
    corpus_repo.move("corpus/policy.md", "corpus/rules/policy.md")
    build(corpus_repo.root)
    site = corpus_repo.root / "_site"
    assert "corpus/notes.md:3" in page(site, "corpus/rules/policy.md")


def test_gutter_marks_are_empty_elements_and_stay_inside_the_document() -> None:
    def place(lines: tuple[int, int] | None, href: str | None, verdict: str = "verified") -> CitingPlace:
        return CitingPlace(
            "docs/m.md", 3, href, "c", "c", verdict, None, "a.md", lines, None, "a.md" if lines else None, lines
        )

    marks = gutter_marks(
        [
            place((2, 4), "doc/x.md.html#L3"),
            place((2, 2), "https://github.com/o/r/blob/s/m.md#L3", "drifted"),
            place((9, 12), None),
            place(None, None),
        ],
        "../",
        10,
    )
    assert sorted(marks) == [2, 3, 4, 9, 10]  # past the last line: nothing
    assert 'href="../doc/x.md.html#L3"' in marks[2] and 'href="https://github.com/o/r/blob/s/m.md#L3"' in marks[2]
    assert 'href="#cited-by-3"' in marks[9]
    assert all(re.sub(r"<[^>]+>", "", mark) == "" for mark in marks.values())


def test_one_check_per_build_serves_the_citations_page_and_cited_by(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus(corpus_repo)
    verified: list[str] = []
    original = drift.verify

    def counting(citation: Citation, *args: Any, **kwargs: Any) -> Any:
        verified.append(citation.text_form())
        return original(citation, *args, **kwargs)

    # Every module that holds `verify` by name counts, whichever calls it.
    for module in list(sys.modules.values()):
        if module is not None and module.__name__.startswith("indexer") and getattr(module, "verify", None) is original:
            monkeypatch.setattr(module, "verify", counting)
    build(corpus_repo.root)
    site = corpus_repo.root / "_site"
    listed = json.loads((site / CITATIONS_JSON).read_text(encoding="utf-8"))["citations"]
    assert len(listed) == 2 and len(verified) == 2  # each citation of the tree verified once, not once per page
    report = (site / "citations.html").read_text(encoding="utf-8")
    assert "corpus/notes.md:3" in report and "docs/memo.md:3" in report
    assert 'href="doc/corpus/notes.md.html#L3"' in report  # a document with a page links to it
