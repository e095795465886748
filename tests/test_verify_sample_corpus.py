"""Replay the sample corpus's history: citations made at its first commit, verified at its last.

The expected fates come from tests/sample_corpus_history.json, written by hand from the
edits; this reads the repository's own git objects, so it needs the full history.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from indexer.citations.drift import DRIFTED, VERIFIED, verify
from indexer.citations.quote import MATCHED, check_quote, locate_quote
from indexer.citations.resolve import Resolver
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo

REPO_ROOT = Path(__file__).resolve().parents[1]
HISTORY = json.loads(Path(__file__).with_name("sample_corpus_history.json").read_text(encoding="utf-8"))
PASSAGES = HISTORY["passages"]


@cache
def _setup() -> tuple[Resolver, str, str]:
    repo = GitRepo(REPO_ROOT)
    if repo.is_shallow():
        pytest.fail("this clone is shallow: the sample corpus history is missing (run `git fetch --unshallow`)")
    by_subject = {c.subject: c.sha for c in repo.first_parent_line(repo.resolve_commit("HEAD"))}
    first = by_subject[HISTORY["commits"][0]["message"]]
    last = by_subject[HISTORY["commits"][-1]["message"]]
    return Resolver(repo), first, last


def _where(resolver: Resolver, quote: str, commit: str) -> list[tuple[str, tuple[int, int] | None]]:
    return [(c.path, c.lines) for c in locate_quote(quote, commit, resolver, unit="lines")]


@pytest.mark.parametrize("passage", PASSAGES, ids=[p["id"] for p in PASSAGES])
def test_citation_made_at_the_first_commit_gets_the_expected_verdict_at_the_last(passage: dict[str, Any]) -> None:
    resolver, first, last = _setup()
    citation = Citation(first, passage["path"], lines=tuple(passage["lines_at_first"]))
    resolved = resolver.resolve(citation)
    assert check_quote(passage["quote"], resolved, resolver).status == MATCHED
    verdict = verify(citation, resolver.repo, last, resolver=resolver)
    fate = passage["fate"]
    at_last = (passage["path_at_last"], tuple(passage["lines_at_last"])) if passage.get("path_at_last") else None
    if fate in ("untouched", "renamed"):
        assert verdict.status == VERIFIED, verdict.reason
        assert verdict.relocated is not None and (verdict.relocated.path, verdict.relocated.lines) == at_last
        assert resolver.resolve(verdict.relocated).text == resolved.text
    elif fate == "moved_lines":
        if verdict.status == VERIFIED:
            assert verdict.relocated is not None and (verdict.relocated.path, verdict.relocated.lines) == at_last
        else:
            # git's diff shows some moves (two swapped sections) as a removal plus an
            # insertion: drifted, and recovery finds the identical text where it went.
            assert verdict.status == DRIFTED and verdict.hunks
            assert _where(resolver, passage["quote"], last)[0] == at_last
    elif fate == "moved_to_file":
        assert verdict.status == DRIFTED and verdict.hunks
        assert _where(resolver, passage["quote"], last)[0] == at_last
    elif fate == "edited":
        assert verdict.status == DRIFTED and verdict.hunks
        assert _where(resolver, passage["quote"], last) == []
        if passage.get("quote_at_last"):
            assert _where(resolver, passage["quote_at_last"], last)[0] == at_last
    else:
        assert fate == "deleted"
        assert verdict.status == DRIFTED and verdict.hunks
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
    resolver, first, last = _setup()
    statuses = {
        verify(
            Citation(first, p["path"], lines=tuple(p["lines_at_first"])), resolver.repo, last, resolver=resolver
        ).status
        for p in PASSAGES
        if p["fate"] == "moved_lines"
    }
    assert VERIFIED in statuses  # most moves are relocations, not drift
