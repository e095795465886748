"""pincite check: verdicts and quote verdicts per citation, --fix, GitHub output, reachability and pins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from indexer import build
from indexer.citations import check as check_module
from indexer.citations.check import check_paths
from indexer.cli.main import main
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

POLICY = (
    "# Retention\n\n"
    "Invoices are kept for seven years.\n\n"
    "Email is kept for two years.\n\n"
    "Chat logs are kept for ninety days.\n"
)


@pytest.fixture
def setup(corpus_repo: CorpusRepo) -> tuple[CorpusRepo, str]:
    pinned = corpus_repo.commit({"corpus/policy.md": POLICY})
    corpus_repo.commit({"corpus/policy.md": "Preface.\n\n" + POLICY.replace("ninety days", "thirty days")})
    return corpus_repo, pinned


def run(repo: CorpusRepo, *args: str, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(main, [*args, "--repo", str(repo.root)], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def four_cases(pinned: str) -> str:
    c = f"corpus/policy.md@{pinned}"
    return (
        "# Review\n\n"
        f'- Good: "Invoices are kept for seven years." ({c}#L3)\n'
        f'- Fabricated: "Invoices are kept forever." ({c}#L3)\n'
        f'- Wrong passage: "Email is kept for two years." ({c}#L3)\n'
        f'- Drifted: "Chat logs are kept for ninety days." ({c}#L7)\n'
    )


def test_check_reports_matched_failed_wrong_ref_and_drifted(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    doc = tmp_path / "review.md"
    doc.write_text(four_cases(pinned))
    report = check_paths([doc], GitRepo(repo.root))
    rows = [(r.line, r.status, r.quote_verdict.status if r.quote_verdict else None) for r in report.records]
    assert rows == [
        (3, "verified", "matched"),
        (4, "verified", "failed"),
        (5, "verified", "wrong_ref"),
        (6, "drifted", "matched"),
    ]
    wrong = report.records[2]
    assert wrong.quote_verdict is not None and wrong.quote_verdict.suggestion is not None
    assert wrong.quote_verdict.suggestion.text_form() == f"corpus/policy.md@{pinned}#L5"
    assert report.failed() and report.summary()["errors"] == 2 and report.summary()["warnings"] == 1

    result = run(repo, "check", str(doc))
    assert result.exit_code == 7
    assert f"{doc}:4: verified quote:failed" in result.stdout
    assert f"the quote stands at corpus/policy.md@{pinned}#L5" in result.stdout
    assert "4 citation(s) in 1 file(s): 3 verified, 1 drifted, 0 unresolvable" in result.stdout
    data = json.loads(run(repo, "check", str(doc), "--json").stdout)
    assert [r["quote_verdict"] for r in data["records"]] == ["matched", "failed", "wrong_ref", "matched"]
    assert data["summary"]["citations"] == 4


def test_drifted_alone_is_a_warning_unless_strict(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    doc = tmp_path / "d.md"
    doc.write_text(f'"Chat logs are kept for ninety days." corpus/policy.md@{pinned}#L7\n')
    assert run(repo, "check", str(doc)).exit_code == 0
    assert run(repo, "check", str(doc), "--strict").exit_code == 7


def test_github_format_annotations_and_job_summary(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    doc = tmp_path / "review, draft.md"
    doc.write_text(four_cases(pinned))
    summary = tmp_path / "summary.md"
    result = run(repo, "check", str(doc), "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    lines = result.stdout.splitlines()
    escaped = str(doc).replace(",", "%2C")
    assert lines[0].startswith(f"::error file={escaped},line=4,title=quote failed::")  # titled by what happened
    assert lines[1].startswith(f"::error file={escaped},line=5,title=quote wrong_ref::")
    assert lines[2].startswith(f"::warning file={escaped},line=6,title=citation drifted::")
    assert len(lines) == 3 and result.exit_code == 7
    text = summary.read_text()
    assert text.startswith("## pincite check") and "| file | verdict | quote | details |" in text


def test_fix_repins_verified_citations_and_keeps_every_other_byte(
    setup: tuple[CorpusRepo, str], tmp_path: Path
) -> None:
    repo, pinned = setup
    head = repo.head()
    good = f"corpus/policy.md@{pinned[:10]}#L3"
    drifted = f"corpus/policy.md@{pinned}#L7"
    original = (
        f"\ufeffIntro\r\n> Invoices are kept for seven years.\r\n\r\n— {good}\r\n\r\n"
        f'"Chat logs are kept for thirty days." {drifted} — trailing ✓\r\n'
    )
    doc = tmp_path / "notes.md"
    doc.write_bytes(original.encode("utf-8"))
    result = run(repo, "check", str(doc), "--fix")
    after = doc.read_bytes().decode("utf-8")
    assert after == original.replace(good, f"corpus/policy.md@{head}#L5")
    assert f"fixed: {doc}:4" in result.stdout
    assert f"suggestion (the quote stands here at the target): corpus/policy.md@{head}#L9" in result.stdout
    again = run(repo, "check", str(doc), "--fix")
    assert doc.read_bytes().decode("utf-8") == after and "fixed:" not in again.stdout


def test_fix_rewrites_permalinks_with_their_own_site(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    cite = run(
        repo,
        "cite",
        "corpus/policy.md",
        "--lines",
        "3",
        "--rev",
        pinned,
        "--format",
        "json",
        "--site-url",
        "https://s.example/x",
    )
    link = json.loads(cite.stdout)["permalink"]
    doc = tmp_path / "p.md"
    doc.write_text(f"See [the rule]({link}).\n")
    run(repo, "check", str(doc), "--fix")
    new_blob = repo.git("rev-parse", "HEAD:corpus/policy.md").strip()
    assert doc.read_text() == (
        f"See [the rule](https://s.example/x/v/{new_blob}.html?commit={repo.head()}&path=corpus/policy.md#L5).\n"
    )


def test_github_urls_count_only_for_this_repository(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    repo.git("remote", "add", "origin", "git@github.com:acme/handbook.git")
    doc = tmp_path / "g.md"
    doc.write_text(
        f"Ours: https://github.com/acme/handbook/blob/{pinned}/corpus/policy.md#L3\n"
        f"Theirs: https://github.com/other/thing/blob/{pinned}/corpus/policy.md#L3\n"
    )
    report = check_paths([doc], GitRepo(repo.root))
    assert [(r.line, r.found.kind, r.status) for r in report.records] == [(1, "github", "verified")]


def test_a_link_into_another_repository_does_not_disqualify_the_quote(
    setup: tuple[CorpusRepo, str], tmp_path: Path
) -> None:
    repo, pinned = setup
    repo.git("remote", "add", "origin", "git@github.com:acme/handbook.git")
    doc = tmp_path / "q.md"
    doc.write_text(
        "> Invoices are kept for seven years, as in\n"
        "> https://github.com/other/thing/blob/0123456789abcdef0123456789abcdef01234567/src/file.rs#L24-L32\n\n"
        f"corpus/policy.md@{pinned}#L3\n\n"
        "> Invoices are kept forever (https://github.com/other/thing/blob/main/src/file.rs#L3).\n\n"
        f"corpus/policy.md@{pinned}#L3\n"
    )
    report = check_paths([doc], GitRepo(repo.root))
    quotes = [(r.found.kind, r.quote_verdict.status if r.quote_verdict else None) for r in report.records]
    # The foreign links are no citations of this corpus: the quotes under them are checked (one fails).
    assert quotes == [("text", "failed"), ("text", "failed")]
    assert report.records[0].found.quote is not None and "seven years" in report.records[0].found.quote


def test_a_branch_link_into_this_repository_is_reported_unpinned(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, _pinned = setup
    repo.git("remote", "add", "origin", "https://github.com/acme/handbook.git")
    doc = tmp_path / "b.md"
    doc.write_text(
        "See https://github.com/acme/handbook/blob/main/corpus/policy.md#L3 for the rule.\n\n"
        "And https://github.com/other/thing/blob/main/README.md#L3 is someone else's.\n"
    )
    report = check_paths([doc], GitRepo(repo.root))
    (record,) = report.records
    assert (record.line, record.status, record.severity) == (1, "unpinned", "warning")
    assert "pincite cite" in record.details and "`y`" in record.details
    assert not report.failed() and report.failed(strict=True)
    result = run(repo, "check", str(doc))
    assert result.exit_code == 0 and "unpinned" in result.output
    assert run(repo, "check", "--strict", str(doc)).exit_code != 0


def test_bad_citations_and_inputs(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    doc = tmp_path / "bad.md"
    doc.write_text(
        f"corpus/policy.md@{pinned}#L5-L2 corpus/policy.md@{'0' * 40}#L1 ../x.md@{pinned}#L1 corpus@{pinned}#L1\n"
    )
    data = json.loads(run(repo, "check", str(doc), "--json").stdout)
    details = [r["details"] for r in data["records"]]
    assert [r["verdict"] for r in data["records"]] == ["unresolvable"] * 4
    assert "reversed" in details[0] and "fetch-depth: 0" in details[1]
    assert "'..' is not allowed" in details[2] and "is a folder" in details[3]
    missing = run(repo, "check", str(tmp_path / "nope.md"))
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    binary = tmp_path / "b.md"
    binary.write_bytes(b"\x00\x01binary")
    result = run(repo, "check", str(binary))
    assert result.exit_code == 2 and "looks binary" in result.stderr and "Traceback" not in result.stderr


def test_folders_are_scanned_for_markdown_and_text(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    (tmp_path / "docs/sub").mkdir(parents=True)
    (tmp_path / "docs/a.md").write_text(f"corpus/policy.md@{pinned}#L3\n")
    (tmp_path / "docs/sub/b.txt").write_text(f"corpus/policy.md@{pinned}#L5\n")
    (tmp_path / "docs/c.py").write_text(f"# corpus/policy.md@{pinned}#L5\n")
    (tmp_path / "docs/.hidden").mkdir()
    (tmp_path / "docs/.hidden/d.md").write_text(f"corpus/policy.md@{pinned}#L5\n")
    report = check_paths([tmp_path / "docs"], GitRepo(repo.root))
    assert [Path(f).name for f in report.files] == ["a.md", "b.txt"]


def test_a_ten_megabyte_document(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    filler = "Lorem ipsum dolor sit amet, “consectetur” adipiscing elit — sed do eiusmod.\n" * 1000
    parts = [filler + f'\n"Invoices are kept for seven years." corpus/policy.md@{pinned}#L3\n\n' for _ in range(130)]
    doc = tmp_path / "big.md"
    doc.write_text("".join(parts))
    assert doc.stat().st_size > 10_000_000
    report = check_paths([doc], GitRepo(repo.root))
    assert len(report.records) == 130
    assert {(r.status, r.quote_verdict.status if r.quote_verdict else None) for r in report.records} == {
        ("verified", "matched")
    }


def test_unreachable_commits_are_reported_and_pins_keep_them(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, _pinned = setup
    repo.git("checkout", "-q", "-b", "topic")
    orphan = repo.commit({"corpus/policy.md": POLICY + "\nA topic-only line.\n"}, message="topic")
    repo.git("checkout", "-q", "main")
    repo.git("branch", "-D", "topic")
    doc = tmp_path / "o.md"
    doc.write_text(f'"A topic-only line." corpus/policy.md@{orphan}#L9\n')
    report = check_paths([doc], GitRepo(repo.root))
    assert report.reachability == {orphan: "unreachable"} and report.records[0].status == "drifted"
    result = run(repo, "check", str(doc))
    assert f"commit {orphan[:12]} is unreachable" in result.stderr and "pincite pin" in result.stderr
    assert run(repo, "check", str(doc), "--strict").exit_code == 7
    pinned = run(repo, "pin", str(doc))
    assert f"pinned: refs/pincite/pins/{orphan}" in pinned.stdout
    assert repo.git("rev-parse", f"refs/pincite/pins/{orphan}").strip() == orphan
    assert check_paths([doc], GitRepo(repo.root)).reachability == {orphan: "pinned"}
    again = run(repo, "pin", f"corpus/policy.md@{orphan[:9]}#L1", "--json")
    assert json.loads(again.stdout) == {"commits": [orphan], "created": []}


def test_users_git_config_and_attributes_cannot_change_a_check(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    files = {f"corpus/d{i}.md": "".join(f"doc {i} line {n}\n" for n in range(1, 31)) for i in range(6)}
    pinned = corpus_repo.commit(files)
    corpus_repo.commit({p: "new top\n" + t.replace("line 7\n", "line seven\n") for p, t in files.items()})
    doc = tmp_path / "many.md"
    doc.write_text("".join(f"{p}@{pinned}#L{n}\n\n" for p in files for n in (2, 7, 20)))

    def report() -> list[tuple[str, str | None]]:
        checked = check_paths([doc], GitRepo(corpus_repo.root))
        return [
            (r.status, r.verdict.relocated.text_form() if r.verdict and r.verdict.relocated else None)
            for r in checked.records
        ]

    before = report()
    assert [s for s, _ in before] == ["verified", "drifted", "verified"] * 6
    for key, value in [
        ("diff.algorithm", "patience"),
        ("diff.noprefix", "true"),
        ("diff.context", "5"),
        ("diff.external", "false"),
        ("diff.weird.textconv", "tr a-z A-Z"),
        ("color.diff", "always"),
    ]:
        corpus_repo.git("config", key, value)
    (corpus_repo.root / ".git/info/attributes").write_text("d1.md -diff\nd2.md diff=weird\n")
    assert report() == before


def test_a_line_holding_hundreds_of_citations(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    doc = tmp_path / "crowded.md"
    doc.write_text(" ".join(f'"Invoices are kept" corpus/policy.md@{pinned}#L3' for _ in range(300)) + "\n")
    result = run(repo, "check", str(doc), "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["summary"]["citations"] == 300
    assert {(r["line"], r["verdict"], r["quote_verdict"]) for r in data["records"]} == {(1, "verified", "matched")}


def test_fix_keeps_the_findings_of_earlier_documents(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, _pinned = setup
    broken = tmp_path / "a-broken.md"
    broken.write_text(f"See corpus/policy.md@{'0' * 40}#L1.\n")
    (tmp_path / "b-no-citations.md").write_text("Nothing cited here.\n")
    plain = run(repo, "check", str(tmp_path))
    fixed = run(repo, "check", "--fix", str(tmp_path))
    assert plain.exit_code == fixed.exit_code == 7
    assert "1 citation(s)" in fixed.stdout


def test_fix_keeps_an_edit_saved_while_it_runs(
    setup: tuple[CorpusRepo, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, pinned = setup
    original = f"See corpus/policy.md@{pinned}#L3.\n"
    edited = original + "A paragraph the writer saved while check ran.\n"
    doc = tmp_path / "notes.md"
    doc.write_text(original)
    untouched = tmp_path / "other.md"
    untouched.write_text(original)
    real_rewrite = check_module._rewrite

    def rewrite_while_the_writer_saves(*args: object, **kwargs: object) -> str | None:
        if doc.read_text() == original:
            doc.write_text(edited)  # the fault: an editor saves between check's read and its write
        return real_rewrite(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(check_module, "_rewrite", rewrite_while_the_writer_saves)
    result = run(repo, "check", str(doc), str(untouched), "--fix")
    assert doc.read_text() == edited
    assert untouched.read_text() == f"See corpus/policy.md@{repo.head()}#L5.\n"
    assert f"not fixed: {doc} changed while check ran" in result.stdout
    lines = result.stdout.splitlines()
    assert f"fixed: {untouched}:1" in lines and not any(line.startswith(f"fixed: {doc}") for line in lines)
    assert not list(tmp_path.glob(".notes.md.*.tmp"))

    doc.write_text(original)
    data = json.loads(run(repo, "check", str(doc), "--fix", "--json").stdout)
    assert data["not_fixed_changed"] == [str(doc)] and data["fixed"] == []
    assert data["summary"]["not_fixed_changed"] == 1


def test_emphasised_citations_are_checked_and_near_misses_fail_under_strict(
    setup: tuple[CorpusRepo, str], tmp_path: Path
) -> None:
    repo, pinned = setup
    doc = tmp_path / "notes.md"
    doc.write_text(f"# Notes\n\nSee _corpus/policy.md@{pinned}#L3_.\n\nAnd corpus/policy.md@{pinned}#L1ff.\n")
    result = run(repo, "check", str(doc))
    assert result.exit_code == 0
    assert f"{doc}:3: verified: corpus/policy.md@{pinned}#L3" in result.stdout
    assert f"{doc}:5: malformed: corpus/policy.md@{pinned}#L1ff" in result.stdout
    assert "malformed citation: '#L1ff' is not a selector" in result.stdout
    assert "2 citation(s) in 1 file(s): 1 verified, 0 drifted, 0 unresolvable, 1 malformed" in result.stdout
    assert run(repo, "check", str(doc), "--strict").exit_code == 7
    github = run(repo, "check", str(doc), "--format", "github").stdout
    assert f"::warning file={doc},line=5,title=citation malformed::" in github


def _without_times(data: object) -> object:
    """JSON with the recovery attempts' timestamps left out: two runs differ only there."""
    if isinstance(data, dict):
        return {k: _without_times(v) for k, v in data.items() if k != "at"}
    if isinstance(data, list):
        return [_without_times(v) for v in data]
    return data


def test_streamed_records_are_the_records_of_a_collected_report(setup: tuple[CorpusRepo, str], tmp_path: Path) -> None:
    repo, pinned = setup
    for n in range(3):
        (tmp_path / f"review-{n}.md").write_text(four_cases(pinned))
    collected = check_paths([tmp_path], GitRepo(repo.root))
    streamed: list[check_module.CheckRecord] = []
    report = check_paths([tmp_path], GitRepo(repo.root), on_record=streamed.append)
    assert report.records == []  # counts only: memory does not grow with citations
    assert [_without_times(r.to_json()) for r in streamed] == [_without_times(r.to_json()) for r in collected.records]
    assert report.summary() == collected.summary() and report.cited_commits == {pinned}

    cli = json.loads(run(repo, "check", str(tmp_path), "--json").stdout)
    assert _without_times(cli) == _without_times({**collected.to_json(), "pinned": []})
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "none.md").write_text("No citations here.\n")
    nothing = json.loads(run(repo, "check", str(empty), "--json").stdout)
    assert nothing["records"] == [] and nothing["summary"]["citations"] == 0


def test_an_object_missing_from_the_store_makes_its_citations_unresolvable_and_check_goes_on(
    setup: tuple[CorpusRepo, str], tmp_path: Path
) -> None:
    repo, pinned = setup
    repo.commit({"corpus/notes/extra.md": "# Extra\n\nMore words.\n"})
    lost = repo.git("rev-parse", "HEAD:corpus/notes").strip()
    (repo.root / ".git" / "objects" / lost[:2] / lost[2:]).unlink()  # as a damaged or partial clone lacks it
    doc = tmp_path / "review.md"
    doc.write_text(four_cases(pinned))
    result = run(repo, "check", str(doc), "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 7 and "Traceback" not in result.output
    assert [r["verdict"] for r in data["records"]] == ["unresolvable"] * 4
    resolutions = [r["resolution"] for r in data["records"]]
    assert all(lost in r["reason"] and "git fsck" in (r["hint"] or "") for r in resolutions)


def test_without_an_index_a_drifted_citation_names_its_edit_not_a_later_commit(
    setup: tuple[CorpusRepo, str], tmp_path: Path
) -> None:
    repo, pinned = setup
    edit = repo.git("rev-parse", "HEAD").strip()
    head = repo.commit({"notes.md": "an unrelated page\n"}, message="unrelated")
    memo = tmp_path / "memo.md"
    memo.write_text(f'"Chat logs are kept for ninety days." (corpus/policy.md@{pinned}#L7)\n', encoding="utf-8")
    assert not (repo.root / ".pincite").exists()
    report = json.loads(run(repo, "check", str(memo), "--json").stdout)
    (record,) = report["records"]
    assert record["resolution"]["changed_by"]["commit"] == edit
    assert edit[:12] in record["resolution"]["reason"] and head[:12] not in record["resolution"]["reason"]
    (verdict,) = json.loads(run(repo, "verify", f"corpus/policy.md@{pinned}#L7", "--json").stdout)
    assert verdict["changed_by"]["commit"] == edit and head[:12] not in verdict["reason"]


def test_without_an_index_a_commit_no_walk_can_name_goes_unnamed_never_the_head(corpus_repo: CorpusRepo) -> None:
    # Pinned on a side branch merged in as a second parent: git's first-parent line from the pinned
    # commit to the head does not exist, so the verdict says the two ends, not a commit it did not find.
    corpus_repo.commit({"corpus/other.md": "other\n"})
    corpus_repo.git("checkout", "-q", "-b", "side")
    pinned = corpus_repo.commit({"corpus/policy.md": POLICY}, message="on the side")
    corpus_repo.git("checkout", "-q", "main")
    corpus_repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    corpus_repo.commit({"corpus/policy.md": POLICY.replace("ninety days", "thirty days")}, message="edit")
    head = corpus_repo.commit({"notes.md": "an unrelated page\n"}, message="unrelated")
    (verdict,) = json.loads(run(corpus_repo, "verify", f"corpus/policy.md@{pinned}#L7", "--json").stdout)
    assert verdict["status"] == "drifted" and verdict["changed_by"] is None
    assert verdict["reason"] == (
        f"line 7 of corpus/policy.md changed between {pinned[:12]} and {head[:12]}"
        " (the commit that did it is not known)"
    )


@pytest.mark.parametrize("indexed", [False, True])
def test_recovery_says_in_words_that_fabricated_words_stand_nowhere_and_a_span_past_the_end_has_nothing(
    setup: tuple[CorpusRepo, str], tmp_path: Path, indexed: bool
) -> None:
    from indexer import api

    repo, pinned = setup
    if indexed:
        api.build(repo.root, site=False)
    head = repo.git("rev-parse", "HEAD").strip()
    doc = tmp_path / "review.md"
    doc.write_text(
        f'- Fabricated: "Zebras migrate quarterly across the moon." (corpus/policy.md@{pinned}#L3)\n'
        f"- Past the end: corpus/policy.md@{pinned}#L90\n",
        encoding="utf-8",
    )
    text = run(repo, "check", str(doc)).stdout
    near = ", not even nearly" if indexed else " (near matches were not searched)"
    assert f"recovery: the quoted words stand nowhere in the corpus at {head[:12]}{near}" in text
    assert "recovery: nothing to recover: without a quote, a span that does not resolve holds no words" in text
    assert "recovery: removed" not in text and "recovery: no_quote" not in text
    records = json.loads(run(repo, "check", str(doc), "--json").stdout)["records"]
    assert [r["recovery"]["detail"] for r in records] == ["removed", "no_quote"]  # the JSON values stay


def test_check_says_which_failed_quotes_were_not_searched_further(
    setup: tuple[CorpusRepo, str], tmp_path: Path
) -> None:
    """Three fabricated quotes: the first is searched deeply; the printed check and its JSON say
    the other two were not, and how to search them."""
    repo, pinned = setup
    build(repo.root, site=False)
    c = f"corpus/policy.md@{pinned}"
    doc = tmp_path / "draft.md"
    doc.write_text("".join(f'- "Invoices are kept for {n} centuries." ({c}#L3)\n' for n in ("two", "three", "four")))
    printed = run(repo, "check", str(doc))
    assert printed.exit_code == 7  # failed quotes fail the check
    assert printed.output.count("not searched further (the run's deep searches are spent)") == 2
    assert f"run `pincite verify {c}#L3` for a full search" in printed.output
    last = printed.output.strip().splitlines()[-1]
    assert last.startswith("not searched further: 2 citation(s) whose quote failed or that drifted")
    assert last.endswith("run `pincite verify <citation>` for a full search")
    report = json.loads(run(repo, "check", "--json", str(doc)).output)
    assert [r["quote_verdict"] for r in report["records"]] == ["failed"] * 3
    assert [r["recovery"]["not_searched_further"] for r in report["records"]] == [False, True, True]
    assert report["summary"]["not_searched_further"] == 2
