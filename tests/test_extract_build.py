"""Bad PDF and HTML files in a real build: each is isolated, listed with its reason, and fails --strict."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner
from conftest import CorpusRepo
from extract_samples import ARTICLE, html_page, pdf_of_pages, pdf_with_small_caps, pdf_without_text

from indexer import build
from indexer.cli.main import main

GOOD_PDF = pdf_of_pages([["Rosters are kept for twelve months."], ["Minutes are kept permanently."]])


def bad_corpus() -> dict[str, str | bytes | None]:
    return {
        "corpus/good.md": "# Handbook\n\nRosters are kept for twelve months.\n",
        "corpus/good.pdf": GOOD_PDF,
        "corpus/good.html": html_page(ARTICLE),
        "corpus/open.pdf": pdf_of_pages([["Opened with the empty password."]], user_password=""),
        "corpus/locked.pdf": pdf_of_pages([["Secret."]], user_password="s3cret"),
        "corpus/truncated.pdf": GOOD_PDF[: len(GOOD_PDF) // 2],
        "corpus/scan.pdf": pdf_without_text(),
        "corpus/wrong-charset.html": b'<meta charset="utf-8"><p>caf\xe9 with a latin-1 byte</p>',
        "corpus/deep.html": html_page("<div>" * 400 + "<p>deep</p>" + "</div>" * 400),
        "corpus/links.html": html_page("<ul>" + "<li><a href='/a'>Only a link</a></li>" * 12 + "</ul>"),
    }


EXPECTED_SKIPS = {
    "corpus/locked.pdf": "encrypted with a password",
    "corpus/truncated.pdf": "not a readable PDF",
    "corpus/scan.pdf": "no extractable text",
    "corpus/wrong-charset.html": "not valid utf-8",
    "corpus/deep.html": "Excessive depth",
}


def test_each_bad_file_is_skipped_with_its_reason_and_strict_fails(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit(bad_corpus())
    runner = CliRunner()
    result = runner.invoke(main, ["build", "--repo", str(corpus_repo.root), "--no-site", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    skipped = {s["path"]: s["reason"] for s in summary["skipped"]}
    assert set(skipped) == set(EXPECTED_SKIPS)
    for path, reason in EXPECTED_SKIPS.items():
        assert reason in skipped[path], (path, skipped[path])
    assert summary["documents"] == 5  # good.md, good.pdf, good.html, open.pdf, links.html
    strict = runner.invoke(main, ["build", "--repo", str(corpus_repo.root), "--no-site", "--strict"])
    assert strict.exit_code != 0
    assert "skipped: corpus/locked.pdf: " in strict.output


def test_without_the_extras_the_text_class_is_indexed_and_skips_name_the_install(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({k: v for k, v in bad_corpus().items() if k.startswith("corpus/good")})
    # A real interpreter in which pypdf and readability cannot be imported, as after `pip install pincite`.
    script = (
        "import sys\n"
        "for name in ('pypdf', 'readability'):\n"
        "    sys.modules[name] = None\n"
        "from indexer.cli.main import main\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, "build", "--repo", str(corpus_repo.root), "--no-site", "--json"],
        capture_output=True,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    summary = json.loads(proc.stdout)
    assert summary["documents"] == 1
    hints = {s["path"]: s["hint"] for s in summary["skipped"]}
    assert hints == {"corpus/good.pdf": "pip install 'pincite[pdf]'", "corpus/good.html": "pip install 'pincite[html]'"}


def test_the_build_summary_counts_a_pdfs_unmapped_private_use_characters(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/funding.pdf": pdf_with_small_caps(), "corpus/plain.pdf": pdf_of_pages([["Plain."]])})
    summary = build(corpus_repo.root, site=False)
    assert summary.documents == 2
    (warning,) = [w for w in summary.warnings if "private-use" in w]
    assert warning.startswith("corpus/funding.pdf: 1 private-use character(s)")
    again = build(corpus_repo.root, site=False)  # reused, not extracted: the index still says it
    assert again.extracted == 0 and warning in again.warnings
