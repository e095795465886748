"""An extracted citation names its extractor identity (docs/design.md#d13).

The upgrade is real: the HTML extractor's VERSION is bumped and its output changes (a line
before the text, so every offset moves), the repository is rebuilt, and citations made
before and after are resolved, verified and quote-checked against the one index.
"""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from indexer import api
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import VerdictStatus
from indexer.errors import ExtractionError
from indexer.extract import html as html_mod
from indexer.extract.base import ExtractedText, Limits
from indexer.index.documents import version_form
from indexer.index.store import IndexReader
from indexer.text.citation import identity_token, parse_citation
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo
from tests.extract_samples import ARTICLE, html_page

PAGE = "corpus/expenses.html"
QUOTE = "The finance team pays approved claims with the next monthly payment run"
NOTICE = "Notice added by the new extractor version.\n\n"
SITE = "https://docs.example.org"


def upgrade_html_extractor(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new extraction VERSION whose output differs: every offset after the start moves."""
    monkeypatch.setattr(html_mod, "VERSION", html_mod.VERSION + 1)
    original = html_mod.HtmlExtractor.extract

    def extract(self: html_mod.HtmlExtractor, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText:
        result = original(self, data, path, limits)
        return dataclasses.replace(result, text=NOTICE + result.text)

    monkeypatch.setattr(html_mod.HtmlExtractor, "extract", extract)


@pytest.fixture
def upgraded(corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch) -> tuple[CorpusRepo, api.Cited]:
    """A page cited under the first identity, then the extractor upgraded and the repository rebuilt."""
    corpus_repo.commit({PAGE: html_page(ARTICLE), "corpus/readme.md": "# Expenses\n\nSee the page.\n"})
    api.build(corpus_repo.root, site=False)
    old = api.cite(PAGE, corpus_repo.root, quote=QUOTE, site_url=SITE)
    upgrade_html_extractor(monkeypatch)
    shutil.rmtree(corpus_repo.root / ".pincite/cache", ignore_errors=True)  # the old text must come from the index
    api.build(corpus_repo.root, site=False)
    return corpus_repo, old


def test_a_citation_of_an_extracted_page_names_its_identity(corpus_repo: CorpusRepo) -> None:
    commit = corpus_repo.commit({PAGE: html_page(ARTICLE)})
    cited = api.cite(PAGE, corpus_repo.root, quote=QUOTE, site_url=SITE)
    token = identity_token(html_mod.HtmlExtractor().identity())
    assert cited.citation.identity_token == token
    assert cited.citation.text_form().endswith(f";x={token}")
    assert cited.permalink is not None and f"&x={token}#c" in cited.permalink
    assert parse_citation(cited.permalink).identity_token == token
    lines = api.cite(PAGE, corpus_repo.root, lines=(1, 1), unit="chars")
    assert lines.citation.identity_token == token and lines.citation.chars is not None
    assert api.resolve(lines.citation.text_form(), corpus_repo.root).resolved.commit == commit


def test_a_text_document_citation_stays_without_identity(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/readme.md": "# Expenses\n\nSee the page.\n"})
    cited = api.cite("corpus/readme.md", corpus_repo.root, lines=(3, 3), site_url=SITE)
    assert cited.citation.identity_token is None and ";x=" not in cited.citation.text_form()
    assert cited.permalink is not None and "&x=" not in cited.permalink


def test_the_rebuild_keeps_the_old_identitys_text_beside_the_new(upgraded: tuple[CorpusRepo, api.Cited]) -> None:
    repo, old = upgraded
    reader = IndexReader(repo.root / ".pincite/index.sqlite")
    try:
        identities = reader.identities_by_blob()[old.resolved.blob]
        assert identities == (old.resolved.identity, html_mod.HtmlExtractor().identity())
        form = version_form(old.resolved.citation.path, old.resolved.identity, 1200)
        kept = reader.version_under(old.resolved.blob, old.resolved.identity, form)
        assert kept is not None and kept.text == old.resolved.document.text
    finally:
        reader.close()


def test_an_old_citation_resolves_to_its_old_text_after_an_upgrade(upgraded: tuple[CorpusRepo, api.Cited]) -> None:
    repo, old = upgraded
    for form in (old.citation.text_form(), old.permalink or ""):
        resolved = api.resolve(form, repo.root).resolved
        assert resolved.text == QUOTE == old.resolved.text
        assert resolved.identity == old.resolved.identity
        assert resolved.span == old.resolved.span
        assert not resolved.document.text.startswith(NOTICE)


def test_a_new_citation_carries_the_new_identity_and_its_text(upgraded: tuple[CorpusRepo, api.Cited]) -> None:
    repo, old = upgraded
    new = api.cite(PAGE, repo.root, quote=QUOTE)
    new_identity = html_mod.HtmlExtractor().identity()
    assert new.citation.identity_token == identity_token(new_identity) != old.citation.identity_token
    assert new.resolved.identity == new_identity and new.resolved.text == QUOTE
    assert new.resolved.span.start == old.resolved.span.start + len(NOTICE)  # another offset space
    again = api.resolve(new.citation.text_form(), repo.root).resolved
    assert again.text == QUOTE and again.span == new.resolved.span and again.document.text.startswith(NOTICE)


def test_quote_checks_and_verdicts_of_both_citations_are_unaffected(upgraded: tuple[CorpusRepo, api.Cited]) -> None:
    repo, old = upgraded
    new = api.cite(PAGE, repo.root, quote=QUOTE)
    draft = f'Old: "{QUOTE}" ({old.citation.text_form()}).\n\nNew: "{QUOTE}" ({new.citation.text_form()}).\n'
    report = api.check_text(draft, repo.root)
    assert [r.status for r in report.records] == [VerdictStatus.VERIFIED, VerdictStatus.VERIFIED]
    assert [r.quote_verdict.status if r.quote_verdict else None for r in report.records] == ["matched", "matched"]
    [checked] = api.verify([old.citation], repo.root)
    relocated = checked.verdict.relocated
    assert relocated is not None and relocated.identity_token == old.citation.identity_token
    assert api.resolve(relocated, repo.root).resolved.text == QUOTE
    wrong = dataclasses.replace(old.citation, chars=(0, 10))
    report = api.check_text(f'"{QUOTE}" ({wrong.text_form()})\n', repo.root)
    assert report.records[0].quote_verdict is not None and report.records[0].quote_verdict.status == "wrong_ref"


def test_a_citation_without_identity_to_a_blob_of_two_is_unresolvable_naming_both(
    upgraded: tuple[CorpusRepo, api.Cited],
) -> None:
    repo, old = upgraded
    bare = dataclasses.replace(old.citation, identity_token=None, blob=None)
    with pytest.raises(ExtractionError) as info:
        api.resolve(bare, repo.root)
    message = str(info.value)
    assert old.resolved.identity in message and html_mod.HtmlExtractor().identity() in message
    assert f"x={old.citation.identity_token}" in message
    [checked] = api.verify([bare], repo.root)
    assert checked.verdict.status == VerdictStatus.UNRESOLVABLE and old.resolved.identity in checked.verdict.reason


def test_an_old_citation_resolves_from_the_extraction_cache_without_an_index(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus_repo.commit({PAGE: html_page(ARTICLE)})
    old = api.cite(PAGE, corpus_repo.root, quote=QUOTE)  # no index: extracted, and cached
    upgrade_html_extractor(monkeypatch)
    resolved = api.resolve(old.citation.text_form(), corpus_repo.root).resolved
    assert resolved.text == QUOTE and resolved.identity == old.resolved.identity


def test_an_identity_whose_text_is_nowhere_fails_closed_naming_both(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus_repo.commit({PAGE: html_page(ARTICLE)})
    old = api.cite(PAGE, corpus_repo.root, quote=QUOTE)
    upgrade_html_extractor(monkeypatch)
    shutil.rmtree(corpus_repo.root / ".pincite/cache")
    with pytest.raises(ExtractionError) as info:
        api.resolve(old.citation.text_form(), corpus_repo.root)
    message = str(info.value)
    assert f"x={old.citation.identity_token}" in message and html_mod.HtmlExtractor().identity() in message
    # Named by its full identity once the index recorded it, though its text is gone from both.
    resolver = Resolver(GitRepo(corpus_repo.root))
    with pytest.raises(ExtractionError) as info:
        resolver.text_under(old.resolved.blob, PAGE, old.resolved.identity)
    assert old.resolved.identity in str(info.value) and html_mod.HtmlExtractor().identity() in str(info.value)


def test_an_old_citation_of_a_page_changed_after_the_upgrade_is_unresolvable_not_drifted(
    upgraded: tuple[CorpusRepo, api.Cited],
) -> None:
    repo, old = upgraded
    repo.commit({PAGE: html_page(ARTICLE.replace("<h1>Expense claims</h1>", "<h1>Expense claims 2025</h1>"))})
    api.build(repo.root, site=False)
    [checked] = api.verify([old.citation], repo.root)
    assert checked.verdict.status == VerdictStatus.UNRESOLVABLE
    assert old.resolved.identity in checked.verdict.reason
    assert html_mod.HtmlExtractor().identity() in checked.verdict.reason
    new = api.cite(PAGE, repo.root, quote=QUOTE, rev="HEAD~1")
    [fresh] = api.verify([new.citation], repo.root)
    assert fresh.verdict.status == VerdictStatus.VERIFIED


def test_search_hits_of_the_upgraded_page_cite_the_new_identity(upgraded: tuple[CorpusRepo, api.Cited]) -> None:
    repo, _old = upgraded
    [hit] = [h for h in api.search("monthly payment run", repo.root) if h.path == PAGE]
    assert hit.citation.identity_token == identity_token(html_mod.HtmlExtractor().identity())
    resolved = api.resolve(hit.char_citation, repo.root).resolved
    assert resolved.text == hit.passage.text and QUOTE in resolved.text
    readme = [h for h in api.search("page", repo.root) if h.path == "corpus/readme.md"]
    assert readme and readme[0].citation.identity_token is None
