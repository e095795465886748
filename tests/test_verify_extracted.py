"""Citations of extracted documents (HTML, PDF): resolve on the extractor's text, drift is git's diff of it."""

from __future__ import annotations

import fpdf
import pytest

from indexer.citations.drift import verify
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import VerdictStatus
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

PARAGRAPHS = [f"Paragraph {i} says something long enough for the article extractor to keep it." for i in range(8)]


def page(paragraphs: list[str], banner: str = "") -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<html><head><title>Policy</title></head><body>{banner}<article><h1>Policy</h1>{body}</article></body></html>"
    )


@pytest.fixture
def html_history(corpus_repo: CorpusRepo) -> tuple[CorpusRepo, str]:
    pinned = corpus_repo.commit({"corpus/policy.html": page(PARAGRAPHS)})
    edited = [*PARAGRAPHS[:5], "Paragraph 5 now says something else entirely, and at some length too.", *PARAGRAPHS[6:]]
    corpus_repo.commit(
        {"corpus/policy.html": page(["Inserted first paragraph, long enough to be kept here.", *edited])}
    )
    return corpus_repo, pinned


def test_extracted_text_is_cited_and_verified_through_git_diff_of_the_texts(
    html_history: tuple[CorpusRepo, str],
) -> None:
    repo, pinned = html_history
    resolver = Resolver(GitRepo(repo.root))
    text = resolver.text_at(pinned, "corpus/policy.html").text
    lines = text.split("\n")
    line_of = {p: lines.index(p) + 1 for p in PARAGRAPHS}
    first = resolver.resolve(Citation(pinned, "corpus/policy.html", lines=(line_of[PARAGRAPHS[1]],) * 2))
    assert first.text == PARAGRAPHS[1] and first.source_class == "extracted"
    assert first.identity.startswith("html/")
    kept = verify(first.citation, resolver.repo, resolver=resolver)
    assert kept.status == VerdictStatus.VERIFIED and kept.relocated is not None
    moved = resolver.resolve(kept.relocated)
    assert moved.text == PARAGRAPHS[1] and moved.lines[0] > first.lines[0]
    changed = verify(Citation(pinned, "corpus/policy.html", lines=(line_of[PARAGRAPHS[5]],) * 2), resolver.repo)
    assert changed.status == VerdictStatus.DRIFTED and any(
        line.startswith("-Paragraph 5") for h in changed.hunks for line in h.lines
    )


def test_pdf_citation_reports_its_pages(corpus_repo: CorpusRepo) -> None:
    pdf = fpdf.FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in ("First page words about retention.", "Second page words about deletion."):
        pdf.add_page()
        pdf.cell(text=text)
    pinned = corpus_repo.commit({"corpus/report.pdf": bytes(pdf.output())})
    resolver = Resolver(GitRepo(corpus_repo.root))
    document = resolver.text_at(pinned, "corpus/report.pdf").text
    start = document.index("Second page words")
    resolved = resolver.resolve(Citation(pinned, "corpus/report.pdf", chars=(start, start + 17)))
    assert resolved.text == "Second page words" and resolved.pages == (2, 2)
    first = resolver.resolve(Citation(pinned, "corpus/report.pdf", chars=(0, document.index("Second page"))))
    assert first.pages is not None and first.pages[0] == 1
