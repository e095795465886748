"""Recovery of broken citations, in real git repositories with a real index."""

from __future__ import annotations

import json
import random
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.citations.check import check_paths
from indexer.citations.discovery import quote_spans
from indexer.citations.drift import Verdict, verify
from indexer.citations.quote_search import ANCHORS, FUZZY_MAX_WORDS, FUZZY_SCORED, QuoteSearcher, best_window, word_diff
from indexer.citations.recovery import Recoverer, RecoveryAttempt, read_attempts, write_attempts
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import Detail, VerdictStatus
from indexer.text.citation import Citation
from indexer.text.model import LineIndex
from indexer.text.normalize import normalize
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo, arguments_of

INTRO = "# Office handbook\n"
P_MOVE_AWAY = "Visitors sign the guest book at the front desk before they go upstairs."
P_MOVE_DOWN = "The kitchen closes at eight in the evening on weekdays."
P_EDIT = "Expense claims are paid within thirty days of approval by the finance team."
P_EDITED = "Expense claims are paid within forty-five days of approval by the finance team."
P_DELETE = "Badges must be worn visibly at all times inside the building."
P_KEEP = "Fire drills happen twice a year, announced one week ahead."
OTHER = "# Reception\n\nThe reception is staffed from seven to seven.\n"


def doc(*paragraphs: str) -> str:
    return INTRO + "".join(f"\n{p}\n" for p in paragraphs)


class History:
    """A corpus where four cited paragraphs meet four fates, one commit each."""

    def __init__(self, repo: CorpusRepo) -> None:
        self.repo = repo
        self.first = repo.commit(
            {
                "corpus/handbook.md": doc(P_MOVE_AWAY, P_MOVE_DOWN, P_EDIT, P_DELETE, P_KEEP),
                "corpus/reception.md": OTHER,
            },
            "Add the handbook",
        )
        self.moved_away = repo.commit(
            {
                "corpus/handbook.md": doc(P_MOVE_DOWN, P_EDIT, P_DELETE, P_KEEP),
                "corpus/reception.md": OTHER + f"\n{P_MOVE_AWAY}\n",
            },
            "Move the guest book rule to reception",
        )
        self.moved_down = repo.commit(
            {"corpus/handbook.md": doc(P_EDIT, P_DELETE, P_KEEP, P_MOVE_DOWN)},
            "Put the kitchen last",
        )
        self.edited = repo.commit(
            {"corpus/handbook.md": doc(P_EDITED, P_DELETE, P_KEEP, P_MOVE_DOWN)},
            "Pay expenses in forty-five days",
        )
        self.deleted = repo.commit(
            {"corpus/handbook.md": doc(P_EDITED, P_KEEP, P_MOVE_DOWN)},
            "Drop the badge rule\n\nBadges are no longer required since the new gates.",
        )
        self.root = repo.root
        build(self.root, site=False)
        self.git = GitRepo(self.root)
        self.resolver = Resolver(self.git)
        self.recoverer = Recoverer(self.resolver)

    def cite(self, paragraph: str, *, quote: bool = True, commit: str | None = None) -> Citation:
        text = doc(P_MOVE_AWAY, P_MOVE_DOWN, P_EDIT, P_DELETE, P_KEEP)
        line = LineIndex(text).line_of(text.index(paragraph))
        cited = paragraph if quote else None
        return Citation(commit or self.first, "corpus/handbook.md", lines=(line, line), quote=cited)

    def attempt(self, citation: Citation, quote: str | None = None) -> tuple[Verdict, RecoveryAttempt | None]:
        verdict = verify(citation, self.git, "HEAD", resolver=self.resolver)
        return verdict, self.recoverer.attempt(verdict, quote or citation.quote)

    def text_of(self, citation: Citation) -> str:
        return self.resolver.resolve(citation).text


@pytest.fixture
def history(corpus_repo: CorpusRepo) -> History:
    return History(corpus_repo)


def test_words_in_another_file_while_the_cited_one_stands_are_left_to_a_person(history: History) -> None:
    verdict, attempt = history.attempt(history.cite(P_MOVE_AWAY))
    assert verdict.status == VerdictStatus.DRIFTED and verdict.new_path == "corpus/handbook.md"
    assert attempt is not None
    assert (attempt.outcome, attempt.detail) == ("needs_human", Detail.OTHER_DOCUMENT)
    assert attempt.new_citation is None and not attempt.applicable(accept_moved=True)
    assert attempt.search is not None and [p.path for p in attempt.search.places] == ["corpus/reception.md"]
    assert "corpus/handbook.md still exists" in attempt.summary()
    assert "corpus/reception.md@" in attempt.summary()


def test_a_template_sentence_in_an_unrelated_document_is_never_where_a_citation_went(
    corpus_repo: CorpusRepo,
) -> None:
    template = "This page is maintained by the platform team; ask in the team channel."
    first = corpus_repo.commit(
        {"corpus/a.md": f"# A\n\n{template}\n", "corpus/b.md": f"# B\n\nOther words.\n\n{template}\n"}
    )
    corpus_repo.commit({"corpus/a.md": "# A\n\nThe footer was rewritten.\n"})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    verdict = verify(Citation(first, "corpus/a.md", lines=(3, 3)), resolver.repo, "HEAD", resolver=resolver)
    attempt = Recoverer(resolver).attempt(verdict, template)
    assert attempt is not None and (attempt.outcome, attempt.detail) == ("needs_human", Detail.OTHER_DOCUMENT)
    assert not attempt.applicable(accept_moved=True)


def test_words_of_a_deleted_file_found_in_exactly_one_document_are_a_move(corpus_repo: CorpusRepo) -> None:
    first = corpus_repo.commit({"corpus/a.md": f"# A\n\n{P_MOVE_AWAY}\n", "corpus/b.md": "# B\n"})
    head = corpus_repo.commit({"corpus/a.md": None, "corpus/b.md": f"# B\n\n{P_MOVE_AWAY}\n"})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    verdict = verify(Citation(first, "corpus/a.md", lines=(3, 3)), resolver.repo, "HEAD", resolver=resolver)
    attempt = Recoverer(resolver).attempt(verdict, P_MOVE_AWAY)
    assert attempt is not None and (attempt.outcome, attempt.detail) == ("relocated", Detail.MOVED)
    new = attempt.new_citation
    assert new is not None and (new.path, new.commit, new.lines) == ("corpus/b.md", head, (3, 3))
    assert verify(new, resolver.repo, "HEAD", resolver=resolver).status == VerdictStatus.VERIFIED
    assert attempt.applicable(accept_moved=True) and not attempt.applicable(accept_moved=False)


def test_only_places_in_the_cited_document_count_while_it_stands(corpus_repo: CorpusRepo) -> None:
    first = corpus_repo.commit({"corpus/a.md": f"# A\n\n{P_KEEP}\n\n{P_EDIT}\n", "corpus/b.md": f"{P_KEEP}\n"})
    corpus_repo.commit({"corpus/a.md": f"# A\n\n{P_EDIT}\n\n{P_KEEP}\n"})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    verdict = verify(Citation(first, "corpus/a.md", lines=(3, 3)), resolver.repo, "HEAD", resolver=resolver)
    attempt = Recoverer(resolver).attempt(verdict, P_KEEP)
    assert attempt is not None and attempt.moved
    assert attempt.new_citation is not None and attempt.new_citation.path == "corpus/a.md"
    assert attempt.new_citation.lines == (5, 5)
    # Found in the cited document, the quote is not looked for elsewhere: b.md's copy is never offered.
    assert attempt.search is not None and [c.path for c in attempt.search.places] == ["corpus/a.md"]
    assert any("exact search in corpus/a.md, the cited document at the target: 1 place(s)" in s for s in attempt.steps)


def test_moved_within_the_file_gets_a_new_citation(history: History) -> None:
    verdict, attempt = history.attempt(history.cite(P_MOVE_DOWN))
    assert verdict.status == VerdictStatus.DRIFTED
    assert attempt is not None
    assert (attempt.outcome, attempt.detail) == ("relocated", Detail.MOVED)
    new = attempt.new_citation
    assert new is not None and new.path == "corpus/handbook.md"
    assert new.lines is not None and new.lines != history.cite(P_MOVE_DOWN).lines
    assert history.text_of(new) == P_MOVE_DOWN


def test_edited_passage_gets_the_nearest_text_and_the_diff(history: History) -> None:
    _verdict, attempt = history.attempt(history.cite(P_EDIT))
    assert attempt is not None
    assert (attempt.outcome, attempt.detail) == ("suggested", Detail.CHANGED)
    assert attempt.new_citation is None and not attempt.applicable(accept_moved=True)
    search = attempt.search
    assert search is not None and not search.places
    nearest = search.near[0]
    assert nearest.text == P_EDITED and nearest.path == "corpus/handbook.md"
    assert 0.6 <= nearest.similarity < 1.0
    assert "[-thirty-]" in nearest.word_diff and "{+forty-five+}" in nearest.word_diff
    assert history.text_of(nearest.citation) == P_EDITED
    assert search.last_seen is not None
    assert (search.last_seen.last_commit, search.last_seen.removed_by) == (history.moved_down, history.edited)
    assert search.last_seen.change == "modified"
    diff = [line for hunk in search.last_seen.hunks for line in hunk.lines]
    assert f"-{P_EDIT}" in diff and f"+{P_EDITED}" in diff


def test_deleted_passage_gets_the_last_commit_and_the_removing_commit(history: History) -> None:
    _verdict, attempt = history.attempt(history.cite(P_DELETE))
    assert attempt is not None
    assert (attempt.outcome, attempt.detail) == ("not_found", Detail.REMOVED)
    seen = attempt.search.last_seen if attempt.search else None
    assert seen is not None
    assert (seen.last_commit, seen.removed_by) == (history.edited, history.deleted)
    assert seen.subject == "Drop the badge rule"
    assert "no longer required" in seen.message
    assert [line for hunk in seen.hunks for line in hunk.lines] == [f"-{P_DELETE}", "-"]


def test_without_a_quote_the_pinned_text_is_searched(history: History) -> None:
    _verdict, attempt = history.attempt(history.cite(P_MOVE_DOWN, quote=False))
    assert attempt is not None and attempt.moved
    assert attempt.steps[0] == "search key: the text of the pinned span"


def test_untouched_citation_needs_no_recovery(history: History) -> None:
    _verdict, attempt = history.attempt(history.cite(P_KEEP))
    # P_KEEP moved up two lines: git's diff relocates it exactly.
    assert attempt is not None
    assert (attempt.outcome, attempt.detail) == ("relocated", Detail.SHIFTED)
    assert attempt.applicable(accept_moved=False)
    assert attempt.new_citation is not None and history.text_of(attempt.new_citation) == P_KEEP
    same = Citation(history.deleted, "corpus/handbook.md", lines=attempt.new_citation.lines, quote=P_KEEP)
    assert history.attempt(same)[1] is None


def test_quote_at_several_places_needs_a_person(corpus_repo: CorpusRepo) -> None:
    repo = corpus_repo
    # a.md holds more than the quote, so git does not take b.md or c.md for a.md renamed.
    first = repo.commit({"corpus/a.md": f"# A\n\n{P_KEEP}\n\n{P_EDIT}\n\n{P_DELETE}\n\n{P_MOVE_DOWN}\n"})
    repo.commit({"corpus/a.md": None, "corpus/b.md": f"{P_KEEP}\n", "corpus/c.md": f"{P_KEEP}\n"})
    root = repo.root
    build(root, site=False)
    resolver = Resolver(GitRepo(root))
    verdict = verify(Citation(first, "corpus/a.md", lines=(3, 3)), resolver.repo, "HEAD", resolver=resolver)
    attempt = Recoverer(resolver).attempt(verdict, P_KEEP)
    assert attempt is not None
    assert (attempt.outcome, attempt.detail) == ("needs_human", Detail.AMBIGUOUS)
    assert attempt.search is not None and {c.path for c in attempt.search.places} == {"corpus/b.md", "corpus/c.md"}
    assert not attempt.applicable(accept_moved=True)


def test_unresolvable_citation_is_left_to_a_person(history: History) -> None:
    ghost = history.cite(P_MOVE_AWAY, commit="0" * 40)
    verdict, attempt = history.attempt(ghost)
    assert verdict.status == VerdictStatus.UNRESOLVABLE
    assert attempt is not None and attempt.outcome == "needs_human"
    assert attempt.search is not None and attempt.search.places  # shown, never applied
    assert not attempt.applicable(accept_moved=True)


def test_deleted_file_is_reported_as_deleted(corpus_repo: CorpusRepo) -> None:
    repo = corpus_repo
    first = repo.commit({"corpus/a.md": f"# A\n\n{P_DELETE}\n", "corpus/keep.md": "keep\n"})
    gone = repo.commit({"corpus/a.md": None}, "Remove a")
    root = repo.root
    build(root, site=False)
    resolver = Resolver(GitRepo(root))
    verdict = verify(Citation(first, "corpus/a.md", lines=(3, 3)), resolver.repo, "HEAD", resolver=resolver)
    attempt = Recoverer(resolver).attempt(verdict, P_DELETE)
    assert attempt is not None and attempt.outcome == "not_found"
    seen = attempt.search.last_seen if attempt.search else None
    assert seen is not None and (seen.last_commit, seen.removed_by, seen.change) == (first, gone, "deleted")
    assert f"-{P_DELETE}" in [line for hunk in seen.hunks for line in hunk.lines]


def test_without_an_index_exact_moves_are_still_found(corpus_repo: CorpusRepo) -> None:
    repo = corpus_repo
    first = repo.commit({"corpus/a.md": f"# A\n\n{P_KEEP}\n\n{P_EDIT}\n\n{P_DELETE}\n\n{P_MOVE_DOWN}\n"})
    repo.commit({"corpus/a.md": None, "corpus/b.md": f"{P_KEEP}\n"})
    resolver = Resolver(GitRepo(repo.root))
    verdict = verify(Citation(first, "corpus/a.md", lines=(3, 3)), resolver.repo, "HEAD", resolver=resolver)
    attempt = Recoverer(resolver).attempt(verdict, P_KEEP)
    assert attempt is not None and attempt.moved
    missing = Citation(first, "corpus/a.md", lines=(1, 1))
    verdict = verify(missing, resolver.repo, "HEAD", resolver=resolver)
    attempt = Recoverer(resolver).attempt(verdict, "words that stand nowhere at all", "failed")
    assert attempt is not None and attempt.outcome == "not_found"
    assert any("run `pincite build`" in step for step in attempt.steps)


def test_attempts_are_written_as_json_lines(history: History, tmp_path: Path) -> None:
    attempts = [history.attempt(history.cite(p))[1] for p in (P_MOVE_DOWN, P_EDIT, P_DELETE)]
    log = tmp_path / "audit" / "recovery.jsonl"
    write_attempts(log, [a for a in attempts if a is not None])
    write_attempts(log, [a.mark_applied("accept-moved") for a in attempts[:1] if a is not None])
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4 and all(json.loads(line) for line in lines)
    records = read_attempts(log)
    assert [r["outcome"] for r in records] == ["relocated", "suggested", "not_found", "relocated"]
    assert records[0]["applied"] is False and records[3]["applied_by"] == "accept-moved"
    assert records[0]["citation"] == history.cite(P_MOVE_DOWN).text_form()
    assert records[0]["quote"] == P_MOVE_DOWN
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", str(records[0]["at"]))
    assert records[2]["search"]["last_seen"]["removed_by"] == history.deleted  # type: ignore[index]


# -- properties ------------------------------------------------------------------------
WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "“quoted”", "em—dash", "x", "  ", "\n", "é", "e\u0301"])


@settings(max_examples=200, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=30), st.data())
def test_quote_spans_map_back_to_text_holding_the_quote(words: list[str], data: st.DataObject) -> None:
    text = " ".join(words)
    # Pieces start and end at word edges: a slice inside "e\u0301" is not text a person quotes.
    i = data.draw(st.integers(0, len(words)))
    j = data.draw(st.integers(i, len(words)))
    wanted = normalize(" ".join(words[i:j]))
    if not wanted:
        return
    spans = quote_spans(wanted, text, most=1000)
    assert spans, "a piece of the text must be found in it"
    for span in spans:
        assert normalize(text[span.start : span.end]) == wanted


def _side(diff: str, keep: tuple[str, str], drop: tuple[str, str]) -> str:
    kept = re.sub(re.escape(drop[0]) + r"(.*?)" + re.escape(drop[1]), "", diff)
    kept = re.sub(re.escape(keep[0]) + r"(.*?)" + re.escape(keep[1]), r"\1", kept)
    return " ".join(kept.split())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "dd", "ee"]), max_size=12),
    st.lists(st.sampled_from(["a", "b", "c", "dd", "ff"]), max_size=12),
)
def test_word_diff_holds_both_sides(old: list[str], new: list[str]) -> None:
    diff = word_diff(" ".join(old), " ".join(new))
    assert _side(diff, ("[-", "-]"), ("{+", "+}")) == " ".join(old)
    assert _side(diff, ("{+", "+}"), ("[-", "-]")) == " ".join(new)


def test_best_window_finds_the_edited_sentence() -> None:
    window = f"Before it. {normalize(P_EDITED)} After it."
    found = best_window(normalize(P_EDIT), window)
    assert found is not None
    start, end, ratio = found
    assert window[start:end] == normalize(P_EDITED)
    assert ratio > 0.9
    assert best_window("zzzz", "nothing in common here") is None


# -- check --fix semantics ---------------------------------------------------------------
def run_check(history: History, *args: str) -> dict[str, object]:
    from click.testing import CliRunner

    from indexer.cli.main import main

    result = CliRunner().invoke(main, ["check", "--json", "--repo", str(history.root), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    report: dict[str, object] = json.loads(result.stdout)
    return report


def test_fix_applies_exact_relocations_and_accept_moved_adds_moves_never_fuzzy(
    history: History, tmp_path: Path
) -> None:
    moved, edited, shifted, elsewhere = (history.cite(p) for p in (P_MOVE_DOWN, P_EDIT, P_KEEP, P_MOVE_AWAY))
    document = tmp_path / "report.md"
    original = (
        f'Kitchen: "{P_MOVE_DOWN}" {moved.text_form()}\n\n'
        f'Money: "{P_EDIT}" {edited.text_form()}\n\n'
        f'Drills: "{P_KEEP}" {shifted.text_form()}\n\n'
        f'Guests: "{P_MOVE_AWAY}" {elsewhere.text_form()}\n'
    )
    document.write_text(original, encoding="utf-8")
    log = tmp_path / "recovery.jsonl"

    report = run_check(history, "--fix", "--recovery-log", str(log), str(document))
    after_fix = document.read_text(encoding="utf-8")
    assert moved.text_form() in after_fix and edited.text_form() in after_fix  # untouched
    assert shifted.text_form() not in after_fix
    records = report["records"]
    assert isinstance(records, list)
    recoveries = [r["recovery"] for r in records]
    assert [r["outcome"] if r else None for r in recoveries] == ["relocated", "suggested", "relocated", "needs_human"]
    assert [r["applied"] if r else None for r in recoveries] == [False, False, True, False]
    assert recoveries[2]["applied_by"] == "fix" and recoveries[0]["detail"] == Detail.MOVED

    run_check(history, "--fix", "--accept-moved", "--recovery-log", str(log), str(document))
    final = document.read_text(encoding="utf-8")
    assert moved.text_form() not in final and f"corpus/handbook.md@{history.deleted}#L7" in final
    assert edited.text_form() in final  # a fuzzy suggestion is never applied
    # Words found only in another document, while the cited one still exists, are never applied.
    assert elsewhere.text_form() in final
    # Every byte but the rewritten citations is as it was.
    assert final == after_fix.replace(moved.text_form(), f"corpus/handbook.md@{history.deleted}#L7")
    assert after_fix == original.replace(shifted.text_form(), f"corpus/handbook.md@{history.deleted}#L5")

    audit = read_attempts(log)
    assert [(r["outcome"], r["applied"], r["applied_by"]) for r in audit] == [
        ("relocated", False, None),
        ("suggested", False, None),
        ("relocated", True, "fix"),
        ("needs_human", False, None),
        ("relocated", True, "accept-moved"),
        ("suggested", False, None),
        ("needs_human", False, None),
    ]


def test_accept_moved_needs_fix(history: History, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from indexer.cli.main import main

    document = tmp_path / "report.md"
    document.write_text("nothing cited\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--accept-moved", "--repo", str(history.root), str(document)])
    assert result.exit_code == 2
    assert "--accept-moved only works with --fix" in result.output


def test_verify_prints_the_recovery(history: History) -> None:
    from click.testing import CliRunner

    from indexer.cli.main import main

    cited = history.cite(P_DELETE, quote=False).text_form()
    result = CliRunner().invoke(main, ["verify", "--repo", str(history.root), cited])
    assert "recovery: the cited text stands nowhere in the corpus at" in result.output
    assert "recovery: removed" not in result.output and history.deleted[:12] in result.output
    as_json = CliRunner().invoke(main, ["verify", "--json", "--repo", str(history.root), cited])
    (verdict,) = json.loads(as_json.stdout)
    assert verdict["recovery"]["outcome"] == "not_found"
    assert verdict["recovery"]["search"]["last_seen"]["subject"] == "Drop the badge rule"


# -- property: random fates in a real repository -------------------------------------------
FATES = ("keep", "move_file", "move_within", "edit", "delete")
VOCAB = [f"{stem}{suffix}" for stem in ("lor", "ves", "tam", "qui", "dor", "pel") for suffix in "abcdefghij"]


@settings(max_examples=8, deadline=None)
@given(st.lists(st.sampled_from(FATES), min_size=3, max_size=6), st.randoms(use_true_random=False))
def test_each_fate_gets_its_outcome(fates: list[str], rnd: random.Random) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = CorpusRepo(Path(tmp) / "repo")
        # Paragraph i draws its words from its own slice of the vocabulary, so no two
        # paragraphs look alike and a near match can only be the paragraph's own edit.
        paragraphs = [" ".join(rnd.sample(VOCAB[i * 10 : i * 10 + 10], 8)) + "." for i in range(len(fates))]
        a, b = list(paragraphs), ["# B"]
        first = repo.commit({"corpus/a.md": "\n\n".join(a) + "\n", "corpus/b.md": "\n\n".join(b) + "\n"})
        changed_by: dict[int, str] = {}
        edited: dict[int, str] = {}
        for i in rnd.sample(range(len(fates)), len(fates)):
            fate, p = fates[i], paragraphs[i]
            if fate == "keep":
                continue
            a.remove(p)
            if fate == "move_file":
                b.append(p)
            elif fate == "move_within":
                a.insert(len(a), p)
            elif fate == "edit":
                words = p.split(" ")
                words[3] = "changed"
                edited[i] = " ".join(words)
                a.insert(rnd.randrange(len(a) + 1), edited[i])
            files: dict[str, str | bytes | None] = {
                "corpus/a.md": "\n\n".join(a) + "\n",
                "corpus/b.md": "\n\n".join(b) + "\n",
            }
            changed_by[i] = repo.commit(files, f"{fate} paragraph {i}")
        build(repo.root, site=False)
        resolver = Resolver(GitRepo(repo.root))
        recoverer = Recoverer(resolver)
        head = repo.head()
        at_head = {"corpus/a.md": "\n\n".join(a) + "\n", "corpus/b.md": "\n\n".join(b) + "\n"}
        for i, p in enumerate(paragraphs):
            cited = Citation(first, "corpus/a.md", lines=(2 * i + 1, 2 * i + 1), quote=p)
            verdict = verify(cited, resolver.repo, "HEAD", resolver=resolver)
            attempt = recoverer.attempt(verdict, p, "matched")
            stands = sum(text.count(p) for text in at_head.values())
            if fates[i] == "move_file":  # a.md still exists: b.md's copy is reported, never applied
                assert attempt is not None
                assert (attempt.outcome, attempt.detail) == ("needs_human", Detail.OTHER_DOCUMENT)
                assert attempt.search is not None and [c.path for c in attempt.search.places] == ["corpus/b.md"]
            elif stands == 1:
                if attempt is None:  # verified in place, not even shifted
                    assert verdict.status == VerdictStatus.VERIFIED and verdict.relocated is not None
                    assert verdict.relocated.lines == cited.lines
                    continue
                assert attempt.outcome == "relocated" and attempt.new_citation is not None
                assert attempt.new_citation.commit == head
                assert resolver.resolve(attempt.new_citation).text == p
            elif i in edited:
                assert attempt is not None and (attempt.outcome, attempt.detail) == ("suggested", Detail.CHANGED)
                assert attempt.search is not None and attempt.search.near[0].text == edited[i]
                assert attempt.search.last_seen is not None
                assert attempt.search.last_seen.removed_by == changed_by[i]
            else:
                assert attempt is not None and (attempt.outcome, attempt.detail) == ("not_found", Detail.REMOVED)
                assert attempt.search is not None and attempt.search.last_seen is not None
                assert attempt.search.last_seen.removed_by == changed_by[i]


def test_unwritable_recovery_log_is_a_clear_error(history: History, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from indexer.cli.main import main

    document = tmp_path / "report.md"
    document.write_text(f'"{P_DELETE}" {history.cite(P_DELETE).text_form()}\n', encoding="utf-8")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["check", "--repo", str(history.root), "--recovery-log", str(blocker / "log.jsonl"), str(document)]
    )
    assert result.exit_code == 2
    assert "cannot write the recovery log" in result.output and "Traceback" not in result.output


# -- pincite locate ------------------------------------------------------------------------
def run_locate(history: History, *args: str) -> tuple[int, str]:
    from click.testing import CliRunner

    from indexer.cli.main import main

    result = CliRunner().invoke(main, ["locate", "--repo", str(history.root), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_locate_prints_exact_places_and_exits_zero(history: History) -> None:
    code, out = run_locate(history, P_MOVE_AWAY)
    assert code == 0
    assert out.splitlines() == [f"exact: corpus/reception.md@{history.deleted}#L5"]


def test_locate_explains_where_a_removed_quote_went(history: History) -> None:
    code, out = run_locate(history, "--path", "corpus/handbook.md", "--since", history.first[:10], P_DELETE)
    assert code == 1
    assert f"last stood at corpus/handbook.md@{history.edited}" in out
    assert f"modified by {history.deleted}: Drop the badge rule" in out
    assert f"  -{P_DELETE}" in out


def test_locate_json_labels_near_matches(history: History) -> None:
    code, out = run_locate(history, "--json", "--path", "corpus/handbook.md", P_EDIT)
    data = json.loads(out.split("\nno exact place")[0])
    assert code == 1 and data["places"] == []
    (near,) = data["near"]
    assert near["exact"] is False and "not verified" in near["label"] and near["text"] == P_EDITED
    assert data["last_seen"]["removed_by"] == history.edited
    _code, exact_only = run_locate(history, "--json", "--no-fuzzy", P_EDIT)
    assert json.loads(exact_only.split("\nno exact place")[0])["near"] == []


def test_locate_rejects_paths_outside_the_repository(history: History) -> None:
    code, out = run_locate(history, "--path", "../secrets.md", "anything at all")
    assert code == 2 and "leaves the repository" in out


# -- bounded near matching: a long quote is answered, with no character comparison -----------
def _count_similarity_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every character-level comparison near matching makes, as len(a) * len(b) (its cost)."""
    from indexer.citations import quote_search

    costs: list[int] = []
    real = quote_search.similarity

    def counting(a: str, b: str, floor: float = 0.0) -> float:
        costs.append(len(a) * len(b))
        return real(a, b, floor)

    monkeypatch.setattr(quote_search, "similarity", counting)
    return costs


def test_a_ten_thousand_word_quote_is_answered_without_near_matching(
    history: History, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    costs = _count_similarity_calls(monkeypatch)
    rng = random.Random(7)
    quote = " ".join(rng.choice(P_EDIT.split(" ") + P_KEEP.split(" ")) for _ in range(10_000))
    document = tmp_path / "long.md"
    document.write_text(f'"{quote}" {history.cite(P_EDIT, quote=False).text_form()}\n', encoding="utf-8")
    report = check_paths([document], history.git)
    (record,) = report.records
    assert record.quote_verdict is not None and record.quote_verdict.status == "failed"
    attempt = record.recovery
    assert attempt is not None and attempt.search is not None and attempt.search.near == ()
    assert any(f"at most {FUZZY_MAX_WORDS}" in step for step in attempt.steps)
    assert attempt.search.last_seen is None or attempt.search.last_seen.path == "corpus/handbook.md"
    assert costs == []  # no character comparison at all


def test_near_matching_work_is_bounded_for_the_longest_quote_it_takes(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = [f"w{i % 37}" for i in range(FUZZY_MAX_WORDS)]
    corpus_repo.commit({"corpus/a.md": "# A\n\n" + " ".join(words) + "\n"})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    edited = list(words)
    edited[FUZZY_MAX_WORDS // 2] = "changed"
    costs = _count_similarity_calls(monkeypatch)
    found = QuoteSearcher(resolver).search(" ".join(edited), resolver.commit("HEAD"), cited_path="corpus/a.md")
    assert found.near and found.near[0].similarity > 0.9
    quote_chars = len(" ".join(edited))
    # Per scored candidate: ANCHORS character-level comparisons of regions as long as the
    # quote; nothing grows with the document or the corpus.
    assert 0 < len(costs) <= FUZZY_SCORED * ANCHORS
    assert max(costs) <= (2 * quote_chars) ** 2


def test_check_bounds_the_deep_searches_of_drifted_citations(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"Sentence {n} of the policy stays as written for now." for n in range(6)]
    first = corpus_repo.commit({"corpus/a.md": "\n\n".join(lines) + "\n"})
    edited = [line.replace("stays as written", "was rewritten") for line in lines]
    corpus_repo.commit({"corpus/a.md": "\n\n".join(edited) + "\n"})
    build(corpus_repo.root, site=False)
    notes = tmp_path / "notes.md"
    notes.write_text("".join(f"> {line}\n\n— corpus/a.md@{first}#L{2 * n + 1}\n\n" for n, line in enumerate(lines)))
    monkeypatch.setattr("indexer.citations.check.DEEP_SEARCH_BUDGET", 2)
    report = check_paths([notes], GitRepo(corpus_repo.root))
    attempts = [r.recovery for r in report.records]
    assert [r.status for r in report.records] == [VerdictStatus.DRIFTED] * 6 and all(attempts)
    spent = [any("budget of deep searches" in step for step in a.steps) for a in attempts if a]
    assert spent == [False, False, True, True, True, True]
    # Past the budget the words are still looked for in the cited document, and the outcome says how they changed.
    assert all(a.detail == Detail.CHANGED for a in attempts[2:] if a)


def test_a_heading_that_gained_a_level_is_not_a_move_of_its_lines(corpus_repo: CorpusRepo) -> None:
    first = corpus_repo.commit({"corpus/a.md": "Intro.\n\n# Motivation\n\nWhy we do it.\n"})
    corpus_repo.commit({"corpus/a.md": "Intro.\n\n## Motivation\n\nWhy we do it.\n"})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    verdict = verify(Citation(first, "corpus/a.md", lines=(3, 3)), resolver.repo, "HEAD", resolver=resolver)
    assert verdict.status == VerdictStatus.DRIFTED
    attempt = Recoverer(resolver).attempt(verdict)
    assert attempt is not None and not attempt.moved and attempt.new_citation is None
    assert not attempt.applicable(accept_moved=True)
    assert any("do not hold exactly the cited text" in step for step in attempt.steps)
    # Its words stand only in the cited document: the text changed, it is not "in another document".
    assert attempt.detail == Detail.CHANGED


def test_false_quotes_past_the_budget_are_searched_for_in_their_document_only(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"Sentence {n} of the policy stays as written for now." for n in range(8)]
    first = corpus_repo.commit({"corpus/a.md": "\n\n".join(lines) + "\n"})
    build(corpus_repo.root, site=False)
    notes = tmp_path / "notes.md"
    # Fabricated quotes of citations that hold: each costs a search of the whole corpus and history
    # (near matches, last seen) only within the run's budget; the others are looked for in their document.
    notes.write_text(
        "".join(f'"Quote {n} was never written anywhere." corpus/a.md@{first}#L{2 * n + 1}\n\n' for n in range(8))
    )
    near_calls = arguments_of(monkeypatch, QuoteSearcher, "_near", 1)
    monkeypatch.setattr("indexer.citations.check.DEEP_SEARCH_BUDGET", 3)
    monkeypatch.setattr("indexer.citations.check.FAILED_QUOTE_DEEP_SEARCHES", 2)
    report = check_paths([notes], GitRepo(corpus_repo.root))
    assert [r.quote_verdict.status if r.quote_verdict else None for r in report.records] == ["failed"] * 8
    # Of the run's three deep searches, failed quotes take two.
    assert len(near_calls) == 2
    attempts = [r.recovery for r in report.records]
    assert all(a is not None and a.outcome == "not_found" for a in attempts)
    spent = [a for a in attempts if a is not None and any("budget of deep searches" in s for s in a.steps)]
    assert len(spent) == 6 and all("near matches were not searched" in " ".join(a.steps) for a in spent)
    # The record and its JSON say plainly that the search stopped short, and how to search on.
    assert [a.not_searched_further for a in attempts if a] == [False] * 2 + [True] * 6
    assert [r.to_json()["recovery"]["not_searched_further"] for r in report.records] == [False] * 2 + [True] * 6
    assert all(f"run `pincite verify {a.citation.text_form()}` for a full search" in a.summary() for a in spent)
    assert report.summary()["not_searched_further"] == 6
    note = report.not_searched_further()
    assert note is not None and note.startswith("not searched further: 6 citation(s)")


def test_check_of_many_false_quotes_searches_one_deeply_and_says_so(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A draft of fabricated quotes: the first failed quote gets the deep search (the corpus's near
    matches, the history), the others their document only; every verdict stays failed."""
    lines = [f"Sentence {n} of the policy stays as written for now." for n in range(8)]
    first = corpus_repo.commit({"corpus/a.md": "\n\n".join(lines) + "\n", "corpus/b.md": "Other words.\n"})
    build(corpus_repo.root, site=False)
    notes = tmp_path / "notes.md"
    notes.write_text(
        "".join(f'"Quote {n} was never written anywhere." corpus/a.md@{first}#L{2 * n + 1}\n\n' for n in range(8))
    )
    searches = arguments_of(monkeypatch, QuoteSearcher, "_search", 1)
    in_document = arguments_of(monkeypatch, QuoteSearcher, "exact_in", 1)
    report = check_paths([notes], GitRepo(corpus_repo.root))
    assert report.summary()["quote_failed"] == 8
    assert searches == ["Quote 0 was never written anywhere."]
    # Past the budget, the cited document is not searched again at the commit the quote check
    # compared it whole: only the deep search asks it.
    assert in_document == ["Quote 0 was never written anywhere."]
    assert report.summary()["not_searched_further"] == 7
    first_attempt = report.records[0].recovery
    assert first_attempt is not None and not first_attempt.not_searched_further


def test_a_deep_search_maps_only_the_version_that_held_the_quote_and_scores_each_passage_once(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a removed quote was last seen is asked of each version's normalized text alone, and only
    the version that held it last is mapped to offsets; near matching scores each passage once."""
    from indexer.citations import quote_search

    paragraphs = [f"Paragraph {n} holds the words of clause {n} as the policy wrote them down." for n in range(40)]
    quote = "Members may resign the charter each year in writing"
    texts = ["\n\n".join([*paragraphs, quote + "."]) + "\n"]
    texts += ["\n\n".join([*paragraphs[: 40 - k], f"An edit of draft {k}."]) + "\n" for k in (1, 2, 3)]
    pinned = corpus_repo.commit({"corpus/a.md": texts[0]})
    for text in texts[1:]:
        corpus_repo.commit({"corpus/a.md": text})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    mapped: list[str] = []
    real_map = quote_search.normalize_for_match
    monkeypatch.setattr(quote_search, "normalize_for_match", lambda text: mapped.append(text) or real_map(text))
    found = QuoteSearcher(resolver).search(quote, resolver.commit("HEAD"), cited_path="corpus/a.md", pinned=pinned)
    assert found.last_seen is not None and found.last_seen.last_commit == pinned
    assert [text for text in mapped if text in texts] == [texts[0]]
    windows = [text for text in mapped if text not in texts]  # near matching's windows around passages
    assert windows and len(windows) == len(set(windows))
