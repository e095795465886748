"""The pages as printed a build publishes for a PDF version: files, figures, the static highlight, reuse."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from extract_samples import pdf_of_pages, two_column_pdf

from indexer.api import build
from indexer.config import load_config
from indexer.extract.pdf_pages import decode_boxes

pytest.importorskip("pypdfium2")


def _site(corpus_repo: Any, tmp_path: Path, files: dict[str, bytes], **settings: Any) -> tuple[Path, str]:
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
