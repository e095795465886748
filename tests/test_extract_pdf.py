"""PDF extraction: pages, separator, normalization, identity, and every kind of bad PDF."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from extract_samples import (
    pdf_of_pages,
    pdf_with_heavy_page,
    pdf_with_page_numbers,
    pdf_with_small_caps,
    pdf_without_text,
)
from hypothesis import given
from hypothesis import strategies as st

from indexer import api
from indexer.errors import ExtractionError
from indexer.extract.base import cpu_limit
from indexer.extract.pdf import LIGATURES, PAGE_SEPARATOR, SMALL_FORMS, PdfExtractor, join_pages, normalize_page
from indexer.extract.registry import Limits, extract

PAGES = [
    ["Retention of volunteer rosters is twelve months.", "Rosters older than that are deleted by the steward."],
    ["Incident reports are kept for six years after closing."],
    ["Board minutes are kept permanently."],
]


def pages_of(text: str, page_starts: tuple[int, ...]) -> list[str]:
    bounds = [0, *page_starts, len(text)]
    return [text[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]


def test_pages_are_joined_with_the_separator_and_their_starts_recorded() -> None:
    result = PdfExtractor().extract(pdf_of_pages(PAGES), "r.pdf")
    assert len(result.page_starts) == 2
    for start in result.page_starts:
        assert result.text[start - len(PAGE_SEPARATOR) : start] == PAGE_SEPARATOR
    pages = pages_of(result.text, result.page_starts)
    assert "twelve months" in pages[0] and "six years" not in pages[0]
    assert "six years" in pages[1]
    assert "permanently" in pages[2]
    assert result.text.endswith("permanently.\n")
    assert result.source_class == "extracted"


def test_identity_names_extractor_version_library_and_mode() -> None:
    import pypdf

    assert PdfExtractor().identity() == f"pdf/3 pypdf={pypdf.__version__} mode=plain"
    assert "mode=layout" in PdfExtractor("layout").identity().split()
    with pytest.raises(ValueError, match="unknown pypdf extraction mode"):
        PdfExtractor("fancy")


def test_registry_extracts_pdf_by_extension_in_any_case() -> None:
    result = extract(pdf_of_pages(PAGES[:1]), "reports/Annual.PDF")
    assert result.identity == PdfExtractor().identity()  # every page has text: no OCR in its identity
    assert "twelve months" in result.text


def test_hyphenated_line_break_and_soft_hyphen_in_a_real_pdf() -> None:
    # The cell is narrow enough that fpdf2 breaks the line after the hyphen.
    data = pdf_of_pages([["The reten-\ntion period, the data-\nDriven review, rea\u00adsonable."]])
    text = PdfExtractor().extract(data, "h.pdf").text
    assert "retention period" in text
    assert "data-\nDriven" in text
    assert "reasonable" in text and "\u00ad" not in text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("e\ufb03cient of\ufb01ce \ufb02ow", "efficient office flow\n"),
        ("reten-\ntion", "retention\n"),
        ("reten\u2010\ntion", "retention\n"),
        ("Chicka -\nsaw", "Chickasaw\n"),
        ("Word -\nDriven", "Word -\nDriven\n"),
        ("data-\nDriven", "data-\nDriven\n"),
        ("2020-\n2021", "2020-\n2021\n"),
        ("reten\u00ad\ntion and co\u00adoperate", "retention and cooperate\n"),
        ("line one   \r\nline two\rline three", "line one\nline two\nline three\n"),
        ("\n\n  body\n\n", "  body\n"),
        ("form\x0cfeed and nul\x00", "formfeed and nul\n"),
        ("cafe\u0301", "caf\u00e9\n"),
        ("   \n\t\n", ""),
        ("Body text.\n\n   12  ", "Body text.\n"),
        ("12\nBody text.", "12\nBody text.\n"),
        ("7\n", "7\n"),
        ("Total\n12345", "Total\n12345\n"),
        ("\uf741\uf772\uf770\uf761 \uf730\uf739 \uf7e6", "\uf741RPA 09 \u00c6\n"),
    ],
)
def test_normalize_page(raw: str, expected: str) -> None:
    assert normalize_page(raw) == expected


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))))
def test_normalized_pages_are_clean(raw: str) -> None:
    page = normalize_page(raw)
    assert page == "" or page.endswith("\n")
    assert not any(ch in page for ch in ("\r", "\f", "\u00ad", *LIGATURES, *SMALL_FORMS))
    assert all(line == line.rstrip() for line in page.split("\n"))
    assert unicodedata.is_normalized("NFC", page)


@given(st.lists(st.text(alphabet="ab \n").map(normalize_page), max_size=6))
def test_join_pages_offsets_find_every_page(pages: list[str]) -> None:
    text, starts = join_pages(pages)
    assert len(starts) == max(len(pages) - 1, 0)
    bounds = [0, *starts, len(text)]
    for number, page in enumerate(pages):
        end = bounds[number + 1] - (len(PAGE_SEPARATOR) if number < len(pages) - 1 else 0)
        assert text[bounds[number] : end] == page


def test_empty_user_password_is_opened_and_noted() -> None:
    data = pdf_of_pages(PAGES[:1], user_password="")
    result = PdfExtractor().extract(data, "enc.pdf")
    assert "twelve months" in result.text
    assert any("empty user password" in note for note in result.notes)


@pytest.mark.parametrize("method", ["RC4", "AES_128", "AES_256"])
def test_real_password_is_refused(method: str) -> None:
    data = pdf_of_pages(PAGES[:1], user_password="s3cret", method=method)
    with pytest.raises(ExtractionError, match="needs a password") as info:
        PdfExtractor().extract(data, "locked.pdf")
    assert "locked.pdf" in str(info.value) and info.value.hint
    assert "not a readable PDF" not in str(info.value)


@pytest.mark.parametrize("method", ["AES_128", "AES_256"])
def test_aes_with_an_empty_password_is_opened(method: str) -> None:
    result = PdfExtractor().extract(pdf_of_pages(PAGES[:1], user_password="", method=method), "aes.pdf")
    assert "twelve months" in result.text


@pytest.mark.parametrize("method", ["AES_128", "AES_256"])
def test_aes_without_cryptography_names_the_install(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import pypdf._crypt_providers._fallback as fallback
    import pypdf._encryption

    data = pdf_of_pages(PAGES[:1], user_password="", method=method)
    # pypdf picks its AES code when imported; put in what it picks when `cryptography` is missing.
    for name in ("CryptAES", "aes_cbc_decrypt", "aes_ecb_decrypt"):
        monkeypatch.setattr(pypdf._encryption, name, getattr(fallback, name))
    with pytest.raises(ExtractionError, match="cryptography library") as info:
        PdfExtractor().extract(data, "aes.pdf")
    assert "pincite[pdf]" in (info.value.hint or "") and "not a readable PDF" not in str(info.value)


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.98])
def test_truncated_pdf_is_refused(keep: float) -> None:
    data = pdf_of_pages(PAGES)
    with pytest.raises(ExtractionError, match="not a readable PDF"):
        PdfExtractor().extract(data[: int(len(data) * keep)], "cut.pdf")


@pytest.mark.parametrize("data", [b"", b"hello, not a pdf", b"%PDF-1.7\n" + bytes(range(256)) * 20])
def test_corrupt_pdf_is_refused(data: bytes) -> None:
    with pytest.raises(ExtractionError, match=r"not a readable PDF|no extractable text"):
        PdfExtractor().extract(data, "junk.pdf")


def test_pdf_without_text_layer_reports_no_extractable_text() -> None:
    with pytest.raises(ExtractionError, match="no extractable text") as info:
        PdfExtractor().extract(pdf_without_text(), "scan.pdf")
    assert "OCR" in (info.value.hint or "")


def test_pathological_page_hits_the_cpu_limit() -> None:
    with pytest.raises(ExtractionError, match=r"used more than 0.4 s of CPU \(extract_timeout_seconds\)"):
        PdfExtractor().extract(pdf_with_heavy_page(), "heavy.pdf", Limits(timeout_seconds=0.4))


def test_an_alarm_landing_in_a_finalizer_still_stops_the_work_and_is_not_reported() -> None:
    reported: list[object] = []

    class SlowToFinalize:
        def __del__(self) -> None:
            until = time.monotonic() + 0.3
            while time.monotonic() < until:  # the alarm fires in here, where it cannot be raised
                pass

    previous = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: reported.append(unraisable.exc_type)
    try:
        expired = pytest.raises(ExtractionError, match=r"slow.pdf: extraction used more than 0.1 s of CPU")
        with expired, cpu_limit(0.1, "slow.pdf"):
            SlowToFinalize()
            while True:  # a re-fired alarm stops this
                pass
    finally:
        sys.unraisablehook = previous
    assert reported == []


def test_too_many_pages_is_oversized() -> None:
    with pytest.raises(ExtractionError, match=r"oversized PDF \(3 pages, more than pdf_max_pages = 2\)"):
        PdfExtractor().extract(pdf_of_pages(PAGES), "long.pdf", Limits(pdf_max_pages=2))


def test_too_many_bytes_is_oversized() -> None:
    data = pdf_of_pages(PAGES)
    with pytest.raises(ExtractionError, match=re.escape(f"({len(data)} bytes, more than max_file_bytes = 1000)")):
        extract(data, "big.pdf", Limits(max_bytes=1000))


def test_pypdf_warnings_do_not_reach_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    data = pdf_of_pages(PAGES)
    with pytest.raises(ExtractionError):
        PdfExtractor().extract(data[: len(data) // 2], "cut.pdf")
    assert capfd.readouterr().err == ""


def test_small_cap_code_points_map_back_and_the_rest_are_counted() -> None:
    result = PdfExtractor().extract(pdf_with_small_caps(), "funding.pdf")
    assert result.text == "Funded by ARPA and \ue001.\n"
    assert result.warning.startswith("1 private-use character(s)") and result.warning in result.notes


def test_footer_page_numbers_are_not_text_lines_while_pdftotext_keeps_them() -> None:
    pages = [["The first page holds the introduction."], ["The second page holds the results."]]
    data = pdf_with_page_numbers(pages)
    text = PdfExtractor().extract(data, "paper.pdf").text
    lines = [line for line in text.split("\n") if line.strip() not in ("", "\f")]
    assert lines == ["The first page holds the introduction.", "The second page holds the results."]
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed: the comparison with it is skipped")
    theirs = subprocess.run(["pdftotext", "-", "-"], input=data, capture_output=True, check=True).stdout.decode()
    kept = [line.strip(" \f") for line in theirs.split("\n") if line.strip(" \f")]
    assert kept == [lines[0], "1", lines[1], "2"]  # the same words, and the footers pincite leaves out


def test_a_pdf_citation_checked_without_the_pdf_extra_says_to_install_it(corpus_repo: Any, tmp_path: Path) -> None:
    # A teammate's fresh clone, or the pre-commit hook's own environment: no pypdf, no index, no cache.
    corpus_repo.commit({"corpus/paper.pdf": pdf_of_pages([["The records are kept for seven years."]])})
    cited = api.cite("corpus/paper.pdf", corpus_repo.root, quote="kept for seven years").citation
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(corpus_repo.root), str(clone)], check=True)
    (clone / "memo.md").write_text(f'"kept for seven years" {cited.text_form()}\n', encoding="utf-8")
    blocked = tmp_path / "without-pypdf"
    blocked.mkdir()
    (blocked / "sitecustomize.py").write_text("import sys\nsys.modules['pypdf'] = None  # import pypdf fails\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocked), str(Path(api.__file__).parents[1])])}
    proc = subprocess.run(
        [sys.executable, "-m", "indexer.cli.main", "check", "--json", "--repo", str(clone), str(clone / "memo.md")],
        capture_output=True,
        text=True,
        env=env,
        cwd=clone,
    )
    (record,) = json.loads(proc.stdout)["records"]
    assert record["verdict"] == "unresolvable", record
    assert "the pdf extractor is not installed" in record["details"], record["details"]
    assert "pip install 'pincite[pdf]'" in record["details"] and "additional_dependencies" in record["details"]
    assert "rebuild" not in record["details"]
