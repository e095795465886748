"""Replay the sample corpus's history: citations made where each passage is recorded (the
first corpus commit, or its `recorded_at` commit), verified at the last corpus commit.

The expected fates come from tests/sample_corpus_history.json, written by hand from the
edits; this reads the repository's own git objects, so it needs the full history.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from indexer.citations.drift import verify
from indexer.citations.quote import check_quote, exact_places
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import QuoteStatus, VerdictStatus
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo

REPO_ROOT = Path(__file__).resolve().parents[1]
HISTORY = json.loads(Path(__file__).with_name("sample_corpus_history.json").read_text(encoding="utf-8"))
PASSAGES = HISTORY["passages"]
NEW_FORMATS = {
    "corpus/governance/general-meetings.rst": ("rst-quorum-half", "rst-one-member-one-vote"),
    "corpus/operations/release-process.adoc": ("adoc-release-window", "adoc-anyone-may-roll-back"),
    "corpus/lisbon/guia-do-escritorio.txt": ("latin1-opening-hours", "latin1-metro-station"),
}


@cache
def _subjects() -> dict[str, str]:
    """Commit SHA by subject, over all of HEAD's ancestors (a merged branch's commits included)."""
    repo = GitRepo(REPO_ROOT)
    if repo.is_shallow():
        pytest.fail("this clone is shallow: the sample corpus history is missing (run `git fetch --unshallow`)")
    log = repo.run_text("log", "--format=%H %s", "HEAD")
    return {subject: sha for sha, _, subject in (line.partition(" ") for line in log.splitlines())}


@cache
def _setup() -> tuple[Resolver, str, str]:
    first = _subjects()[HISTORY["commits"][0]["message"]]
    last = _subjects()[HISTORY["commits"][-1]["message"]]
    return Resolver(GitRepo(REPO_ROOT)), first, last


def _recorded_at(passage: dict[str, Any]) -> str:
    """The commit the passage's quote is recorded at: `recorded_at`, else the first corpus commit."""
    return _subjects()[passage["recorded_at"]] if "recorded_at" in passage else _setup()[1]


def _passage(passage_id: str) -> dict[str, Any]:
    return next(p for p in PASSAGES if p["id"] == passage_id)


def _where(resolver: Resolver, quote: str, commit: str) -> list[tuple[str, tuple[int, int] | None]]:
    return [(c.path, c.lines) for c in exact_places(quote, commit, resolver, unit="lines")]


@pytest.mark.parametrize("passage", PASSAGES, ids=[p["id"] for p in PASSAGES])
def test_citation_made_at_the_first_commit_gets_the_expected_verdict_at_the_last(passage: dict[str, Any]) -> None:
    resolver, _, last = _setup()
    citation = Citation(_recorded_at(passage), passage["path"], lines=tuple(passage["lines_at_first"]))
    resolved = resolver.resolve(citation)
    assert check_quote(passage["quote"], resolved, resolver).status == QuoteStatus.MATCHED
    verdict = verify(citation, resolver.repo, last, resolver=resolver)
    fate = passage["fate"]
    at_last = (passage["path_at_last"], tuple(passage["lines_at_last"])) if passage.get("path_at_last") else None
    if fate in ("untouched", "renamed"):
        assert verdict.status == VerdictStatus.VERIFIED, verdict.reason
        assert verdict.relocated is not None and (verdict.relocated.path, verdict.relocated.lines) == at_last
        assert resolver.resolve(verdict.relocated).text == resolved.text
    elif fate == "moved_lines":
        if verdict.status == VerdictStatus.VERIFIED:
            assert verdict.relocated is not None and (verdict.relocated.path, verdict.relocated.lines) == at_last
        else:
            # git's diff shows some moves (two swapped sections) as a removal plus an
            # insertion: drifted, and recovery finds the identical text where it went.
            assert verdict.status == VerdictStatus.DRIFTED and verdict.hunks
            assert _where(resolver, passage["quote"], last)[0] == at_last
    elif fate == "moved_to_file":
        assert verdict.status == VerdictStatus.DRIFTED and verdict.hunks
        assert _where(resolver, passage["quote"], last)[0] == at_last
    elif fate == "edited":
        assert verdict.status == VerdictStatus.DRIFTED and verdict.hunks
        assert _where(resolver, passage["quote"], last) == []
        if passage.get("quote_at_last"):
            assert _where(resolver, passage["quote_at_last"], last)[0] == at_last
    else:
        assert fate == "deleted"
        assert verdict.status == VerdictStatus.DRIFTED and verdict.hunks
        assert _where(resolver, passage["quote"], last) == []


def test_every_fate_is_replayed() -> None:
    assert {p["fate"] for p in PASSAGES} == {
        "untouched",
        "moved_lines",
        "edited",
        "moved_to_file",
        "renamed",
        "deleted",
    }
    resolver, _, last = _setup()
    statuses = {
        verify(
            Citation(_recorded_at(p), p["path"], lines=tuple(p["lines_at_first"])),
            resolver.repo,
            last,
            resolver=resolver,
        ).status
        for p in PASSAGES
        if p["fate"] == "moved_lines"
    }
    assert VerdictStatus.VERIFIED in statuses  # most moves are relocations, not drift


@pytest.mark.parametrize("path", sorted(NEW_FORMATS))
def test_rst_asciidoc_and_latin1_citations_from_their_first_commit_drift_or_verify_at_head(path: str) -> None:
    """In each of the three formats, an edited passage drifts and an untouched one verifies."""
    resolver, _, _ = _setup()
    head = resolver.repo.resolve_commit("HEAD")
    edited, kept = (_passage(i) for i in NEW_FORMATS[path])
    verdicts = {}
    for passage in (edited, kept):
        assert passage["path"] == path and _recorded_at(passage) == _subjects()[passage["recorded_at"]]
        citation = Citation(_recorded_at(passage), path, chars=tuple(passage["span_at_first"]))
        assert resolver.resolve(citation).text == passage["quote"]
        verdicts[passage["id"]] = verify(citation, resolver.repo, head, resolver=resolver)
    drifted, verified = verdicts[edited["id"]], verdicts[kept["id"]]
    assert drifted.status == VerdictStatus.DRIFTED and drifted.hunks
    new_words = edited["quote_at_last"].split("\n")[0]
    assert any(new_words in line for hunk in drifted.hunks for line in hunk.lines), "hunks hold decoded text"
    assert verified.status == VerdictStatus.VERIFIED, verified.reason
    assert verified.relocated is not None and verified.relocated.chars == tuple(kept["span_at_last"])
    assert resolver.resolve(verified.relocated).text == kept["quote"]


def test_the_latin1_document_resolves_by_code_points_to_its_accented_text() -> None:
    """Offsets count decoded characters, not bytes: each accented letter is one code point."""
    resolver, _, _ = _setup()
    passage = _passage("latin1-metro-station")
    start, end = passage["span_at_first"]
    commit = _recorded_at(passage)
    resolved = resolver.resolve(Citation(commit, passage["path"], chars=(start, end)))
    assert resolved.text == "A estação de metro mais próxima é a Baixa-Chiado, na linha verde e na linha azul."
    assert resolved.identity.endswith(";encoding=iso8859-1"), resolved.identity
    word = resolver.resolve(Citation(commit, passage["path"], chars=(start + 2, start + 9)))
    assert word.text == "estação"
    raw = resolver.repo.read_blob(resolved.blob)
    assert "estação".encode("latin-1") in raw and "estação".encode() not in raw
    assert end - start == len(resolved.text) < len(resolved.text.encode("utf-8")), "code points, not UTF-8 bytes"
