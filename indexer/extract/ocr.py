"""Text of image-only PDF pages, recognized by Tesseract (optional, like the PDF extra).

A PDF page without a text layer (a scan) is rendered by PDFium at `DPI` and read by the
`tesseract` program (Debian: `tesseract-ocr`, and `tesseract-ocr-<lang>` for each language);
its TSV output gives every word with its box. The recognized text of a page is its words, one
line of the page per line of text, a blank line between paragraphs.

Everything that decides the text is in `identity`: the engine and its version, each language
and a digest of its trained data, the page segmentation mode and the resolution. The languages
are the `ocr_languages` setting. It becomes part of the extractor identity of each PDF that has
pages without a text layer (`OFF` when nothing reads them; extract/pdf.py), and of no other PDF:
a Tesseract upgrade is a new offset space for scans, whose old citations keep their old text
(docs/design.md#d13), and leaves born-digital PDFs as they were. Tesseract runs with one
thread (`OMP_THREAD_LIMIT=1`): the build runs documents side by side, and one thread gives
the same words every run.

Which pages were recognized is said in the version's notes (`note`, read back by `ocr_pages`),
so the site and `resolve --json` can mark OCR text as recognized, not typed.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from indexer.errors import CpuLimitExceeded, ExtractionError, ExtractionHung
from indexer.extract.base import CpuBudget, importable, run_with_cpu_limit, wall_backstop

DPI = 300
PSM = 3  # fully automatic page segmentation, Tesseract's default
DEFAULT_LANGUAGES = ("eng",)
INSTALL_HINT = (
    "install Tesseract to OCR it (Debian: apt-get install tesseract-ocr; pypdfium2 comes with "
    "pip install 'pincite[pdf]'), then build with --retry-skipped"
)
_NOTE = "ocr: pages {pages} recognized by {engine} ({languages}): the words were read from the image, not typed"
_NOTE_PAGES = re.compile(r"^ocr: pages ([\d, ]+) recognized by ")
# The CPU one page's recognition may use (Tesseract's own, one thread): a normal page takes a
# few seconds. The kernel stops Tesseract at the limit; a wall-clock backstop (extract/base.py,
# `wall_backstop`) ends one that hangs without using CPU.
PAGE_CPU_SECONDS = 120.0


@dataclass(frozen=True)
class Word:
    """One recognized word and its box in the OCR image's pixels; `line` and `paragraph` group words."""

    text: str
    left: int
    top: int
    right: int
    bottom: int
    paragraph: tuple[int, int, int]
    line: tuple[int, int, int, int]


def available() -> bool:
    """Whether image-only pages can be recognized here: the tesseract program and PDFium."""
    return shutil.which("tesseract") is not None and importable("pypdfium2")


@functools.cache
def engine_version() -> str:
    """`tesseract 5.3.0`: the first line `tesseract --version` prints."""
    out = subprocess.run(["tesseract", "--version"], capture_output=True, text=True, timeout=30, check=False)
    first = (out.stdout or out.stderr).strip().splitlines()
    return first[0].strip() if first else "tesseract (unknown version)"


@functools.cache
def _list_languages() -> tuple[Path | None, tuple[str, ...]]:
    if shutil.which("tesseract") is None:
        return None, ()
    out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True, timeout=30, check=False)
    lines = (out.stdout + out.stderr).strip().splitlines()
    folder = re.search(r'"(.+?)"', lines[0]) if lines else None
    languages = tuple(sorted(line.strip() for line in lines[1:] if line.strip()))
    return (Path(folder.group(1)) if folder else None), languages


def installed_languages() -> tuple[str, ...]:
    """The language data Tesseract has here (`eng`, `deu`, ...; `osd` is script detection)."""
    return _list_languages()[1]


@functools.cache
def _digest(language: str) -> str:
    folder = _list_languages()[0]
    try:
        data = (folder / f"{language}.traineddata").read_bytes() if folder else b""
    except OSError:
        data = b""
    return hashlib.sha256(data).hexdigest()[:12]


def identity(languages: Sequence[str] = DEFAULT_LANGUAGES) -> str:
    """What decides recognized text: engine, version, each language's data, the options."""
    version = engine_version().replace(" ", "-")
    data = "+".join(f"{lang}@{_digest(lang)}" for lang in languages)
    return f"ocr={version}:{data}:psm{PSM}:dpi{DPI}"


OFF = "ocr=off"


def configuration(languages: Sequence[str]) -> str:
    """The OCR part of the identity of a PDF with pages without a text layer: `identity`, or `OFF`
    when nothing reads them (Tesseract not installed, or no languages set)."""
    return identity(languages) if languages and available() else OFF


def skip_reason(languages: Sequence[str]) -> str:
    """Why no OCR read a PDF's pages without text, for its skip reason (a build keeps the reason, not the hint)."""
    if not available():
        return "Tesseract is not installed to OCR it (Debian: apt-get install tesseract-ocr)"
    if not languages:
        return "OCR is off: ocr_languages = []"
    return "OCR found no words on its pages"


def skip_hint(languages: Sequence[str]) -> str:
    """What to do about a PDF none of whose pages has text, with OCR as configured by `languages`."""
    if not available():
        return INSTALL_HINT
    if not languages:
        return "OCR is off (ocr_languages = []): name its languages in ocr_languages, then build with --retry-skipped"
    return f"OCR (Tesseract, ocr_languages = {list(languages)}) found no words on its pages"


def languages_of(extractor_identity: str) -> tuple[str, ...]:
    """The OCR languages an extractor identity names (`identity`'s form); () when it has no OCR."""
    found = re.search(r"\bocr=[^:\s]+:(\S+?):psm", extractor_identity)
    return tuple(part.split("@", 1)[0] for part in found.group(1).split("+")) if found else ()


def check_languages(languages: Sequence[str], path: str) -> None:
    missing = [lang for lang in languages if lang not in installed_languages()]
    if missing:
        packages = " ".join(f"tesseract-ocr-{lang.replace('_', '-')}" for lang in missing)
        # The package is in the message as well: a build keeps a failure's message, not its hint.
        raise ExtractionError(
            f"{path}: Tesseract has no language data for {', '.join(missing)} (setting ocr_languages; "
            f"Debian: apt-get install {packages})",
            hint=f"apt-get install {packages} (Debian), or remove {', '.join(missing)} from ocr_languages "
            "in pincite.toml; then build with --retry-skipped",
        )


def page_image(data: bytes, index: int) -> bytes:
    """Page `index` (from 0) of the PDF `data` rendered for recognition: gray PNG at `DPI`."""
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        image = document[index].render(scale=DPI / 72, grayscale=True).to_pil().convert("L")
    finally:
        document.close()
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def recognize(png: bytes, languages: Sequence[str], path: str, budget: CpuBudget | None = None) -> list[Word]:
    """The words Tesseract reads in an image, in reading order, with their boxes.

    Tesseract may use `PAGE_CPU_SECONDS` of CPU, counted by the kernel, and no more than is left
    of `budget` (the document's extraction), which is charged with what it used.
    """
    command = ["tesseract", "stdin", "stdout", "-l", "+".join(languages), "--psm", str(PSM), "--dpi", str(DPI), "tsv"]
    cpu_seconds = PAGE_CPU_SECONDS if budget is None else min(budget.cpu_left(), PAGE_CPU_SECONDS)
    try:
        out = run_with_cpu_limit(command, png, cpu_seconds, {**os.environ, "OMP_THREAD_LIMIT": "1"})
    except subprocess.TimeoutExpired as exc:
        raise ExtractionHung(
            f"{path}: OCR of a page was stopped as hung: Tesseract did not finish in "
            f"{wall_backstop(cpu_seconds):g} s of wall-clock time",
            hint="the next build tries it again",
        ) from exc
    if budget is not None:
        budget.charge(out)
    if out.over_cpu_limit:
        raise CpuLimitExceeded(
            f"{path}: OCR of a page used more than {math.ceil(cpu_seconds):g} s of CPU", hint="a huge or noisy scan"
        )
    if out.returncode != 0:
        detail = out.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise ExtractionError(f"{path}: Tesseract failed ({detail[0]})", hint="check the install with `pincite doctor`")
    return _words(out.stdout.decode("utf-8", "replace"))


def _words(tsv: str) -> list[Word]:
    words = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5" or not cells[11].strip():
            continue
        block, par, line = int(cells[2]), int(cells[3]), int(cells[4])
        left, top, width, height = (int(cells[k]) for k in range(6, 10))
        words.append(
            Word(cells[11].strip(), left, top, left + width, top + height, (int(cells[1]), block, par),
                 (int(cells[1]), block, par, line))
        )  # fmt: skip
    return words


def words_text(words: Sequence[Word]) -> str:
    """A page's recognized text: a line per recognized line, a blank line between paragraphs."""
    out: list[str] = []
    previous: Word | None = None
    for word in words:
        if previous is not None:
            if word.paragraph != previous.paragraph:
                out.append("\n\n")
            elif word.line != previous.line:
                out.append("\n")
            else:
                out.append(" ")
        out.append(word.text)
        previous = word
    return "".join(out) + ("\n" if out else "")


def note(pages: Sequence[int], languages: Sequence[str]) -> str:
    """The version note that says which pages (from 1) are recognized text."""
    return _NOTE.format(pages=", ".join(map(str, pages)), engine=engine_version(), languages="+".join(languages))


def ocr_pages(notes: Sequence[str]) -> set[int]:
    """The pages (from 1) a version's notes say were recognized by OCR."""
    for text in notes:
        found = _NOTE_PAGES.match(text)
        if found:
            return {int(n) for n in found.group(1).split(",") if n.strip()}
    return set()


def recognize_pages(
    data: bytes, indices: Sequence[int], languages: Sequence[str], path: str, budget: CpuBudget
) -> dict[int, str]:
    """The recognized text of each page `indices` (from 0) of the PDF `data`, within the extraction's `budget`.

    Tesseract's CPU counts against the budget: each page may use what is left of it.
    """
    check_languages(languages, path)
    texts = {}
    for index in indices:
        budget.check()
        try:
            texts[index] = words_text(recognize(page_image(data, index), languages, path, budget))
        except CpuLimitExceeded:
            budget.check()  # the document's budget is spent, not only the page's: say so
            raise
    budget.check()  # the last page's Tesseract CPU counts too
    return texts
