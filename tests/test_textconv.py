"""`pincite init` / `textconv`: git diff of PDFs and HTML as text, agreeing with verify; identities fail closed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CorpusRepo
from extract_samples import ARTICLE, html_page, pdf_of_pages

from indexer.api import build
from indexer.citations.drift import verify
from indexer.citations.verdicts import VerdictStatus
from indexer.cli.main import main
from indexer.extract import registry as extract_mod
from indexer.extract.pdf import PdfExtractor
from indexer.extract.textconv import DEFAULT_COMMAND, attribute_lines
from indexer.index.store import IndexReader
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo, parse_hunks

PAGE_1 = ["Summary. The roster was exposed for seven days through an old sharing link."]
PAGE_2_OLD = ["Root cause. The share was never withdrawn after the event in 2023."]
PAGE_2_NEW = ["Root cause. The share had an expiry date that the storage service ignored."]
PAGE_3 = ["Actions. Review every sharing link older than ninety days, monthly."]
REPORT = "corpus/reports/ir.pdf"


def lines_containing(repo: GitRepo, commit: str, needle: str) -> tuple[int, int]:
    from indexer.index.documents import text_at

    text = text_at(repo, commit, REPORT).text
    line = text[: text.index(needle)].count("\n") + 1
    return line, line


@pytest.fixture
def report_repo(corpus_repo: CorpusRepo) -> tuple[CorpusRepo, str, str]:
    old = corpus_repo.commit({REPORT: pdf_of_pages([PAGE_1, PAGE_2_OLD, PAGE_3])}, "report v1")
    new = corpus_repo.commit({REPORT: pdf_of_pages([PAGE_1, PAGE_2_NEW, PAGE_3])}, "report v2")
    return corpus_repo, old, new


def test_init_writes_attributes_once_and_sets_textconv(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"README.md": "x\n"})
    (corpus_repo.root / ".gitattributes").write_text("*.md text")  # no final newline
    runner = CliRunner()
    first = runner.invoke(main, ["init", "--repo", str(corpus_repo.root), "--json"])
    assert first.exit_code == 0, first.output
    added = json.loads(first.output)["added_lines"]
    assert "*.pdf diff=pincite" in added and "*.HTML diff=pincite" in added and "*.htm diff=pincite" in added
    second = runner.invoke(main, ["init", "--repo", str(corpus_repo.root), "--json"])
    assert json.loads(second.output)["added_lines"] == []
    attributes = (corpus_repo.root / ".gitattributes").read_text()
    assert attributes.startswith("*.md text\n# pincite:")
    assert attributes.count("*.pdf diff=pincite") == 1
    assert set(attribute_lines()) <= set(attributes.splitlines())
    assert corpus_repo.git("config", "--local", "diff.pincite.textconv").strip() == DEFAULT_COMMAND
    assert corpus_repo.git("check-attr", "diff", "--", "x/y.PDF").strip() == "x/y.PDF: diff: pincite"


def test_init_refuses_a_bare_repository(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"a.md": "x\n"})
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(corpus_repo.root), str(bare)], check=True)
    result = CliRunner().invoke(main, ["init", "--repo", str(bare)])
    assert result.exit_code == 3
    assert "bare repository" in result.output and "Traceback" not in result.output


def test_after_init_git_diff_shows_text_and_verify_reports_the_same_hunk(
    report_repo: tuple[CorpusRepo, str, str],
) -> None:
    corpus, old, new = report_repo
    assert CliRunner().invoke(main, ["init", "--repo", str(corpus.root)]).exit_code == 0
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    shown = subprocess.run(
        ["git", "diff", "-U0", old, new, "--", REPORT], cwd=corpus.root, capture_output=True, env=env, check=True
    ).stdout.decode()
    assert "-Root cause. The share was never withdrawn after the event in 2023." in shown
    assert "+Root cause. The share had an expiry date that the storage service ignored." in shown
    assert "Binary files" not in shown
    git_hunks = parse_hunks(shown)

    repo = GitRepo(corpus.root)
    changed = Citation(old, REPORT, lines=lines_containing(repo, old, "Root cause."))
    verdict = verify(changed, repo, new)
    assert verdict.status == VerdictStatus.DRIFTED
    assert [(h.header, h.lines) for h in verdict.hunks] == [(h.header, h.lines) for h in git_hunks]

    unchanged = Citation(old, REPORT, lines=lines_containing(repo, old, "Actions."))
    verdict = verify(unchanged, repo, new)
    assert verdict.status == VerdictStatus.VERIFIED
    assert verdict.resolved is not None and verdict.resolved.pages == (3, 3)


def test_verify_without_init_gives_the_same_verdicts(report_repo: tuple[CorpusRepo, str, str]) -> None:
    corpus, old, new = report_repo
    repo = GitRepo(corpus.root)
    assert (
        verify(Citation(old, REPORT, lines=lines_containing(repo, old, "Root cause.")), repo, new).status
        == VerdictStatus.DRIFTED
    )
    assert (
        verify(Citation(old, REPORT, lines=lines_containing(repo, old, "Summary.")), repo, new).status
        == VerdictStatus.VERIFIED
    )


def test_changed_extractor_identity_makes_a_pinned_citation_unresolvable(
    report_repo: tuple[CorpusRepo, str, str],
) -> None:
    corpus, _old, new = report_repo
    build(corpus.root, new, site=False)
    repo = GitRepo(corpus.root)
    citation = Citation(new, REPORT, lines=lines_containing(repo, new, "Actions."))
    assert verify(citation, repo, new).status == VerdictStatus.VERIFIED
    recorded = PdfExtractor().identity()
    layout = PdfExtractor("layout")
    extract_mod.register(layout)
    try:
        verdict = verify(citation, GitRepo(corpus.root), new)
    finally:
        extract_mod.unregister(layout)
    assert verdict.status == VerdictStatus.UNRESOLVABLE
    assert recorded in verdict.reason and layout.identity() in verdict.reason


def test_resolve_of_a_pdf_citation_prints_exactly_the_indexed_passage(
    report_repo: tuple[CorpusRepo, str, str],
) -> None:
    corpus, _old, new = report_repo
    summary = build(corpus.root, new, site=False)
    reader = IndexReader(Path(summary.index_path))
    try:
        version = reader.version_of(REPORT, reader.head_seq())
        assert version is not None
        passages = reader.passages_of(version.version_id)
    finally:
        reader.close()
    page_three = [p for p in passages if p.page_start == 3]
    assert page_three and all(p.page_end == 3 for p in page_three)
    for passage in passages:
        text_form = f"{REPORT}@{new}#c{passage.start}-{passage.end}"
        result = CliRunner().invoke(main, ["resolve", text_form, "--repo", str(corpus.root), "--json"])
        assert result.exit_code == 0, result.output
        resolved = json.loads(result.output)
        assert resolved["text"] == passage.text
        assert "Actions." not in passage.text or resolved["pages"] == [3, 3]


def test_textconv_prints_extracted_text_and_other_files_unchanged(tmp_path: Path) -> None:
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(pdf_of_pages([PAGE_1, PAGE_3]))
    html = tmp_path / "p.html"
    html.write_bytes(html_page(ARTICLE))
    other = tmp_path / "notes.bin"
    other.write_bytes(b"\x00\x01raw")
    runner = CliRunner()
    assert runner.invoke(main, ["textconv", str(pdf)]).output.startswith("Summary. The roster")
    assert "\f\nActions." in runner.invoke(main, ["textconv", str(pdf)]).output
    assert runner.invoke(main, ["textconv", str(html)]).output.startswith("Expense claims\n\n")
    assert runner.invoke(main, ["textconv", str(other)]).stdout_bytes == b"\x00\x01raw"
    data = json.loads(runner.invoke(main, ["textconv", "--json", str(pdf)]).output)
    assert data["identity"].startswith("pdf/3 ") and len(data["page_starts"]) == 1


def test_textconv_errors_and_marker(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 truncated")
    runner = CliRunner()
    failed = runner.invoke(main, ["textconv", str(broken)])
    assert failed.exit_code == 5 and "broken.pdf: not a readable PDF" in failed.output
    marked = runner.invoke(main, ["textconv", "--marker-on-error", str(broken)])
    assert marked.exit_code == 0
    assert marked.stdout.startswith("[pincite textconv: ") and "not a readable PDF" in marked.stdout
    missing = runner.invoke(main, ["textconv", str(tmp_path / "absent.pdf")])
    assert missing.exit_code == 2 and "Traceback" not in missing.output
