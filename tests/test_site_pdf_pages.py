"""The pages as printed a build publishes for a PDF version: files, figures, the static highlight, reuse."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from extract_samples import pdf_of_pages, two_column_pdf
from PIL import Image

from indexer.api import build
from indexer.config import load_config
from indexer.extract.pdf import PdfExtractor
from indexer.extract.pdf_pages import decode_boxes

pytest.importorskip("pypdfium2")


NO_BUDGET = "pdf_page_budget = 0\n"  # these small PDFs' pages would not fit in 2x their bytes


def _site(
    corpus_repo: Any, tmp_path: Path, files: dict[str, bytes], settings_file: str = NO_BUDGET, **settings: Any
) -> tuple[Path, str]:
    (corpus_repo.root / "pincite.toml").write_text(settings_file, encoding="utf-8")
    corpus_repo.commit(files, "pdfs")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=load_config(corpus_repo.root, settings))
    return site, corpus_repo.git("rev-parse", f"HEAD:{next(iter(files))}").strip()


def test_a_pdf_version_page_shows_its_pages_with_static_boxes(corpus_repo: Any, tmp_path: Path) -> None:
    site, blob = _site(corpus_repo, tmp_path, {"corpus/paper.pdf": two_column_pdf()})
    folder = site / "pages" / blob
    assert sorted(p.name for p in folder.iterdir()) == ["1.json", "1.png", "2.json", "2.png", "lines.css"]
    html = (site / "v" / f"{blob}.html").read_text(encoding="utf-8")
    assert html.count('<figure class="pdf-page"') == 2
    assert 'alt="Page 1 of the PDF as printed; its text is lines 1–' in html
    assert "style=" not in html.split('<aside class="pdf-pages"', 1)[1]  # the CSP refuses inline styles
    # Each boxed line has its rule, which shows its page and its group of rectangles.
    css = (folder / "lines.css").read_text(encoding="utf-8")
    for line, _page in re.findall(r"#L(\d+):target\) :is\(#pp(\d+),\.l\1\)", css):
        assert f'<g class="s l{line}">' in html
    assert css.count("\n") > 20
    boxes = json.loads((folder / "2.json").read_text(encoding="utf-8"))
    runs = decode_boxes(boxes["lines"], boxes["start"])
    assert runs and all(boxes["start"] <= r[0] < r[1] for r in runs)


def test_setting_limits_and_turns_off_the_pages(corpus_repo: Any, tmp_path: Path) -> None:
    pdf = pdf_of_pages([["first page"], ["second page"], ["third page"]])
    site, blob = _site(corpus_repo, tmp_path, {"corpus/three.pdf": pdf}, pdf_page_images=2)
    assert sorted(p.name for p in (site / "pages" / blob).glob("*.png")) == ["1.png", "2.png"]
    build(corpus_repo.root, out=site, config=load_config(corpus_repo.root, {"pdf_page_images": 0}))
    assert not (site / "pages").exists()
    assert "pdf-page" not in (site / "v" / f"{blob}.html").read_text(encoding="utf-8")


def test_a_rebuild_links_the_pages_it_published(corpus_repo: Any, tmp_path: Path) -> None:
    site, blob = _site(corpus_repo, tmp_path, {"corpus/paper.pdf": two_column_pdf(pages=1)})
    before = (site / "pages" / blob / "1.png").stat().st_ino
    corpus_repo.commit({"corpus/note.md": "# A note\n"}, "another document")
    build(corpus_repo.root, out=site)
    assert (site / "pages" / blob / "1.png").stat().st_ino == before
    assert '<figure class="pdf-page"' in (site / "v" / f"{blob}.html").read_text(encoding="utf-8")


def test_pdf_page_images_takes_zero_and_refuses_a_negative_count(corpus_repo: Any) -> None:
    from indexer.errors import ConfigError

    corpus_repo.commit({"corpus/a.md": "# A\n"}, "start")
    assert load_config(corpus_repo.root, {"pdf_page_images": 0}).pdf_page_images == 0
    with pytest.raises(ConfigError, match=r"pdf_page_images.*0 or more"):
        load_config(corpus_repo.root, {"pdf_page_images": -1})
    with pytest.raises(ConfigError, match="positive number"):
        load_config(corpus_repo.root, {"pdf_max_pages": 0})


def _site_bytes(site: Path, blob: str) -> int:
    return sum(f.stat().st_size for f in (site / "pages" / blob).iterdir())


def test_the_pages_of_a_pdf_take_at_most_their_budget_and_the_page_says_which_are_left_out(
    corpus_repo: Any, tmp_path: Path
) -> None:
    pdf = two_column_pdf(pages=6)
    site, blob = _site(corpus_repo, tmp_path, {"corpus/paper.pdf": pdf}, settings_file="pdf_page_budget = 4\n")
    pngs = sorted(p.name for p in (site / "pages" / blob).glob("*.png"))
    assert 0 < len(pngs) < 6  # 6 pages of text would take ~20x this PDF's bytes; some fit in 4x
    assert _site_bytes(site, blob) <= 4 * len(pdf)
    html = (site / "v" / f"{blob}.html").read_text(encoding="utf-8")
    assert html.count('<figure class="pdf-page"') == len(pngs)
    cut = re.search(r'<p class="pdf-cut">(.*?)</p>', html)
    named = f"ages {len(pngs) + 1}–6 are not" if len(pngs) < 5 else "age 6 is not"
    assert cut is not None and f"{named} shown as printed" in cut.group(1)
    assert f"{len(pngs) + 1}–6 do not fit" in cut.group(1) or "page 6 does not fit" in cut.group(1)
    assert "pdf_page_budget" in cut.group(1)
    # The build says so too; a larger budget shows more pages (the cache's shorter entry is not reused).
    summary = build(corpus_repo.root, out=site, config=load_config(corpus_repo.root, {"pdf_page_budget": 8}))
    assert len(list((site / "pages" / blob).glob("*.png"))) > len(pngs)
    assert _site_bytes(site, blob) <= 8 * len(pdf)
    summary = build(corpus_repo.root, out=site)
    assert any(w.startswith("corpus/paper.pdf: pages as printed cut short:") for w in summary.warnings)
    assert sorted(p.name for p in (site / "pages" / blob).glob("*.png")) == pngs


def test_the_budget_goes_to_the_page_a_citation_names_first_then_to_the_others(
    corpus_repo: Any, tmp_path: Path
) -> None:
    pdf = two_column_pdf(pages=6)
    (corpus_repo.root / "pincite.toml").write_text("pdf_page_budget = 4\n", encoding="utf-8")
    pinned = corpus_repo.commit({"corpus/paper.pdf": pdf}, "a paper")
    extracted = PdfExtractor().extract(pdf, "paper.pdf")
    line = extracted.text[: extracted.page_starts[3] + 1].count("\n") + 2  # a line of page 5
    quote = extracted.text.splitlines()[line - 1][:30]
    corpus_repo.commit({"corpus/note.md": f'# Note\n\n"{quote}" corpus/paper.pdf@{pinned}#L{line}\n'}, "cite page 5")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    blob = corpus_repo.git("rev-parse", "HEAD:corpus/paper.pdf").strip()
    pngs = sorted(p.name for p in (site / "pages" / blob).glob("*.png"))
    assert "5.png" in pngs and len(pngs) < 6 and _site_bytes(site, blob) <= 4 * len(pdf)
    html = (site / "v" / f"{blob}.html").read_text(encoding="utf-8")
    figures = re.findall(r'<figure class="pdf-page" id="pp(\d+)"', html)
    assert figures == sorted(figures, key=int) and "5" in figures  # shown in page order
    assert "(the cited pages go first)" in html
    assert f"#L{line}:target) :is(#pp5," in (site / "pages" / blob / "lines.css").read_text(encoding="utf-8")


def test_by_default_a_short_memo_shows_its_page_in_one_bit(corpus_repo: Any, tmp_path: Path) -> None:
    pdf = pdf_of_pages([["A short memo of one line."]])
    site, blob = _site(corpus_repo, tmp_path, {"corpus/memo.pdf": pdf}, settings_file="")
    assert _site_bytes(site, blob) <= 2 * len(pdf)  # a page of black text on white: two tones, 1 bit a pixel
    with Image.open(site / "pages" / blob / "1.png") as image:
        assert image.mode in ("1", "P") and len(image.convert("L").getcolors() or ()) == 2


def test_by_default_a_dense_page_of_text_that_does_not_fit_shows_no_image_and_says_why(
    corpus_repo: Any, tmp_path: Path
) -> None:
    pdf = two_column_pdf(pages=1)
    site, blob = _site(corpus_repo, tmp_path, {"corpus/memo.pdf": pdf}, settings_file="")
    assert not (site / "pages" / blob).exists()
    html = (site / "v" / f"{blob}.html").read_text(encoding="utf-8")
    assert '<figure class="pdf-page"' not in html
    assert "No page is shown as printed: its page images may take at most 2× the PDF&#39;s" in html


def test_cited_pages_are_the_pages_holding_any_cited_line() -> None:
    from indexer.site.pdf_pages import cited_pages

    text = "a\nb\n\f\nc\nd\n\f\ne"  # page 1: lines 1-2, page 2: lines 4-5, page 3: line 7
    line_starts = (0, *(i + 1 for i, ch in enumerate(text) if ch == "\n"))
    spans = ((0, 4), (6, 10), (12, 13))
    assert cited_pages(line_starts, spans, [(2, 2)]) == {1}
    assert cited_pages(line_starts, spans, [(2, 4)]) == {1, 2}
    assert cited_pages(line_starts, spans, [(7, 7), (5, 5)]) == {2, 3}
    assert cited_pages(line_starts, spans, [(99, 99)]) == set()
