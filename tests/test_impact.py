"""pincite impact: the citations a change breaks, judged at both ends, with the commit that did it."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result

from indexer import api
from indexer.citations.impact import NO_INDEX_NOTE
from indexer.cli.main import main
from indexer.integrations.annotations import impact_annotations, impact_summary
from tests.conftest import CorpusRepo

TEXT = "".join(f"line {n} of {{name}}\n" for n in range(1, 7))


def text_of(name: str) -> str:
    return TEXT.replace("{name}", name)


@dataclass
class Change:
    repo: CorpusRepo
    pinned: str
    base: str
    edit: str
    rename: str
    delete: str
    shift: str


def memo(pinned: str) -> str:
    return (
        "# Memo\n\n"
        f'"line 3 of edited" corpus/edited.md@{pinned}#L3\n\n'
        f'"line 2 of renamed" corpus/renamed.md@{pinned}#L2\n\n'
        f'"line 4 of deleted" corpus/deleted.md@{pinned}#L4\n\n'
        f'"line 5 of shifted" corpus/shifted.md@{pinned}#L5\n\n'
        f'"line 1 of calm" corpus/calm.md@{pinned}#L1\n'
    )


def pull_request(repo: CorpusRepo, *, index: bool = True) -> Change:
    """main: four cited documents and a memo; the branch `pr` edits, renames, deletes and shifts."""
    names = ("edited", "renamed", "deleted", "shifted", "calm")
    pinned = repo.commit({".gitignore": ".pincite/\n", **{f"corpus/{n}.md": text_of(n) for n in names}})
    base = repo.commit({"docs/memo.md": memo(pinned)}, message="memo")
    repo.git("checkout", "-q", "-b", "pr")
    edited = text_of("edited").replace("line 3 of edited", "line 3, rewritten")
    edit = repo.commit({"corpus/edited.md": edited}, message="edit a cited line")
    rename = repo.move("corpus/renamed.md", "corpus/moved/renamed.md", message="rename a cited file")
    delete = repo.commit({"corpus/deleted.md": None}, message="delete a cited file")
    shift = repo.commit({"corpus/shifted.md": "a new first line\n" + text_of("shifted")}, message="insert above")
    if index:
        api.build(repo.root, site=False)
    return Change(repo, pinned, base, edit, rename, delete, shift)


@pytest.fixture
def change(corpus_repo: CorpusRepo) -> Change:
    return pull_request(corpus_repo)


def run(repo: CorpusRepo, *args: str) -> Result:
    result = CliRunner().invoke(main, ["impact", *args, "--repo", str(repo.root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_impact_reports_the_edit_the_rename_and_the_deletion_with_their_commits(change: Change) -> None:
    report = api.impact("main", change.repo.root)
    rows = [(r.place, r.citation.path, r.kind, r.changed_by.sha if r.changed_by else None) for r in report.records]
    assert rows == [
        ("docs/memo.md:3", "corpus/edited.md", "drifted", change.edit),
        ("docs/memo.md:5", "corpus/renamed.md", "moved", change.rename),
        ("docs/memo.md:7", "corpus/deleted.md", "drifted", change.delete),
    ]
    edited, moved, deleted = report.records
    assert (edited.base.status, edited.head.status) == ("verified", "drifted")
    assert [h.lines for h in edited.hunks] == [("-line 3 of edited", "+line 3, rewritten")]
    assert edited.source_path == "corpus/edited.md" and edited.source_lines() == (3, 3)
    # A rename that keeps the lines: `verify` says verified at both ends; the lines now stand elsewhere.
    assert (moved.base.status, moved.head.status) == ("verified", "verified")
    assert moved.head.path == "corpus/moved/renamed.md" and moved.source_lines() == (2, 2)
    assert deleted.head.path is None and deleted.source_path == "corpus/deleted.md"
    # The shifted span and the calm one were verified again or left alone, never reported.
    assert report.start == change.base and report.head == change.shift and report.commits == 4
    assert report.citations == 5 and report.reverified == 4  # calm.md: untouched, so not verified again
    assert report.failed() and report.notes == []


def test_annotations_on_both_ends_in_githubs_format(change: Change) -> None:
    report = api.impact("main", change.repo.root)
    lines = impact_annotations(report)
    assert lines[:3] == [
        "::error file=corpus/edited.md,line=3,title=pincite impact%3A drifted::"
        "this edit drifts 1 citation: docs/memo.md:3",
        "::notice file=corpus/moved/renamed.md,line=2,title=pincite impact%3A moved::"
        "this rename moves 1 citation: docs/memo.md:5",
        "::error file=corpus/deleted.md,title=pincite impact%3A drifted::"
        "this deletion drifts 1 citation: docs/memo.md:7",
    ]
    citing = lines[3:]
    assert [line.split("::")[1] for line in citing] == [
        "error file=docs/memo.md,line=3,title=citation verified → drifted",
        "notice file=docs/memo.md,line=5,title=citation moved",
        "error file=docs/memo.md,line=7,title=citation verified → drifted",
    ]
    assert f"changed by {change.edit[:12]} (edit a cited line)" in citing[0]
    assert "%0A" not in "".join(lines) and "\n" not in "".join(lines)
    assert impact_annotations(report, strict=True)[1].startswith("::warning ")


def test_one_edit_that_drifts_several_citations_is_one_source_annotation(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({".gitignore": ".pincite/\n", "corpus/a.md": text_of("a")})
    cites = "".join(f"See corpus/a.md@{pinned}#L{n}-L{n + 1}.\n\n" for n in (1, 2, 3))
    corpus_repo.commit({"docs/memo.md": cites, "docs/other.md": f"corpus/a.md@{pinned}#L2\n"})
    corpus_repo.git("checkout", "-q", "-b", "pr")
    corpus_repo.commit({"corpus/a.md": text_of("a").replace("line 2 of a", "line two")})
    api.build(corpus_repo.root, site=False)
    lines = impact_annotations(api.impact("main", corpus_repo.root))
    assert lines[0] == (
        "::error file=corpus/a.md,line=2,title=pincite impact%3A drifted::"
        "this edit drifts 3 citations: docs/memo.md:1, docs/memo.md:3, docs/other.md:1"
    )


def test_the_cli_text_json_markdown_and_exit_status(change: Change) -> None:
    result = run(change.repo, "--base", "main")
    assert result.exit_code == 7
    assert "docs/memo.md:3: drifted: corpus/edited.md@" in result.stdout
    assert "  -line 3 of edited" in result.stdout
    assert "2 broken (2 drifted, 0 unresolvable, 0 quote), 1 moved, 0 mended" in result.stdout
    data = json.loads(run(change.repo, "--base", "main", "--json").stdout)
    assert data["merge_base"] == change.base and data["summary"]["breaks"] == 2
    assert [r["kind"] for r in data["records"]] == ["drifted", "moved", "drifted"]
    assert data["records"][0]["changed_by"]["commit"] == change.edit
    assert data["records"][0]["cited_lines"] == [3, 3]
    summary = run(change.repo, "--base", "main", "--format", "markdown").stdout
    assert summary.startswith("## pincite impact\n")
    assert f"| `docs/memo.md:3` | `corpus/edited.md L3` | verified → drifted | `{change.edit[:12]}`" in summary
    assert "```diff\n@@ -3,1 +3,1 @@\n-line 3 of edited\n+line 3, rewritten\n```" in summary
    # Only the citing memo named: the same records (it holds every citation).
    assert json.loads(run(change.repo, "--base", "main", "--json", "docs").stdout)["files"] == ["docs/memo.md"]


def test_github_format_writes_the_job_summary(change: Change, tmp_path_factory: pytest.TempPathFactory) -> None:
    target = tmp_path_factory.mktemp("summary") / "summary.md"
    result = CliRunner().invoke(
        main,
        ["impact", "--base", "main", "--format", "github", "--repo", str(change.repo.root)],
        env={"GITHUB_STEP_SUMMARY": str(target)},
    )
    assert result.exit_code == 7
    assert result.stdout.count("::error ") == 4 and result.stdout.count("::notice ") == 2
    assert target.read_text(encoding="utf-8") == impact_summary(api.impact("main", change.repo.root))


def test_a_move_alone_fails_only_with_strict(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({".gitignore": ".pincite/\n", "corpus/a.md": text_of("a")})
    corpus_repo.commit({"docs/memo.md": f'"line 2 of a" corpus/a.md@{pinned}#L2\n'})
    corpus_repo.git("checkout", "-q", "-b", "pr")
    corpus_repo.move("corpus/a.md", "corpus/b.md")
    api.build(corpus_repo.root, site=False)
    assert run(corpus_repo, "--base", "main").exit_code == 0
    assert run(corpus_repo, "--base", "main", "--strict").exit_code == 7


def test_a_change_that_touches_no_cited_path_verifies_nothing_again(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({".gitignore": ".pincite/\n", "corpus/a.md": text_of("a")})
    corpus_repo.commit({"docs/memo.md": f"corpus/a.md@{pinned}#L2\n\ncorpus/a.md@{'0' * 40}#L2\n"})
    corpus_repo.git("checkout", "-q", "-b", "pr")
    corpus_repo.commit({"corpus/other.md": "new\n"})
    report = api.impact("main", corpus_repo.root)
    assert report.records == [] and report.citations == 2 and report.reverified == 0
    assert report.touched == ["corpus/other.md"]


def test_the_base_branch_moving_on_is_not_the_changes_doing(change: Change) -> None:
    repo = change.repo
    repo.git("checkout", "-q", "main")
    repo.commit({"corpus/calm.md": text_of("calm").replace("line 1 of calm", "calm no more")}, message="on main")
    repo.git("checkout", "-q", "pr")
    report = api.impact("main", repo.root)
    assert report.start == change.base != report.base
    assert "corpus/calm.md" not in [r.citation.path for r in report.records]
    assert "(merge base `" in impact_summary(report)


def test_a_citation_made_on_the_branch_is_judged_from_its_own_commit(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({".gitignore": ".pincite/\n", "corpus/a.md": text_of("a")})
    corpus_repo.git("checkout", "-q", "-b", "pr")
    made = corpus_repo.commit({"corpus/a.md": text_of("a") + "line 7, new on the branch\n"})
    corpus_repo.commit({"docs/memo.md": f'"line 7, new" corpus/a.md@{made}#L7\n'})
    broke = corpus_repo.commit({"corpus/a.md": text_of("a") + "line 7, rewritten\n"}, message="rewrite it")
    api.build(corpus_repo.root, site=False)
    (record,) = api.impact("main", corpus_repo.root).records
    assert record.base.commit == made and record.base.status == "verified"
    assert record.kind == "drifted" and record.changed_by is not None and record.changed_by.sha == broke


def test_a_quote_the_change_rewrote_is_judged(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({".gitignore": ".pincite/\n", "corpus/a.md": text_of("a")})
    corpus_repo.commit({"docs/memo.md": f'Intro.\n\n"line 2 of a" corpus/a.md@{pinned}#L2\n'})
    corpus_repo.git("checkout", "-q", "-b", "pr")
    corpus_repo.commit({"docs/memo.md": f'Intro.\n\n"line 2 of b" corpus/a.md@{pinned}#L2\n'})
    (record,) = api.impact("main", corpus_repo.root).records
    assert record.kind == "quote" and record.breaks
    assert (record.base.quote_status, record.head.quote_status) == ("matched", "failed")


def test_a_change_that_restores_cited_lines_mends_the_citation(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({".gitignore": ".pincite/\n", "corpus/a.md": text_of("a")})
    corpus_repo.commit({"corpus/a.md": text_of("a").replace("line 2", "line two")})
    corpus_repo.commit({"docs/memo.md": f"corpus/a.md@{pinned}#L2\n"})
    corpus_repo.git("checkout", "-q", "-b", "pr")
    corpus_repo.commit({"corpus/a.md": text_of("a")})
    api.build(corpus_repo.root, site=False)
    report = api.impact("main", corpus_repo.root)
    assert [(r.kind, r.base.status, r.head.status) for r in report.records] == [("mended", "drifted", "verified")]
    assert not report.failed(strict=True)


def test_without_an_index_the_verdicts_hold_and_a_note_says_what_is_missing(corpus_repo: CorpusRepo) -> None:
    change = pull_request(corpus_repo, index=False)
    report = api.impact("main", change.repo.root)
    assert [(r.place, r.kind) for r in report.records] == [
        ("docs/memo.md:3", "drifted"),
        ("docs/memo.md:5", "moved"),
        ("docs/memo.md:7", "drifted"),
    ]
    assert report.notes == [NO_INDEX_NOTE]


def test_without_an_index_the_commit_that_changed_the_lines_is_named_never_the_head(corpus_repo: CorpusRepo) -> None:
    # The head (`shift`) is a later commit that leaves the cited lines alone: naming it would be a
    # confident wrong answer. Git's first-parent log of the path names the edit and the deletion.
    change = pull_request(corpus_repo, index=False)
    report = api.impact("main", change.repo.root)
    by = {r.citation.path: r.changed_by.sha if r.changed_by else None for r in report.records}
    assert by == {"corpus/edited.md": change.edit, "corpus/renamed.md": None, "corpus/deleted.md": change.delete}
    edited = next(r for r in report.records if r.citation.path == "corpus/edited.md")
    assert change.edit[:12] in edited.head.reason and change.shift[:12] not in edited.head.reason
    assert edited.head.reason.startswith("line 3 of corpus/edited.md changed by")
    text = run(change.repo, "--base", "main").output
    assert f"changed by {change.edit[:12]}" in text and f"changed by {change.shift[:12]}" not in text


def test_documents_are_read_as_committed_at_head(change: Change) -> None:
    (change.repo.root / "docs" / "memo.md").write_text("uncommitted: nothing cited\n", encoding="utf-8")
    (change.repo.root / "docs" / "draft.md").write_text(f"corpus/edited.md@{change.pinned}#L3\n", encoding="utf-8")
    report = api.impact("main", change.repo.root)
    assert [r.place for r in report.records] == ["docs/memo.md:3", "docs/memo.md:5", "docs/memo.md:7"]
    assert "docs/draft.md" not in report.files


def test_bad_input_is_a_clear_message(change: Change) -> None:
    missing = run(change.repo, "--base", "main", "docs/nowhere.md")
    assert missing.exit_code != 0 and "docs/nowhere.md: not in the tree of" in missing.output
    unknown = run(change.repo, "--base", "no-such-branch")
    assert unknown.exit_code != 0 and "'no-such-branch' is not a commit in this repository" in unknown.output
    assert "Traceback" not in missing.output + unknown.output


def test_a_shallow_clone_is_told_to_fetch_the_history(change: Change, tmp_path_factory: pytest.TempPathFactory) -> None:
    clone = tmp_path_factory.mktemp("shallow") / "clone"
    source = f"file://{change.repo.root}"
    subprocess.run(["git", "clone", "-q", "--depth=1", "--no-single-branch", source, str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", "pr"], cwd=clone, check=True)
    result = CliRunner().invoke(main, ["impact", "--base", "origin/main", "--repo", str(clone)])
    assert result.exit_code == 3, result.output
    assert "shallow" in result.output and "fetch-depth: 0" in result.output


def test_a_path_renamed_before_the_change_is_followed_to_the_base(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({".gitignore": ".pincite/\n", "corpus/old.md": text_of("a")})
    corpus_repo.move("corpus/old.md", "corpus/new.md")
    corpus_repo.commit({"docs/memo.md": f"corpus/old.md@{pinned[:12]}#L2\n"})
    corpus_repo.git("checkout", "-q", "-b", "pr")
    edit = corpus_repo.commit({"corpus/new.md": text_of("a").replace("line 2", "line two")}, message="edit")
    api.build(corpus_repo.root, site=False)
    report = api.impact("main", corpus_repo.root)
    assert report.touched == ["corpus/new.md"]  # the cited path itself is not: its lineage is
    (record,) = report.records
    assert record.kind == "drifted" and record.changed_by is not None and record.changed_by.sha == edit
    assert record.source_path == "corpus/new.md" and record.citation.commit == pinned


def test_a_rewritten_quote_is_annotated_where_it_is_cited_only(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({".gitignore": ".pincite/\n", "corpus/a.md": text_of("a")})
    corpus_repo.commit({"docs/memo.md": f'"line 2 of a" corpus/a.md@{pinned}#L2\n'})
    corpus_repo.git("checkout", "-q", "-b", "pr")
    corpus_repo.commit({"docs/memo.md": f'"line 2 of z" corpus/a.md@{pinned}#L2\n'})
    (line,) = impact_annotations(api.impact("main", corpus_repo.root))
    assert line.startswith("::error file=docs/memo.md,line=1,title=citation quote::")
    assert "(quote matched → failed)" in line


def test_sarif_validates_against_the_schema_with_the_edited_lines_related(change: Change) -> None:
    from tests.test_code_scanning import sarif_schema

    result = run(change.repo, "--base", "main", "--format", "sarif")
    assert result.exit_code == 7
    log = json.loads(result.output)
    jsonschema.validate(log, sarif_schema())
    (sarif_run,) = log["runs"]
    rules = [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]]
    assert rules == ["impact-drifted", "impact-unresolvable", "impact-quote", "impact-moved", "impact-mended"]

    def place(location: dict[str, Any]) -> tuple[str, int, int | None]:
        physical = location["physicalLocation"]
        region = physical["region"]
        return physical["artifactLocation"]["uri"], region["startLine"], region.get("endLine")

    found = [
        (r["ruleId"], r["level"], place(r["locations"][0]), [place(x) for x in r.get("relatedLocations", [])])
        for r in sarif_run["results"]
    ]
    assert found == [
        ("impact-drifted", "error", ("docs/memo.md", 3, None), [("corpus/edited.md", 3, None)]),
        ("impact-moved", "note", ("docs/memo.md", 5, None), [("corpus/moved/renamed.md", 2, None)]),
        ("impact-drifted", "error", ("docs/memo.md", 7, None), []),  # the cited file is gone: no lines to point at
    ]
    drifted = sarif_run["results"][0]
    assert rules[drifted["ruleIndex"]] == drifted["ruleId"]
    assert f"changed by {change.edit[:12]} (edit a cited line)" in drifted["message"]["text"]
    assert "[edited lines](1)" in drifted["message"]["text"]
    strict = json.loads(run(change.repo, "--base", "main", "--format", "sarif", "--strict").output)
    assert strict["runs"][0]["results"][1]["level"] == "warning"
