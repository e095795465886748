"""No committed file, setting, citation or request hangs, crashes or blocks a build (issue 31).

Each bound has its regression test here; docs/reliability.md lists them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from indexer.api import build
from indexer.cli.main import main
from indexer.site import budget
from indexer.text.charsets import git_encoding
from tests.conftest import CorpusRepo

# -- every renderer runs under a budget ------------------------------------------------------

DEEP_RST = "".join(" " * depth + "- item\n\n" for depth in range(0, 600, 2))
BOMBS = {
    "corpus/deep-list.md": "- " * 100_000 + "x\n",
    "corpus/deep-quote.md": ">" * 100_000 + " x\n",
    "corpus/deep.rst": DEEP_RST,
    "corpus/table.md": "| a | b |\n|---|---|\n" + "| c | d |\n" * 120_000,
    "corpus/line.md": "word " * 1_000_000 + "\n",
    "corpus/title.adoc": "= x" + " " * 200_000 + "y\n",
}


def test_every_bomb_is_shown_as_source_and_the_build_finishes(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({**BOMBS, "corpus/fine.md": "# Fine\n\n- a\n  - b\n"})
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site)
    shown = {entry["path"]: entry["reason"] for entry in (summary.site or {})["shown_as_source"]}
    over = {path for path in BOMBS if not path.endswith(".adoc")}  # AsciiDoc has no rendered view
    assert set(shown) == over, shown
    assert "nested" in shown["corpus/deep-list.md"] and "nested" in shown["corpus/deep-quote.md"]
    assert "nested" in shown["corpus/deep.rst"]
    assert "bytes" in shown["corpus/table.md"] and "bytes" in shown["corpus/line.md"]
    for path in over:
        page = (site / "doc" / f"{path}.html").read_text(encoding="utf-8")
        assert "Shown as source only: " + shown[path] in page.replace("&#39;", "'")
        assert any(path in warning and "shown as source" in warning for warning in summary.warnings)
    assert 'class="rendered-body"' in (site / "doc/corpus/fine.md.html").read_text(encoding="utf-8")
    assert (site / "doc/corpus/title.adoc.html").is_file()
    # A second build reuses the pages and still accounts for them.
    again = build(corpus_repo.root, out=site)
    assert {e["path"] for e in (again.site or {})["shown_as_source"]} == over


def test_nesting_is_read_from_the_parser_events() -> None:
    assert budget.markdown_nesting("- a\n  - b\n") == 4  # list, item, list, item (tight: no paragraphs)
    assert budget.refusal("markdown", "- " * 200 + "x") is not None
    assert budget.refusal("markdown", "# Title\n\nSome *words*.\n") is None


def test_a_renderer_that_does_not_end_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "RENDER_SECONDS", 0.05)

    def endless() -> None:
        while True:
            pass

    made = budget.within_budget("rst", "corpus/x.rst", "x", endless)
    assert made.value is None and made.refused == "rendering took longer than 0.05 s"


# -- .gitattributes: a bytes-to-bytes codec is no text encoding ------------------------------

BYTES_CODECS = ("zlib", "base64", "hex", "bz2", "uu", "quopri", "rot13", "raw_unicode_escape", "hz")


@pytest.mark.parametrize("label", BYTES_CODECS)
def test_a_codec_that_is_not_a_text_encoding_is_an_unreadable_label(label: str) -> None:
    assert git_encoding(label) is None


def test_a_bytes_codec_in_gitattributes_skips_the_file_with_a_message(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({".gitattributes": "*.md encoding=zlib\n", "corpus/a.md": "# A\n\nText.\n"})
    summary = build(corpus_repo.root, site=False)
    reasons = {s.path: s.reason for s in summary.skipped}
    assert "encoding=zlib" in reasons["corpus/a.md"] and "cannot read as text" in reasons["corpus/a.md"]
    head = corpus_repo.head()
    result = CliRunner().invoke(main, ["verify", f"corpus/a.md@{head}#L1", "--repo", str(corpus_repo.root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
