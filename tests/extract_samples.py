"""Real PDF and HTML files for extraction tests, written with fpdf2 and pypdf."""

from __future__ import annotations

import datetime as dt
import io

from fpdf import FPDF
from fpdf.enums import EncryptionMethod

FIXED_DATE = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def pdf_of_pages(
    pages: list[list[str]], *, user_password: str | None = None, owner_password: str = "", method: str = "RC4"
) -> bytes:
    """A PDF with one page per item; each page holds the given paragraphs (Latin-1 text).

    With a `user_password` it is encrypted by `method` (RC4, AES_128 or AES_256).
    """
    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_auto_page_break(auto=False)
    if user_password is not None:
        pdf.set_encryption(
            owner_password=owner_password or "owner-secret",
            user_password=user_password,
            encryption_method=EncryptionMethod[method],
        )
    return _written(pdf, pages)


def _written(pdf: FPDF, pages: list[list[str]]) -> bytes:
    """`pdf` with a page of Helvetica paragraphs for each entry of `pages`, as bytes."""
    for paragraphs in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", size=11)
        for paragraph in paragraphs:
            pdf.multi_cell(0, 6, paragraph, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
    return bytes(pdf.output())


def pdf_without_text(pages: int = 2) -> bytes:
    """A PDF whose pages only hold drawings (as a scan without OCR holds only images)."""
    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    for number in range(pages):
        pdf.add_page()
        pdf.set_fill_color(40 * number, 90, 160)
        pdf.rect(20, 20, 120, 80, style="F")
        pdf.circle(x=100, y=200, radius=30, style="D")
    return bytes(pdf.output())


def pdf_with_heavy_page(operations: int = 100_000) -> bytes:
    """A valid one-page PDF whose content stream shows text `operations` times: slow to extract."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=595, height=842)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    stream = DecodedStreamObject()
    stream.set_data(b"BT /F1 10 Tf 20 800 Td " + b"(word ) Tj 0 -0.001 Td " * operations + b"ET")
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def pdf_with_small_caps() -> bytes:
    """A one-page PDF whose font's ToUnicode table maps its codes A R P to Adobe's small-cap code
    points (U+F761 U+F772 U+F770, as a small-caps font without Unicode does) and Q to an
    unassigned private-use one (U+E001); the line reads "Funded by ARPA and Q."."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=595, height=842)
    pairs = {code: code for code in range(0x20, 0x7F)} | {0x41: 0xF761, 0x52: 0xF772, 0x50: 0xF770, 0x51: 0xE001}
    cmap = DecodedStreamObject()
    cmap.set_data(
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Small def "
        b"1 begincodespacerange <00> <FF> endcodespacerange "
        + f"{len(pairs)} beginbfchar ".encode()
        + b" ".join(f"<{code:02X}> <{value:04X}>".encode() for code, value in pairs.items())
        + b" endbfchar endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/ToUnicode"): writer._add_object(cmap),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    stream = DecodedStreamObject()
    stream.set_data(b"BT /F1 12 Tf 72 760 Td (Funded by ARPA and Q.) Tj ET")
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def pdf_with_page_numbers(pages: list[list[str]]) -> bytes:
    """Like `pdf_of_pages`, with each page's number alone in its footer, as papers print it."""

    class Numbered(FPDF):
        def footer(self) -> None:
            self.set_y(-15)
            self.set_font("Helvetica", size=9)
            self.cell(0, 10, str(self.page_no()), align="C")

    pdf = Numbered(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    return _written(pdf, pages)


def html_page(body: str, head: str = '<meta charset="utf-8"><title>Sample page</title>') -> bytes:
    return f"<!DOCTYPE html>\n<html><head>{head}</head><body>{body}</body></html>\n".encode()


ARTICLE = (
    "<article><h1>Expense claims</h1>"
    "<p>Claims are submitted within thirty days of the trip, with receipts for every item except the "
    "per-diem allowance, which needs no receipt at all.</p>"
    "<p>The finance team pays approved claims with the next monthly payment run and tells the claimant "
    "when a claim is refused, with the reason.</p></article>"
)


def two_column_pdf(pages: int = 2, seed: int = 2) -> bytes:
    """A two-column A4 PDF (Helvetica 10 pt, three paragraphs a column) of made-up words."""
    import random

    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma", "omega"]
    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_auto_page_break(auto=False)
    for _ in range(pages):
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        for x in (15, 110):
            pdf.set_left_margin(x)
            pdf.set_xy(x, 20)
            for _ in range(3):
                text = " ".join(rng.choice(words) for _ in range(60))
                pdf.multi_cell(85, 5, text, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
    return bytes(pdf.output())


def rasterized(born_digital: bytes) -> bytes:
    """A scan of `born_digital`: each page rendered at 300 dpi by PDFium, the images alone in a new PDF."""
    import pypdfium2

    from indexer.extract.ocr import page_image

    count = len(pypdfium2.PdfDocument(born_digital))
    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    for index in range(count):
        pdf.add_page()
        pdf.image(io.BytesIO(page_image(born_digital, index)), x=0, y=0, w=210, h=297)
    return bytes(pdf.output())


def concatenated(*pdfs: bytes) -> bytes:
    """The pages of `pdfs`, one after another, in one PDF (a born-digital page beside a scanned one)."""
    import pypdf

    writer = pypdf.PdfWriter()
    for data in pdfs:
        writer.append(io.BytesIO(data))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


RECORDS = [
    "Personnel records are kept for seven years after the employee departs, and then destroyed under "
    "the supervision of the records officer.",
    "Requests for access must be made in writing to the archive, stating the purpose of the request and "
    "the records sought; the archive answers within thirty days.",
    "Retention schedules are reviewed every second year by the committee, which publishes its decisions "
    "in the minutes of the following meeting.",
]
