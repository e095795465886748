"""PDF text through pypdf: one page after another, with page boundaries kept.

The text of a PDF version (docs/extractors.md):
- each page is pypdf's `extract_text` in the recorded mode ("plain" by default), then
  normalized by `normalize_page` (below); a page with text ends with "\\n";
- pages are joined with `PAGE_SEPARATOR` ("\\f\\n": a line holding only a form feed, as
  pdftotext does), so page n+1 starts just after the n-th separator and
  `ExtractedText.page_starts` lists those offsets;
- a document whose pages hold no text at all is refused ("no extractable text"), as are
  encrypted PDFs that the empty password does not open ("needs a password"; AES needs the
  `cryptography` library of pypdf[crypto]), truncated or corrupt files ("not a readable
  PDF"), and PDFs beyond the page, size and time limits.

Changing anything that changes the output for some input is a bump of `VERSION` (the
golden tests in tests/golden/ fail until it is bumped and the goldens regenerated).
"""

from __future__ import annotations

import io
import re
import unicodedata
from typing import Any

from indexer.errors import ExtractionError
from indexer.extract import ocr
from indexer.extract.base import ExtractedText, Limits, captured_log, cpu_limit, importable, library_version
from indexer.text.kinds import PDF_EXTENSIONS
from indexer.text.normalize import LIGATURES  # the extracted text holds their letters, as quotes fold them

# 3: a PDF with pages without a text layer names its OCR configuration (`identities`), and a
# line-end hyphen after a space ("Chicka -\nsaw") joins its word as one without the space does.
VERSION = 3
PAGE_SEPARATOR = "\f\n"
INSTALL_HINT = "pip install 'pincite[pdf]'"
MODES = ("plain", "layout")

# Small-cap and oldstyle glyphs of fonts without their own Unicode: Adobe's Glyph List gives
# their names (Asmall, zerooldstyle, Agravesmall...) code points U+F700 above the character
# they are a form of, which is what a font's ToUnicode table or pypdf's glyph-name lookup then
# yields ("ARPA" set in small caps comes out as U+F761 U+F772...). Each goes back to that
# character, a small capital as the capital a reader sees (Asmall -> "A", Ydieresissmall -> "Ÿ").
_SMALL_CAPITALS = (*range(0x61, 0x7B), *range(0xE0, 0xF7), *range(0xF8, 0xFF))
SMALL_FORMS = {
    **{chr(0xF700 + code): chr(code) for code in (0x21, 0x24, 0x26, *range(0x30, 0x3A), 0x3F, 0xA1, 0xBF)},
    **{chr(0xF700 + code): chr(code).upper() for code in _SMALL_CAPITALS},
    "\uf7ff": "\u0178",
}
PRIVATE_USE = (0xE000, 0xF8FF)  # the BMP's private use area: no meaning outside the font
# Control characters other than tab and line feed never carry text; dropping the form feed
# keeps PAGE_SEPARATOR unambiguous.
_DROP = {code: None for code in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F)}
_TRANSLATE = str.maketrans(
    {**{ord(k): v for k, v in LIGATURES.items()}, **{ord(k): v for k, v in SMALL_FORMS.items()}, **_DROP}
)
_PAGE_NUMBER = re.compile(r"[ \t]*\d{1,4}[ \t]*")
_PRIVATE_USE = re.compile(f"[{chr(PRIVATE_USE[0])}-{chr(PRIVATE_USE[1])}]")
_SOFT_HYPHEN_BREAK = re.compile("\u00ad[ \t]*\n[ \t]*")
# A space may stand before the hyphen: pypdf gives "Chicka -⏎saw" where a justified line's last
# glyph is set apart (30 of 145 line-end hyphens of a Supreme Court slip opinion).
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])[ \t]?[-\u2010][ \t]*\n[ \t]*(?=[^\W\d_])")
# pypdf warnings that mean the bytes are not the whole file: the text would be partial.
_FATAL_WARNINGS = ("EOF marker not found", "might be truncated")


def normalize_page(text: str) -> str:
    """The documented, deterministic normalization of one page's extracted text.

    In order: CRLF and CR become LF; ligature code points become their letters, and
    Adobe's small-cap and oldstyle code points (`SMALL_FORMS`) the characters they are forms
    of; control characters other than tab and LF are dropped; a soft hyphen at a line end
    joins the two lines; remaining soft hyphens are dropped; a hyphen (U+002D or U+2010)
    between a letter at a line end (one space or tab may stand between them) and a lowercase
    letter starting the next line is removed with the line break ("reten-\\ntion" and
    "reten -\\ntion" -> "retention", while "data-\\nDriven" is kept);
    trailing spaces of lines and blank lines at the page's start and end are dropped; a last
    line holding only a number (1 to 4 digits: the page number of a footer) is dropped when
    other lines stand above it and the line before does not end in a hyphen or dash (a range
    "2020-" continued); NFC. A page with text ends with one "\\n"; a page without is "".
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_TRANSLATE)
    text = _SOFT_HYPHEN_BREAK.sub("", text).replace("\u00ad", "")
    text = _HYPHEN_BREAK.sub(_join_hyphenated, text)
    text = "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")
    body, _, last = text.rpartition("\n")
    if body.strip() and _PAGE_NUMBER.fullmatch(last) and not body.rstrip().endswith(("-", "\u2010", "\u2013")):
        text = body.rstrip("\n")
    text = unicodedata.normalize("NFC", text)
    return text + "\n" if text.strip() else ""


def unmapped_warning(text: str) -> str:
    """The build's warning about private-use characters left in `text` ("" when there are none)."""
    count = len(_PRIVATE_USE.findall(text))
    if not count:
        return ""
    return (
        f"{count} private-use character(s) (U+E000-U+F8FF) that neither the font's tables nor "
        "pincite's small-cap table map to Unicode: the words holding them cannot be searched or quoted"
    )


def _join_hyphenated(match: re.Match[str]) -> str:
    following = match.string[match.end() : match.end() + 1]
    return "" if following.islower() else match.group(0)


def join_pages(pages: list[str]) -> tuple[str, tuple[int, ...]]:
    """The document text and the offsets where pages 2, 3, ... start."""
    starts: list[int] = []
    offset = 0
    for number, page in enumerate(pages):
        if number:
            offset += len(PAGE_SEPARATOR)
            starts.append(offset)
        offset += len(page)
    return PAGE_SEPARATOR.join(pages), tuple(starts)


class PdfExtractor:
    """PDF files: each page's text by pypdf (the pdf extra), pages parted by a form feed line."""

    name = "pdf"
    extensions: tuple[str, ...] = PDF_EXTENSIONS
    source_class = "extracted"
    install_hint = INSTALL_HINT

    def __init__(self, mode: str = "plain") -> None:
        if mode not in MODES:
            raise ValueError(f"unknown pypdf extraction mode {mode!r}; use one of {', '.join(MODES)}")
        self.mode = mode

    def available(self) -> bool:
        return importable("pypdf")

    def identity(self) -> str:
        """The identity of a PDF whose every page has a text layer: OCR has no part in its text."""
        return f"pdf/{VERSION} pypdf={library_version('pypdf')} mode={self.mode}"

    def identities(self, limits: Limits) -> tuple[str, ...]:
        """`identity()`, and the identity of a PDF with pages without a text layer under `limits`.

        The second names the OCR that reads those pages (engine, version, each language's data,
        options: `ocr.configuration`), or `ocr=off` when none does, so a PDF that has such pages
        is never served a text read under another OCR configuration, and one that has none
        keeps its identity whether Tesseract is installed or not (docs/design.md#d13).
        """
        return self.identity(), f"{self.identity()} {ocr.configuration(limits.ocr_languages)}"

    def extract(self, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText:
        # The byte limit is checked once for every extractor, in `extract.extract`.
        limits = limits or Limits()
        with captured_log("pypdf") as warnings, cpu_limit(limits.timeout_seconds, path) as budget:
            try:
                reader, notes = _open(data, path, warnings)
                count = len(reader.pages)
                if count > limits.pdf_max_pages:
                    raise ExtractionError(
                        f"{path}: oversized PDF ({count} pages, more than pdf_max_pages = {limits.pdf_max_pages})",
                        hint="raise pdf_max_pages in pincite.toml, or split the PDF",
                    )
                pages = []
                for number, page in enumerate(reader.pages, start=1):
                    budget.check()
                    pages.append(normalize_page(_page_text(page, self.mode, path, number)))
                languages = limits.ocr_languages if ocr.available() else ()
                empty = [n for n, text in enumerate(pages) if not text]
                if languages and empty:
                    for n, text in ocr.recognize_pages(data, empty, languages, path, budget).items():
                        pages[n] = normalize_page(text)
                    if any(pages[n] for n in empty):
                        notes += (ocr.note([n + 1 for n in empty if pages[n]], languages),)
                title = _title(reader)
            except ExtractionError:
                raise
            except Exception as exc:  # pypdf raises many types for broken files; each is this file's problem
                raise _encryption_error(path, exc) or _unreadable(path, exc) from exc
            _refuse_partial(path, warnings)
        if not any(pages):
            raise ExtractionError(
                f"{path}: no extractable text (none of its {len(pages)} page(s) has a text layer; a scan? "
                f"{ocr.skip_reason(limits.ocr_languages)})",
                hint=ocr.skip_hint(limits.ocr_languages),
            )
        identity = self.identities(limits)[1] if empty else self.identity()
        text, page_starts = join_pages(pages)
        notes += tuple(f"pypdf: {w}" for w in list(dict.fromkeys(warnings))[:5])
        warning = unmapped_warning(text)
        notes += (warning,) if warning else ()
        return ExtractedText(text, "extracted", identity, title, page_starts, notes, warning=warning)


def _open(data: bytes, path: str, warnings: list[str]) -> tuple[Any, tuple[str, ...]]:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
    _refuse_partial(path, warnings)
    if not reader.is_encrypted:
        return reader, ()
    if reader.decrypt("") == pypdf.PasswordType.NOT_DECRYPTED:
        raise _needs_password(path)
    return reader, ("encrypted with an empty user password; decrypted",)


def decrypts_aes() -> bool:
    """Whether pypdf can open AES-encrypted PDFs here (it needs `cryptography`, from pypdf[crypto])."""
    return importable("cryptography")


def _needs_password(path: str) -> ExtractionError:
    return ExtractionError(
        f"{path}: encrypted with a password: it needs a password to open "
        "(pincite opens only PDFs whose user password is empty)",
        hint="commit an unencrypted copy of the document",
    )


def _encryption_error(path: str, exc: Exception) -> ExtractionError | None:
    """The message for a PDF that is whole but encrypted in a way we cannot open, or None."""
    import pypdf

    if isinstance(exc, pypdf.errors.FileNotDecryptedError):
        return _needs_password(path)
    if isinstance(exc, pypdf.errors.DependencyError):
        return ExtractionError(
            f"{path}: encrypted with AES, and the cryptography library pypdf needs for it is not installed",
            hint=f"{INSTALL_HINT} (it installs pypdf[crypto]) and build with --retry-skipped, "
            "or commit an unencrypted copy",
        )
    return None


def _page_text(page: Any, mode: str, path: str, number: int) -> str:
    try:
        return str(page.extract_text(extraction_mode=mode))
    except Exception as exc:
        encrypted = _encryption_error(path, exc)
        if encrypted is not None:
            raise encrypted from exc
        if type(exc).__name__ == "LimitReachedError":
            raise ExtractionError(
                f"{path}: page {number} is beyond pypdf's safety limits ({exc})",
                hint="a pathological page (e.g. millions of drawing operations); simplify or rasterise it",
            ) from exc
        raise ExtractionError(
            f"{path}: page {number} could not be read ({type(exc).__name__}: {exc})",
            hint="the PDF is damaged; re-export it from its source",
        ) from exc


def _title(reader: Any) -> str:
    try:
        metadata = reader.metadata
        title = metadata.title if metadata is not None else None
    except Exception:  # metadata is optional; a damaged info dictionary must not lose the text
        return ""
    return " ".join(str(title).split()) if title else ""


def _unreadable(path: str, exc: Exception) -> ExtractionError:
    detail = str(exc) or type(exc).__name__
    return ExtractionError(
        f"{path}: not a readable PDF ({type(exc).__name__}: {detail})",
        hint="the file is truncated or corrupt; re-export or re-download it and commit it again",
    )


def _refuse_partial(path: str, warnings: list[str]) -> None:
    for warning in warnings:
        if any(marker in warning for marker in _FATAL_WARNINGS):
            raise ExtractionError(
                f"{path}: not a readable PDF (looks truncated: {warning.strip()})",
                hint="the file is truncated or corrupt; re-export or re-download it and commit it again",
            )
