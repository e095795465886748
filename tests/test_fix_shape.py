"""`check --fix` re-pins a citation only to as many lines holding exactly the cited text (never narrows)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.citations.check import check_paths
from indexer.citations.drift import verify
from indexer.citations.resolve import Resolver
from indexer.citations.scan import scan
from indexer.citations.verdicts import Detail, Outcome
from indexer.text.citation import Citation
from indexer.text.normalize import normalize
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

BODY = "Other work in this area was done by the lint team.\n"


def _fix(repo: CorpusRepo, memo: Path) -> str:
    check_paths([memo], GitRepo(repo.root), fix=True, accept_moved=True)
    return memo.read_text(encoding="utf-8")


@pytest.mark.parametrize("indexed", [False, True])
def test_a_heading_that_gained_a_level_is_never_re_pinned_as_moved(corpus_repo: CorpusRepo, indexed: bool) -> None:
    first = corpus_repo.commit({"corpus/rfc.md": f"# Title\n\nIntro.\n\n# Prior art\n\n{BODY}"})
    corpus_repo.commit({"corpus/rfc.md": f"# Title\n\nIntro.\n\nMore intro.\n\n## Prior art\n\n{BODY}"})
    if indexed:
        build(corpus_repo.root, site=False)
    cited = f"corpus/rfc.md@{first}#L4-L6"
    memo = corpus_repo.root.parent / "memo.md"
    memo.write_text(f"> # Prior art\n\n{cited}\n", encoding="utf-8")
    report = check_paths([memo], GitRepo(corpus_repo.root), fix=True, accept_moved=True)
    (record,) = report.records
    assert record.recovery is not None and not record.recovery.moved and record.recovery.new_citation is None
    # The words stand in the cited document itself (inside "## Prior art"): the text changed, not "other document".
    assert record.recovery.detail == Detail.CHANGED and record.recovery.outcome == Outcome.NEEDS_HUMAN
    assert memo.read_text(encoding="utf-8") == f"> # Prior art\n\n{cited}\n" and report.fixed == []


@pytest.mark.parametrize("quoted", [False, True])
def test_a_move_keeps_the_leading_and_trailing_blank_lines_of_the_range(corpus_repo: CorpusRepo, quoted: bool) -> None:
    para = "The kitchen closes at eight in the evening on weekdays."
    first = corpus_repo.commit({"corpus/a.md": f"# A\n\n{para}\n\nFire drills twice a year.\n"})
    head = corpus_repo.commit({"corpus/a.md": f"# A\n\nFire drills twice a year.\n\nBadges.\n\n{para}\n\nEnd.\n"})
    memo = corpus_repo.root.parent / "memo.md"
    quote = f"> {para}\n\n" if quoted else ""
    memo.write_text(f"{quote}corpus/a.md@{first}#L2-L4\n", encoding="utf-8")
    fixed = _fix(corpus_repo, memo)
    assert fixed == f"{quote}corpus/a.md@{head}#L6-L8\n"  # three lines, as cited: blank, the paragraph, blank


def test_a_quote_from_part_of_the_range_moves_the_whole_range_or_nothing(corpus_repo: CorpusRepo) -> None:
    block = "Alpha line one.\nBeta line two.\nGamma line three.\n"
    first = corpus_repo.commit({"corpus/a.md": f"Top.\n{block}End of the top.\n"})
    head = corpus_repo.commit({"corpus/a.md": f"Top.\nEnd of the top.\nA new line.\n{block}"})
    memo = corpus_repo.root.parent / "memo.md"
    # The quote is the middle line; the cited range was three lines and stays three lines.
    memo.write_text(f"> Beta line two.\n\ncorpus/a.md@{first}#L2-L4\n", encoding="utf-8")
    assert _fix(corpus_repo, memo) == f"> Beta line two.\n\ncorpus/a.md@{head}#L4-L6\n"
    # Once a line beside the quote changed, no range holds the cited text: the citation is left alone.
    corpus_repo.commit({"corpus/a.md": f"Top.\n{block}End of the top.\n"})
    before = corpus_repo.head()
    corpus_repo.commit(
        {"corpus/a.md": "Top.\nEnd of the top.\nNew.\nAlpha line ONE.\nBeta line two.\nGamma line three.\n"}
    )
    memo.write_text(f"> Beta line two.\n\ncorpus/a.md@{before}#L2-L4\n", encoding="utf-8")
    assert _fix(corpus_repo, memo) == f"> Beta line two.\n\ncorpus/a.md@{before}#L2-L4\n"


# -- property: no --fix mode changes a citation's line count or document, except as documented ------------
WORDS = ["alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma", "theta"]


def _random_doc(rnd: random.Random, n: int) -> list[str]:
    return ["" if rnd.random() < 0.3 else " ".join(rnd.sample(WORDS, 3)) + f" {i}." for i in range(n)]


def _edit(rnd: random.Random, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(rnd.randint(1, 3)):
        kind = rnd.choice(["insert", "delete", "move", "heading", "edit"])
        at = rnd.randrange(len(out)) if out else 0
        if kind == "insert":
            out.insert(at, rnd.choice(["", "inserted line."]))
        elif kind == "delete" and len(out) > 2:
            del out[at]
        elif kind == "move" and len(out) > 3:
            block = out[at : at + 3]
            del out[at : at + 3]
            where = rnd.randrange(len(out) + 1)
            out[where:where] = block
        elif kind == "heading" and out:
            out[at] = "#" + out[at]  # "# x" found inside "## x" must never count as a move
        elif kind == "edit" and out and out[at]:
            out[at] = out[at].replace(".", "!")
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.booleans(), st.booleans())
def test_no_fix_mode_changes_a_citations_line_count_or_document(rnd: random.Random, quoted: bool, moves: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = CorpusRepo(Path(tmp) / "repo")
        old = ["# " + rnd.choice(WORDS), *_random_doc(rnd, 14)]
        first = repo.commit({"corpus/a.md": "\n".join(old) + "\n", "corpus/b.md": "\n".join(old[3:9]) + "\n"})
        repo.commit({"corpus/a.md": "\n".join(_edit(rnd, old)) + "\n"})
        git = GitRepo(repo.root)
        resolver = Resolver(git)
        memo = Path(tmp) / "memo.md"
        cited: list[Citation] = []
        parts = []
        for _ in range(5):
            a = rnd.randint(1, len(old))
            b = rnd.randint(a, min(len(old), a + 3))
            citation = Citation(first, "corpus/a.md", lines=(a, b))
            text = resolver.resolve(citation).text
            words = [line for line in text.splitlines() if line.strip()]
            quote = f"> {rnd.choice(words)}\n\n" if quoted and words else ""
            cited.append(citation)
            parts.append(f"{quote}{citation.text_form()}\n\n")
        memo.write_text("".join(parts), encoding="utf-8")
        check_paths([memo], git, fix=True, accept_moved=moves)
        after = [f.citation for f in scan(memo.read_text(encoding="utf-8"))]
        assert len(after) == len(cited)
        for old_citation, new in zip(cited, after, strict=True):
            assert new is not None and old_citation.lines is not None
            if new == old_citation:
                continue
            assert new.path == old_citation.path  # the cited document stands: never re-pinned to another
            assert new.lines is not None
            assert new.lines[1] - new.lines[0] == old_citation.lines[1] - old_citation.lines[0]
            assert normalize(resolver.resolve(new).text) == normalize(resolver.resolve(old_citation).text)
            assert verify(new, git, resolver=resolver).status == "verified"
