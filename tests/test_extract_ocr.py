"""Scans become citable: image-only PDF pages recognized by Tesseract, with the identity and the marks."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import pytest
from extract_samples import RECORDS, pdf_of_pages, rasterized

from indexer import api
from indexer.errors import ExtractionError
from indexer.extract import ocr
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
    assert PdfExtractor(ocr_languages=None).identity() == PdfExtractor("plain", None).identity()
    with pytest.raises(ExtractionError, match="no extractable text"):
        PdfExtractor(ocr_languages=None).extract(scan, "scan.pdf")
    extracted = PdfExtractor().extract(scan, "scan.pdf")
    # A property of this input (a clean 300-dpi page of 11 pt Helvetica), not of every scan.
    assert word_accuracy(PdfExtractor().extract(born, "born.pdf").text, extracted.text) >= 0.95
    assert " ocr=tesseract-" in extracted.identity and ":eng@" in extracted.identity
    assert extracted.identity == PdfExtractor().identity()
    assert ocr.ocr_pages(extracted.notes) == {1}
    assert ocr.languages_of(extracted.identity) == ("eng",)


def test_without_tesseract_a_scan_is_skipped_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr, "available", lambda: False)
    scan = rasterized(pdf_of_pages([RECORDS[:1]]))
    with pytest.raises(ExtractionError) as caught:
        PdfExtractor().extract(scan, "scan.pdf")
    assert "apt-get install tesseract-ocr" in (caught.value.hint or "")
    assert "ocr=" not in PdfExtractor().identity()


def test_missing_language_data_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr, "installed_languages", lambda: ("eng", "osd"))
    with pytest.raises(ExtractionError, match="no language data for deu") as caught:
        ocr.check_languages(["eng", "deu"], "scan.pdf")
    assert "tesseract-ocr-deu" in (caught.value.hint or "")


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
    monkeypatch.setattr(ocr, "available", lambda: False)
    check = next(c for c in diagnose(corpus_repo.root).checks if c.name == "ocr")
    assert check.status == "warn" and "apt-get install tesseract-ocr" in check.hint
