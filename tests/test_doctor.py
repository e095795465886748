"""`pincite doctor` on real repositories: each finding is a line with what to do."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CorpusRepo

from indexer.api import build
from indexer.cli.main import main
from indexer.integrations.doctor import OK, WARN, Report, diagnose


def by_name(report: Report) -> dict[str, tuple[str, str, str]]:
    return {check.name: (check.status, check.detail, check.hint) for check in report.checks}


def healthy_repo(corpus_repo: CorpusRepo) -> CorpusRepo:
    corpus_repo.write("pincite.toml", 'site_url = "https://docs.example.org/corpus/"\n')
    corpus_repo.commit({"corpus/a.md": "# A\n\nalpha\n", ".gitattributes": "*.pdf diff=pincite\n"})
    corpus_repo.commit({"corpus/a.md": "# A\n\nalpha beta\n"})
    corpus_repo.git("config", "diff.pincite.textconv", "pincite textconv")
    build(corpus_repo.root)
    return corpus_repo


def test_healthy_repository_is_all_ok(corpus_repo: CorpusRepo) -> None:
    checks = by_name(diagnose(healthy_repo(corpus_repo).root))
    for name in ("pincite", "git", "pagefind", "history", "textconv", "index", "site_url"):
        assert checks[name][0] == OK, checks[name]
    assert "2 commit(s)" in checks["history"][1]
    assert "schema" in checks["index"][1]
    assert checks["site_url"][1].endswith("https://docs.example.org/corpus/")


def test_every_warning_says_what_to_do(tmp_path: Path) -> None:
    report = diagnose(tmp_path)
    checks = by_name(report)
    assert checks["repository"][0] == WARN
    assert not report.ok
    assert all(check.hint for check in report.checks if check.status == WARN)
    assert {"extra:pdf", "extra:html"} <= set(checks)
    status, message = checks["readers"][:2]
    assert status == "ok" and "reStructuredText" in message and "AsciiDoc" in message and "non-binary" in message


def test_fresh_repository_warns_about_index_textconv_and_site_url(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "alpha\n"})
    checks = by_name(diagnose(corpus_repo.root))
    assert checks["index"][0] == WARN and "pincite build" in checks["index"][2]
    assert checks["textconv"][0] == WARN and "pincite init" in checks["textconv"][2]
    assert checks["site_url"][0] == WARN and "PINCITE_SITE_URL" in checks["site_url"][2]


def test_textconv_without_attributes_is_a_warning(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "alpha\n"})
    corpus_repo.git("config", "diff.pincite.textconv", "pincite textconv")
    status, detail, _hint = by_name(diagnose(corpus_repo.root))["textconv"]
    assert status == WARN and ".gitattributes" in detail


def test_stale_index_names_head(corpus_repo: CorpusRepo) -> None:
    healthy_repo(corpus_repo)
    head = corpus_repo.commit({"corpus/a.md": "# A\n\ngamma\n"})
    status, detail, hint = by_name(diagnose(corpus_repo.root))["index"]
    assert status == WARN and head[:12] in detail and "pincite build" in hint


def test_index_of_another_schema_says_rebuild(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "alpha\n"})
    index = corpus_repo.root / ".pincite" / "index.sqlite"
    index.parent.mkdir()
    with sqlite3.connect(index) as conn:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        conn.execute("INSERT INTO meta VALUES ('schema_version', '999')")
    status, detail, hint = by_name(diagnose(corpus_repo.root))["index"]
    assert status == WARN and "999" in detail and "pincite build" in hint


def test_shallow_clone_gives_the_fix(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    healthy_repo(corpus_repo)
    clone = tmp_path / "shallow"
    url = f"file://{corpus_repo.root}"
    subprocess.run(["git", "clone", "-q", "--depth", "1", url, str(clone)], check=True, capture_output=True)
    status, detail, hint = by_name(diagnose(clone))["history"]
    assert status == WARN and "shallow" in detail
    assert "git fetch --unshallow" in hint and "fetch-depth: 0" in hint


def test_cli_text_json_and_strict(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "alpha\n"})
    runner = CliRunner()
    text = runner.invoke(main, ["doctor", "--repo", str(corpus_repo.root)])
    assert text.exit_code == 0, text.output
    assert "warn" in text.output and "-> run `pincite build`" in text.output
    as_json = runner.invoke(main, ["doctor", "--repo", str(corpus_repo.root), "--json"])
    data = json.loads(as_json.output)
    assert data["ok"] is False and {c["name"] for c in data["checks"]} >= {"git", "history", "index"}
    strict = runner.invoke(main, ["doctor", "--repo", str(corpus_repo.root), "--strict"])
    assert strict.exit_code == 1


def test_version_option() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith("pincite, version ")


def test_pdf_extra_without_cryptography_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from indexer.extract import pdf

    monkeypatch.setattr(pdf, "importable", lambda module: module != "cryptography")
    status, detail, hint = by_name(diagnose(tmp_path))["extra:pdf"]
    assert status == WARN and "AES" in detail and "pincite[pdf]" in hint


@pytest.fixture
def no_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    """The PDF and HTML extractors, Tesseract and Asciidoctor as on a machine without them."""
    from indexer.extract import ocr
    from indexer.extract import registry as extract_mod
    from indexer.site import asciidoc_view

    for probe in ("probe.pdf", "probe.html"):
        monkeypatch.setattr(type(extract_mod.extractor_for(probe)), "available", lambda self: False)
    monkeypatch.setattr(ocr, "available", lambda: False)
    monkeypatch.setattr(asciidoc_view, "available", lambda: False)


def test_missing_readers_are_no_warning_for_a_corpus_without_their_files(
    corpus_repo: CorpusRepo, no_extras: None
) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n", "notes/outside.pdf": b"%PDF-1.4 outside the roots\n"})
    checks = by_name(diagnose(corpus_repo.root))
    for name in ("extra:pdf", "extra:html", "ocr", "asciidoctor"):
        assert checks[name][0] == OK, checks[name]
    assert "no .pdf files in the corpus at HEAD" in checks["extra:pdf"][1]
    assert "pincite[pdf]" in checks["extra:pdf"][1]  # how to get it, should the corpus get some


def test_missing_readers_warn_with_the_count_of_files_they_would_read(corpus_repo: CorpusRepo, no_extras: None) -> None:
    files = {"corpus/a.pdf": b"%PDF-1.4\n", "corpus/b.PDF": b"%PDF-1.4\n", "corpus/page.htm": "<p>x</p>\n"}
    corpus_repo.commit({**files, "corpus/guide.adoc": "= Guide\n"})
    checks = by_name(diagnose(corpus_repo.root))
    assert checks["extra:pdf"][:2] == (WARN, "2 .pdf file(s) in the corpus are skipped: the extractor is not installed")
    assert checks["extra:html"][0] == WARN and checks["extra:html"][1].startswith("1 .html file(s)")
    assert checks["ocr"][0] == WARN and checks["asciidoctor"][0] == WARN
    assert all(checks[name][2] for name in ("extra:pdf", "extra:html", "ocr", "asciidoctor"))


def test_outside_a_repository_missing_readers_still_warn(tmp_path: Path, no_extras: None) -> None:
    checks = by_name(diagnose(tmp_path))
    for name in ("extra:pdf", "extra:html", "ocr", "asciidoctor"):
        assert checks[name][0] == WARN and checks[name][2], checks[name]
