"""The site's shape as the corpus grows: files per document version, the home page's bytes, links.

Counts and bytes, never times: what the site writes must follow what the corpus holds (issue 28).
"""

from __future__ import annotations

import json
import posixpath
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

from indexer.api import build
from indexer.config import Config
from indexer.site.history_pages import changes_page_path
from indexer.site.home import HOME_FILE
from tests.conftest import CorpusRepo


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.hrefs.append(value)


def page_links(page: Path) -> list[str]:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.hrefs


def broken_links(site: Path, pages: list[Path]) -> list[tuple[str, str]]:
    """The links of `pages` to files of the site that are not there, as (page, href)."""
    broken = []
    for page in pages:
        folder = posixpath.dirname(page.relative_to(site).as_posix())
        for href in page_links(page):
            parts = urllib.parse.urlsplit(href)
            if parts.scheme or parts.netloc or not parts.path:
                continue  # another origin, or an anchor of the page itself
            target = posixpath.normpath(posixpath.join(folder, urllib.parse.unquote(parts.path)))
            if not (site / target).is_file():
                broken.append((page.relative_to(site).as_posix(), href))
    return broken


def _build(repo: CorpusRepo, out: Path, **config: object) -> dict[str, object]:
    summary = build(repo.root, out=out, config=Config(**config))  # type: ignore[arg-type]
    assert summary.site is not None
    return summary.site


def test_only_documents_with_more_than_one_version_get_a_history_page(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({f"corpus/page{i}.md": f"# Page {i}\n\nText {i}.\n" for i in range(5)})
    corpus_repo.commit({"corpus/page0.md": "# Page 0\n\nEdited.\n"})
    site = tmp_path / "site"
    first = _build(corpus_repo, site)
    assert sorted(p.relative_to(site).as_posix() for p in (site / "changes").rglob("*.html")) == [
        "changes/corpus/page0.md.html"
    ]
    # Per one-version document: its version page and its document page, nothing more.
    assert len(list((site / "v").glob("*.html"))) == 6 and len(list((site / "doc").rglob("*.html"))) == 5
    pages = sorted(site.rglob("*.html"))
    assert not broken_links(site, [p for p in pages if "pagefind" not in p.parts])
    links = page_links(site / "doc/corpus/page0.md.html")
    assert "../../changes/corpus/page0.md.html" in links
    assert not any("changes/" in href for href in page_links(site / "doc/corpus/page1.md.html"))

    assert_history_pages_follow_the_history_files(site)

    # A second version of page1: its history page comes; its first version's page keeps its text
    # and now links the history page for a reader without JavaScript (its script finds it from the
    # path's history file too, and does not link it twice); page0's version pages stay as they were.
    old_page = site / "v" / f"{corpus_repo.git('rev-parse', 'HEAD:corpus/page1.md').strip()}.html"
    kept = {p: p.stat().st_ino for p in (site / "v").glob("*.html") if p != old_page}
    assert "changes/" not in old_page.read_text(encoding="utf-8")
    corpus_repo.commit({"corpus/page1.md": "# Page 1\n\nEdited.\n"})
    second = _build(corpus_repo, site)
    assert (site / "changes/corpus/page1.md.html").is_file()
    assert "<a href=../changes/corpus/page1.md.html>history</a>" in old_page.read_text(encoding="utf-8")
    assert all(p.stat().st_ino == inode for p, inode in kept.items())
    # page1: its new version page, its first version's, its document page, its history page and the diff page.
    assert second["pages_rendered"] == 5, (first, second)
    assert not broken_links(site, [p for p in sorted(site.rglob("*.html")) if "pagefind" not in p.parts])
    assert_history_pages_follow_the_history_files(site)


def assert_history_pages_follow_the_history_files(site: Path) -> None:
    """A path has a history page exactly when its record holds more than one interval: the rule
    by which a version page's script (history-files.js, hasHistoryPage) adds the link."""
    for shard in (site / "history").glob("*.json"):
        for path, record in json.loads(shard.read_text(encoding="utf-8"))["paths"].items():
            intervals = sum(len(v["ranges"]) for v in record["versions"].values())
            assert (site / changes_page_path(path)).is_file() == (intervals > 1), path


HOME_BUDGET = 200_000  # bytes: the home page at any number of documents (issue 28)


def test_a_large_sites_home_page_lists_folders_within_its_budget(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    files: dict[str, str | bytes | None] = {
        f"corpus/lang{f:02d}/page{n:03d}.md": f"# Page {f} {n}\n\nWord{n} of folder {f}.\n"
        for f in range(30)
        for n in range(100)
    }
    files.update({f"corpus/small{f}/note{n}.md": f"# Note {f} {n}\n\nSmall.\n" for f in range(3) for n in range(4)})
    corpus_repo.commit(files)
    site = tmp_path / "site"
    _build(corpus_repo, site)
    home = site / "index.html"
    assert home.stat().st_size <= HOME_BUDGET, home.stat().st_size
    links = page_links(home)
    # Every folder's page is linked, the small folders' documents are listed too, no other document.
    assert sum(href.startswith("folders/") for href in links) == 33
    documents = [href for href in links if href.startswith("doc/")]
    assert sorted(documents) == sorted(f"doc/corpus/small{f}/note{n}.md.html" for f in range(3) for n in range(4))
    folder_page = site / "folders/corpus/lang07/index.html"
    assert sum(href.startswith("../../../doc/corpus/lang07/") for href in page_links(folder_page)) == 100
    pages = [home, *sorted((site / "folders").rglob("*.html"))]
    assert len(pages) == 34 and not broken_links(site, pages)


def test_a_rebuild_writes_only_the_folder_pages_whose_documents_changed(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit(
        {f"corpus/lang{f}/page{n:03d}.md": f"# Page {f} {n}\n\nWord{n}.\n" for f in range(3) for n in range(100)}
    )
    site = tmp_path / "site"
    _build(corpus_repo, site)
    pages = {f: site / f"folders/corpus/lang{f}/index.html" for f in range(3)}
    inodes = {f: page.stat().st_ino for f, page in pages.items()}
    # The home file keeps no folder page's rows: the page itself is kept.
    kept = json.loads((site / HOME_FILE).read_text(encoding="utf-8"))["sections"]
    assert all(html == "" for name, (_key, html) in kept.items() if name.startswith("folders/")), kept.keys()
    assert any(name.startswith("folders/") for name in kept)

    corpus_repo.commit({"corpus/lang1/page007.md": "# Page 1 7\n\nEdited.\n"})
    _build(corpus_repo, site)
    assert [f for f, page in pages.items() if page.stat().st_ino != inodes[f]] == [1]
    assert all(page.is_file() for page in pages.values())
    assert sum(href.startswith("../../../doc/corpus/lang0/") for href in page_links(pages[0])) == 100

    # A site whose home file was lost renders every folder page again, the same pages.
    before = {f: page.read_bytes() for f, page in pages.items()}
    (site / HOME_FILE).unlink()
    corpus_repo.commit({"corpus/lang2/page008.md": "# Page 2 8\n\nEdited.\n"})
    _build(corpus_repo, site)
    assert all(pages[f].stat().st_ino != inodes[f] for f in range(3))
    assert pages[0].read_bytes() == before[0]


def test_a_small_sites_home_page_lists_every_document(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({f"corpus/part{f}/page{n}.md": f"# Page {f} {n}\n" for f in range(4) for n in range(10)})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    documents = [href for href in page_links(site / "index.html") if href.startswith("doc/")]
    assert len(documents) == 40 and not (site / "folders").exists()
