"""Pages as printed: what page images and word boxes cost beside a PDF's own extraction.

For each PDF (a generated 20-page two-column paper, and any files named on the command line):
the CPU seconds of pypdf's extraction (pincite's PDF extractor), of rendering its pages with
PDFium (`indexer.extract.pdf_pages.render_pages`: images, renderer text, alignment, boxes), and
of poppler's `pdftoppm` at the same resolution when it is installed; the bytes of the images and
of the boxes' JSON against the PDF's own bytes. The budget (issue 33): images and boxes at most
2x the PDF's bytes, rendering at most 3x the extraction's CPU.

    python bench/pdf_pages_bench.py
    python bench/pdf_pages_bench.py /usr/share/doc/*/*.pdf
    python bench/pdf_pages_bench.py --ocr FILE.pdf   # also OCR each file rasterized (slow)

With Tesseract installed it also rasterizes a generated paper and OCRs it: pages a second and
word accuracy against the born-digital text layer (the issue asks >= 95% on clean 300-dpi pages).
"""

from __future__ import annotations

import json
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from indexer.extract import ocr
from indexer.extract.base import Limits
from indexer.extract.pdf import PdfExtractor
from indexer.extract.pdf_pages import DPI, page_texts, render_pages

WORDS = (
    "the",
    "of",
    "citation",
    "page",
    "words",
    "renderer",
    "text",
    "extracted",
    "highlight",
    "boxes",
    "source",
    "commit",
    "version",
    "paper",
    "method",
    "result",
    "table",
    "figure",
    "evidence",
    "archive",
    "policy",
    "record",
    "court",
    "section",
)


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def two_column_paper(pages: int = 20, seed: int = 1) -> bytes:
    """A two-column paper of `pages` pages: a title, paragraphs in 10 pt Helvetica, a grey figure each page."""
    from fpdf import FPDF

    rng = random.Random(seed)
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    for number in range(pages):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 14)
        pdf.set_xy(15, 12)
        pdf.cell(0, 8, f"Section {number + 1}: {' '.join(rng.choice(WORDS) for _ in range(4))}")
        pdf.set_font("Helvetica", size=10)
        for x in (15, 110):
            pdf.set_left_margin(x)
            pdf.set_xy(x, 24)
            for _ in range(4):
                pdf.multi_cell(85, 4.6, " ".join(rng.choice(WORDS) for _ in range(70)), new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
        pdf.set_fill_color(200, 200, 200)
        pdf.rect(110, 230, 85, 50, style="F")
    return bytes(pdf.output())


def measure(data: bytes, name: str) -> dict[str, object]:
    """One PDF's figures: extraction and rendering CPU, image and box bytes, against the PDF's bytes."""
    started = cpu_seconds()
    extracted = PdfExtractor().extract(data, name)
    extraction = cpu_seconds() - started
    started = cpu_seconds()
    pages = render_pages(data, extracted.text, extracted.page_starts, max_pages=10_000)
    rendering = cpu_seconds() - started
    image_bytes = sum(len(p.png) for p in pages)
    starts = {
        start + m.start()
        for start, text in page_texts(extracted.text, extracted.page_starts)[: len(pages)]
        for m in re.finditer(r"\S+", text)
    }
    words = len(starts)
    boxed = len(starts & {box[0] for p in pages for box in p.boxes})  # words whose first character has a box
    starts = [start for start, _ in page_texts(extracted.text, extracted.page_starts)]
    box_bytes = sum(len(json.dumps(p.boxes_json(starts[p.number - 1]), separators=(",", ":"))) for p in pages)
    figures: dict[str, object] = {
        "pdf": name,
        "pdf_bytes": len(data),
        "pages": len(pages),
        "extract_cpu_s": round(extraction, 3),
        "render_cpu_s": round(rendering, 3),
        "cpu_ratio": round(rendering / extraction, 2) if extraction else None,
        "image_bytes": image_bytes,
        "box_bytes": box_bytes,
        "bytes_ratio": round((image_bytes + box_bytes) / len(data), 2),
        "words_boxed": round(boxed / words, 3) if words else None,
    }
    if shutil.which("pdftoppm"):
        figures["pdftoppm_cpu_s"] = round(_pdftoppm(data), 3)
    return figures


def _pdftoppm(data: bytes) -> float:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.pdf"
        source.write_bytes(data)
        started = cpu_seconds()
        subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", source, Path(folder) / "p"], check=True)
        return cpu_seconds() - started


def rasterize(born_digital: bytes) -> bytes:
    """A scan of a PDF: every page rendered at 300 dpi by PDFium, the images alone in a new PDF."""
    import io

    import pypdfium2
    from fpdf import FPDF

    from indexer.extract.ocr import page_image

    pdf = FPDF(format="A4")
    for index in range(len(pypdfium2.PdfDocument(born_digital))):
        pdf.add_page()
        pdf.image(io.BytesIO(page_image(born_digital, index)), x=0, y=0, w=210, h=297)
    return bytes(pdf.output())


def measure_ocr(born_digital: bytes, name: str) -> dict[str, object]:
    """OCR of a rasterized born-digital PDF: pages a second and word accuracy against its own text layer."""
    import difflib

    truth = PdfExtractor(ocr_languages=None).extract(born_digital, name).text.split()
    scan = rasterize(born_digital)
    started = time.monotonic()
    recognized = PdfExtractor().extract(scan, name, Limits(timeout_seconds=3600)).text.split()
    seconds = time.monotonic() - started
    blocks = difflib.SequenceMatcher(None, truth, recognized, autojunk=False).get_matching_blocks()
    pages = len(PdfExtractor(ocr_languages=None).extract(born_digital, name).page_starts) + 1
    return {
        "ocr": name,
        "pages": pages,
        "pages_per_s": round(pages / seconds, 2),
        "words": len(truth),
        "word_accuracy": round(sum(b.size for b in blocks) / len(truth), 4),
    }


def main(paths: list[str]) -> None:
    paper = two_column_paper()
    print(json.dumps(measure(paper, "generated two-column paper (20 pages)")))
    totals = {"pdf_bytes": 0, "site_bytes": 0, "extract_cpu_s": 0.0, "render_cpu_s": 0.0}
    if ocr.available():
        print(json.dumps(measure_ocr(two_column_paper(pages=3), "generated two-column paper (3 pages), rasterized")))
    for path in paths:
        try:
            figures = measure(Path(path).read_bytes(), path)
        except Exception as exc:  # a sample pincite refuses (encrypted, no text) is reported, not measured
            print(json.dumps({"pdf": path, "refused": str(exc)[:120]}))
            continue
        print(json.dumps(figures))
        totals["pdf_bytes"] += int(str(figures["pdf_bytes"]))
        totals["site_bytes"] += int(str(figures["image_bytes"])) + int(str(figures["box_bytes"]))
        totals["extract_cpu_s"] += float(str(figures["extract_cpu_s"]))
        totals["render_cpu_s"] += float(str(figures["render_cpu_s"]))
        if ocr.available() and "--ocr" in sys.argv:
            print(json.dumps(measure_ocr(Path(path).read_bytes(), path)))

    if totals["pdf_bytes"]:
        print(json.dumps({
            "all files": {**totals, "bytes_ratio": round(totals["site_bytes"] / totals["pdf_bytes"], 2),
                          "cpu_ratio": round(totals["render_cpu_s"] / max(totals["extract_cpu_s"], 1e-9), 2)},
        }))  # fmt: skip


if __name__ == "__main__":
    main([arg for arg in sys.argv[1:] if not arg.startswith("--")])
