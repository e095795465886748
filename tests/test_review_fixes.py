"""Regression tests for bugs found in the correctness and security review.

Each test pins one way a citation could come out silently wrong, or a file could be
written where it should not, and fails on the code before its fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.api import cite
from indexer.citations.check import check_paths
from indexer.citations.drift import verify
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import VerdictStatus
from indexer.errors import CitationSyntaxError, PinciteError
from indexer.site.pages import safe_link
from indexer.snapshots.store import snapshot_path
from indexer.text.citation import Citation, parse_citation, parse_github_url, parse_selector
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo


def test_abbreviated_sha_is_not_taken_over_by_a_tag_of_that_name(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({"corpus/a.md": "original words\n"})
    later = corpus_repo.commit({"corpus/a.md": "rewritten words\n"})
    short = pinned[:10]
    corpus_repo.git("tag", short, later)  # a tag named like the abbreviation, pointing elsewhere
    resolver = Resolver(GitRepo(corpus_repo.root))
    assert resolver.commit(short) == pinned
    resolved = resolver.resolve(Citation(short, "corpus/a.md", lines=(1, 1)))
    assert resolved.text == "original words"


def test_hex_name_of_no_object_is_not_resolved_through_a_branch(corpus_repo: CorpusRepo) -> None:
    head = corpus_repo.commit({"corpus/a.md": "words\n"})
    name = "beef" if not head.startswith("beef") else "cafe"
    corpus_repo.git("branch", name, head)
    with pytest.raises(PinciteError, match="not a commit"):
        Resolver(GitRepo(corpus_repo.root)).commit(name)


def test_github_line_anchor_into_an_extracted_document_is_refused() -> None:
    # GitHub numbers the lines of the raw HTML; pincite's lines count the extracted text.
    url = "https://github.com/acme/handbook/blob/" + "a" * 40 + "/corpus/policy.html#L3-L4"
    with pytest.raises(CitationSyntaxError, match="raw file"):
        parse_github_url(url)
    text_url = "https://github.com/acme/handbook/blob/" + "a" * 40 + "/corpus/policy.md#L3-L4"
    assert parse_github_url(text_url)[0].lines == (3, 4)


def test_no_github_url_or_swhid_lines_for_extracted_text(corpus_repo: CorpusRepo) -> None:
    sentence = "of the policy, long enough to be kept by the extractor."
    paragraphs = "".join(f"<p>Paragraph {n} {sentence}</p>" for n in range(6))
    html = f"<html><head><title>P</title></head><body><article><h1>Policy</h1>{paragraphs}</article></body></html>"
    head = corpus_repo.commit({"corpus/policy.html": html, "corpus/a.md": "one\ntwo\n"})
    corpus_repo.git("remote", "add", "origin", "https://github.com/acme/handbook.git")
    extracted = cite("corpus/policy.html", corpus_repo.root, lines=(2, 2), rev=head, site_url="").to_json()
    assert extracted["github_url"] is None
    assert ";lines=" not in str(extracted["swhid"])
    text = cite("corpus/a.md", corpus_repo.root, lines=(2, 2), rev=head, site_url="").to_json()
    assert str(text["github_url"]).endswith("#L2")
    assert str(text["swhid"]).endswith(";lines=2")


@pytest.mark.parametrize("url", ["http://../x", "http://./x", "http://.../x"])
def test_snapshot_path_stays_under_snapshots(url: str) -> None:
    path = snapshot_path(url, "html")
    parts = path.split("/")
    assert parts[0] == "snapshots"
    assert not any(part in (".", "..") for part in parts)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.org/page", "https://example.org/page"),
        ("http://example.org/", "http://example.org/"),
        ("javascript:alert(1)", None),
        (" JavaScript:alert(1)", None),
        ("data:text/html,<script>alert(1)</script>", None),
        ("", None),
    ],
)
def test_provenance_links_are_http_only(url: str, expected: str | None) -> None:
    assert safe_link(url) == expected


def test_empty_span_at_the_end_of_a_file_verifies_without_a_crash(corpus_repo: CorpusRepo) -> None:
    pinned = corpus_repo.commit({"corpus/a.md": "a\nb\n"})
    corpus_repo.commit({"corpus/a.md": "a\nB"})
    verdict = verify(Citation(pinned, "corpus/a.md", chars=(4, 4)), GitRepo(corpus_repo.root))
    assert verdict.status == VerdictStatus.DRIFTED
    grown = corpus_repo.commit({"corpus/a.md": "z\na\nB\n"})
    again = verify(Citation(pinned, "corpus/a.md", chars=(4, 4)), GitRepo(corpus_repo.root), grown)
    assert again.status == VerdictStatus.VERIFIED  # still the end of the file, after its final line end
    assert again.relocated is not None and again.relocated.chars == (6, 6)


def test_backslash_in_a_path_is_a_file_name_character_not_a_folder(corpus_repo: CorpusRepo) -> None:
    # pincite runs on POSIX only (fcntl): "a\b.md" is one file, and "a/b.md" another.
    head = corpus_repo.commit({"corpus/a/b.md": "the wrong file\n", "corpus/a\\b.md": "the cited file\n"})
    resolved = Resolver(GitRepo(corpus_repo.root)).resolve(Citation(head, "corpus/a\\b.md", lines=(1, 1)))
    assert resolved.text == "the cited file"
    assert resolved.path == "corpus/a\\b.md"


def test_check_fix_leaves_symlinked_documents_and_their_targets_alone(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    pinned = corpus_repo.commit({"corpus/a.md": "alpha\nbeta\n"})
    corpus_repo.commit({"corpus/a.md": "new first line\nalpha\nbeta\n"})
    outside = tmp_path / "outside.md"
    outside.write_text(f"See corpus/a.md@{pinned}#L2.\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "link.md").symlink_to(outside)
    report = check_paths([docs], GitRepo(corpus_repo.root), fix=True)
    assert [r.status for r in report.records] == [VerdictStatus.VERIFIED]
    assert report.fixed == []
    assert (docs / "link.md").is_symlink()
    assert outside.read_text(encoding="utf-8") == f"See corpus/a.md@{pinned}#L2.\n"


def test_a_tree_entry_named_dot_dot_is_refused_before_it_reaches_a_file_path(corpus_repo: CorpusRepo) -> None:
    # git mktree accepts such trees (checkout and fsck refuse them); the site writes files by path.
    corpus_repo.commit({"corpus/a.md": "words\n"})
    blob = corpus_repo.git("hash-object", "-w", "--stdin", input_bytes=b"escaped\n").strip()
    inner = corpus_repo.git("mktree", input_bytes=f"100644 blob {blob}\tx.md\n".encode()).strip()
    dotdot = corpus_repo.git("mktree", input_bytes=f"040000 tree {inner}\t..\n".encode()).strip()
    root = corpus_repo.git("mktree", input_bytes=f"040000 tree {dotdot}\tcorpus\n".encode()).strip()
    commit = corpus_repo.git("commit-tree", root, "-p", "HEAD", "-m", "crafted").strip()
    git = GitRepo(corpus_repo.root)
    with pytest.raises(PinciteError, match=r"corpus/\.\./x\.md"):
        git.tree_entries(commit, ("corpus",))
    with pytest.raises(PinciteError, match=r"corpus/\.\./x\.md"):
        git.changes_along(corpus_repo.head(), commit, ("corpus",))


@pytest.mark.parametrize(("key", "value"), [("diff.renameLimit", "1"), ("core.bigFileThreshold", "100")])
def test_rename_limit_and_big_file_threshold_in_git_config_change_no_verdict(
    corpus_repo: CorpusRepo, key: str, value: str
) -> None:
    files = {f"corpus/d{i}.md": "".join(f"doc {i} line {n}\n" for n in range(1, 31)) for i in range(3)}
    pinned = corpus_repo.commit(files)
    for i in range(3):
        (corpus_repo.root / "corpus/moved").mkdir(exist_ok=True)
        corpus_repo.git("mv", f"corpus/d{i}.md", f"corpus/moved/d{i}.md")
    corpus_repo.commit({f"corpus/moved/d{i}.md": "new top\n" + files[f"corpus/d{i}.md"] for i in range(3)})

    def verdicts() -> list[tuple[str, str | None]]:
        git = GitRepo(corpus_repo.root)
        found = [verify(Citation(pinned, f"corpus/d{i}.md", lines=(5, 6)), git) for i in range(3)]
        return [(v.status, v.relocated.text_form() if v.relocated else None) for v in found]

    before = verdicts()
    assert [s for s, _ in before] == [VerdictStatus.VERIFIED] * 3
    corpus_repo.git("config", key, value)
    assert verdicts() == before


def test_github_url_into_a_folder_named_v_is_read_as_a_github_url() -> None:
    url = "https://github.com/acme/handbook/blob/" + "b" * 40 + "/corpus/v/notes.md?plain=1#L2-L3"
    citation = parse_citation(url)
    assert (citation.path, citation.lines) == ("corpus/v/notes.md", (2, 3))


@pytest.mark.parametrize("selector", ["L\u0663", "L1\n", "c\U0001d7cf-\U0001d7d0", "L1C\u0661-L2C1"])
def test_selectors_take_ascii_digits_only(selector: str) -> None:
    with pytest.raises(CitationSyntaxError):
        parse_selector(selector, "test")
