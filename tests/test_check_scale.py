"""`check` of one large document stays linear: counted work, never timed.

A document of N citations costs N times the work of one (docs/reliability.md, "Bounds"). These
tests count what would grow faster: characters copied out of the document while it is scanned,
Python calls per citation (scan and check), and git processes (which follow the cited
(commit, path) pairs, not the citations).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from indexer.citations import scan as scan_module
from indexer.citations.check import check_paths
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

SHA = "0123456789abcdef0123456789abcdef01234567"
FILLER = "Prose between the quotations, as a writer's draft has it, with “a phrase” and a _word_.\n" * 3


def draft(citations: int, cite: Callable[[int], str], quote: Callable[[int], str]) -> str:
    """A Markdown draft: every citation with its quote above it, filler prose between them."""
    return "# Draft\n\n" + "".join(f"{FILLER}\n> {quote(i)}\n\n— {cite(i)}\n\n" for i in range(citations))


def quote_of(i: int) -> str:
    return f"Line {i % 20} of document {i % 5} says what it says."


class CountedText(str):
    """A document that counts the characters sliced out of it."""

    sliced = 0

    def __getitem__(self, key: Any) -> str:
        part = str.__getitem__(self, key)
        if isinstance(key, slice):
            CountedText.sliced += len(part)
        return part


def python_calls(function: Callable[[], object], under: str) -> int:
    """Python calls (and generator resumptions) made by `function` in modules under `under`."""
    calls = 0

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_filename.startswith(under):
            calls += 1

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return calls


def test_scanning_copies_each_character_of_a_document_a_bounded_number_of_times() -> None:
    CountedText.sliced = 0
    text = CountedText(draft(2000, lambda i: f"corpus/d{i % 5}.md@{SHA}#L{i % 20 + 1}", quote_of))
    found = scan_module.scan(text)
    assert len(found) == 2000 and all(f.quote == quote_of(i) for i, f in enumerate(found))
    # Copying the rest of the document once per citation made this 2,000 times the document.
    assert CountedText.sliced <= 2 * len(text), CountedText.sliced / len(text)


def test_scanning_twice_the_citations_is_twice_the_work() -> None:
    near_misses = lambda i: f"corpus/d{i % 5}.md@{SHA}#L{i + 1}" if i % 10 else f"corpus/d.md@{SHA}#L{i}ff"  # noqa: E731
    under = str(Path(scan_module.__file__).parent)
    small = python_calls(lambda: scan_module.scan(draft(400, near_misses, quote_of)), under)
    large = python_calls(lambda: scan_module.scan(draft(800, near_misses, quote_of)), under)
    # Each near-miss compared with every citation made this ratio 3.8.
    assert large <= 2.1 * small, large / small


@pytest.fixture
def corpus_and_pin(corpus_repo: CorpusRepo) -> tuple[CorpusRepo, str]:
    docs = {f"corpus/d{n}.md": "".join(f"{quote_of(k * 5 + n)}\n" for k in range(20)) for n in range(5)}
    pinned = corpus_repo.commit(docs)
    corpus_repo.commit({"corpus/d0.md": "A new first line.\n" + docs["corpus/d0.md"]})  # d0's citations drift
    return corpus_repo, pinned


def test_checking_twice_the_citations_is_twice_the_work_and_no_more_git(
    corpus_and_pin: tuple[CorpusRepo, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, pinned = corpus_and_pin
    started: list[object] = []
    real_popen = subprocess.Popen

    def popen(args: object, *rest: Any, **kwargs: Any) -> Any:
        started.append(args)
        return real_popen(args, *rest, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "Popen", popen)

    def check(citations: int) -> tuple[int, int]:
        doc = tmp_path / f"draft-{citations}.md"
        doc.write_text(draft(citations, lambda i: f"corpus/d{i % 5}.md@{pinned}#L{line(i) + 1}", cited_quote))
        started.clear()
        records: list[object] = []
        git = GitRepo(repo.root)
        under = str(Path(scan_module.__file__).parent.parent)
        calls = python_calls(lambda: records.extend(check_paths([doc], git).records), under)
        assert len(records) == citations
        return calls, len(started)

    def line(i: int) -> int:  # citation i cites document i % 5 at this line (0-based)
        return (i // 5) % 20

    def cited_quote(i: int) -> str:
        return quote_of(line(i) * 5 + i % 5)

    check(50)  # caches of the first run in this process (imports, compiled patterns) set aside
    small_calls, small_git = check(200)
    large_calls, large_git = check(400)
    assert large_git == small_git, (small_git, large_git)
    # The scan's quadratic steps made this ratio 2.7 (and 2.0 without them).
    assert large_calls <= 2.1 * small_calls, large_calls / small_calls
