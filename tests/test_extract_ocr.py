"""Scans become citable: image-only PDF pages recognized by Tesseract, with the identity and the marks."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path
from typing import Any

import pytest
from extract_samples import RECORDS, concatenated, pdf_of_pages, rasterized

from indexer import api
from indexer.errors import CpuLimitExceeded, ExtractionError
from indexer.extract import ocr
from indexer.extract.base import Limits
from indexer.extract.pdf import PdfExtractor

pytest.importorskip("pypdfium2")
needs_tesseract = pytest.mark.skipif(
    not ocr.available(), reason="Tesseract is not installed (tests/run.sh installs it)"
)


def word_accuracy(expected: str, recognized: str) -> float:
    """Share of the expected words that stand, in order, in the recognized text."""
    want, got = expected.split(), recognized.split()
    matched = sum(b.size for b in difflib.SequenceMatcher(None, want, got, autojunk=False).get_matching_blocks())
    return matched / len(want)


@needs_tesseract
def test_a_rasterized_page_is_recognized_with_its_identity_and_note() -> None:
    born = pdf_of_pages([RECORDS])
    scan = rasterized(born)
    off = Limits(ocr_languages=())
    with pytest.raises(ExtractionError, match="no extractable text") as caught:
        PdfExtractor().extract(scan, "scan.pdf", off)
    assert "ocr_languages" in (caught.value.hint or "")
    extracted = PdfExtractor().extract(scan, "scan.pdf")
    # A property of this input (a clean 300-dpi page of 11 pt Helvetica), not of every scan.
    assert word_accuracy(PdfExtractor().extract(born, "born.pdf").text, extracted.text) >= 0.95
    assert extracted.identity.startswith(PdfExtractor().identity() + " ocr=tesseract-")
    assert ":eng@" in extracted.identity
    assert extracted.identity == PdfExtractor().identities(Limits())[1]
    assert ocr.ocr_pages(extracted.notes) == {1}
    assert ocr.languages_of(extracted.identity) == ("eng",)


@needs_tesseract
def test_tesseracts_cpu_counts_against_the_documents_cpu_limit() -> None:
    # Tesseract's CPU (a second or more for this page), not this process's, is most of the work:
    # it is charged to the document, and the kernel stops Tesseract at what is left of the limit.
    scan = rasterized(pdf_of_pages([RECORDS]))
    with pytest.raises(CpuLimitExceeded, match=r"scan.pdf: extraction used more than 0.3 s of CPU"):
        PdfExtractor().extract(scan, "scan.pdf", Limits(timeout_seconds=0.3))


def test_a_pdf_whose_pages_all_have_text_keeps_its_identity_whatever_the_ocr(monkeypatch: pytest.MonkeyPatch) -> None:
    born = pdf_of_pages([RECORDS[:1], RECORDS[1:]])
    identities = set()
    for tesseract in (True, False):
        monkeypatch.setattr(ocr, "available", lambda tesseract=tesseract: tesseract and shutil.which("tesseract"))
        for languages in ((), ("eng",), ("eng", "deu")):
            identities.add(PdfExtractor().extract(born, "born.pdf", Limits(ocr_languages=languages)).identity)
    assert identities == {PdfExtractor().identity()}
    assert "ocr" not in PdfExtractor().identity()


@needs_tesseract
def test_the_ocr_configuration_is_the_identity_of_a_pdf_with_a_scanned_page(monkeypatch: pytest.MonkeyPatch) -> None:
    mixed = concatenated(pdf_of_pages([RECORDS[:1]]), rasterized(pdf_of_pages([RECORDS[1:]])))
    extractor = PdfExtractor()
    on = extractor.extract(mixed, "mixed.pdf")
    off = extractor.extract(mixed, "mixed.pdf", Limits(ocr_languages=()))
    assert "thirty days" in on.text and "thirty days" not in off.text
    assert off.identity == f"{extractor.identity()} ocr=off" == extractor.identities(Limits(ocr_languages=()))[1]
    assert on.identity == extractor.identities(Limits())[1] != off.identity
    # Other languages are another configuration: their digests are in the identity.
    monkeypatch.setattr(ocr, "installed_languages", lambda: ("eng", "osd"))
    assert extractor.identities(Limits(ocr_languages=("eng", "osd")))[1] != on.identity
    monkeypatch.setattr(ocr, "available", lambda: False)
    assert extractor.identities(Limits())[1] == f"{extractor.identity()} ocr=off"
    assert extractor.extract(mixed, "mixed.pdf").identity == off.identity


def test_without_tesseract_a_scan_is_skipped_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr, "available", lambda: False)
    scan = rasterized(pdf_of_pages([RECORDS[:1]]))
    with pytest.raises(ExtractionError) as caught:
        PdfExtractor().extract(scan, "scan.pdf")
    assert "apt-get install tesseract-ocr" in (caught.value.hint or "")
    assert "Tesseract is not installed to OCR it (Debian: apt-get install tesseract-ocr)" in caught.value.message
    assert PdfExtractor().identities(Limits()) == (PdfExtractor().identity(), f"{PdfExtractor().identity()} ocr=off")


def test_missing_language_data_names_the_setting_and_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr, "installed_languages", lambda: ("eng", "osd"))
    expected = r"no language data for deu, chi_sim \(setting ocr_languages; Debian: apt-get install tesseract-ocr-deu "
    with pytest.raises(ExtractionError, match=expected) as caught:
        ocr.check_languages(["eng", "deu", "chi_sim"], "scan.pdf")
    hint = caught.value.hint or ""
    assert "apt-get install tesseract-ocr-deu tesseract-ocr-chi-sim" in hint and "ocr_languages" in hint


@needs_tesseract
def test_a_language_without_data_skips_the_scan_naming_the_setting(corpus_repo: Any) -> None:
    corpus_repo.commit({"corpus/scan.pdf": rasterized(pdf_of_pages([RECORDS[:1]]))}, "a scan")
    (corpus_repo.root / "pincite.toml").write_text('ocr_languages = ["eng", "zzz"]\n', encoding="utf-8")
    summary = api.build(corpus_repo.root)
    [skipped] = summary.skipped
    assert "no language data for zzz (setting ocr_languages; Debian: apt-get install tesseract-ocr-zzz)" in (
        skipped.reason
    )


@needs_tesseract
def test_changing_the_ocr_languages_reextracts_only_the_scans(corpus_repo: Any) -> None:
    born = pdf_of_pages([RECORDS[:1]])
    mixed = concatenated(pdf_of_pages([RECORDS[2:]]), rasterized(pdf_of_pages([RECORDS[1:2]])))
    corpus_repo.commit({"corpus/born.pdf": born, "corpus/mixed.pdf": mixed}, "two PDFs")
    settings = corpus_repo.root / "pincite.toml"
    settings.write_text("ocr_languages = []\n", encoding="utf-8")
    first = api.build(corpus_repo.root)
    assert (first.extracted, first.reused) == (2, 0)
    assert not api.search("thirty days", corpus_repo.root)  # OCR off: the scanned page has no words
    settings.write_text('ocr_languages = ["eng"]\n', encoding="utf-8")
    second = api.build(corpus_repo.root)
    # The born-digital PDF keeps its text and identity; the one with a scanned page is read again.
    assert (second.extracted, second.reused) == (1, 1)
    hits = api.search("thirty days", corpus_repo.root)
    assert [hit.path for hit in hits] == ["corpus/mixed.pdf"]
    cited = api.cite("corpus/mixed.pdf", corpus_repo.root, quote="thirty days")
    assert cited.resolved.document.extracted.identity == PdfExtractor().identities(Limits())[1]
    assert api.resolve(cited.citation, corpus_repo.root).to_json()["ocr"] is True
    # Off again: the first text is reused, never the OCR text served under another configuration.
    settings.write_text("ocr_languages = []\n", encoding="utf-8")
    third = api.build(corpus_repo.root)
    assert (third.extracted, third.reused) == (0, 2)
    assert not api.search("thirty days", corpus_repo.root)
    born_cited = api.cite("corpus/born.pdf", corpus_repo.root, quote="seven years")
    assert born_cited.resolved.document.extracted.identity == PdfExtractor().identity()


def test_words_make_lines_and_paragraphs() -> None:
    tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" + "".join(
        f"5\t1\t1\t{par}\t{line}\t{n}\t{10 * n}\t{20 * line}\t8\t9\t95\t{word}\n"
        for par, line, n, word in [(1, 1, 1, "Kept"), (1, 1, 2, "seven"), (1, 2, 1, "years."), (2, 3, 1, "Next")]
    )
    words = ocr._words(tsv)
    assert ocr.words_text(words) == "Kept seven\nyears.\n\nNext\n"
    assert (words[1].left, words[1].top, words[1].right, words[1].bottom) == (20, 20, 28, 29)


@needs_tesseract
def test_a_scan_built_with_tesseract_is_searchable_citable_and_marked(corpus_repo: Any, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/scan.pdf": rasterized(pdf_of_pages([RECORDS]))}, "a scanned policy")
    site = tmp_path / "site"
    summary = api.build(corpus_repo.root, out=site)
    assert summary.skipped == []
    hits = api.search("supervision", corpus_repo.root)
    assert hits and hits[0].path == "corpus/scan.pdf"
    cited = api.cite("corpus/scan.pdf", corpus_repo.root, quote="thirty days")
    assert cited.resolved.text == "thirty days"
    resolved = api.resolve(cited.citation, corpus_repo.root).to_json()
    assert resolved["ocr"] is True and resolved["text"] == "thirty days"
    blob = cited.resolved.blob
    page = (site / "v" / f"{blob}.html").read_text(encoding="utf-8")
    assert "recognized by OCR" in page
    boxes = (site / "pages" / blob / "1.json").read_text(encoding="utf-8")
    assert '"lines":[[' in boxes  # the recognized words have their boxes on the page image


def test_doctor_lists_the_installed_language_data(corpus_repo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from indexer.integrations.doctor import diagnose

    corpus_repo.commit({"corpus/a.md": "# A\n", "corpus/scan.pdf": b"%PDF-1.4\n"}, "start")  # OCR reads PDFs
    monkeypatch.setattr(ocr, "available", lambda: True)
    monkeypatch.setattr(ocr, "engine_version", lambda: "tesseract 5.3.0")
    monkeypatch.setattr(ocr, "installed_languages", lambda: ("deu", "eng", "osd"))
    check = next(c for c in diagnose(corpus_repo.root).checks if c.name == "ocr")
    assert check.status == "ok" and "language data: deu, eng, osd" in check.detail
    (corpus_repo.root / "pincite.toml").write_text('ocr_languages = ["eng", "fra"]\n', encoding="utf-8")
    check = next(c for c in diagnose(corpus_repo.root).checks if c.name == "ocr languages")
    assert check.status == "warn" and "fra" in check.detail and "apt-get install tesseract-ocr-fra" in check.hint
    monkeypatch.setattr(ocr, "available", lambda: False)
    check = next(c for c in diagnose(corpus_repo.root).checks if c.name == "ocr")
    assert check.status == "warn" and "apt-get install tesseract-ocr" in check.hint


@needs_tesseract
def test_installing_tesseract_changes_the_identity_of_the_scans_alone(
    corpus_repo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    born = pdf_of_pages([RECORDS[:1]])
    mixed = concatenated(pdf_of_pages([RECORDS[2:]]), rasterized(pdf_of_pages([RECORDS[1:2]])))
    corpus_repo.commit({"corpus/born.pdf": born, "corpus/mixed.pdf": mixed}, "two PDFs")
    with monkeypatch.context() as without:
        without.setattr(ocr, "available", lambda: False)
        first = api.build(corpus_repo.root)
        before = api.cite("corpus/born.pdf", corpus_repo.root, quote="seven years").citation
    assert first.extracted == 2
    second = api.build(corpus_repo.root)  # Tesseract "installed"
    assert (second.extracted, second.reused) == (1, 1)
    after = api.cite("corpus/born.pdf", corpus_repo.root, quote="seven years").citation
    assert after == before  # the same identity token: a born-digital PDF's citations do not change
    [checked] = api.verify([before], corpus_repo.root)
    assert checked.verdict.status == "verified"
