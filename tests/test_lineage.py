"""Verdicts follow the indexed history step by step (docs/design.md#d4).

A document renamed in one commit and edited over many later ones is still found, though git's
rename detection from the cited commit to the target no longer pairs the two files; a drifted
verdict names the commit that first changed the cited lines, as `git log -L` finds it.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.citations.drift import verify
from indexer.citations.lineage import follow, prefetch_renames
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import ChangeKind, VerdictStatus
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo
from tests.histories import ALL_FOLDERS, STEPS, commit_history

ORIGINAL = "".join(f"line {n} of the original guide\n" for n in range(1, 11))


def _grow(repo: CorpusRepo, path: str, times: int) -> None:
    """Commits that each append a paragraph: the file ends up mostly new text."""
    for n in range(times):
        text = (repo.root / path).read_text(encoding="utf-8")
        added = "".join(f"appendix {n} sentence {k} with entirely different words\n" for k in range(6))
        repo.commit({path: text + added}, message=f"grow {n}")


def _verify_indexed(repo: CorpusRepo, citation: Citation) -> tuple[object, Resolver]:
    build(repo.root, site=False)
    resolver = Resolver(GitRepo(repo.root))
    return verify(citation, resolver.repo, "HEAD", resolver=resolver), resolver


def test_a_rename_then_many_edits_is_followed_where_one_whole_diff_loses_it(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({"corpus/guide.md": ORIGINAL}, message="add the guide")
    corpus_repo.move("corpus/guide.md", "corpus/handbook/guide.md", message="move the guide into the handbook")
    renamed_by = corpus_repo.head()
    _grow(corpus_repo, "corpus/handbook/guide.md", 4)
    # The premise: from the cited commit to HEAD, git no longer sees a rename.
    direct = GitRepo(corpus_repo.root).changes_between(pinned, corpus_repo.head())["corpus/guide.md"]
    assert direct.status == "deleted"
    citation = Citation(pinned, "corpus/guide.md", lines=(2, 4))
    verdict, _resolver = _verify_indexed(corpus_repo, citation)
    assert verdict.status == VerdictStatus.VERIFIED, verdict.reason
    assert verdict.new_path == "corpus/handbook/guide.md"
    assert verdict.changed_by is not None and verdict.changed_by.sha == renamed_by
    assert verdict.followed_by == "index"
    assert verdict.relocated is not None and verdict.relocated.lines == (2, 4)


def test_several_renames_with_edits_between_are_each_followed(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({"corpus/a.md": ORIGINAL})
    corpus_repo.move("corpus/a.md", "corpus/b.md")
    _grow(corpus_repo, "corpus/b.md", 3)
    corpus_repo.move("corpus/b.md", "corpus/deep/c.md")
    _grow(corpus_repo, "corpus/deep/c.md", 3)
    resolver = Resolver(GitRepo(corpus_repo.root))
    build(corpus_repo.root, site=False)
    lineage = resolver.lineage(pinned, "corpus/a.md", corpus_repo.head())
    assert lineage is not None and lineage.path == "corpus/deep/c.md"
    assert [s.kind for s in lineage.steps].count(ChangeKind.RENAMED) == 2
    assert [s.kind for s in lineage.steps].count(ChangeKind.MODIFIED) == 6
    verdict = verify(Citation(pinned, "corpus/a.md", lines=(1, 10)), resolver.repo, "HEAD", resolver=resolver)
    assert verdict.status == VerdictStatus.VERIFIED and verdict.new_path == "corpus/deep/c.md"


def test_a_deletion_names_the_commit_that_deleted(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({"corpus/a.md": ORIGINAL, "corpus/other.md": "other\n"})
    corpus_repo.commit({"corpus/other.md": "other, edited\n"}, message="unrelated edit")
    deleted_by = corpus_repo.commit({"corpus/a.md": None}, message="retire the guide")
    corpus_repo.commit({"corpus/other.md": "other, edited again\n"}, message="another unrelated edit")
    verdict, _ = _verify_indexed(corpus_repo, Citation(pinned, "corpus/a.md", lines=(1, 2)))
    assert verdict.status == VerdictStatus.DRIFTED
    assert verdict.changed_by is not None and verdict.changed_by.sha == deleted_by
    assert deleted_by[:12] in verdict.reason and "retire the guide" in verdict.reason
    assert corpus_repo.head()[:12] not in verdict.reason


@pytest.mark.parametrize("indexed", [True, False])
def test_an_edit_before_the_deletion_is_the_commit_that_changed_the_cited_lines(
    corpus_repo: CorpusRepo, indexed: bool
) -> None:
    pinned = corpus_repo.commit({"corpus/a.md": ORIGINAL, "corpus/other.md": "other\n"})
    edited = corpus_repo.commit({"corpus/a.md": ORIGINAL.replace("line 2 of", "line two of")}, message="reword two")
    corpus_repo.commit({"corpus/a.md": ORIGINAL.replace("line 2 of", "line two of") + "more\n"}, message="append")
    deleted_by = corpus_repo.commit({"corpus/a.md": None}, message="retire the guide")
    citation = Citation(pinned, "corpus/a.md", lines=(1, 2))
    if indexed:
        verdict, _ = _verify_indexed(corpus_repo, citation)
    else:
        verdict = verify(citation, GitRepo(corpus_repo.root))
    assert verdict.status == VerdictStatus.DRIFTED
    if indexed:  # the walk sees the edit; without an index only the deletion is known (and said so)
        assert verdict.changed_by is not None and verdict.changed_by.sha == edited
        assert edited[:12] in verdict.reason and "reword two" in verdict.reason
    assert deleted_by[:12] in verdict.reason or not indexed
    # A citation of lines the edit did not touch was changed by the deletion itself.
    if indexed:
        untouched, _ = _verify_indexed(corpus_repo, Citation(pinned, "corpus/a.md", lines=(5, 6)))
        assert untouched.changed_by is not None and untouched.changed_by.sha == deleted_by


def test_a_deleted_then_re_added_path_is_compared_with_what_it_holds_now(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({"corpus/a.md": ORIGINAL})
    corpus_repo.commit({"corpus/a.md": None}, message="remove")
    corpus_repo.commit({"corpus/a.md": ORIGINAL}, message="restore")
    verdict, resolver = _verify_indexed(corpus_repo, Citation(pinned, "corpus/a.md", lines=(3, 3)))
    lineage = resolver.lineage(pinned, "corpus/a.md", corpus_repo.head())
    assert lineage is not None and ChangeKind.DELETED in [s.kind for s in lineage.steps]
    assert verdict.status == VerdictStatus.VERIFIED


def test_without_an_index_git_follows_the_path_and_the_verdict_says_so(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({"corpus/a.md": ORIGINAL})
    corpus_repo.commit({"corpus/a.md": ORIGINAL.replace("line 2 ", "LINE 2 ")})
    verdict = verify(Citation(pinned, "corpus/a.md", lines=(2, 2)), GitRepo(corpus_repo.root), "HEAD")
    assert verdict.status == VerdictStatus.DRIFTED and verdict.followed_by == "git"
    assert verdict.note is not None and "outside the indexed history" in verdict.note


def test_a_document_moved_out_of_the_roots_and_back_is_followed_step_by_step(corpus_repo: CorpusRepo) -> None:
    """`archive/` is outside the roots: the index holds nothing of it, git's log does."""
    pinned = corpus_repo.commit({"corpus/guide.md": ORIGINAL}, message="add the guide")
    out = corpus_repo.move("corpus/guide.md", "archive/guide.md", message="archive the guide")
    _grow(corpus_repo, "archive/guide.md", 4)
    corpus_repo.move("archive/guide.md", "corpus/handbook.md", message="bring the guide back")
    direct = GitRepo(corpus_repo.root).changes_between(pinned, corpus_repo.head())["corpus/guide.md"]
    assert direct.status == "deleted"  # the premise: one whole-tree diff loses it
    verdict, resolver = _verify_indexed(corpus_repo, Citation(pinned, "corpus/guide.md", lines=(2, 4)))
    assert verdict.status == VerdictStatus.VERIFIED, verdict.reason
    assert verdict.new_path == "corpus/handbook.md" and verdict.followed_by == "index"
    assert verdict.changed_by is not None and verdict.changed_by.sha == out
    lineage = resolver.lineage(pinned, "corpus/guide.md", corpus_repo.head())
    assert lineage is not None
    assert [(s.kind, s.new_path) for s in lineage.steps if s.kind != ChangeKind.MODIFIED] == [
        (ChangeKind.RENAMED, "archive/guide.md"),
        (ChangeKind.RENAMED, "corpus/handbook.md"),
    ]
    assert [s.kind for s in lineage.steps].count(ChangeKind.MODIFIED) == 4


def _followed_commit_by_commit(repo: GitRepo, commits: list[str], path: str) -> str | None:
    """Where `path` at commits[0] stands at commits[-1], by git's rename detection at every commit alone."""
    current: str | None = path
    gone = path
    for parent, commit in itertools.pairwise(commits):
        if current is None:
            current = gone if repo.blob_at(commit, gone) is not None else None  # re-added
            continue
        change = repo.changes_between(parent, commit).get(current)
        if change is not None and change.status == "renamed":
            current = change.new_path
        elif change is not None and change.status == "deleted":
            gone, current = current, None
    return current


@settings(max_examples=15, deadline=None)
@example(
    steps=[("move", 0, "archive"), ("move", 1, "attic"), ("move", 2, "corpus/deep")], prefetched=True, by_folder=True
)
@given(steps=STEPS, prefetched=st.booleans(), by_folder=st.booleans())
def test_a_walk_in_and_out_of_the_roots_ends_where_git_commit_by_commit_does(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, str]], prefetched: bool, by_folder: bool
) -> None:
    """`by_folder`: git's log is asked about the untracked paths' folders, as it is for many paths."""
    repo = CorpusRepo(tmp_path_factory.mktemp("walks"))
    commits = commit_history(repo, steps)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("indexer.citations.lineage.MAX_PATHSPECS", 0 if by_folder else 64)
        _check_walks(repo, commits, prefetched)


def _check_walks(repo: CorpusRepo, commits: list[str], prefetched: bool) -> None:
    build(repo.root, site=False)
    git = GitRepo(repo.root)
    history_read = Resolver(git).path_intervals()
    assert history_read is not None
    walks = [(commit, entry.path, commits[-1]) for commit in commits for entry in git.tree_entries(commit, ALL_FOLDERS)]
    if prefetched:
        prefetch_renames(history_read, git, walks)
    for commit, path, head in walks:
        lineage = follow(history_read, git, commit, path, head)
        assert lineage is not None, (commit, path)
        expected = _followed_commit_by_commit(git, commits[commits.index(commit) :], path)
        assert lineage.path == expected, (commits.index(commit), path, lineage.steps)
        head_entry = git.blob_at(head, expected) if expected is not None else None
        assert lineage.blob == (head_entry.sha if head_entry else None)


@pytest.mark.parametrize("seed", range(8))
def test_the_changing_commit_agrees_with_git_log_l_and_blame_reverse(corpus_repo: CorpusRepo, seed: int) -> None:
    """Random histories of line rewrites and insertions around a cited range.

    Verified: `git log -L` of the relocated range at HEAD lists no commit after the pinned one.
    Drifted: the commit named is the first that rewrote a cited line, by `git blame --reverse`
    (each cited line's last commit; the change is that commit's first-parent child).
    """
    rng = random.Random(seed)
    lines = [f"sentence {n} of the policy\n" for n in range(40)]
    pinned = corpus_repo.commit({"corpus/p.md": "".join(lines)}, message="policy")
    first, last = sorted(rng.sample(range(1, 41), 2))
    top, bottom = first - 1, last - 1  # where the cited lines stand now (0-based), for the generator only
    for n in range(12):
        if rng.random() < 0.3:  # insert outside the cited range, which shifts it or not
            at = rng.choice([*range(0, top + 1), *range(bottom + 1, len(lines) + 1)])
            lines.insert(at, f"inserted in commit {n}\n")
            if at <= top:
                top, bottom = top + 1, bottom + 1
        else:
            lines[rng.randrange(0, len(lines))] = f"rewritten in commit {n}\n"
        corpus_repo.commit({"corpus/p.md": "".join(lines)}, message=f"edit {n}")
    verdict, _ = _verify_indexed(corpus_repo, Citation(pinned, "corpus/p.md", lines=(first, last)))
    if verdict.status == VerdictStatus.VERIFIED:
        assert verdict.relocated is not None and verdict.relocated.lines is not None
        a, b = verdict.relocated.lines
        log = corpus_repo.git(
            "log", "--first-parent", "--format=%H", "--no-patch", f"-L{a},{b}:corpus/p.md", f"{pinned}..HEAD"
        ).split()
        assert log == [], f"git log -L lists {log} for lines pincite calls unchanged"
        return
    order = corpus_repo.git("rev-list", "--first-parent", "--reverse", f"{pinned}..HEAD").split()
    blame = corpus_repo.git(
        "blame", "--reverse", "-s", "-l", f"-L{first},{last}", f"{pinned}..HEAD", "--", "corpus/p.md"
    )
    last_seen = {line.split()[0].lstrip("^") for line in blame.splitlines()}
    changed = [order.index(sha) + 1 if sha in order else 0 for sha in last_seen if sha != order[-1]]
    assert changed, f"blame --reverse sees every cited line unchanged, pincite says: {verdict.reason}"
    assert verdict.changed_by is not None and verdict.changed_by.sha == order[min(changed)]


@settings(max_examples=15, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(
            st.lists(st.sampled_from(["alpha\n", "beta\n", "gamma\n", "délta\n", "\n"]), max_size=8),
            st.lists(st.sampled_from(["alpha\n", "beta\n", "gamma\n", "epsilon\n", "\n"]), max_size=8),
        ),
        min_size=1,
        max_size=5,
    ),
    processes=st.sampled_from([1, 2, 3]),
)
def test_many_blob_pairs_in_one_diff_give_each_pairs_own_hunks(
    tmp_path_factory: pytest.TempPathFactory, pairs: list[tuple[list[str], list[str]]], processes: int
) -> None:
    repo = CorpusRepo(tmp_path_factory.mktemp("pairs"))
    repo.commit()
    git = GitRepo(repo.root)
    blobs = [(git.hash_object("".join(a).encode()), git.hash_object("".join(b).encode())) for a, b in pairs]
    with pytest.MonkeyPatch.context() as patch:  # split over `processes` git diffs side by side
        patch.setattr("indexer.vcs.repo.usable_cores", lambda: processes)
        patch.setattr("indexer.vcs.repo.PAIRS_PER_PROCESS", 1)
        batched = git.diff_blob_pairs(blobs)
    for old, new in blobs:
        assert batched.get((old, new), []) == git.diff_blobs(old, new)


@settings(max_examples=10, deadline=None)
@given(
    edits=st.lists(
        st.tuples(st.sampled_from(["edit", "rename", "delete", "add"]), st.integers(0, 3)), min_size=1, max_size=8
    ),
    processes=st.sampled_from([1, 2]),
)
def test_renames_detected_for_many_commits_at_once_are_those_of_each_commit_alone(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, int]], processes: int
) -> None:
    repo = CorpusRepo(tmp_path_factory.mktemp("renames"))
    files = {f"corpus/f{n}.md": ORIGINAL.replace("original", f"file {n}") for n in range(4)}
    commits = [repo.commit(dict(files))]
    for step, (kind, n) in enumerate(edits):
        path = sorted(files)[n % len(files)] if files else None
        change: dict[str, str | None] = {}
        if kind == "edit" and path:
            files[path] = change[path] = files[path] + f"edit {step}\n"
        elif kind == "rename" and path:
            files[f"corpus/moved-{step}.md"] = change[f"corpus/moved-{step}.md"] = files.pop(path)
            change[path] = None
        elif kind == "delete" and path and len(files) > 1:
            del files[path]
            change[path] = None
        else:
            files[f"corpus/new-{step}.md"] = change[f"corpus/new-{step}.md"] = f"new text {step}\n"
        commits.append(repo.commit(change, message=f"{kind} {step}"))
    pairs = list(itertools.pairwise(commits))
    batched = GitRepo(repo.root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("indexer.vcs.repo.usable_cores", lambda: processes)
        patch.setattr("indexer.vcs.repo.COMMITS_PER_PROCESS", 1)
        batched.prefetch_changes(pairs)
    alone = GitRepo(repo.root)
    for parent, commit in pairs:
        assert batched.cached_changes(parent, commit) == alone.changes_between(parent, commit)


@pytest.mark.parametrize("encoding", ["utf-8", "iso-8859-1"])
def test_the_changing_commit_is_named_alike_for_committed_utf8_and_a_declared_encoding(
    corpus_repo: CorpusRepo, encoding: str
) -> None:
    """UTF-8 text is diffed as committed without reading the versions; a declared encoding is
    diffed on its decoded text. Both name the same commit for the same history."""
    lines = [f"línea {n} del reglamento\n" for n in range(12)]
    corpus_repo.commit({".gitattributes": "corpus/*.txt encoding=iso-8859-1\n"} if encoding != "utf-8" else {})
    pinned = corpus_repo.commit({"corpus/r.txt": "".join(lines).encode(encoding)})
    names = {}
    for n, at in enumerate([0, 10, 5, 2]):
        lines[at] = f"cambiada en el paso {n}\n"
        names[at] = corpus_repo.commit({"corpus/r.txt": "".join(lines).encode(encoding)}, message=f"step {n}")
    verdict, _ = _verify_indexed(corpus_repo, Citation(pinned, "corpus/r.txt", lines=(5, 7)))
    assert verdict.status == VerdictStatus.DRIFTED
    assert verdict.changed_by is not None and verdict.changed_by.sha == names[5]
